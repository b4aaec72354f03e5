// Package llmfake is a local HTTP server speaking OpenAI's chat-completions
// wire format (POST /v1/chat/completions, function calling, usage), so tests
// can drive langchaingo's real openai client, and programs configured with
// OPENAI_BASE_URL, without a network or a key.
//
// A Handler computes each reply from the decoded request; the server records
// every request. Streaming requests are refused with HTTP 400: the clients
// agentgraph uses for tools and routing do not stream.
//
//	srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
//		if r.HasTool("choose") {
//			return llmfake.Call("choose", `{"choice":"FINISH"}`)
//		}
//		return llmfake.Text("done")
//	})
//	defer srv.Close()
//	// OPENAI_BASE_URL=srv.URL() OPENAI_API_KEY=x
package llmfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Request is one decoded chat-completions request.
type Request struct {
	Model      string          `json:"model"`
	Messages   []Message       `json:"messages"`
	Tools      []Tool          `json:"tools,omitempty"`
	ToolChoice json.RawMessage `json:"tool_choice,omitempty"`
	Stream     bool            `json:"stream,omitempty"`
	// Raw is the request body as sent.
	Raw []byte `json:"-"`
}

// Message is one chat message of a request.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// Text is the message's text: the content string, or the text parts of a
// content array joined.
func (m Message) Text() string {
	if len(m.Content) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Tool is a function the request offers the model.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

// ToolCall is a function call, in a request's assistant message or a reply.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// HasTool says whether the request offers a function called name.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// ToolNames lists the functions the request offers, in order.
func (r Request) ToolNames() []string {
	out := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// ToolResults are the request's tool messages, in order.
func (r Request) ToolResults() []Message {
	var out []Message
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// Text joins the text of every message, for assertions and routing.
func (r Request) Text() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Text())
		b.WriteByte('\n')
	}
	return b.String()
}

// System is the text of the first system message ("" when none).
func (r Request) System() string {
	for _, m := range r.Messages {
		if m.Role == "system" {
			return m.Text()
		}
	}
	return ""
}

// Reply is the server's answer to one request.
type Reply struct {
	// Content is the assistant's text.
	Content string
	// Calls are the function calls of the answer (IDs are filled in when
	// empty).
	Calls []Call
	// Status, when 400 or more, answers with an OpenAI error body carrying
	// Content as its message instead of a completion.
	Status int
	// PromptTokens and CompletionTokens are reported as usage; zero values
	// are estimated from the sizes (4 bytes a token).
	PromptTokens, CompletionTokens int
}

// Call is one function call of a Reply; Arguments is sent as is (it need
// not be valid JSON, to test how clients cope).
type Call struct {
	ID, Name, Arguments string
}

// Text is a reply with text only.
func Text(s string) Reply { return Reply{Content: s} }

// CallTool is a reply calling one function.
func CallTool(name, arguments string) Reply {
	return Reply{Calls: []Call{{Name: name, Arguments: arguments}}}
}

// Error is an HTTP error reply.
func Error(status int, message string) Reply { return Reply{Status: status, Content: message} }

// Handler computes the reply to a request.
type Handler func(Request) Reply

// Server is the fake provider. Safe for concurrent use.
type Server struct {
	srv     *httptest.Server
	handler Handler
	mu      sync.Mutex
	reqs    []Request
	calls   int
}

// New starts a server answering with h.
func New(h Handler) *Server {
	s := &Server{handler: h}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the API root to configure clients with, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("llmfake: no route %s %s", r.Method, r.URL.Path))
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "llmfake: read body: "+err.Error())
		return
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		writeError(w, http.StatusBadRequest, "llmfake: body is not a chat-completions request: "+err.Error())
		return
	}
	req.Raw = raw
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.calls++
	n := s.calls
	s.mu.Unlock()
	if req.Stream {
		writeError(w, http.StatusBadRequest, "llmfake: streaming is not supported")
		return
	}
	rep := s.handler(req)
	if rep.Status >= 400 {
		writeError(w, rep.Status, rep.Content)
		return
	}
	writeCompletion(w, req, rep, n)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	typ := "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

func writeCompletion(w http.ResponseWriter, req Request, rep Reply, n int) {
	type message struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		ToolCalls []ToolCall `json:"tool_calls,omitempty"`
		Refusal   *string    `json:"refusal"`
	}
	msg := message{Role: "assistant"}
	if rep.Content != "" || len(rep.Calls) == 0 {
		msg.Content = &rep.Content
	}
	out := len(rep.Content)
	for i, c := range rep.Calls {
		tc := ToolCall{ID: c.ID, Type: "function"}
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d_%d", n, i)
		}
		tc.Function.Name, tc.Function.Arguments = c.Name, c.Arguments
		msg.ToolCalls = append(msg.ToolCalls, tc)
		out += len(c.Name) + len(c.Arguments)
	}
	finish := "stop"
	if len(rep.Calls) > 0 {
		finish = "tool_calls"
	}
	prompt, completion := rep.PromptTokens, rep.CompletionTokens
	if prompt == 0 {
		prompt = len(req.Raw)/4 + 1
	}
	if completion == 0 {
		completion = out/4 + 1
	}
	model := req.Model
	if model == "" {
		model = "llmfake"
	}
	body := map[string]any{
		"id": fmt.Sprintf("chatcmpl-fake%d", n), "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"prompt_tokens_details":     map[string]any{"cached_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0}},
		"system_fingerprint": "fp_llmfake",
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

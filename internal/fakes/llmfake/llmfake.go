// Package llmfake is a local HTTP server speaking the wire formats of the
// model providers agentgraph's tests drive: OpenAI's chat completions
// (POST /v1/chat/completions, function calling, image parts, usage) and
// Anthropic's messages (POST /v1/messages, tool use, image blocks, usage).
// Tests drive langchaingo's real clients, and programs configured with
// OPENAI_BASE_URL or ANTHROPIC_BASE_URL, without a network or a key. It is
// the module's one fake per provider wire format: a test that needs another
// provider's wire adds it here.
//
// A Handler computes each reply from the request, decoded into one shape
// whatever the wire; the server records every request and totals the usage
// it reports. Streaming requests are refused with HTTP 400: the clients
// agentgraph uses for tools and routing do not stream. OpenAI's embeddings
// endpoint (POST /v1/embeddings) answers every input with [Embed]'s vector.
//
//	srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
//		if r.HasTool("choose") {
//			return llmfake.CallTool("choose", `{"choice":"FINISH"}`)
//		}
//		return llmfake.Text("done")
//	})
//	defer srv.Close()
//	// OPENAI_BASE_URL=srv.URL() OPENAI_API_KEY=x
//	// or ANTHROPIC_BASE_URL=srv.URL() ANTHROPIC_API_KEY=x
//
// [Script] answers with a fixed list of replies in order.
package llmfake

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Wire is a provider's wire format.
type Wire string

// The wire formats the server speaks.
const (
	// OpenAI is the chat-completions format, POST /v1/chat/completions.
	OpenAI Wire = "openai"
	// Anthropic is the messages format, POST /v1/messages.
	Anthropic Wire = "anthropic"
)

// Request is one decoded request. An Anthropic request is decoded into the
// same shape: its system prompt becomes a leading "system" message, its
// tool_use blocks become ToolCalls of the assistant message and its
// tool_result blocks "tool" messages, its tools' input_schema becomes
// Function.Parameters.
type Request struct {
	// Wire is the format the request came in.
	Wire       Wire            `json:"-"`
	Model      string          `json:"model"`
	Messages   []Message       `json:"messages"`
	Tools      []Tool          `json:"tools,omitempty"`
	ToolChoice json.RawMessage `json:"tool_choice,omitempty"`
	Stream     bool            `json:"stream,omitempty"`
	// APIKey is the key the client sent (the bearer token of OpenAI's
	// Authorization header, Anthropic's x-api-key).
	APIKey string `json:"-"`
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

// Image is an image part of a message: base64 data and its MIME type.
type Image struct {
	MIME, Data string
}

// Images are the message's base64 image parts: OpenAI's image_url parts
// holding data URLs, Anthropic's image blocks with a base64 source.
func (m Message) Images() []Image {
	var parts []struct {
		Type     string `json:"type"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
		Source struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
	}
	if len(m.Content) == 0 || json.Unmarshal(m.Content, &parts) != nil {
		return nil
	}
	var out []Image
	for _, p := range parts {
		switch {
		case p.Type == "image_url":
			if mime, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL.URL, "data:"), ";base64,"); ok {
				out = append(out, Image{MIME: mime, Data: data})
			}
		case p.Type == "image" && p.Source.Type == "base64":
			out = append(out, Image{MIME: p.Source.MediaType, Data: p.Source.Data})
		}
	}
	return out
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

// Last is the request's last message (the zero Message when none).
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// Images are the image parts of every message, in order.
func (r Request) Images() []Image {
	var out []Image
	for _, m := range r.Messages {
		out = append(out, m.Images()...)
	}
	return out
}

// Reply is the server's answer to one request.
type Reply struct {
	// Content is the assistant's text.
	Content string
	// Calls are the function calls of the answer (IDs are filled in when
	// empty).
	Calls []Call
	// Status, when 400 or more, answers with an error body of the request's
	// wire carrying Content as its message instead of a completion.
	Status int
	// PromptTokens and CompletionTokens are reported as usage; zero values
	// are estimated from the sizes (4 bytes a token).
	PromptTokens, CompletionTokens int
}

// Call is one function call of a Reply. On the OpenAI wire Arguments is
// sent as is (it need not be valid JSON, to test how clients cope); on the
// Anthropic wire it is the tool_use input, sent as a string when it is not
// valid JSON.
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

// Script is a Handler answering with replies in order, one a request; past
// the end it answers HTTP 400 (which clients do not retry) naming the
// request's number, so a test sees at once a conversation longer than it
// planned. Safe for concurrent use.
func Script(replies ...Reply) Handler {
	var mu sync.Mutex
	next := 0
	return func(Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		next++
		if next > len(replies) {
			return Error(http.StatusBadRequest, fmt.Sprintf("llmfake: script has %d replies, request %d has none", len(replies), next))
		}
		return replies[next-1]
	}
}

// Server is the fake provider. Safe for concurrent use.
type Server struct {
	srv     *httptest.Server
	handler Handler
	mu      sync.Mutex
	reqs    []Request
	calls   int
	// prompt and completion total the usage reported so far.
	prompt, completion int
}

// New starts a server answering with h.
func New(h Handler) *Server {
	s := &Server{handler: h}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the API root to configure clients with, ending in /v1 (for either
// wire).
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Usage totals the prompt and completion tokens the server has reported.
func (s *Server) Usage() (prompt, completion int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prompt, s.completion
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var wire Wire
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		wire = OpenAI
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		wire = Anthropic
	case r.Method == http.MethodPost && r.URL.Path == "/v1/embeddings":
		s.serveEmbeddings(w, r)
		return
	default:
		writeError(w, OpenAI, http.StatusNotFound, fmt.Sprintf("llmfake: no route %s %s", r.Method, r.URL.Path))
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, wire, http.StatusBadRequest, "llmfake: read body: "+err.Error())
		return
	}
	req, err := decode(wire, raw)
	if err != nil {
		writeError(w, wire, http.StatusBadRequest, fmt.Sprintf("llmfake: body is not a %s request: %v", wire, err))
		return
	}
	req.Raw = raw
	if wire == Anthropic {
		req.APIKey = r.Header.Get("X-Api-Key")
	} else {
		req.APIKey = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.calls++
	n := s.calls
	s.mu.Unlock()
	if req.Stream {
		writeError(w, wire, http.StatusBadRequest, "llmfake: streaming is not supported")
		return
	}
	rep := s.handler(req)
	if rep.Status >= 400 {
		writeError(w, wire, rep.Status, rep.Content)
		return
	}
	rep = usage(req, rep)
	s.mu.Lock()
	s.prompt += rep.PromptTokens
	s.completion += rep.CompletionTokens
	s.mu.Unlock()
	if wire == Anthropic {
		writeMessage(w, req, rep, n)
		return
	}
	writeCompletion(w, req, rep, n)
}

// usage fills in the reply's token counts the handler left zero: 4 bytes a
// token of the request body and of the answer.
func usage(req Request, rep Reply) Reply {
	if rep.PromptTokens == 0 {
		rep.PromptTokens = len(req.Raw)/4 + 1
	}
	if rep.CompletionTokens == 0 {
		out := len(rep.Content)
		for _, c := range rep.Calls {
			out += len(c.Name) + len(c.Arguments)
		}
		rep.CompletionTokens = out/4 + 1
	}
	return rep
}

// decode reads a request body of the wire into a Request.
func decode(wire Wire, raw []byte) (Request, error) {
	var req Request
	if wire == OpenAI {
		err := json.Unmarshal(raw, &req)
		req.Wire = OpenAI
		return req, err
	}
	var in struct {
		Model    string          `json:"model"`
		System   json.RawMessage `json:"system,omitempty"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			InputSchema json.RawMessage `json:"input_schema,omitempty"`
		} `json:"tools,omitempty"`
		ToolChoice json.RawMessage `json:"tool_choice,omitempty"`
		Stream     bool            `json:"stream,omitempty"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return req, err
	}
	req = Request{Wire: Anthropic, Model: in.Model, ToolChoice: in.ToolChoice, Stream: in.Stream}
	if len(in.System) > 0 {
		req.Messages = append(req.Messages, Message{Role: "system", Content: in.System})
	}
	for _, m := range in.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(m.Content, &blocks) // a string content has no blocks
		msg := Message{Role: m.Role, Content: m.Content}
		var results []Message
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				tc := ToolCall{ID: b.ID, Type: "function"}
				tc.Function.Name, tc.Function.Arguments = b.Name, string(b.Input)
				msg.ToolCalls = append(msg.ToolCalls, tc)
			case "tool_result":
				results = append(results, Message{Role: "tool", Content: b.Content, ToolCallID: b.ToolUseID})
			}
		}
		if len(results) > 0 && len(results) == len(blocks) {
			req.Messages = append(req.Messages, results...)
			continue
		}
		req.Messages = append(req.Messages, msg)
		req.Messages = append(req.Messages, results...)
	}
	for _, t := range in.Tools {
		var tool Tool
		tool.Type = "function"
		tool.Function.Name, tool.Function.Description, tool.Function.Parameters = t.Name, t.Description, t.InputSchema
		req.Tools = append(req.Tools, tool)
	}
	return req, nil
}

func writeError(w http.ResponseWriter, wire Wire, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	typ := "invalid_request_error"
	switch {
	case status >= 500:
		typ = "api_error"
		if wire == OpenAI {
			typ = "server_error"
		}
	case status == http.StatusTooManyRequests && wire == Anthropic:
		typ = "rate_limit_error"
	}
	body := map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}}
	if wire == Anthropic {
		body = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	}
	_ = json.NewEncoder(w).Encode(body)
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
	for i, c := range rep.Calls {
		tc := ToolCall{ID: c.ID, Type: "function"}
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d_%d", n, i)
		}
		tc.Function.Name, tc.Function.Arguments = c.Name, c.Arguments
		msg.ToolCalls = append(msg.ToolCalls, tc)
	}
	finish := "stop"
	if len(rep.Calls) > 0 {
		finish = "tool_calls"
	}
	prompt, completion := rep.PromptTokens, rep.CompletionTokens
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

// writeMessage answers an Anthropic messages request.
func writeMessage(w http.ResponseWriter, req Request, rep Reply, n int) {
	content := []any{}
	if rep.Content != "" || len(rep.Calls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": rep.Content})
	}
	for i, c := range rep.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_fake%d_%d", n, i)
		}
		var input any = c.Arguments
		if json.Valid([]byte(c.Arguments)) {
			input = json.RawMessage(c.Arguments)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": input})
	}
	stop := "end_turn"
	if len(rep.Calls) > 0 {
		stop = "tool_use"
	}
	model := req.Model
	if model == "" {
		model = "llmfake"
	}
	body := map[string]any{
		"id": fmt.Sprintf("msg_fake%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": rep.PromptTokens, "output_tokens": rep.CompletionTokens},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// EmbedDims is the length of Embed's vectors.
const EmbedDims = 64

// Embed is the fake's embedding of a text: each lower-cased word (a run of
// letters and digits) hashed to one of EmbedDims axes with a sign, summed and
// scaled to unit length, so texts sharing words are near each other. A text
// without words is the zero vector.
func Embed(text string) []float32 {
	v := make([]float64, EmbedDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		sum := h.Sum32()
		sign := 1.0
		if sum&(1<<31) != 0 {
			sign = -1
		}
		v[sum%EmbedDims] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, EmbedDims)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// serveEmbeddings answers OpenAI's embeddings request (input a string or a
// list of strings; float encoding only). Its usage counts as prompt tokens.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat string          `json:"encoding_format,omitempty"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, OpenAI, http.StatusBadRequest, "llmfake: body is not an embeddings request: "+err.Error())
		return
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" {
		writeError(w, OpenAI, http.StatusBadRequest, "llmfake: encoding_format "+req.EncodingFormat+" is not supported")
		return
	}
	var inputs []string
	var one string
	if json.Unmarshal(req.Input, &one) == nil {
		inputs = []string{one}
	} else if err := json.Unmarshal(req.Input, &inputs); err != nil || len(inputs) == 0 {
		writeError(w, OpenAI, http.StatusBadRequest, "llmfake: input is neither a string nor a non-empty list of strings")
		return
	}
	data := make([]any, len(inputs))
	tokens := 0
	for i, in := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Embed(in)}
		tokens += len(in)/4 + 1
	}
	s.mu.Lock()
	s.prompt += tokens
	s.mu.Unlock()
	model := req.Model
	if model == "" {
		model = "llmfake-embedding"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": model,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
}

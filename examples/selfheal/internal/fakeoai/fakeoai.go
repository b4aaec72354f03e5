// Package fakeoai is a fake OpenAI chat completions server for the
// selfheal tests: an httptest server speaking the wire format that
// langchaingo's openai client (and so llm.Factory) talks. It tells the
// team's roles apart by their system prompt ("You are the <role> …") and
// reports deterministic token usage (a token per four characters).
package fakeoai

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Key is the API key the server accepts.
const Key = "sk-test"

// ReplyFunc answers the n-th call (from 1) of role, whose last user message
// is user.
type ReplyFunc func(role string, n int, user string) string

// Server is the fake provider. Close it when done.
type Server struct {
	srv   *httptest.Server
	reply ReplyFunc

	mu     sync.Mutex
	calls  map[string]int
	models map[string]string
	in     int
	out    int
}

// New starts a server answering with reply.
func New(reply ReplyFunc) *Server {
	s := &Server{reply: reply, calls: map[string]int{}, models: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// BaseURL is the API root to put in OPENAI_BASE_URL (it ends in /v1).
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Calls returns the number of calls per role.
func (s *Server) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

// Models returns the model name each role's last request asked for.
func (s *Server) Models() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.models)
}

// Tokens returns the prompt and completion tokens reported so far.
func (s *Server) Tokens() (in, out int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.in, s.out
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text reads content given as a string or as a list of text parts.
func (m message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": msg, "type": "invalid_request_error"}})
	_, _ = w.Write(b)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		apiError(w, http.StatusNotFound, "unknown endpoint "+r.Method+" "+r.URL.Path)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+Key {
		apiError(w, http.StatusUnauthorized, "incorrect API key")
		return
	}
	var req struct {
		Model    string    `json:"model"`
		Messages []message `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) < 2 {
		apiError(w, http.StatusBadRequest, "want a JSON body with a model and at least two messages")
		return
	}
	role := "unknown"
	if rest, ok := strings.CutPrefix(req.Messages[0].text(), "You are the "); ok {
		role, _, _ = strings.Cut(rest, " ")
	}
	user := req.Messages[len(req.Messages)-1].text()

	s.mu.Lock()
	s.calls[role]++
	n := s.calls[role]
	s.models[role] = req.Model
	s.mu.Unlock()

	content := s.reply(role, n, user)
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(m.text()) / 4
	}
	completion := len(content) / 4
	s.mu.Lock()
	s.in += prompt
	s.out += completion
	s.mu.Unlock()

	body, err := json.Marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%s-%d", role, n), "object": "chat.completion", "created": 1733140000, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

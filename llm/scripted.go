package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/tmc/langchaingo/llms"
)

// ErrScriptExhausted is returned by a Scripted model whose queue is empty.
var ErrScriptExhausted = errors.New("llm: scripted model: no more responses")

// Reply is one scripted answer: text, tool calls, or an error to return.
type Reply struct {
	Text      string
	ToolCalls []llms.ToolCall
	Err       error
	// Usage, when set, is reported in GenerationInfo like a provider would.
	Usage *Usage
}

// Say is a text reply.
func Say(text string) Reply { return Reply{Text: text} }

// CallTool is a reply calling one tool; args is marshalled to JSON (a
// json.RawMessage or string is used as is).
func CallTool(id, name string, args any) Reply {
	return Reply{ToolCalls: []llms.ToolCall{ToolCallOf(id, name, args)}}
}

// ToolCallOf builds a function tool call; args as in CallTool.
func ToolCallOf(id, name string, args any) llms.ToolCall {
	var s string
	switch a := args.(type) {
	case string:
		s = a
	case json.RawMessage:
		s = string(a)
	case []byte:
		s = string(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			s = fmt.Sprintf("%q", err.Error())
		} else {
			s = string(b)
		}
	}
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: s}}
}

// ScriptFunc computes a reply from the conversation and the call's options.
type ScriptFunc func(ctx context.Context, messages []llms.MessageContent, opts llms.CallOptions) (Reply, error)

// Scripted is an llms.Model that answers from a queue of replies or from a
// function of the messages, for tests and for embedding agentgraph where the
// "model" is deterministic code. It records every call. Safe for concurrent
// use.
type Scripted struct {
	mu    sync.Mutex
	queue []Reply
	fn    ScriptFunc
	calls []ScriptedCall
}

// ScriptedCall is one recorded call.
type ScriptedCall struct {
	Messages []llms.MessageContent
	Options  llms.CallOptions
}

var _ llms.Model = (*Scripted)(nil)

// NewScripted answers with replies in order, then ErrScriptExhausted.
func NewScripted(replies ...Reply) *Scripted { return &Scripted{queue: replies} }

// NewScriptedFunc answers with fn.
func NewScriptedFunc(fn ScriptFunc) *Scripted { return &Scripted{fn: fn} }

// Push appends replies to the queue.
func (s *Scripted) Push(replies ...Reply) {
	s.mu.Lock()
	s.queue = append(s.queue, replies...)
	s.mu.Unlock()
}

// Calls returns the calls made so far.
func (s *Scripted) Calls() []ScriptedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ScriptedCall(nil), s.calls...)
}

// Remaining is the number of queued replies not yet used.
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Call implements llms.Model.
func (s *Scripted) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, options...)
}

// GenerateContent implements llms.Model. A streaming function in the options
// receives the reply's text as one chunk.
func (s *Scripted) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	s.mu.Lock()
	s.calls = append(s.calls, ScriptedCall{Messages: append([]llms.MessageContent(nil), messages...), Options: opts})
	var r Reply
	var err error
	switch {
	case s.fn != nil:
		fn := s.fn
		s.mu.Unlock()
		r, err = fn(ctx, messages, opts)
	case len(s.queue) > 0:
		r = s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
	default:
		s.mu.Unlock()
		err = ErrScriptExhausted
	}
	if err != nil {
		return nil, err
	}
	if r.Err != nil {
		return nil, r.Err
	}
	if opts.StreamingFunc != nil && r.Text != "" {
		if err := opts.StreamingFunc(ctx, []byte(r.Text)); err != nil {
			return nil, err
		}
	}
	stop := "stop"
	if len(r.ToolCalls) > 0 {
		stop = "tool_calls"
	}
	ch := &llms.ContentChoice{Content: r.Text, ToolCalls: r.ToolCalls, StopReason: stop, GenerationInfo: map[string]any{}}
	if len(r.ToolCalls) > 0 {
		ch.FuncCall = r.ToolCalls[0].FunctionCall
	}
	if r.Usage != nil {
		ch.GenerationInfo["PromptTokens"] = r.Usage.InputTokens
		ch.GenerationInfo["CompletionTokens"] = r.Usage.OutputTokens
		ch.GenerationInfo["TotalTokens"] = r.Usage.InputTokens + r.Usage.OutputTokens
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{ch}}, nil
}

package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/tools"
	"github.com/tmc/langchaingo/llms"
)

// DefaultMaxSteps is the agent's step cap when none is set.
const DefaultMaxSteps = 10

// Agent is a tool-calling (ReAct) agent: it calls the model with the
// registry's tools, dispatches each tool call through the registry, sends the
// results back as tool messages, and repeats until the model answers without
// a tool call or MaxSteps model calls were made. A tool error, unknown tool
// or bad arguments go back to the model as text, so it can recover.
type Agent struct {
	Model    llms.Model
	Tools    *tools.Registry // nil: no tools
	System   string          // prepended as a system message when the conversation has none
	MaxSteps int             // model calls per Run; 0: DefaultMaxSteps
	// FailOnStepLimit makes Run return a *StepLimitError when the cap is
	// hit; otherwise Run returns what it has with Result.HitStepLimit set.
	FailOnStepLimit bool
	Options         []llms.CallOption // extra options for every model call
	Logger          *slog.Logger      // nil: discard
	// OnToolResult, when set, is called after every tool call.
	OnToolResult func(ToolResult)
}

// ToolResult is one dispatched tool call.
type ToolResult struct {
	Step    int
	CallID  string
	Name    string
	Args    string
	Content string
	IsError bool
}

// Result is the outcome of Agent.Run.
type Result struct {
	// Messages are the messages Run added (AI messages and tool messages, in
	// order), not including the input.
	Messages     []llms.MessageContent
	Final        string // the text of the last AI message
	Steps        int    // model calls made
	ToolCalls    []ToolResult
	HitStepLimit bool
}

// StepLimitError is returned with FailOnStepLimit when the model still
// calls tools after MaxSteps model calls.
type StepLimitError struct{ MaxSteps int }

func (e *StepLimitError) Error() string {
	return fmt.Sprintf("llm: agent: still calling tools after %d model calls", e.MaxSteps)
}

// ToolDefs converts tools to langchaingo function definitions. Parameters is
// the decoded schema (a map, as the Google client requires; an object schema
// without "properties" gets an empty one).
func ToolDefs(ts []tools.Tool) ([]llms.Tool, error) {
	out := make([]llms.Tool, 0, len(ts))
	for _, t := range ts {
		var params map[string]any
		if s := t.Schema(); len(s) > 0 {
			if err := json.Unmarshal(s, &params); err != nil {
				return nil, fmt.Errorf("llm: tool %q: schema is not a JSON object: %w", t.Name(), err)
			}
		}
		if params == nil {
			params = map[string]any{"type": "object"}
		}
		if _, ok := params["properties"]; !ok {
			params["properties"] = map[string]any{}
		}
		out = append(out, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: t.Name(), Description: t.Description(), Parameters: params,
		}})
	}
	return out, nil
}

// AIMessage merges the choices of a response into one AI message: the text
// of every choice, then every tool call. (Anthropic returns one choice per
// content block; OpenAI one choice with all calls.)
func AIMessage(resp *llms.ContentResponse) (llms.MessageContent, string, []llms.ToolCall) {
	var text strings.Builder
	var calls []llms.ToolCall
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		text.WriteString(ch.Content)
		for _, tc := range ch.ToolCalls {
			if tc.FunctionCall != nil {
				if tc.Type == "" {
					tc.Type = "function"
				}
				calls = append(calls, tc)
			}
		}
	}
	msg := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	if text.Len() > 0 {
		msg.Parts = append(msg.Parts, llms.TextContent{Text: text.String()})
	}
	for _, tc := range calls {
		msg.Parts = append(msg.Parts, tc)
	}
	return msg, text.String(), calls
}

// Run runs the loop on messages (which it does not modify).
func (a *Agent) Run(ctx context.Context, messages []llms.MessageContent) (Result, error) {
	if a.Model == nil {
		return Result{}, errors.New("llm: agent: no model")
	}
	log := a.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	maxSteps := a.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	opts, err := a.callOptions()
	if err != nil {
		return Result{}, err
	}
	convo := make([]llms.MessageContent, 0, len(messages)+1)
	if a.System != "" && !hasSystem(messages) {
		convo = append(convo, llms.TextParts(llms.ChatMessageTypeSystem, a.System))
	}
	convo = append(convo, messages...)
	start := len(convo)

	var res Result
	for res.Steps < maxSteps {
		resp, err := a.Model.GenerateContent(ctx, convo, opts...)
		res.Steps++
		if err != nil {
			res.Messages = convo[start:]
			return res, fmt.Errorf("llm: agent step %d: %w", res.Steps, err)
		}
		if resp == nil || len(resp.Choices) == 0 {
			res.Messages = convo[start:]
			return res, fmt.Errorf("llm: agent step %d: empty response", res.Steps)
		}
		msg, text, calls := AIMessage(resp)
		convo = append(convo, msg)
		res.Final = text
		if len(calls) == 0 {
			res.Messages = convo[start:]
			return res, nil
		}
		for i, tc := range calls {
			if tc.ID == "" {
				tc.ID = fmt.Sprintf("call_%d_%d", res.Steps, i)
			}
			tr := a.dispatch(ctx, res.Steps, tc)
			log.LogAttrs(ctx, slog.LevelDebug, "llm: agent tool call", slog.String("tool", tr.Name), slog.Bool("error", tr.IsError))
			res.ToolCalls = append(res.ToolCalls, tr)
			if a.OnToolResult != nil {
				a.OnToolResult(tr)
			}
			convo = append(convo, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: tc.ID, Name: tr.Name, Content: tr.Content},
			}})
		}
		if err := ctx.Err(); err != nil {
			res.Messages = convo[start:]
			return res, err
		}
	}
	res.Messages = convo[start:]
	res.HitStepLimit = true
	if a.FailOnStepLimit {
		return res, &StepLimitError{MaxSteps: maxSteps}
	}
	return res, nil
}

func (a *Agent) callOptions() ([]llms.CallOption, error) {
	opts := append([]llms.CallOption(nil), a.Options...)
	if a.Tools == nil {
		return opts, nil
	}
	if registered := a.Tools.List(); len(registered) > 0 {
		defs, err := ToolDefs(registered)
		if err != nil {
			return nil, err
		}
		opts = append(opts, llms.WithTools(defs))
	}
	return opts, nil
}

func (a *Agent) dispatch(ctx context.Context, step int, tc llms.ToolCall) ToolResult {
	tr := ToolResult{Step: step, CallID: tc.ID, Name: tc.FunctionCall.Name, Args: tc.FunctionCall.Arguments}
	if a.Tools == nil {
		tr.Content, tr.IsError = fmt.Sprintf("error: no tools are available (called %q)", tr.Name), true
		return tr
	}
	content, isErr := a.Tools.Dispatch(ctx, tr.Name, json.RawMessage(tr.Args))
	if isErr && !strings.HasPrefix(strings.ToLower(content), "error") {
		content = "error: " + content
	}
	tr.Content, tr.IsError = content, isErr
	return tr
}

func hasSystem(msgs []llms.MessageContent) bool {
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeSystem {
			return true
		}
	}
	return false
}

// Node returns a graph node running the agent on the messages field of the
// state. It returns a partial update holding only the messages the run
// added, so the field should have an appending reducer (state.Append or
// add-messages). A run error fails the node. For graphs with a checkpointer
// use MessagesNode (see the package doc).
func Node[S any](a *Agent, messages func(*S) *[]llms.MessageContent) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (S, error) {
		var upd S
		res, err := a.Run(ctx, *messages(&s))
		if err != nil {
			return upd, err
		}
		*messages(&upd) = res.Messages
		return upd, nil
	}
}

package llm

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
	"github.com/tmc/langchaingo/llms"
)

// ToLLM converts provider-neutral state messages to langchaingo messages.
// An AI message becomes one message with its text then its tool calls; a
// tool message carries one ToolCallResponse.
func ToLLM(msgs []state.Message) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case state.RoleSystem:
			out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, m.Content))
		case state.RoleHuman:
			out = append(out, llms.TextParts(llms.ChatMessageTypeHuman, m.Content))
		case state.RoleAI:
			mc := llms.MessageContent{Role: llms.ChatMessageTypeAI}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				mc.Parts = append(mc.Parts, llms.TextContent{Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				mc.Parts = append(mc.Parts, llms.ToolCall{ID: tc.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
			}
			out = append(out, mc)
		case state.RoleTool:
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: m.Name, Content: m.Content}}})
		}
	}
	return out
}

// FromLLM converts langchaingo messages to state messages (text parts are
// joined; binary and image parts are dropped). Ids are left empty for the
// AddMessages reducer to fill.
func FromLLM(msgs []llms.MessageContent) []state.Message {
	out := make([]state.Message, 0, len(msgs))
	for _, mc := range msgs {
		var m state.Message
		switch mc.Role {
		case llms.ChatMessageTypeSystem:
			m.Role = state.RoleSystem
		case llms.ChatMessageTypeAI:
			m.Role = state.RoleAI
		case llms.ChatMessageTypeTool:
			m.Role = state.RoleTool
		default:
			m.Role = state.RoleHuman
		}
		for _, p := range mc.Parts {
			switch v := p.(type) {
			case llms.TextContent:
				m.Content += v.Text
			case llms.ToolCall:
				if v.FunctionCall != nil {
					m.ToolCalls = append(m.ToolCalls, state.ToolCall{ID: v.ID, Name: v.FunctionCall.Name, Arguments: v.FunctionCall.Arguments})
				}
			case llms.ToolCallResponse:
				if mc.Role == llms.ChatMessageTypeTool {
					m.ToolCallID, m.Name, m.Content = v.ToolCallID, v.Name, v.Content
				}
			}
		}
		out = append(out, m)
	}
	return out
}

// MessagesNode is Node for a field of state messages (state.Message, with
// the state.AddMessages reducer): the run's new messages are returned as
// the update. It is the agent as one graph node.
func MessagesNode[S any](a *Agent, messages func(*S) *[]state.Message) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (S, error) {
		var upd S
		res, err := a.Run(ctx, ToLLM(*messages(&s)))
		if err != nil {
			return upd, err
		}
		*messages(&upd) = FromLLM(res.Messages)
		return upd, nil
	}
}

// Node names of the agent subgraph.
const (
	AgentModelNode = "model"
	AgentToolsNode = "tools"
)

// Graph builds the agent as a graph of its own over state.MessagesState:
// "model" calls the model and appends its AI message; when that message
// calls tools, "tools" dispatches them and appends the tool messages, and
// the model runs again; otherwise (or after MaxSteps model calls since the
// last human message) the graph ends. Use it as a subgraph with
// graph.Subgraph, or run it directly.
func (a *Agent) Graph(opts ...graph.CompileOption) (*graph.CompiledGraph[state.MessagesState], error) {
	if a.Model == nil {
		return nil, errors.New("llm: agent: no model")
	}
	maxSteps := a.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	field := func(s *state.MessagesState) *[]state.Message { return &s.Messages }
	g := graph.New[state.MessagesState](graph.Reducer(field, state.AddMessages))
	g.AddNode(AgentModelNode, func(ctx context.Context, s state.MessagesState) (state.MessagesState, error) {
		callOpts, err := a.callOptions()
		if err != nil {
			return state.MessagesState{}, err
		}
		convo := ToLLM(s.Messages)
		if a.System != "" && !hasSystem(convo) {
			convo = append([]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, a.System)}, convo...)
		}
		resp, err := a.Model.GenerateContent(ctx, convo, callOpts...)
		if err != nil {
			return state.MessagesState{}, fmt.Errorf("llm: agent model: %w", err)
		}
		if resp == nil || len(resp.Choices) == 0 {
			return state.MessagesState{}, errors.New("llm: agent model: empty response")
		}
		ai, _, calls := AIMessage(resp)
		for i := range calls {
			if calls[i].ID == "" {
				calls[i].ID = state.NewID()
			}
		}
		ai.Parts = ai.Parts[:len(ai.Parts)-len(calls)]
		for _, c := range calls {
			ai.Parts = append(ai.Parts, c)
		}
		return state.MessagesState{Messages: FromLLM([]llms.MessageContent{ai})}, nil
	})
	g.AddNode(AgentToolsNode, func(ctx context.Context, s state.MessagesState) (state.MessagesState, error) {
		if len(s.Messages) == 0 {
			return state.MessagesState{}, nil
		}
		last := s.Messages[len(s.Messages)-1]
		var out []state.Message
		for _, tc := range last.ToolCalls {
			tr := a.dispatch(ctx, modelCalls(s.Messages), llms.ToolCall{ID: tc.ID, FunctionCall: &llms.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
			if a.OnToolResult != nil {
				a.OnToolResult(tr)
			}
			out = append(out, state.Message{Role: state.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: tr.Content})
		}
		return state.MessagesState{Messages: out}, nil
	})
	g.AddEdge(graph.Start, AgentModelNode)
	g.AddConditionalEdges(AgentModelNode, graph.Branch(func(_ context.Context, s state.MessagesState) (string, error) {
		if len(s.Messages) == 0 {
			return graph.End, nil
		}
		last := s.Messages[len(s.Messages)-1]
		if last.Role != state.RoleAI || len(last.ToolCalls) == 0 {
			return graph.End, nil
		}
		if modelCalls(s.Messages) >= maxSteps {
			if a.FailOnStepLimit {
				return "", &StepLimitError{MaxSteps: maxSteps}
			}
			return graph.End, nil
		}
		return AgentToolsNode, nil
	}), AgentToolsNode, graph.End)
	g.AddEdge(AgentToolsNode, AgentModelNode)
	return g.Compile(opts...)
}

// modelCalls counts the AI messages after the last human message.
func modelCalls(msgs []state.Message) int {
	n := 0
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != state.RoleHuman; i-- {
		if msgs[i].Role == state.RoleAI {
			n++
		}
	}
	return n
}

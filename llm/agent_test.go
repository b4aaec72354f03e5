package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/state"
	"github.com/agentgraph/agentgraph/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=city name"`
}

func weatherRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	w := tools.New("weather", "Current weather for a city", func(_ context.Context, in weatherArgs) (string, error) {
		if in.City != "Paris" {
			return "", fmt.Errorf("unknown city %q", in.City)
		}
		return "sunny, 21C", nil
	})
	r, err := tools.NewRegistry(w)
	require.NoError(t, err)
	return r
}

// TestAgentRecoversFromToolErrors: the model sends bad arguments, then an
// unknown city (a tool error), then a good call, then answers.
func TestAgentRecoversFromToolErrors(t *testing.T) {
	model := NewScripted(
		CallTool("c1", "weather", `{"town":"Paris"}`),
		CallTool("c2", "weather", map[string]string{"city": "Atlantis"}),
		CallTool("c3", "weather", map[string]string{"city": "Paris"}),
		Say("It is sunny in Paris."),
	)
	var seen []ToolResult
	a := &Agent{Model: model, Tools: weatherRegistry(t), System: "You are helpful.", OnToolResult: func(tr ToolResult) { seen = append(seen, tr) }}
	res, err := a.Run(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")})
	require.NoError(t, err)
	assert.Equal(t, "It is sunny in Paris.", res.Final)
	assert.Equal(t, 4, res.Steps)
	assert.False(t, res.HitStepLimit)
	require.Len(t, res.ToolCalls, 3)
	assert.True(t, res.ToolCalls[0].IsError)
	assert.Contains(t, res.ToolCalls[0].Content, "town")
	assert.True(t, res.ToolCalls[1].IsError)
	assert.Contains(t, res.ToolCalls[1].Content, `unknown city "Atlantis"`)
	assert.False(t, res.ToolCalls[2].IsError)
	assert.Equal(t, "sunny, 21C", res.ToolCalls[2].Content)
	assert.Equal(t, res.ToolCalls, seen)
	// 3 × (AI + tool) + final AI
	assert.Len(t, res.Messages, 7)

	calls := model.Calls()
	require.Len(t, calls, 4)
	assert.Equal(t, llms.ChatMessageTypeSystem, calls[0].Messages[0].Role)
	require.Len(t, calls[0].Options.Tools, 1)
	assert.Equal(t, "weather", calls[0].Options.Tools[0].Function.Name)
	// the tool error reached the model as a tool message
	lastOfSecond := calls[2].Messages[len(calls[2].Messages)-1]
	resp := lastOfSecond.Parts[0].(llms.ToolCallResponse)
	assert.Equal(t, "c2", resp.ToolCallID)
	assert.True(t, strings.HasPrefix(resp.Content, "error"), resp.Content)
}

func TestAgentStepLimit(t *testing.T) {
	loop := NewScriptedFunc(func(context.Context, []llms.MessageContent, llms.CallOptions) (Reply, error) {
		return CallTool("", "weather", map[string]string{"city": "Paris"}), nil
	})
	a := &Agent{Model: loop, Tools: weatherRegistry(t), MaxSteps: 3}
	res, err := a.Run(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "loop")})
	require.NoError(t, err)
	assert.True(t, res.HitStepLimit)
	assert.Equal(t, 3, res.Steps)
	assert.Len(t, res.ToolCalls, 3)
	assert.Equal(t, "call_1_0", res.ToolCalls[0].CallID, "missing ids are filled in")

	a.FailOnStepLimit = true
	_, err = a.Run(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "loop")})
	var sle *StepLimitError
	require.ErrorAs(t, err, &sle)
	assert.Equal(t, 3, sle.MaxSteps)
}

func TestAgentModelErrorAndUnknownTool(t *testing.T) {
	a := &Agent{Model: NewScripted(CallTool("c1", "teleport", `{}`), Reply{Err: errors.New("provider down")}), Tools: weatherRegistry(t)}
	res, err := a.Run(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")})
	require.ErrorContains(t, err, "agent step 2: provider down")
	require.Len(t, res.ToolCalls, 1)
	assert.True(t, res.ToolCalls[0].IsError)
	assert.Contains(t, res.ToolCalls[0].Content, "teleport")
	_, err = (&Agent{}).Run(context.Background(), nil)
	assert.Error(t, err)
}

// TestAgentAgainstFakeOpenAI runs the loop through the real langchaingo
// OpenAI client: a tool error, a recovery, an answer.
func TestAgentAgainstFakeOpenAI(t *testing.T) {
	toolCall := func(id, args string) llmfake.Reply {
		return llmfake.Reply{Calls: []llmfake.Call{{ID: id, Name: "weather", Arguments: args}}, PromptTokens: 10, CompletionTokens: 5}
	}
	srv := llmfake.New(llmfake.Script(
		toolCall("call_1", `{"city":"Pariss"}`),
		toolCall("call_2", `{"city":"Paris"}`),
		llmfake.Reply{Content: "Sunny in Paris.", PromptTokens: 40, CompletionTokens: 4}))
	t.Cleanup(srv.Close)
	meter := NewMeter(nil)
	m := newTestModel(t, openAICase(), strings.TrimSuffix(srv.URL(), "/v1"), WithMeter(meter))
	a := &Agent{Model: m, Tools: weatherRegistry(t)}
	res, err := a.Run(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")})
	require.NoError(t, err)
	assert.Equal(t, "Sunny in Paris.", res.Final)
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	msgs := reqs[1].Messages
	require.Len(t, msgs, 3)
	assert.Equal(t, "tool", msgs[2].Role)
	assert.Contains(t, msgs[2].Text(), `unknown city "Pariss"`)
	require.Len(t, reqs[2].Messages, 5)
	assert.Equal(t, "sunny, 21C", reqs[2].Messages[4].Text())
	total := meter.Total()
	assert.InDelta(t, (60*0.15+14*0.60)/1e6, total.CostUSD, 1e-12)
	total.CostUSD = 0
	assert.Equal(t, Usage{Calls: 3, InputTokens: 60, OutputTokens: 14}, total)
}

type chatState struct {
	Messages []llms.MessageContent
	Turns    int
}

func TestAgentNodeInGraph(t *testing.T) {
	model := NewScripted(CallTool("c1", "weather", map[string]string{"city": "Paris"}), Say("done"))
	a := &Agent{Model: model, Tools: weatherRegistry(t)}
	g := graph.New[chatState](graph.Reducer(func(s *chatState) *[]llms.MessageContent { return &s.Messages }, state.Append[llms.MessageContent]))
	g.AddNode("agent", Node(a, func(s *chatState) *[]llms.MessageContent { return &s.Messages }))
	g.AddEdge(graph.Start, "agent")
	g.AddEdge("agent", graph.End)
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), chatState{Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}})
	require.NoError(t, err)
	require.Len(t, out.Messages, 4) // human, AI(call), tool, AI
	assert.Equal(t, llms.ChatMessageTypeTool, out.Messages[2].Role)
	assert.Equal(t, "done", out.Messages[3].Parts[0].(llms.TextContent).Text)
}

type missionState struct {
	Messages []state.Message
	Answer   string
}

func TestAgentSubgraph(t *testing.T) {
	model := NewScripted(
		CallTool("c1", "weather", map[string]string{"city": "Oslo"}),
		CallTool("c2", "weather", map[string]string{"city": "Paris"}),
		Say("Paris is sunny."),
	)
	a := &Agent{Model: model, Tools: weatherRegistry(t), System: "sys"}
	child, err := a.Graph()
	require.NoError(t, err)

	// directly
	out, err := child.Invoke(context.Background(), state.MessagesState{Messages: []state.Message{{Role: state.RoleHuman, Content: "weather?"}}})
	require.NoError(t, err)
	require.Len(t, out.Messages, 6)
	assert.Equal(t, state.RoleTool, out.Messages[2].Role)
	assert.Contains(t, out.Messages[2].Content, `unknown city "Oslo"`)
	assert.Equal(t, "c2", out.Messages[4].ToolCallID)
	assert.Equal(t, "Paris is sunny.", out.Messages[5].Content)
	assert.Equal(t, llms.ChatMessageTypeSystem, model.Calls()[0].Messages[0].Role)

	// as a subgraph of a mission graph
	model.Push(CallTool("c3", "weather", map[string]string{"city": "Paris"}), Say("Still sunny."))
	parent := graph.New[missionState](graph.Reducer(func(s *missionState) *[]state.Message { return &s.Messages }, state.AddMessages))
	parent.AddNode("research", graph.Subgraph(child,
		func(p missionState) state.MessagesState { return state.MessagesState{Messages: p.Messages} },
		func(c state.MessagesState) missionState {
			return missionState{Messages: c.Messages, Answer: c.Messages[len(c.Messages)-1].Content}
		}))
	parent.AddEdge(graph.Start, "research")
	parent.AddEdge("research", graph.End)
	app, err := parent.Compile()
	require.NoError(t, err)
	res, err := app.Invoke(context.Background(), missionState{Messages: []state.Message{{ID: "h1", Role: state.RoleHuman, Content: "again?"}}})
	require.NoError(t, err)
	assert.Equal(t, "Still sunny.", res.Answer)
	assert.Len(t, res.Messages, 4, "AddMessages merges the child's copy of the history by id")
}

func TestAgentSubgraphStepLimit(t *testing.T) {
	loop := NewScriptedFunc(func(context.Context, []llms.MessageContent, llms.CallOptions) (Reply, error) {
		return CallTool("", "weather", map[string]string{"city": "Paris"}), nil
	})
	child, err := (&Agent{Model: loop, Tools: weatherRegistry(t), MaxSteps: 2}).Graph()
	require.NoError(t, err)
	out, err := child.Invoke(context.Background(), state.MessagesState{Messages: []state.Message{{Role: state.RoleHuman, Content: "x"}}})
	require.NoError(t, err)
	assert.Equal(t, 2, modelCalls(out.Messages))
	assert.Len(t, loop.Calls(), 2)
}

func TestMessageConversionRoundTrip(t *testing.T) {
	in := []state.Message{
		{Role: state.RoleSystem, Content: "s"},
		{Role: state.RoleHuman, Content: "h"},
		{Role: state.RoleAI, Content: "thinking", ToolCalls: []state.ToolCall{{ID: "1", Name: "f", Arguments: `{"a":1}`}}},
		{Role: state.RoleTool, ToolCallID: "1", Name: "f", Content: "r"},
		{Role: state.RoleAI, Content: "done"},
	}
	assert.Equal(t, in, FromLLM(ToLLM(in)))
}

// TestAgentSubgraphCheckpointed runs the agent graph with a checkpointer:
// state.Message is serialisable, and a second invocation on the same
// thread continues the conversation.
func TestAgentSubgraphCheckpointed(t *testing.T) {
	model := NewScripted(CallTool("c1", "weather", map[string]string{"city": "Paris"}), Say("sunny"), Say("you're welcome"))
	app, err := (&Agent{Model: model, Tools: weatherRegistry(t)}).Graph(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = app.Invoke(ctx, state.MessagesState{Messages: []state.Message{{Role: state.RoleHuman, Content: "weather?"}}}, graph.Thread("t1"))
	require.NoError(t, err)
	out, err := app.Invoke(ctx, state.MessagesState{Messages: []state.Message{{Role: state.RoleHuman, Content: "thanks"}}}, graph.Thread("t1"))
	require.NoError(t, err)
	require.Len(t, out.Messages, 6)
	assert.Equal(t, "you're welcome", out.Messages[5].Content)
	third := model.Calls()[2].Messages
	assert.Len(t, third, 5, "the model saw the whole checkpointed history")
}

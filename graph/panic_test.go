package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// panicSerializer is JSON that panics when it encodes a string "boom".
type panicSerializer struct{ graph.JSON }

func (p panicSerializer) Marshal(v any) ([]byte, error) {
	if s, ok := v.(*string); ok && *s == "boom" {
		panic("serializer boom")
	}
	return p.JSON.Marshal(v)
}

// panickyReducer appends, but panics on an update holding "boom".
func panickyReducer(cur, upd []string) []string {
	for _, s := range upd {
		if s == "boom" {
			panic("reducer boom")
		}
	}
	return append(cur, upd...)
}

func newPanicG() *graph.StateGraph[S] {
	return graph.New[S](graph.Reducer(func(s *S) *[]string { return &s.Log }, panickyReducer))
}

func TestPanicsBecomeErrors(t *testing.T) {
	boomNode := func(ctx context.Context, s S) (S, error) { return S{Log: []string{"boom"}}, nil }
	okNode := func(ctx context.Context, s S) (S, error) { return S{Log: []string{"ok"}}, nil }
	panicRouter := graph.Branch(func(ctx context.Context, s S) (string, error) { panic("router boom") })
	tests := []struct {
		name   string
		build  func() *graph.StateGraph[S]
		opts   []graph.CompileOption
		run    []graph.RunOption
		stream bool
		where  string
		node   string
		field  string
		inNode bool // wrapped in a *NodeError
	}{
		{name: "node", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", func(ctx context.Context, s S) (S, error) { panic("node boom") })
			return g.AddEdge(graph.Start, "a")
		}, where: "node", node: "a", inNode: true},
		{name: "reducer at a one-task barrier", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", boomNode)
			return g.AddEdge(graph.Start, "a")
		}, where: "reducer", node: "a", field: "Log"},
		{name: "reducer at a parallel barrier", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", okNode).AddNode("b", boomNode)
			return g.AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
		}, where: "reducer", node: "b", field: "Log"},
		{name: "reducer before a parallel task's router", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", okNode).AddNode("b", boomNode)
			g.AddConditionalEdges("b", graph.Branch(func(ctx context.Context, s S) (string, error) { return graph.End, nil }))
			return g.AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
		}, where: "reducer", node: "b", field: "Log", inNode: true},
		{name: "reducer on the input", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", okNode)
			return g.AddEdge(graph.Start, "a")
		}, run: []graph.RunOption{}, where: "reducer", field: "Log"},
		{name: "single-task router", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", okNode)
			g.AddConditionalEdges("a", panicRouter)
			return g.AddEdge(graph.Start, "a")
		}, where: "router", node: "a", inNode: true},
		{name: "parallel router", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", okNode).AddNode("b", okNode)
			g.AddConditionalEdges("b", panicRouter)
			return g.AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
		}, where: "router", node: "b", inNode: true},
		{name: "Start router", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", okNode)
			return g.AddConditionalEdges(graph.Start, panicRouter, "a")
		}, where: "router", node: graph.Start, inNode: true},
		{name: "compiled observer", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", okNode)
			return g.AddEdge(graph.Start, "a")
		}, opts: []graph.CompileOption{graph.WithObserver(func(ev graph.Event[S]) {
			if ev.Mode == graph.Updates {
				panic("observer boom")
			}
		})}, where: "observer", node: "a"},
		{name: "run observer in a stream", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", okNode).AddNode("b", okNode)
			return g.AddEdge(graph.Start, "a").AddEdge("a", "b")
		}, run: []graph.RunOption{graph.Observe(func(ev graph.Event[S]) {
			if ev.Mode == graph.Values && ev.Step == 1 {
				panic("observer boom")
			}
		})}, stream: true, where: "observer"},
		{name: "serializer", build: func() *graph.StateGraph[S] {
			g := newPanicG()
			g.AddNode("a", func(ctx context.Context, s S) (S, error) { return S{Note: "boom"}, nil })
			return g.AddEdge(graph.Start, "a")
		}, opts: []graph.CompileOption{graph.WithCheckpointer(checkpoint.NewMemory()), graph.WithSerializer(panicSerializer{})},
			run: []graph.RunOption{graph.Thread("t")}, where: "serializer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app, err := tc.build().Compile(tc.opts...)
			require.NoError(t, err)
			in := S{}
			if tc.name == "reducer on the input" {
				in.Log = []string{"boom"}
			}
			if tc.stream {
				_, err = graph.Drain(app.Stream(bg, in, tc.run...))
			} else {
				require.NotPanics(t, func() { _, err = app.Invoke(bg, in, tc.run...) })
			}
			var pe *graph.PanicError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.where, pe.Where)
			assert.Equal(t, tc.node, pe.Node)
			assert.Equal(t, tc.field, pe.Field)
			assert.Contains(t, pe.Error(), "boom")
			assert.NotEmpty(t, pe.Stack)
			var ne *graph.NodeError
			assert.Equal(t, tc.inNode, errors.As(err, &ne), "wrapped in a NodeError: %v", err)
		})
	}
}

func TestUnserializableFieldsRejectedAtCompile(t *testing.T) {
	type Inner struct{ Fn func() }
	type WithChan struct {
		Ch chan int
	}
	type WithNested struct {
		Items []Inner
	}
	tests := []struct {
		name    string
		compile func(opts ...graph.CompileOption) error
		want    string
	}{
		{"chan", func(opts ...graph.CompileOption) error {
			g := graph.New[WithChan]()
			g.AddNode("a", func(ctx context.Context, s WithChan) (WithChan, error) { return s, nil }).AddEdge(graph.Start, "a")
			_, err := g.Compile(opts...)
			return err
		}, "field Ch has type chan int"},
		{"func in a slice of structs", func(opts ...graph.CompileOption) error {
			g := graph.New[WithNested]()
			g.AddNode("a", func(ctx context.Context, s WithNested) (WithNested, error) { return s, nil }).AddEdge(graph.Start, "a")
			_, err := g.Compile(opts...)
			return err
		}, "field Items[].Fn has type func()"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.compile(graph.WithCheckpointer(checkpoint.NewMemory()))
			require.ErrorIs(t, err, graph.ErrInvalidGraph)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "cannot be checkpointed")
			require.NoError(t, tc.compile(), "without a checkpointer nothing is serialized")
		})
	}
	// A state of the state package's types is fine.
	g := graph.New[state.MessagesState](graph.Reducer(func(s *state.MessagesState) *[]state.Message { return &s.Messages }, state.AddMessages))
	g.AddNode("a", func(ctx context.Context, s state.MessagesState) (state.MessagesState, error) {
		return state.MessagesState{}, nil
	}).AddEdge(graph.Start, "a")
	_, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
}

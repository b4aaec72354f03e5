package graph_test

import (
	"context"
	"testing"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
	"github.com/stretchr/testify/require"
)

type smokeState struct {
	Count int
	Log   []string
}

func TestSmoke(t *testing.T) {
	g := graph.New[smokeState](graph.Reducer(func(s *smokeState) *[]string { return &s.Log }, state.Append))
	g.AddNode("a", func(ctx context.Context, s smokeState) (smokeState, error) {
		return smokeState{Count: s.Count + 1, Log: []string{"a"}}, nil
	})
	g.AddNode("b", func(ctx context.Context, s smokeState) (smokeState, error) {
		v, err := graph.Interrupt(ctx, "ok?")
		if err != nil {
			return smokeState{}, err
		}
		return smokeState{Log: []string{"b:" + v.(string)}}, nil
	})
	g.AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	ctx := context.Background()
	out, err := app.Invoke(ctx, smokeState{Log: []string{"in"}}, graph.Thread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	require.Equal(t, []string{"in", "a"}, out.Log)
	out, err = app.Invoke(ctx, smokeState{}, graph.Thread("t"), graph.Resume("yes"))
	require.NoError(t, err)
	require.Equal(t, smokeState{Count: 1, Log: []string{"in", "a", "b:yes"}}, out)
}

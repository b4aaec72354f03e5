package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/graph"
)

// TestParallelRoutersDoNotShareSpareCapacity: routers of parallel tasks
// apply their own node's append to the step-start state; the list's spare
// capacity must not be shared between them (a data race, and a router
// seeing a sibling's write).
func TestParallelRoutersDoNotShareSpareCapacity(t *testing.T) {
	g := newG()
	for _, n := range []string{"a", "b", "c", "d"} {
		g.AddNode(n, logNode(n))
		g.AddConditionalEdges(n, graph.Branch(func(ctx context.Context, s S) (string, error) {
			if got := s.Log[len(s.Log)-1]; got != n {
				return "", fmt.Errorf("router of %s sees %q last", n, got)
			}
			return graph.End, nil
		}))
		g.AddEdge("seed", n)
	}
	g.AddNode("seed", logNode("seed")).AddEdge(graph.Start, "seed")
	app, err := g.Compile()
	require.NoError(t, err)
	for range 50 {
		_, err := app.Invoke(bg, S{Log: []string{"x", "y", "z"}})
		require.NoError(t, err)
	}
}

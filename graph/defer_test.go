package graph_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
)

// deferGraph: fan sends one branch per length in lens; a branch of length
// k runs "step" k times (each step Sends the next), then goes to collect.
// collect records what it saw.
func deferGraph(lens []int, deferCollect bool, ask bool, seen *[][]string, runs *atomic.Int32) *graph.StateGraph[S] {
	g := newG()
	g.AddNode("fan", logNode("fan"))
	g.AddConditionalEdges("fan", graph.FanOut(func(ctx context.Context, s S) ([]graph.Send[S], error) {
		var sends []graph.Send[S]
		for i, k := range lens {
			sends = append(sends, graph.Send[S]{Node: "step", Arg: S{Count: k, Note: fmt.Sprint("b", i)}})
		}
		return sends, nil
	}), "step")
	g.AddCommandNode("step", func(ctx context.Context, s S) (graph.Command[S], error) {
		if ask && s.Note == "b1" && s.Count == 2 { // after b0 ended and deferred collect
			if _, err := graph.Interrupt(ctx, "continue?"); err != nil {
				return graph.Command[S]{}, err
			}
		}
		cmd := graph.Command[S]{Update: S{Log: []string{fmt.Sprintf("%s.%d", s.Note, s.Count)}}}
		if s.Count > 1 {
			cmd.Sends = []graph.Send[S]{{Node: "step", Arg: S{Count: s.Count - 1, Note: s.Note}}}
		} else if ask && s.Note == "b1" {
			cmd.Goto = []string{graph.End} // only the short branch triggers collect
		} else {
			cmd.Goto = []string{"collect"}
		}
		return cmd, nil
	}, graph.Destinations("step", "collect", graph.End))
	var opts []graph.NodeOption
	if deferCollect {
		opts = append(opts, graph.Defer())
	}
	g.AddNode("collect", func(ctx context.Context, s S) (S, error) {
		runs.Add(1)
		*seen = append(*seen, append([]string(nil), s.Log...))
		return S{Log: []string{"collect"}}, nil
	}, opts...)
	g.AddEdge(graph.Start, "fan")
	return g
}

func TestDeferWaitsForUnequalFanOut(t *testing.T) {
	lens := []int{3, 1, 2}
	tests := []struct {
		name     string
		defer_   bool
		wantRuns int32
	}{
		{"deferred: runs once, after the longest branch", true, 1},
		{"not deferred: runs as each branch ends", false, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var seen [][]string
			var runs atomic.Int32
			app, err := deferGraph(lens, tc.defer_, false, &seen, &runs).Compile()
			require.NoError(t, err)
			out, err := app.Invoke(bg, S{})
			require.NoError(t, err)
			assert.Equal(t, tc.wantRuns, runs.Load())
			steps := 0
			for _, l := range out.Log {
				if strings.HasPrefix(l, "b") {
					steps++
				}
			}
			assert.Equal(t, 6, steps, "3+1+2 branch steps")
			if tc.defer_ {
				require.Len(t, seen, 1)
				assert.Len(t, seen[0], 7, "collect saw fan and every branch step")
				assert.Equal(t, "collect", out.Log[len(out.Log)-1])
			}
		})
	}
}

// LangGraph's example: a -> b, c; b -> b_2 -> d; c -> d, d deferred: d
// runs once, after b_2.
func TestDeferStaticBranches(t *testing.T) {
	g := newG()
	for _, n := range []string{"a", "b", "b_2", "c"} {
		g.AddNode(n, logNode(n))
	}
	g.AddNode("d", logNode("d"), graph.Defer())
	g.AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("a", "c").AddEdge("b", "b_2").
		AddEdge("b_2", "d").AddEdge("c", "d").AddEdge("d", graph.End)
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(bg, S{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "b_2", "d"}, out.Log)
}

// The deferred trigger survives a pause: it is in the checkpoint. Only the
// short branch triggers collect; the long one pauses after that.
func TestDeferAcrossInterrupt(t *testing.T) {
	var seen [][]string
	var runs atomic.Int32
	app, err := deferGraph([]int{1, 3}, true, true, &seen, &runs).Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{}, graph.Thread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := app.Resume(bg, "yes", graph.Thread("t"))
	require.NoError(t, err)
	assert.Equal(t, int32(1), runs.Load())
	require.Len(t, seen, 1)
	assert.Len(t, seen[0], 5, "fan and 1+3 branch steps")
	assert.Equal(t, "collect", out.Log[len(out.Log)-1])
}

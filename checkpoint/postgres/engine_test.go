package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint/postgres"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

type countState struct {
	Count int
	Log   []string
}

// countGraph counts to n, one step per node run, appending to Log.
func countGraph(n int) *graph.StateGraph[countState] {
	g := graph.New[countState](graph.Reducer(func(s *countState) *[]string { return &s.Log }, state.Append[string]))
	g.AddNode("inc", func(ctx context.Context, s countState) (countState, error) {
		return countState{Count: s.Count + 1, Log: []string{"inc"}}, nil
	})
	g.AddEdge(graph.Start, "inc")
	g.AddConditionalEdges("inc", graph.Branch(func(ctx context.Context, s countState) (string, error) {
		if s.Count >= n {
			return graph.End, nil
		}
		return "inc", nil
	}), "inc", graph.End)
	return g
}

// TestEngineHistoryReplayFork: through the graph engine, History lists a
// thread's checkpoints, a replay from an earlier checkpoint and an
// UpdateState fork run from it (the conflict rule leaves one up-to-date
// writer's forks alone), and retention keeps the newest.
func TestEngineHistoryReplayFork(t *testing.T) {
	ctx := context.Background()
	cp := newCP(t, newPool(t))
	app, err := countGraph(3).Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	out, err := app.Invoke(ctx, countState{}, graph.Thread("h"))
	require.NoError(t, err)
	assert.Equal(t, 3, out.Count)

	hist, err := app.History(ctx, graph.ListOptions{}, graph.Thread("h"))
	require.NoError(t, err)
	require.Len(t, hist, 4) // input + 3 steps, newest first
	for i := 0; i+1 < len(hist); i++ {
		assert.Equal(t, hist[i+1].CheckpointID, hist[i].ParentID)
	}
	first := hist[2] // after one step
	assert.Equal(t, 1, first.Values.Count)

	// Replay from the first step's checkpoint: the run goes on from there.
	again, err := app.Invoke(ctx, countState{}, graph.Thread("h"), graph.CheckpointID(first.CheckpointID), graph.Continue())
	require.NoError(t, err)
	assert.Equal(t, 3, again.Count)
	assert.Equal(t, []string{"inc", "inc", "inc"}, again.Log)

	// Fork: change the state at that checkpoint and continue the fork.
	forkID, err := app.UpdateState(ctx, countState{Count: 10}, "inc", graph.Thread("h"), graph.CheckpointID(first.CheckpointID))
	require.NoError(t, err)
	snap, err := app.GetState(ctx, graph.Thread("h"), graph.CheckpointID(forkID))
	require.NoError(t, err)
	assert.Equal(t, first.CheckpointID, snap.ParentID)

	hist, err = app.History(ctx, graph.ListOptions{}, graph.Thread("h"))
	require.NoError(t, err)
	assert.Len(t, hist, 4+2+1, "the replay's two steps and the fork are kept")
}

// TestEngineRetention: a long run keeps only the newest checkpoints and
// still resumes.
func TestEngineRetention(t *testing.T) {
	ctx := context.Background()
	cp := newCP(t, newPool(t), postgres.WithRetention(5))
	app, err := countGraph(40).Compile(graph.WithCheckpointer(cp), graph.WithRecursionLimit(100))
	require.NoError(t, err)
	out, err := app.Invoke(ctx, countState{}, graph.Thread("r"))
	require.NoError(t, err)
	assert.Equal(t, 40, out.Count)
	hist, err := app.History(ctx, graph.ListOptions{}, graph.Thread("r"))
	require.NoError(t, err)
	assert.Len(t, hist, 5)
	snap, err := app.GetState(ctx, graph.Thread("r"))
	require.NoError(t, err)
	assert.Equal(t, 40, snap.Values.Count)
	assert.Len(t, snap.Values.Log, 40)
}

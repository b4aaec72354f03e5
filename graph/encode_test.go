package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

type listState struct {
	Count  int
	Log    []string        // Append: encoded by extending the last encoding
	Recent []int           // Window(3): replaced, encoded in full
	Msgs   []state.Message // AddMessages
}

// TestAppendedListsEncodeExactly: every checkpoint's encoding of a list
// that grew by appends (extended, not re-encoded) decodes to the list, and
// equals its full encoding, through steps, a resume and a fork.
func TestAppendedListsEncodeExactly(t *testing.T) {
	g := graph.New[listState](
		graph.Reducer(func(s *listState) *[]string { return &s.Log }, state.Append),
		graph.Reducer(func(s *listState) *[]int { return &s.Recent }, state.Window[int](3)),
		graph.Reducer(func(s *listState) *[]state.Message { return &s.Msgs }, state.AddMessages),
	)
	g.AddNode("step", func(ctx context.Context, s listState) (listState, error) {
		// "<n>" is escaped by encoding/json (its fast path declines it),
		// "n" is written by the engine's fast path: both, in turns.
		entry := fmt.Sprint("<", s.Count, ">")
		if s.Count%2 == 0 {
			entry = fmt.Sprint("n", s.Count)
		}
		upd := listState{Count: s.Count + 1, Log: []string{entry}, Recent: []int{s.Count}}
		upd.Msgs = []state.Message{{ID: fmt.Sprint("m", s.Count), Content: "step"}}
		if s.Count == 4 {
			upd.Msgs = append(upd.Msgs, state.Message{ID: "m1", Content: "replaced"})
		}
		return upd, nil
	})
	g.AddEdge(graph.Start, "step")
	g.AddConditionalEdges("step", graph.Branch(func(ctx context.Context, s listState) (string, error) {
		if s.Count%5 == 0 {
			return graph.End, nil
		}
		return "step", nil
	}), "step", graph.End)
	cp := checkpoint.NewMemory()
	app, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = app.Invoke(ctx, listState{Log: []string{"in"}}, graph.Thread("t"))
	require.NoError(t, err)
	_, err = app.Invoke(ctx, listState{Log: []string{"again"}}, graph.Thread("t")) // continues from the stored list
	require.NoError(t, err)
	hist, err := app.History(ctx, graph.ListOptions{}, graph.Thread("t"))
	require.NoError(t, err)
	_, err = app.Invoke(ctx, listState{Log: []string{"fork"}}, graph.Thread("t"), graph.CheckpointID(hist[len(hist)-3].CheckpointID))
	require.NoError(t, err)

	cps, err := cp.List(ctx, "t", "", graph.ListOptions{})
	require.NoError(t, err)
	require.Greater(t, len(cps), 15)
	for _, c := range cps {
		var got listState
		for _, ch := range []string{"Log", "Recent", "Msgs"} {
			raw, ok := c.Values[ch]
			if !ok {
				continue
			}
			require.True(t, json.Valid(raw), "checkpoint %s channel %s: %s", c.ID, ch, raw)
		}
		require.NoError(t, json.Unmarshal(c.Values["Log"], &got.Log))
		want, err := json.Marshal(got.Log)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(c.Values["Log"]), "checkpoint %s", c.ID)
		if raw, ok := c.Values["Msgs"]; ok {
			require.NoError(t, json.Unmarshal(raw, &got.Msgs))
			want, err := json.Marshal(got.Msgs)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(raw))
		}
	}
	final, err := app.GetState(ctx, graph.Thread("t"))
	require.NoError(t, err)
	assert.Contains(t, final.Values.Log, "fork")
	assert.NotContains(t, final.Values.Log, "again", "the fork starts before the second input")
	assert.Len(t, final.Values.Recent, 3)
}

package graph_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// plainCP hides a checkpointer's PutDelta: the engine's full-Put path.
type plainCP struct{ graph.Checkpointer }

// refusingCP implements DeltaPutter but refuses every delta.
type refusingCP struct {
	graph.Checkpointer
	refused int
}

func (r *refusingCP) PutDelta(ctx context.Context, cp *graph.Checkpoint, ds []graph.ChannelDelta) error {
	r.refused++
	return fmt.Errorf("test: %w", graph.ErrDeltaBase)
}

// recordingCP records what each PutDelta carries.
type recordingCP struct {
	*checkpoint.Memory
	mu    sync.Mutex
	sizes []int // bytes of Values and delta tails per PutDelta
}

func (r *recordingCP) PutDelta(ctx context.Context, cp *graph.Checkpoint, ds []graph.ChannelDelta) error {
	n := 0
	for _, v := range cp.Values {
		n += len(v)
	}
	for _, d := range ds {
		n += len(d.Tail)
	}
	r.mu.Lock()
	r.sizes = append(r.sizes, n)
	r.mu.Unlock()
	return r.Memory.PutDelta(ctx, cp, ds)
}

func deltaGraph(t *testing.T, cp graph.Checkpointer, interruptAt int) *graph.CompiledGraph[listState] {
	t.Helper()
	g := graph.New[listState](
		graph.Reducer(func(s *listState) *[]string { return &s.Log }, state.Append),
		graph.Reducer(func(s *listState) *[]int { return &s.Recent }, state.Window[int](3)),
		graph.Reducer(func(s *listState) *[]state.Message { return &s.Msgs }, state.AddMessages),
	)
	g.AddNode("step", func(ctx context.Context, s listState) (listState, error) {
		if s.Count == interruptAt {
			v, err := graph.Interrupt(ctx, "more?")
			if err != nil {
				return listState{}, err
			}
			return listState{Count: s.Count + 1, Log: []string{fmt.Sprint("answer ", v)}}, nil
		}
		upd := listState{Count: s.Count + 1, Log: []string{fmt.Sprint("<", s.Count, ">", strings.Repeat("x", s.Count%40))}, Recent: []int{s.Count}}
		upd.Msgs = []state.Message{{ID: fmt.Sprint("m", s.Count), Content: "step"}}
		if s.Count == 4 {
			upd.Msgs = append(upd.Msgs, state.Message{ID: "m1", Content: "replaced"})
		}
		return upd, nil
	})
	g.AddEdge(graph.Start, "step")
	g.AddConditionalEdges("step", graph.Branch(func(ctx context.Context, s listState) (string, error) {
		if s.Count%25 == 0 {
			return graph.End, nil
		}
		return "step", nil
	}), "step", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	return app
}

func boltCP(t *testing.T, opts ...checkpoint.Option) *checkpoint.Bolt {
	t.Helper()
	db, err := checkpoint.OpenBoltDB(filepath.Join(t.TempDir(), "cp.db"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	cp, err := checkpoint.NewBolt(db, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { cp.Close() })
	return cp
}

// TestDeltaCheckpointsMatchFull runs one scenario (steps, an interrupt and
// its resume, new input on the thread, a fork) with checkpointers taking
// deltas and without: every checkpoint holds the same values.
func TestDeltaCheckpointsMatchFull(t *testing.T) {
	ctx := context.Background()
	run := func(cp graph.Checkpointer) []*graph.Checkpoint {
		app := deltaGraph(t, cp, 12)
		_, err := app.Invoke(ctx, listState{Log: []string{"in"}}, graph.Thread("t"))
		require.ErrorIs(t, err, graph.ErrInterrupted)
		out, err := app.Resume(ctx, "yes", graph.Thread("t"))
		require.NoError(t, err)
		assert.Contains(t, out.Log, "answer yes")
		_, err = app.Invoke(ctx, listState{Log: []string{"again"}}, graph.Thread("t"))
		require.NoError(t, err)
		hist, err := app.History(ctx, graph.ListOptions{}, graph.Thread("t"))
		require.NoError(t, err)
		_, err = app.Invoke(ctx, listState{Log: []string{"fork"}}, graph.Thread("t"), graph.CheckpointID(hist[5].CheckpointID))
		require.NoError(t, err)
		cps, err := cp.List(ctx, "t", "", graph.ListOptions{})
		require.NoError(t, err)
		return cps
	}
	want := run(plainCP{checkpoint.NewMemory()})
	require.Greater(t, len(want), 50)
	refusing := &refusingCP{Checkpointer: checkpoint.NewMemory()}
	for name, cp := range map[string]graph.Checkpointer{
		"memory":       checkpoint.NewMemory(),
		"bolt":         boltCP(t),
		"bolt-snap3":   boltCP(t, checkpoint.WithSnapshotEvery(3)),
		"bolt-wal":     boltCP(t, checkpoint.WithWAL(checkpoint.WALOptions{})),
		"refusing":     refusing,
		"memory-keep5": checkpoint.NewMemory(checkpoint.WithRetention(500)),
	} {
		t.Run(name, func(t *testing.T) {
			got := run(cp)
			require.Len(t, got, len(want))
			for i := range want {
				assert.Equal(t, want[i].Step, got[i].Step, "checkpoint %d", i)
				assert.Equal(t, want[i].Versions, got[i].Versions, "checkpoint %d", i)
				require.Equal(t, len(want[i].Values), len(got[i].Values), "checkpoint %d", i)
				for k, v := range want[i].Values {
					if k == "__joins__" || k == "__deferred__" {
						continue
					}
					assert.Equal(t, string(v), string(got[i].Values[k]), "checkpoint %d channel %s", i, k)
				}
				assert.Equal(t, len(want[i].Interrupts), len(got[i].Interrupts), "checkpoint %d", i)
			}
		})
	}
	assert.Greater(t, refusing.refused, 30, "the engine tried deltas and fell back to Put")
}

// TestDeltaStepCarriesOnlyWhatItAdded: with a DeltaPutter, what a step
// hands the checkpointer does not grow with the state.
func TestDeltaStepCarriesOnlyWhatItAdded(t *testing.T) {
	cp := &recordingCP{Memory: checkpoint.NewMemory()}
	app := deltaGraph(t, cp, -1)
	ctx := context.Background()
	seed := make([]string, 2000)
	msgs := make([]state.Message, 2000)
	for i := range seed {
		seed[i] = strings.Repeat("s", 50)
		msgs[i] = state.Message{ID: fmt.Sprint("s", i), Role: state.RoleHuman, Content: seed[i]}
	}
	out, err := app.Invoke(ctx, listState{Log: seed, Msgs: msgs}, graph.Thread("t"))
	require.NoError(t, err)
	require.Len(t, out.Log, 2025)
	require.Len(t, out.Msgs, 2025, "AddMessages: 2000 + 25 new, one replaced")
	assert.Equal(t, "replaced", out.Msgs[2001].Content)
	require.Len(t, cp.sizes, 25, "every step through PutDelta")
	for i, n := range cp.sizes {
		assert.Less(t, n, 1000, "step %d carried %d bytes (the state is ~250 KB)", i, n)
	}
	st, err := app.GetState(ctx, graph.Thread("t"))
	require.NoError(t, err)
	assert.Equal(t, out.Log, st.Values.Log)
	assert.Equal(t, out.Msgs, st.Values.Msgs)
}

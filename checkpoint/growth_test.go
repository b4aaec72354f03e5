package checkpoint_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

type message struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// randomText returns n letters that do not compress well.
func randomText(r *rand.Rand, n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

// appendThread writes steps checkpoints the way the engine does for a
// state with an append-reduced message list: pending writes against the
// parent, then the child checkpoint. It returns what was Put.
func appendThread(t testing.TB, cp graph.Checkpointer, thread string, steps, msgSize int) []*graph.Checkpoint {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	var msgs []message
	var all []*graph.Checkpoint
	for i := range steps {
		m := message{Role: "assistant", Text: randomText(r, msgSize)}
		mb, err := json.Marshal([]message{m})
		require.NoError(t, err)
		msgs = append(msgs, m)
		list, err := json.Marshal(msgs)
		require.NoError(t, err)
		c := &graph.Checkpoint{
			ThreadID: thread, ID: checkpointtest.ID(i), Step: i, Source: graph.SourceLoop,
			CreatedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC),
			Values:    map[string][]byte{"Messages": list, "Next": []byte(`"agent"`), "Turn": []byte(fmt.Sprint(i))},
			Versions:  map[string]int64{"Messages": int64(i + 1), "Next": 1, "Turn": int64(i + 1)},
			Format:    "json", StateType: "main.State",
			Next: []graph.TaskRef{{ID: fmt.Sprintf("%s:agent", checkpointtest.ID(i)), Node: "agent"}},
		}
		if i > 0 {
			c.ParentID = all[i-1].ID
			c.Writes = []graph.PendingWrite{
				{TaskID: all[i-1].Next[0].ID, Node: "agent", Channel: "Messages", Value: mb},
				{TaskID: all[i-1].Next[0].ID, Node: "agent", Channel: "Turn", Value: c.Values["Turn"]},
			}
			require.NoError(t, cp.PutWrites(ctx, thread, "", c.ParentID, c.Writes))
		}
		require.NoError(t, cp.Put(ctx, c))
		all = append(all, c)
	}
	return all
}

func stateSize(c *graph.Checkpoint) int {
	n := 0
	for k, v := range c.Values {
		n += len(k) + len(v)
	}
	return n
}

// TestBoltStorageGrowth: a 500-step thread appending one 1 KiB message per
// step takes at most 3x the final state's size on disk after compaction,
// and every step still loads exactly.
func TestBoltStorageGrowth(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := checkpoint.OpenBoltDB(filepath.Join(dir, "growth.db"), &bolt.Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	cp, err := checkpoint.NewBolt(db)
	require.NoError(t, err)
	const steps = 500
	all := appendThread(t, cp, "growth", steps, 1024)

	compacted := filepath.Join(dir, "compacted.db")
	require.NoError(t, checkpoint.Compact(compacted, db))
	fi, err := os.Stat(compacted)
	require.NoError(t, err)
	final := stateSize(all[len(all)-1])
	ratio := float64(fi.Size()) / float64(final)
	t.Logf("final state %d bytes, compacted file %d bytes, ratio %.2f (a full copy per step would be ~%.0fx)",
		final, fi.Size(), ratio, float64(steps)/2)
	require.LessOrEqual(t, ratio, 3.0)

	// The compacted copy reads back every step exactly.
	cdb, err := checkpoint.OpenBoltDB(compacted, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer cdb.Close()
	ccp, err := checkpoint.NewBolt(cdb)
	require.NoError(t, err)
	for _, i := range []int{0, 1, 2, 100, 255, 256, 257, 300, 498, 499} {
		got, ws, err := ccp.Get(ctx, "growth", "", all[i].ID)
		require.NoError(t, err)
		checkpointtest.AssertEqual(t, all[i], got)
		if i+1 < steps {
			require.Equal(t, all[i+1].Writes, ws)
		}
	}
	list, err := ccp.List(ctx, "growth", "", graph.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list, steps)
	for i, got := range list {
		checkpointtest.AssertEqual(t, all[steps-1-i], got)
	}
}

// TestBoltRetentionWithSharedWrites: retention drops parents whose pending
// writes and values the kept checkpoints were stored relative to.
func TestBoltRetentionWithSharedWrites(t *testing.T) {
	ctx := context.Background()
	for _, every := range []int{1, 3, checkpoint.DefaultSnapshotEvery} {
		t.Run(fmt.Sprint(every), func(t *testing.T) {
			cp := newBolt(t, checkpoint.WithRetention(5), checkpoint.WithSnapshotEvery(every))
			all := appendThread(t, cp, "r", 40, 200)
			list, err := cp.List(ctx, "r", "", graph.ListOptions{})
			require.NoError(t, err)
			require.Len(t, list, 5)
			for i, got := range list {
				checkpointtest.AssertEqual(t, all[39-i], got)
			}
			_, ws, err := cp.Get(ctx, "r", "", all[37].ID)
			require.NoError(t, err)
			require.Equal(t, all[38].Writes, ws)
		})
	}
}

type chatState struct {
	Messages []message
	Turn     int
}

// TestBoltStorageGrowthEngine runs the same 500-step, 1 KiB-per-step thread
// through the graph engine (its own encoding, Writes and History).
func TestBoltStorageGrowthEngine(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := checkpoint.OpenBoltDB(filepath.Join(dir, "engine.db"), &bolt.Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	cp, err := checkpoint.NewBolt(db)
	require.NoError(t, err)
	steps := 500
	if raceEnabled {
		steps = 150 // TestBoltStorageGrowth still checks 500 steps under -race
	}
	r := rand.New(rand.NewPCG(5, 6))
	g := graph.New[chatState](graph.Reducer(func(s *chatState) *[]message { return &s.Messages }, state.Append[message]))
	g.AddNode("agent", func(ctx context.Context, s chatState) (chatState, error) {
		return chatState{Turn: s.Turn + 1, Messages: []message{{Role: "assistant", Text: randomText(r, 1024)}}}, nil
	})
	g.AddEdge(graph.Start, "agent")
	g.AddConditionalEdges("agent", graph.Branch(func(ctx context.Context, s chatState) (string, error) {
		if s.Turn >= steps {
			return graph.End, nil
		}
		return "agent", nil
	}), "agent", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(cp), graph.WithRecursionLimit(steps+10))
	require.NoError(t, err)
	out, err := app.Invoke(ctx, chatState{}, graph.Thread("chat"))
	require.NoError(t, err)
	require.Len(t, out.Messages, steps)

	final, _, err := cp.Get(ctx, "chat", "", "")
	require.NoError(t, err)
	compacted := filepath.Join(dir, "compacted.db")
	require.NoError(t, checkpoint.Compact(compacted, db))
	fi, err := os.Stat(compacted)
	require.NoError(t, err)
	ratio := float64(fi.Size()) / float64(stateSize(final))
	t.Logf("engine, %d steps: final state %d bytes, compacted file %d bytes, ratio %.2f", steps, stateSize(final), fi.Size(), ratio)
	require.LessOrEqual(t, ratio, 3.0)

	// History pages newest first; check the newest entries and a page in
	// the middle (all 501 entries are checked by TestBoltStorageGrowth
	// through List).
	history, err := app.History(ctx, graph.ListOptions{Limit: 3}, graph.Thread("chat"))
	require.NoError(t, err)
	require.Len(t, history, 3)
	mid, err := app.History(ctx, graph.ListOptions{Before: history[2].CheckpointID, Limit: steps / 2}, graph.Thread("chat"))
	require.NoError(t, err)
	require.Len(t, mid, steps/2)
	for i, snap := range append(history, mid...) {
		n := steps - i // newest first
		require.Equal(t, out.Messages[:n], snap.Values.Messages, "history entry %d", i)
	}
}

package checkpoint_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
)

// damageRecord changes the stored bytes of one checkpoint with bbolt's API.
func damageRecord(t *testing.T, path, thread, id string, fn func([]byte) []byte) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(checkpoint.DefaultBucket)).Bucket(append([]byte("t"), thread...)).Bucket([]byte("n")).Bucket([]byte("c"))
		raw := bytes.Clone(b.Get([]byte(id)))
		require.NotNil(t, raw, "record %s", id)
		return b.Put([]byte(id), fn(raw))
	}))
}

// TestDamagedLatestFallsBackToParent runs a graph for 3 steps in a bbolt
// file, damages the newest checkpoint's record, and resumes from its parent.
func TestDamagedLatestFallsBackToParent(t *testing.T) {
	damages := []struct {
		name string
		fn   func([]byte) []byte
	}{
		{"flipped byte", func(b []byte) []byte { b[len(b)/2] ^= 0x20; return b }},
		{"truncated", func(b []byte) []byte { return b[:len(b)/3] }},
		{"empty", func([]byte) []byte { return []byte{} }},
	}
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "agent.db")
			open := func() (*bolt.DB, *graph.CompiledGraph[exampleState]) {
				db, err := checkpoint.OpenBoltDB(path, nil)
				require.NoError(t, err)
				cp, err := checkpoint.NewBolt(db)
				require.NoError(t, err)
				app, err := exampleGraph().Compile(graph.WithCheckpointer(cp))
				require.NoError(t, err)
				return db, app
			}
			db, app := open()
			out, err := app.Invoke(ctx, exampleState{}, graph.Thread("t1"))
			require.NoError(t, err)
			require.Equal(t, 3, out.Count)
			cp, err := checkpoint.NewBolt(db)
			require.NoError(t, err)
			history, err := cp.List(ctx, "t1", "", graph.ListOptions{})
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(history), 3)
			newest, parent := history[0], history[1]
			require.Equal(t, parent.ID, newest.ParentID)
			require.NoError(t, db.Close())

			damageRecord(t, path, "t1", newest.ID, d.fn)

			db, app = open()
			defer db.Close()
			cp, err = checkpoint.NewBolt(db)
			require.NoError(t, err)
			_, _, err = cp.Get(ctx, "t1", "", "")
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			var de *checkpoint.DecodeError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, newest.ID, de.CheckpointID, "the error names the damaged checkpoint")
			require.ErrorIs(t, cp.Check(ctx), checkpoint.ErrCorrupt)
			_, err = app.Invoke(ctx, exampleState{}, graph.Thread("t1"), graph.Continue())
			require.ErrorIs(t, err, checkpoint.ErrCorrupt, "a plain resume reports the damage")

			good, skipped, err := checkpoint.NewestReadable(ctx, cp, "t1", "")
			require.NoError(t, err)
			assert.Equal(t, parent.ID, good.ID)
			require.Len(t, skipped, 1)
			require.ErrorAs(t, skipped[0], &de)
			assert.Equal(t, newest.ID, de.CheckpointID)

			out, err = app.Invoke(ctx, exampleState{}, graph.Thread("t1"), graph.CheckpointID(good.ID), graph.Continue())
			require.NoError(t, err)
			assert.Equal(t, 3, out.Count)
			assert.Equal(t, []string{"step 1", "step 2", "step 3"}, out.Log)
			latest, _, err := cp.Get(ctx, "t1", "", "")
			require.NoError(t, err, "the resumed run wrote a new newest checkpoint")
			assert.Equal(t, parent.ID, latest.ParentID)
		})
	}
}

func TestNewestReadable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	db, err := checkpoint.OpenBoltDB(path, nil)
	require.NoError(t, err)
	cp, err := checkpoint.NewBolt(db)
	require.NoError(t, err)
	app, err := exampleGraph().Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	_, err = app.Invoke(ctx, exampleState{}, graph.Thread("t1"))
	require.NoError(t, err)
	history, err := cp.List(ctx, "t1", "", graph.ListOptions{})
	require.NoError(t, err)
	require.NoError(t, db.Close())

	cases := []struct {
		name    string
		damaged int // newest n records damaged
	}{
		{"sound", 0},
		{"newest two damaged", 2},
		{"all damaged", len(history)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "copy.db")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, data, 0o600))
			for _, c := range history[:tc.damaged] {
				damageRecord(t, p, "t1", c.ID, func(b []byte) []byte { b[len(b)-1] ^= 1; return b })
			}
			db, err := checkpoint.OpenBoltDB(p, nil)
			require.NoError(t, err)
			defer db.Close()
			cp, err := checkpoint.NewBolt(db)
			require.NoError(t, err)
			got, skipped, err := checkpoint.NewestReadable(ctx, cp, "t1", "")
			assert.Len(t, skipped, tc.damaged)
			if tc.damaged == len(history) {
				require.ErrorIs(t, err, graph.ErrCheckpointNotFound)
				require.ErrorIs(t, err, checkpoint.ErrCorrupt)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, history[tc.damaged].ID, got.ID)
		})
	}
	_, _, err = checkpoint.NewestReadable(ctx, checkpoint.NewMemory(), "nobody", "")
	require.ErrorIs(t, err, graph.ErrCheckpointNotFound)
}

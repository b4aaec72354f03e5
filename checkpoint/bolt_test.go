package checkpoint_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
)

var fileSeq atomic.Int64

// openBolt opens a fresh bbolt file closed at the end of the test.
func openBolt(t *testing.T) *bolt.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("cp-%d.db", fileSeq.Add(1)))
	db, err := checkpoint.OpenBoltDB(path, &bolt.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

func newBolt(t *testing.T, opts ...checkpoint.Option) *checkpoint.Bolt {
	t.Helper()
	cp, err := checkpoint.NewBolt(openBolt(t), opts...)
	require.NoError(t, err)
	return cp
}

func TestBoltConformance(t *testing.T) {
	for _, k := range []int{checkpoint.DefaultSnapshotEvery, 1, 3} {
		t.Run(fmt.Sprintf("snapshotEvery%d", k), func(t *testing.T) {
			checkpointtest.Run(t, func() graph.Checkpointer { return newBolt(t, checkpoint.WithSnapshotEvery(k)) })
		})
	}
}

// coldBolt makes a new Bolt on the same file for every call, so nothing is
// served from the in-memory cache: every read decodes the stored records.
type coldBolt struct {
	t    *testing.T
	db   *bolt.DB
	opts []checkpoint.Option
}

func (c coldBolt) cp() *checkpoint.Bolt {
	b, err := checkpoint.NewBolt(c.db, c.opts...)
	require.NoError(c.t, err)
	return b
}

func (c coldBolt) Put(ctx context.Context, cp *graph.Checkpoint) error { return c.cp().Put(ctx, cp) }
func (c coldBolt) PutWrites(ctx context.Context, thread, ns, id string, ws []graph.PendingWrite) error {
	return c.cp().PutWrites(ctx, thread, ns, id, ws)
}
func (c coldBolt) Get(ctx context.Context, thread, ns, id string) (*graph.Checkpoint, []graph.PendingWrite, error) {
	return c.cp().Get(ctx, thread, ns, id)
}
func (c coldBolt) List(ctx context.Context, thread, ns string, opts graph.ListOptions) ([]*graph.Checkpoint, error) {
	return c.cp().List(ctx, thread, ns, opts)
}
func (c coldBolt) DeleteThread(ctx context.Context, thread string) error {
	return c.cp().DeleteThread(ctx, thread)
}

func TestBoltConformanceCold(t *testing.T) {
	for _, k := range []int{checkpoint.DefaultSnapshotEvery, 1, 3} {
		t.Run(fmt.Sprintf("snapshotEvery%d", k), func(t *testing.T) {
			checkpointtest.Run(t, func() graph.Checkpointer {
				return coldBolt{t: t, db: openBolt(t), opts: []checkpoint.Option{checkpoint.WithSnapshotEvery(k)}}
			})
		})
	}
	checkpointtest.RunRetention(t, func(keep int) graph.Checkpointer {
		return coldBolt{t: t, db: openBolt(t), opts: []checkpoint.Option{checkpoint.WithRetention(keep), checkpoint.WithSnapshotEvery(4)}}
	})
}

func TestBoltRetention(t *testing.T) {
	checkpointtest.RunRetention(t, func(keep int) graph.Checkpointer {
		return newBolt(t, checkpoint.WithRetention(keep), checkpoint.WithSnapshotEvery(4))
	})
}

// TestBoltReopen checks that everything is read back from the file by a new
// checkpointer (no warm cache), including deltas and shared writes.
func TestBoltReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "reopen.db")
	db, err := checkpoint.OpenBoltDB(path, nil)
	require.NoError(t, err)
	cp, err := checkpoint.NewBolt(db, checkpoint.WithSnapshotEvery(7))
	require.NoError(t, err)
	var all []*graph.Checkpoint
	log := []byte(`[]`)
	for i := range 30 {
		c := checkpointtest.Sample("t", "", i, i > 0)
		msg := fmt.Sprintf(`{"n":%d,"text":"message number %d with some padding to be long enough"}`, i, i)
		if i == 0 {
			log = []byte("[" + msg + "]")
		} else {
			log = append(log[:len(log)-1], []byte(","+msg+"]")...)
		}
		c.Values["log"] = append([]byte(nil), log...)
		c.Writes = []graph.PendingWrite{{TaskID: fmt.Sprint("task-", i), Node: "n", Channel: "log", Value: []byte(msg)}}
		if i > 0 {
			require.NoError(t, cp.PutWrites(ctx, "t", "", all[i-1].ID, c.Writes))
		}
		require.NoError(t, cp.Put(ctx, c))
		all = append(all, c)
	}
	require.NoError(t, db.Close())

	db, err = checkpoint.OpenBoltDB(path, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer db.Close()
	cp, err = checkpoint.NewBolt(db, checkpoint.WithSnapshotEvery(7))
	require.NoError(t, err)
	for i, want := range all {
		got, ws, err := cp.Get(ctx, "t", "", want.ID)
		require.NoError(t, err)
		checkpointtest.AssertEqual(t, want, got)
		if i+1 < len(all) {
			require.Equal(t, all[i+1].Writes, ws)
		}
	}
	require.NoError(t, cp.Check(ctx), "a sound file checks clean")
	list, err := cp.List(ctx, "t", "", graph.ListOptions{Before: all[20].ID, Limit: 15})
	require.NoError(t, err)
	require.Len(t, list, 15)
	for i, got := range list {
		checkpointtest.AssertEqual(t, all[19-i], got)
	}
}

// TestSharedFile: one bbolt file holds a checkpointer and a store, each in
// its own bucket, and both survive a reopen.
func TestSharedFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	db, err := checkpoint.OpenBoltDB(path, nil)
	require.NoError(t, err)
	cp, err := checkpoint.NewBolt(db)
	require.NoError(t, err)
	st, err := memory.NewBoltStore(db)
	require.NoError(t, err)
	want := checkpointtest.Sample("mission", "", 1, false)
	require.NoError(t, cp.Put(ctx, want))
	require.NoError(t, st.Put(ctx, []string{"qa", "app"}, "k", []byte(`{"v":1}`), nil))

	// A second open of the same file waits for the lock and then fails.
	_, err = checkpoint.OpenBoltDB(path, &bolt.Options{Timeout: 50 * time.Millisecond})
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	require.NoError(t, db.Close())

	db, err = checkpoint.OpenBoltDB(path, nil)
	require.NoError(t, err)
	defer db.Close()
	cp, err = checkpoint.NewBolt(db)
	require.NoError(t, err)
	st, err = memory.NewBoltStore(db)
	require.NoError(t, err)
	got, _, err := cp.Get(ctx, "mission", "", "")
	require.NoError(t, err)
	checkpointtest.AssertEqual(t, want, got)
	it, err := st.Get(ctx, []string{"qa", "app"}, "k")
	require.NoError(t, err)
	assert.JSONEq(t, `{"v":1}`, string(it.Value))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		var names []string
		err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error { names = append(names, string(name)); return nil })
		assert.Equal(t, []string{checkpoint.DefaultBucket, memory.DefaultStoreBucket}, names)
		return err
	}))
}

// newWALBolt opens a fresh bbolt file with a log in front of it; the
// checkpointer is closed before the file.
func newWALBolt(t *testing.T, o checkpoint.WALOptions, opts ...checkpoint.Option) *checkpoint.Bolt {
	t.Helper()
	cp, err := checkpoint.NewBolt(openBolt(t), append(opts, checkpoint.WithWAL(o))...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cp.Close()) })
	return cp
}

func TestBoltWALConformance(t *testing.T) {
	cases := map[string]checkpoint.WALOptions{
		"default":         {},
		"applyEvery1":     {ApplyEvery: 1},
		"applyEvery3lazy": {ApplyEvery: 3, LazyWrites: true},
		"smallLog":        {Size: 1}, // the smallest log: large records bypass it
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			checkpointtest.Run(t, func() graph.Checkpointer { return newWALBolt(t, o, checkpoint.WithSnapshotEvery(3)) })
			checkpointtest.RunRetention(t, func(keep int) graph.Checkpointer {
				return newWALBolt(t, o, checkpoint.WithRetention(keep), checkpoint.WithSnapshotEvery(4))
			})
		})
	}
}

// TestWALSharedFile: with a log in front of the checkpointer, the store on
// the same file still commits (and syncs) on its own, and both survive a
// reopen without Close: the log is replayed.
func TestWALSharedFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	db, err := checkpoint.OpenBoltDB(path, nil)
	require.NoError(t, err)
	cp, err := checkpoint.NewBolt(db, checkpoint.WithWAL(checkpoint.WALOptions{}))
	require.NoError(t, err)
	st, err := memory.NewBoltStore(db)
	require.NoError(t, err)
	var all []*graph.Checkpoint
	for i := range 5 {
		c := checkpointtest.Sample("mission", "", i, i > 0)
		require.NoError(t, cp.Put(ctx, c))
		require.NoError(t, st.Put(ctx, []string{"qa", "app"}, fmt.Sprint("k", i), []byte(`{"v":1}`), nil))
		all = append(all, c)
	}
	assert.False(t, db.NoSync, "the log never turns off bbolt's sync")
	require.NoError(t, db.Close())
	// Closing the checkpointer after the DB cannot apply the log: its
	// records stay in it (as after a crash) and the file is released.
	err = cp.Close()
	require.ErrorIs(t, err, bolt.ErrDatabaseNotOpen)
	assert.Contains(t, err.Error(), "replayed when the file is next opened")

	db, err = checkpoint.OpenBoltDB(path, nil)
	require.NoError(t, err)
	defer db.Close()
	st, err = memory.NewBoltStore(db)
	require.NoError(t, err)
	items, err := st.Search(ctx, []string{"qa"}, graph.SearchQuery{})
	require.NoError(t, err)
	assert.Len(t, items, 5)
	cp, err = checkpoint.NewBolt(db, checkpoint.WithWAL(checkpoint.WALOptions{}))
	require.NoError(t, err)
	defer cp.Close()
	assert.Equal(t, 5, cp.Replayed().Records)
	list, err := cp.List(ctx, "mission", "", graph.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list, 5)
	for i, got := range list {
		checkpointtest.AssertEqual(t, all[4-i], got)
	}
}

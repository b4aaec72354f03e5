package checkpoint

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
)

// TestBoltTaskWritesRecords: each task's writes are a record of their own,
// whose size does not depend on how many tasks stored writes before it.
func TestBoltTaskWritesRecords(t *testing.T) {
	for _, wal := range []bool{false, true} {
		t.Run(fmt.Sprintf("wal=%v", wal), func(t *testing.T) {
			ctx := context.Background()
			db, err := OpenBoltDB(filepath.Join(t.TempDir(), "cp.db"), nil)
			require.NoError(t, err)
			defer db.Close()
			var opts []Option
			if wal {
				opts = append(opts, WithWAL(WALOptions{ApplyEvery: 7}))
			}
			cp, err := NewBolt(db, opts...)
			require.NoError(t, err)
			defer cp.Close()
			require.NoError(t, cp.Put(ctx, checkpointtest.Sample("t", "", 1, false)))
			for i := range 500 {
				require.NoError(t, cp.PutWrites(ctx, "t", "", checkpointtest.ID(1), []graph.PendingWrite{
					{TaskID: fmt.Sprintf("task-%04d", i), Node: "work", Channel: "items", Value: []byte(`["x"]`)},
				}))
			}
			require.NoError(t, cp.Flush(ctx))
			var sizes []int
			require.NoError(t, db.View(func(tx *bolt.Tx) error {
				w := tx.Bucket([]byte(DefaultBucket)).Bucket(threadKey("t")).Bucket(nsKeyBytes("")).Bucket(bucketWrites)
				return w.ForEach(func(k, v []byte) error {
					sizes = append(sizes, len(v))
					return nil
				})
			}))
			require.Len(t, sizes, 500, "one record per task")
			// Only the digits of the record's sequence number differ.
			assert.LessOrEqual(t, slices.Max(sizes)-slices.Min(sizes), 2, "record sizes %d..%d", slices.Min(sizes), slices.Max(sizes))
			_, ws, err := cp.Get(ctx, "t", "", checkpointtest.ID(1))
			require.NoError(t, err)
			require.Len(t, ws, 500)
			assert.Equal(t, "task-0000", ws[0].TaskID)
			assert.Equal(t, "task-0499", ws[499].TaskID)
			require.NoError(t, cp.Check(ctx))
		})
	}
}

// TestBoltLegacyWritesRecord: a file of an earlier version keeps all
// pending writes of a checkpoint in one record; it is read as it is, and
// the next PutWrites splits it into per-task records.
func TestBoltLegacyWritesRecord(t *testing.T) {
	ctx := context.Background()
	db, err := OpenBoltDB(filepath.Join(t.TempDir(), "cp.db"), nil)
	require.NoError(t, err)
	defer db.Close()
	cp, err := NewBolt(db)
	require.NoError(t, err)
	require.NoError(t, cp.Put(ctx, checkpointtest.Sample("t", "", 1, false)))
	w := func(task, ch, v string) graph.PendingWrite {
		return graph.PendingWrite{TaskID: task, Node: "n", Channel: ch, Value: []byte(v)}
	}
	legacy := []graph.PendingWrite{w("a", "x", "1"), w("b", "x", "2"), w("a", "y", "3")}
	rec, err := cp.encodeWrites(legacy)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		n, err := cp.openNS(tx, "t", "", false)
		require.NoError(t, err)
		return n.writes.Put([]byte(checkpointtest.ID(1)), rec)
	}))
	_, ws, err := cp.Get(ctx, "t", "", checkpointtest.ID(1))
	require.NoError(t, err)
	assert.Equal(t, legacy, ws, "an earlier version's record reads as it was")
	require.NoError(t, cp.Check(ctx))

	require.NoError(t, cp.PutWrites(ctx, "t", "", checkpointtest.ID(1), []graph.PendingWrite{w("b", "x", "4"), w("c", "x", "5")}))
	_, ws, err = cp.Get(ctx, "t", "", checkpointtest.ID(1))
	require.NoError(t, err)
	assert.Equal(t, []graph.PendingWrite{w("a", "x", "1"), w("a", "y", "3"), w("b", "x", "4"), w("c", "x", "5")}, ws)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		n, err := cp.openNS(tx, "t", "", false)
		require.NoError(t, err)
		assert.Nil(t, n.writes.Get([]byte(checkpointtest.ID(1))), "the old record is split")
		return nil
	}))
	require.NoError(t, cp.Check(ctx))
}

package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
)

// bigList is a JSON list of n elements of about 100 bytes.
func bigList(n int) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"s%d","content":"seed message %d %s"}`, i, i, strings.Repeat("x", 50))
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// nsView runs fn on the thread's namespace buckets.
func nsView(t *testing.T, db *bolt.DB, thread string, fn func(n *nsBuckets)) {
	t.Helper()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		nb := tx.Bucket([]byte(DefaultBucket)).Bucket(threadKey(thread)).Bucket(nsKeyBytes(""))
		require.NotNil(t, nb)
		fn(&nsBuckets{threadID: thread, nb: nb, cps: nb.Bucket(bucketCheckpoints), writes: nb.Bucket(bucketWrites), refs: nb.Bucket(bucketRefs), ext: nb.Bucket(bucketExtern)})
		return nil
	}))
}

func isExternal(t *testing.T, db *bolt.DB, thread, id string) bool {
	t.Helper()
	var ext bool
	nsView(t, db, thread, func(n *nsBuckets) {
		raw := n.cps.Get([]byte(id))
		require.NotNil(t, raw, "checkpoint %s", id)
		ext = isStub(raw)
		assert.Equal(t, ext, n.ext != nil && n.ext.Bucket([]byte(id)) != nil, "a stub and its record go together")
	})
	return ext
}

// pageAlloc is the bytes of pages the DB's commits have written so far.
func pageAlloc(db *bolt.DB) int64 {
	st := db.Stats()
	return st.TxStats.GetPageAlloc()
}

// externThread stores a thread whose input is a large list and whose
// steps append to it (by Put, or by PutDelta when delta is set), and
// returns what it stored and the bytes of pages each step's commit wrote.
func externThread(t *testing.T, cp *Bolt, thread string, steps int, delta bool) ([]*graph.Checkpoint, []int64) {
	t.Helper()
	ctx := context.Background()
	list := bigList(2000) // ~170 KB
	first := checkpointtest.Sample(thread, "", 0, false)
	first.Values["msgs"] = list
	first.Versions["msgs"] = 1
	require.NoError(t, cp.Put(ctx, first))
	all := []*graph.Checkpoint{first}
	var written []int64
	for i := 1; i <= steps; i++ {
		c := checkpointtest.Sample(thread, "", i, true)
		tail := fmt.Appendf(nil, `,{"id":"m%d","content":"step %d"}]`, i, i)
		prev := all[len(all)-1].Values["msgs"]
		c.Values["msgs"] = append(bytes.Clone(prev[:len(prev)-1]), tail...)
		c.Versions["msgs"] = int64(i + 1)
		before := pageAlloc(cp.DB())
		if delta {
			v := c.Values["msgs"]
			c2 := *c
			c2.Values = map[string][]byte{}
			for k, v := range c.Values {
				if k != "msgs" {
					c2.Values[k] = v
				}
			}
			require.NoError(t, cp.PutDelta(ctx, &c2, []graph.ChannelDelta{{Channel: "msgs", Keep: len(prev) - 1, Tail: v[len(prev)-1:]}}))
		} else {
			require.NoError(t, cp.Put(ctx, c))
		}
		written = append(written, pageAlloc(cp.DB())-before)
		all = append(all, c)
	}
	return all, written
}

// TestExternalRecords: a large record is stored apart, behind a stub, and
// the commits of the small records that follow it never write it again.
func TestExternalRecords(t *testing.T) {
	for _, delta := range []bool{false, true} {
		t.Run(fmt.Sprint("delta=", delta), func(t *testing.T) {
			db, err := OpenBoltDB(filepath.Join(t.TempDir(), "cp.db"), nil)
			require.NoError(t, err)
			defer db.Close()
			cp, err := NewBolt(db)
			require.NoError(t, err)
			all, written := externThread(t, cp, "t", 12, delta)
			assert.True(t, isExternal(t, db, "t", all[0].ID), "the input record (%d KB) is apart", len(all[0].Values["msgs"])>>10)
			for i := 1; i < len(all); i++ {
				assert.False(t, isExternal(t, db, "t", all[i].ID), "step %d is a small delta record", i)
			}
			for i, w := range written {
				// Pages of the step's records and the trees above them;
				// the input record alone is ~170 KB.
				assert.Less(t, w, int64(48<<10), "step %d's commit wrote %d bytes of pages", i+1, w)
			}
			ctx := context.Background()
			for _, c := range all {
				got, _, err := cp.Get(ctx, "t", "", c.ID)
				require.NoError(t, err)
				checkpointtest.AssertEqual(t, c, got)
			}
			require.NoError(t, cp.Check(ctx))
		})
	}
}

// TestExternalRecordsReplaceRetainCompact: replacing a record moves it in
// or out of its own bucket, retention drops the bucket with the
// checkpoint (its children keep their values), and Compact keeps it.
func TestExternalRecordsReplaceRetainCompact(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := OpenBoltDB(filepath.Join(dir, "cp.db"), nil)
	require.NoError(t, err)
	defer db.Close()
	cp, err := NewBolt(db)
	require.NoError(t, err)
	all, _ := externThread(t, cp, "t", 3, false)

	small := checkpointtest.Sample("t", "", 0, false) // same id as the input
	require.NoError(t, cp.Put(ctx, small))
	assert.False(t, isExternal(t, db, "t", small.ID))
	for _, c := range all[1:] { // stored relative to it: detached first, values kept
		got, _, err := cp.Get(ctx, "t", "", c.ID)
		require.NoError(t, err)
		checkpointtest.AssertEqual(t, c, got)
	}
	require.NoError(t, cp.Put(ctx, all[0])) // and back
	assert.True(t, isExternal(t, db, "t", all[0].ID))
	require.NoError(t, cp.Check(ctx))

	dst := filepath.Join(dir, "compact.db")
	require.NoError(t, Compact(dst, db))
	cdb, err := OpenBoltDB(dst, nil)
	require.NoError(t, err)
	ccp, err := NewBolt(cdb)
	require.NoError(t, err)
	for _, c := range all {
		got, _, err := ccp.Get(ctx, "t", "", c.ID)
		require.NoError(t, err)
		checkpointtest.AssertEqual(t, c, got)
	}
	require.NoError(t, ccp.Check(ctx))
	require.NoError(t, cdb.Close())

	rdb, err := OpenBoltDB(filepath.Join(dir, "ret.db"), nil)
	require.NoError(t, err)
	defer rdb.Close()
	rcp, err := NewBolt(rdb, WithRetention(3))
	require.NoError(t, err)
	kept, _ := externThread(t, rcp, "r", 6, true)
	nsView(t, rdb, "r", func(n *nsBuckets) {
		assert.Nil(t, n.cps.Get([]byte(kept[0].ID)))
		if n.ext != nil {
			assert.Nil(t, n.ext.Bucket([]byte(kept[0].ID)), "the dropped input's record is gone")
		}
	})
	for _, c := range kept[len(kept)-3:] {
		got, _, err := rcp.Get(ctx, "r", "", c.ID)
		require.NoError(t, err)
		checkpointtest.AssertEqual(t, c, got)
	}
	require.NoError(t, rcp.Check(ctx))
}

// TestExternalRecordsDamaged: a stub whose record is missing or is not
// the one it names, and a record no stub names, are reported as
// ErrCorrupt naming the checkpoint; the checkpoints that do not depend on
// it still load.
func TestExternalRecordsDamaged(t *testing.T) {
	ctx := context.Background()
	for name, damage := range map[string]func(n *nsBuckets, id []byte) error{
		"missing": func(n *nsBuckets, id []byte) error { return n.ext.DeleteBucket(id) },
		"replaced": func(n *nsBuckets, id []byte) error {
			raw := bytes.Clone(n.ext.Bucket(id).Get(externKey))
			raw[len(raw)/2] ^= 1
			return n.ext.Bucket(id).Put(externKey, raw)
		},
		"stub": func(n *nsBuckets, id []byte) error {
			raw := bytes.Clone(n.cps.Get(id))
			raw[len(raw)-6] ^= 1
			return n.cps.Put(id, raw)
		},
	} {
		t.Run(name, func(t *testing.T) {
			db, err := OpenBoltDB(filepath.Join(t.TempDir(), "cp.db"), nil)
			require.NoError(t, err)
			defer db.Close()
			cp, err := NewBolt(db, WithSnapshotEvery(4))
			require.NoError(t, err)
			all, _ := externThread(t, cp, "t", 6, false) // 4.. is a new snapshot
			id := []byte(all[0].ID)
			require.NoError(t, db.Update(func(tx *bolt.Tx) error {
				nb := tx.Bucket([]byte(DefaultBucket)).Bucket(threadKey("t")).Bucket(nsKeyBytes(""))
				return damage(&nsBuckets{nb: nb, cps: nb.Bucket(bucketCheckpoints), ext: nb.Bucket(bucketExtern)}, id)
			}))
			cp, err = NewBolt(db, WithSnapshotEvery(4)) // no cache
			require.NoError(t, err)
			for _, i := range []int{0, 2} {
				_, _, err = cp.Get(ctx, "t", "", all[i].ID)
				requireDecodeErrorIn(t, err, "t", all[i].ID, ErrCorrupt)
			}
			for _, c := range all[4:] {
				got, _, err := cp.Get(ctx, "t", "", c.ID)
				require.NoError(t, err)
				checkpointtest.AssertEqual(t, c, got)
			}
			err = cp.Check(ctx)
			require.ErrorIs(t, err, ErrCorrupt)
			assert.Contains(t, err.Error(), all[0].ID)
		})
	}
	t.Run("orphan", func(t *testing.T) {
		db, err := OpenBoltDB(filepath.Join(t.TempDir(), "cp.db"), nil)
		require.NoError(t, err)
		defer db.Close()
		cp, err := NewBolt(db)
		require.NoError(t, err)
		externThread(t, cp, "t", 1, false)
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			x := tx.Bucket([]byte(DefaultBucket)).Bucket(threadKey("t")).Bucket(nsKeyBytes("")).Bucket(bucketExtern)
			bk, err := x.CreateBucket([]byte("nobody"))
			if err != nil {
				return err
			}
			return bk.Put(externKey, []byte("x"))
		}))
		err = cp.Check(ctx)
		require.ErrorIs(t, err, ErrCorrupt)
		assert.Contains(t, err.Error(), `"nobody"`)
	})
}

func requireDecodeErrorIn(t *testing.T, err error, thread, id string, target error) {
	t.Helper()
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, thread, de.ThreadID)
	assert.Equal(t, id, de.CheckpointID)
	require.ErrorIs(t, err, target)
}

// TestExternalRecordsOldFile: a file written before records were stored
// apart (a large record inline in the checkpoints bucket) reads as it
// did, and its thread goes on.
func TestExternalRecordsOldFile(t *testing.T) {
	ctx := context.Background()
	db, err := OpenBoltDB(filepath.Join(t.TempDir(), "cp.db"), nil)
	require.NoError(t, err)
	defer db.Close()
	cp, err := NewBolt(db)
	require.NoError(t, err)
	all, _ := externThread(t, cp, "t", 3, false)
	// What an earlier build stored: the record itself, no bucket "x".
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		nb := tx.Bucket([]byte(DefaultBucket)).Bucket(threadKey("t")).Bucket(nsKeyBytes(""))
		rec := bytes.Clone(nb.Bucket(bucketExtern).Bucket([]byte(all[0].ID)).Get(externKey))
		if err := nb.DeleteBucket(bucketExtern); err != nil {
			return err
		}
		return nb.Bucket(bucketCheckpoints).Put([]byte(all[0].ID), rec)
	}))
	cp, err = NewBolt(db)
	require.NoError(t, err)
	assert.False(t, isExternal(t, db, "t", all[0].ID))
	for _, c := range all {
		got, _, err := cp.Get(ctx, "t", "", c.ID)
		require.NoError(t, err)
		checkpointtest.AssertEqual(t, c, got)
	}
	next := checkpointtest.Sample("t", "", 4, true)
	next.ParentID = all[3].ID
	require.NoError(t, cp.Put(ctx, next))
	got, _, err := cp.Get(ctx, "t", "", next.ID)
	require.NoError(t, err)
	checkpointtest.AssertEqual(t, next, got)
	require.NoError(t, cp.Check(ctx))
}

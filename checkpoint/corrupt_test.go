package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
)

// writeThread stores n checkpoints of a growing thread (full snapshot every
// 4) in a new file, closes it and returns the path and what was stored.
func writeThread(t *testing.T, n int, bigAt int) (string, []*graph.Checkpoint) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cp.db")
	db, err := OpenBoltDB(path, nil)
	require.NoError(t, err)
	cp, err := NewBolt(db, WithSnapshotEvery(4))
	require.NoError(t, err)
	var all []*graph.Checkpoint
	log := "["
	for i := range n {
		c := checkpointtest.Sample("thread-x", "", i, i > 0)
		if i > 0 {
			log += ","
		}
		log += fmt.Sprintf(`"entry %d %s"`, i, strings.Repeat("-", 40))
		c.Values["log"] = []byte(log + "]")
		c.Values["marker"] = []byte(fmt.Sprintf(`"MARKER-%02d-%s"`, i, strings.Repeat("m", 20)))
		if i == bigAt {
			c.Values["big"] = bytes.Repeat([]byte("B"), 64<<10) // overflow pages
		}
		require.NoError(t, cp.Put(ctx, c))
		require.NoError(t, cp.PutWrites(ctx, "thread-x", "", c.ID, []graph.PendingWrite{{TaskID: "t", Channel: "c", Value: []byte(fmt.Sprintf(`"W-%02d"`, i))}}))
		all = append(all, c)
	}
	require.NoError(t, db.Close())
	return path, all
}

// rewrite changes one stored record with fn in a bbolt transaction.
func rewrite(t *testing.T, path, bucket, id string, fn func([]byte) []byte) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(DefaultBucket)).Bucket(threadKey("thread-x")).Bucket(nsKeyBytes("")).Bucket([]byte(bucket))
		key := []byte(id)
		if bucket == "w" { // pending writes: one record per task (writeThread's task is "t")
			key = taskWritesKey(id, "t")
		}
		raw := bytes.Clone(b.Get(key))
		require.NotNil(t, raw)
		return b.Put(key, fn(raw))
	}))
}

func reopen(t *testing.T, path string) *Bolt {
	t.Helper()
	db, err := OpenBoltDB(path, nil)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	cp, err := NewBolt(db, WithSnapshotEvery(4))
	require.NoError(t, err)
	return cp
}

// assertReadable checks that the given checkpoints still load exactly.
func assertReadable(t *testing.T, cp *Bolt, all []*graph.Checkpoint, ids ...int) {
	t.Helper()
	for _, i := range ids {
		got, _, err := cp.Get(context.Background(), "thread-x", "", all[i].ID)
		require.NoError(t, err, "checkpoint %d", i)
		checkpointtest.AssertEqual(t, all[i], got)
	}
}

func requireDecodeError(t *testing.T, err error, id string, target error) {
	t.Helper()
	require.Error(t, err)
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "thread-x", de.ThreadID)
	assert.Equal(t, id, de.CheckpointID)
	require.ErrorIs(t, err, target)
	assert.Contains(t, err.Error(), `thread "thread-x"`)
	assert.Contains(t, err.Error(), fmt.Sprintf("checkpoint %q", id))
}

func TestCorruptUnknownVersion(t *testing.T) {
	path, all := writeThread(t, 10, -1)
	rewrite(t, path, "c", all[5].ID, func(raw []byte) []byte {
		raw[3] = MaxEnvelopeVersion + 1 // a well-formed record of a future version
		body := raw[:len(raw)-4]
		binary.BigEndian.PutUint32(raw[len(raw)-4:], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		return raw
	})
	cp := reopen(t, path)
	ctx := context.Background()
	require.ErrorIs(t, cp.Check(ctx), ErrUnknownVersion)
	_, _, err := cp.Get(ctx, "thread-x", "", all[5].ID)
	requireDecodeError(t, err, all[5].ID, ErrUnknownVersion)
	assert.Contains(t, err.Error(), "version 3")
	// 6 and 7 are stored relative to 5: their error names them and 5.
	_, _, err = cp.Get(ctx, "thread-x", "", all[6].ID)
	requireDecodeError(t, err, all[6].ID, ErrUnknownVersion)
	assert.Contains(t, err.Error(), all[5].ID)
	// Snapshots before and after, and their chains, still load.
	assertReadable(t, cp, all, 0, 1, 2, 3, 4, 8, 9)
	_, err = cp.List(ctx, "thread-x", "", graph.ListOptions{})
	require.ErrorAs(t, err, new(*DecodeError))
	list, err := cp.List(ctx, "thread-x", "", graph.ListOptions{Limit: 2})
	require.NoError(t, err, "the newest two do not depend on the damaged record")
	assert.Len(t, list, 2)
}

func TestCorruptDamagedRecord(t *testing.T) {
	cases := []struct {
		name   string
		bucket string
		damage func([]byte) []byte
		want   error
	}{
		{"flipped byte", "c", func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }, ErrCorrupt},
		{"truncated record", "c", func(b []byte) []byte { return b[:len(b)-7] }, ErrCorrupt},
		{"empty record", "c", func(b []byte) []byte { return []byte{} }, ErrCorrupt},
		{"not an envelope", "c", func(b []byte) []byte { return []byte(`{"json":"from an old version"}`) }, ErrCorrupt},
		{"damaged pending writes", "w", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, ErrCorrupt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, all := writeThread(t, 6, -1)
			rewrite(t, path, tc.bucket, all[2].ID, tc.damage)
			cp := reopen(t, path)
			got, ws, err := cp.Get(context.Background(), "thread-x", "", all[2].ID)
			requireDecodeError(t, err, all[2].ID, tc.want)
			assert.Nil(t, got, "never a zero state")
			assert.Nil(t, ws)
			assertReadable(t, cp, all, 0, 1, 4, 5)
			err = cp.Check(context.Background())
			requireDecodeError(t, err, all[2].ID, tc.want)
		})
	}
}

func TestCorruptSerializerMismatch(t *testing.T) {
	path, all := writeThread(t, 3, -1)
	db, err := OpenBoltDB(path, nil)
	require.NoError(t, err)
	defer db.Close()
	cp, err := NewBolt(db, WithSerializer(otherSerializer{}))
	require.NoError(t, err)
	_, _, err = cp.Get(context.Background(), "thread-x", "", all[0].ID)
	requireDecodeError(t, err, all[0].ID, ErrFormat)
	assert.Contains(t, err.Error(), `"json"`)
}

type otherSerializer struct{ graph.JSON }

func (otherSerializer) Format() string { return "other" }

// TestCorruptTruncatedFile cuts a file in half: opening or reading fails
// with an error, never a crash.
func TestCorruptTruncatedFile(t *testing.T) {
	for _, keep := range []float64{0.5, 0.02} {
		t.Run(fmt.Sprint(keep), func(t *testing.T) {
			path, all := writeThread(t, 40, 20)
			db, err := OpenBoltDB(path, &bolt.Options{ReadOnly: true})
			require.NoError(t, err)
			var used int64 // the file may be longer: bbolt pre-sizes it
			require.NoError(t, db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil }))
			require.NoError(t, db.Close())
			require.NoError(t, os.Truncate(path, int64(float64(used)*keep)))
			db, err = OpenBoltDB(path, &bolt.Options{ReadOnly: true})
			if err != nil {
				t.Logf("open: %v", err)
				assert.Contains(t, err.Error(), path)
				return
			}
			defer db.Close()
			cp, err := NewBolt(db)
			require.NoError(t, err)
			failures := 0
			for i, want := range all {
				got, _, err := cp.Get(context.Background(), "thread-x", "", want.ID)
				if err != nil {
					if failures == 0 {
						t.Logf("first error: %v", err)
					}
					failures++
					require.ErrorIs(t, err, ErrCorrupt, "checkpoint %d", i)
					continue
				}
				checkpointtest.AssertEqual(t, want, got)
			}
			require.ErrorIs(t, cp.Check(context.Background()), ErrCorrupt)
			t.Logf("%d of %d checkpoints failed to load", failures, len(all))
			assert.Positive(t, failures, "a truncated file cannot hold everything")
		})
	}
}

// TestCorruptDamagedPage overwrites pages of the file: the records on them
// fail with clear errors, the others stay readable.
func TestCorruptDamagedPage(t *testing.T) {
	t.Run("overflow page of one record", func(t *testing.T) {
		path, all := writeThread(t, 12, 9)
		damageAt(t, path, bytes.Repeat([]byte("B"), 4096), func(page []byte) {
			copy(page[100:], "garbage garbage garbage")
		})
		cp := reopen(t, path)
		_, _, err := cp.Get(context.Background(), "thread-x", "", all[9].ID)
		requireDecodeError(t, err, all[9].ID, ErrCorrupt)
		assert.Contains(t, err.Error(), "checksum")
		assertReadable(t, cp, all, 0, 1, 2, 3, 4, 5, 6, 7, 8) // 10, 11 carry the big value as a delta base
		require.ErrorIs(t, cp.Check(context.Background()), ErrCorrupt)
	})
	t.Run("leaf page header", func(t *testing.T) {
		path, all := writeThread(t, 12, -1)
		damageAt(t, path, []byte("MARKER-03"), func(page []byte) {
			for i := 8; i < 16; i++ { // flags, count, overflow
				page[i] = 0xA5
			}
		})
		db, err := OpenBoltDB(path, &bolt.Options{ReadOnly: true})
		require.NoError(t, err)
		defer db.Close()
		cp, err := NewBolt(db)
		require.NoError(t, err)
		failures := 0
		for _, want := range all {
			got, _, err := cp.Get(context.Background(), "thread-x", "", want.ID)
			if err != nil {
				failures++
				require.ErrorIs(t, err, ErrCorrupt)
				continue
			}
			checkpointtest.AssertEqual(t, want, got)
		}
		assert.Positive(t, failures)
		_, err = cp.List(context.Background(), "thread-x", "", graph.ListOptions{})
		require.Error(t, err)
		require.ErrorIs(t, cp.Check(context.Background()), ErrCorrupt)
	})
}

// damageAt finds the page of path holding marker and lets fn change it.
func damageAt(t *testing.T, path string, marker []byte, fn func(page []byte)) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	i := bytes.Index(data, marker)
	require.GreaterOrEqual(t, i, 0, "marker not in file")
	const pageSize = 4096
	start := i / pageSize * pageSize
	require.Greater(t, start, 2*pageSize, "never the meta pages")
	fn(data[start : start+pageSize])
	require.NoError(t, os.WriteFile(path, data, 0o600))
}

package memory_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/memory"
)

const qaOrigin = "http://localhost:8080"

// openQA opens the bbolt file at path with a store and the QA memory of
// qaOrigin; closing is the test's cleanup or the caller's.
func openQA(t *testing.T, path string) (*bolt.DB, *memory.BoltStore, *memory.QA) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	st, err := memory.NewBoltStore(db)
	require.NoError(t, err)
	q, err := memory.NewQA(st, qaOrigin)
	require.NoError(t, err)
	return db, st, q
}

// itemsBucket is the bbolt bucket holding the items of ns.
func itemsBucket(tx *bolt.Tx, ns []string) *bolt.Bucket {
	b := tx.Bucket([]byte(memory.DefaultStoreBucket))
	for _, l := range ns {
		b = b.Bucket([]byte("c")).Bucket([]byte(l))
	}
	return b.Bucket([]byte("i"))
}

func corruptKeys(t *testing.T, err error) []string {
	t.Helper()
	var ce *memory.CorruptRecordsError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, err, memory.ErrStoreCorrupt)
	var keys []string
	for _, r := range ce.Records {
		keys = append(keys, r.Key)
		assert.Error(t, r.Err)
	}
	return keys
}

// TestQACorruptRecords damages two bug records of a real bbolt file, one
// at the byte level and one whose value no longer decodes as a bug: the
// readers return the third bug and list both; Check lists them; Quarantine
// moves them aside with their bytes; afterwards all reads are clean.
func TestQACorruptRecords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	db, _, q := openQA(t, path)
	for _, u := range []string{"/a", "/b", "/c"} {
		_, err := q.RecordBug(ctx, memory.BugReport{Kind: "http_5xx", URL: u, Evidence: "GET " + u + " 500", Persona: "new_user"})
		require.NoError(t, err)
	}
	_, err := q.AddQuirk(ctx, "/a", "save needs a blur", "new_user")
	require.NoError(t, err)
	bugs, err := q.Bugs(ctx, "")
	require.NoError(t, err)
	require.Len(t, bugs, 3)
	byPage := map[string]string{}
	for _, b := range bugs {
		byPage[b.Page] = b.Fingerprint
	}
	require.NoError(t, db.Close())

	// Damage: bytes of one record overwritten; another record made a
	// well-formed store record whose value is no bug.
	garbage := []byte("\x00\xffnot a record at all")
	db, err = bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	var wrongShape []byte
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		items := itemsBucket(tx, q.Namespace(memory.KindBugs))
		require.NoError(t, items.Put([]byte(byPage["/a"]), garbage))
		raw := items.Get([]byte(byPage["/b"]))
		wrongShape = bytes.Replace(raw, []byte(`"seen_count":1`), []byte(`"seen_count":"many"`), 1)
		require.NotEqual(t, raw, wrongShape, "the record holds seen_count")
		return items.Put([]byte(byPage["/b"]), wrongShape)
	}))
	require.NoError(t, db.Close())

	_, st, q := openQA(t, path)
	damaged := []string{byPage["/a"], byPage["/b"]}

	bugs, err = q.Bugs(ctx, "")
	require.Len(t, bugs, 1, "what could be read")
	assert.Equal(t, byPage["/c"], bugs[0].Fingerprint)
	assert.ElementsMatch(t, damaged, corruptKeys(t, err), "and what could not")
	assert.True(t, memory.IsCorruptOnly(err))

	open, err := q.Bugs(ctx, memory.BugOpen)
	require.Len(t, open, 1)
	assert.ElementsMatch(t, damaged, corruptKeys(t, err))

	risks, err := q.PageRisks(ctx)
	assert.NotEmpty(t, risks)
	assert.ElementsMatch(t, damaged, corruptKeys(t, err))
	text, err := q.SupervisorContext(ctx, 2000)
	assert.Contains(t, text, "/c")
	assert.ElementsMatch(t, damaged, corruptKeys(t, err))
	rms, err := q.RegressionMissions(ctx)
	assert.Len(t, rms, 1)
	assert.ElementsMatch(t, damaged, corruptKeys(t, err))

	assert.Equal(t, []string{byPage["/a"]}, corruptKeys(t, st.Check(ctx)), "the store sees the record it cannot decode")
	assert.ElementsMatch(t, damaged, corruptKeys(t, q.Check(ctx)), "the QA model sees both")

	moved, err := q.Quarantine(ctx)
	require.NoError(t, err)
	var movedKeys []string
	for _, r := range moved {
		movedKeys = append(movedKeys, r.Key)
	}
	assert.ElementsMatch(t, damaged, movedKeys)

	// Clean from now on, and nothing lost.
	bugs, err = q.Bugs(ctx, "")
	require.NoError(t, err)
	assert.Len(t, bugs, 1)
	require.NoError(t, q.Check(ctx))
	require.NoError(t, st.Check(ctx))
	quarantined, err := st.Quarantined(ctx)
	require.NoError(t, err)
	require.Len(t, quarantined, 1)
	assert.Equal(t, garbage, quarantined[0].Raw)
	assert.Equal(t, byPage["/a"], quarantined[0].Key)
	assert.Equal(t, q.Namespace(memory.KindBugs), quarantined[0].Namespace)
	assert.NotEmpty(t, quarantined[0].Reason)
	kept, err := st.Get(ctx, append(q.Namespace(memory.KindQuarantine), string(memory.KindBugs)), byPage["/b"])
	require.NoError(t, err)
	assert.Contains(t, string(kept.Value), `"seen_count":"many"`)

	// The bugs can be recorded again.
	_, err = q.RecordBug(ctx, memory.BugReport{Kind: "http_5xx", URL: "/a", Evidence: "GET /a 500"})
	require.NoError(t, err)
	bugs, err = q.Bugs(ctx, "")
	require.NoError(t, err)
	assert.Len(t, bugs, 2)
}

// TestQAWriteOverCorruptRecord: recording a bug whose stored entry does not
// decode fails with a *CorruptRecordsError, not with a silent overwrite.
func TestQAWriteOverCorruptRecord(t *testing.T) {
	ctx := context.Background()
	db, _, q := openQA(t, filepath.Join(t.TempDir(), "memory.db"))
	rec, err := q.RecordBug(ctx, memory.BugReport{Kind: "http_5xx", URL: "/a", Evidence: "GET /a 500"})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		return itemsBucket(tx, q.Namespace(memory.KindBugs)).Put([]byte(rec.Entry.Fingerprint), []byte("{broken"))
	}))
	_, err = q.RecordBug(ctx, memory.BugReport{Kind: "http_5xx", URL: "/a", Evidence: "GET /a 500"})
	assert.Equal(t, []string{rec.Entry.Fingerprint}, corruptKeys(t, err))
	_, err = q.Quarantine(ctx)
	require.NoError(t, err)
	again, err := q.RecordBug(ctx, memory.BugReport{Kind: "http_5xx", URL: "/a", Evidence: "GET /a 500"})
	require.NoError(t, err)
	assert.Equal(t, 1, again.Entry.SeenCount, "a fresh entry after the quarantine")
}

func TestInMemoryStoreCheck(t *testing.T) {
	st := memory.NewInMemoryStore()
	require.NoError(t, st.Check(context.Background()))
	moved, err := st.Quarantine(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, moved)
}

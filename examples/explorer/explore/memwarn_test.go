package explore

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/memory"
)

// TestWarnCorrupt: a memory with a damaged bug record still gives the
// regression missions of the readable bugs; the damage is said on the
// progress output and the record moves to the quarantine, so the next read
// is clean. Other errors pass through.
func TestWarnCorrupt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	open := func() (*bolt.DB, *memory.QA) {
		db, err := bolt.Open(path, 0o600, nil)
		require.NoError(t, err)
		st, err := memory.NewBoltStore(db)
		require.NoError(t, err)
		qa, err := memory.NewQA(st, "http://app.test")
		require.NoError(t, err)
		return db, qa
	}
	db, qa := open()
	var keys []string
	for _, u := range []string{"http://app.test/a", "http://app.test/b"} {
		b, err := qa.RecordBug(ctx, memory.BugReport{Kind: "http_5xx", URL: u, Evidence: "GET " + u + " 500", Persona: "new_user"})
		require.NoError(t, err)
		keys = append(keys, b.Entry.Fingerprint)
	}
	ns := qa.Namespace(memory.KindBugs)
	require.NoError(t, db.Close())

	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(memory.DefaultStoreBucket))
		for _, l := range ns {
			b = b.Bucket([]byte("c")).Bucket([]byte(l))
		}
		return b.Bucket([]byte("i")).Put([]byte(keys[0]), []byte("\x00\xffdamaged"))
	}))
	require.NoError(t, db.Close())

	db, qa = open()
	defer db.Close()
	var out bytes.Buffer
	cfg := Config{Regression: true, Progress: &out}
	cfg.defaults()
	ms, err := cfg.missions(ctx, qa)
	require.NoError(t, err, "the readable bug still makes its mission")
	require.Len(t, ms, 1)
	assert.Contains(t, out.String(), "1 damaged record(s) skipped and moved to the quarantine")

	_, err = qa.Bugs(ctx, "")
	require.NoError(t, err, "after the quarantine memory reads clean")

	other := errors.New("disk on fire")
	assert.Same(t, other, warnCorrupt(ctx, nil, nil, qa, other))
	assert.NoError(t, warnCorrupt(ctx, nil, nil, qa, nil))
}

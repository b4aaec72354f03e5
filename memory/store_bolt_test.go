package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/memory/storetest"
)

var dbSeq atomic.Int64

func openDB(t *testing.T, path string, opts *bolt.Options) *bolt.DB {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), fmt.Sprintf("store-%d.db", dbSeq.Add(1)))
	}
	db, err := bolt.Open(path, 0o600, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestBoltStoreConformance(t *testing.T) {
	storetest.Run(t, func(opts ...memory.StoreOption) graph.Store {
		s, err := memory.NewBoltStore(openDB(t, "", &bolt.Options{NoSync: true}), opts...)
		require.NoError(t, err)
		return s
	})
}

func TestBoltStoreUpdate(t *testing.T) {
	storetest.RunUpdate(t, func(opts ...memory.StoreOption) graph.Store {
		s, err := memory.NewBoltStore(openDB(t, "", &bolt.Options{NoSync: true}), opts...)
		require.NoError(t, err)
		return s
	})
}

func TestBoltStoreReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	s, err := memory.NewBoltStore(db)
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, []string{"qa", "app", "bugs"}, "b1", []byte(`{"title":"login fails"}`), nil))
	require.NoError(t, s.Put(ctx, []string{"qa", "app"}, "meta", []byte(`{"n":1}`), nil))
	require.NoError(t, db.Close())

	db = openDB(t, path, &bolt.Options{ReadOnly: true})
	s, err = memory.NewBoltStore(db)
	require.NoError(t, err)
	it, err := s.Get(ctx, []string{"qa", "app", "bugs"}, "b1")
	require.NoError(t, err)
	assert.JSONEq(t, `{"title":"login fails"}`, string(it.Value))
	got, err := s.Search(ctx, []string{"qa"}, graph.SearchQuery{Query: "login"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	nss, err := s.ListNamespaces(ctx, graph.NamespaceQuery{})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"qa", "app"}, {"qa", "app", "bugs"}}, nss)
}

// TestBoltStoreCorruptItem: an item whose stored bytes are damaged or of an
// unknown record version gives a clear error on Get; Search returns the
// other items and a *CorruptRecordsError naming it; Check lists it; a Put
// over it keeps its bytes in the quarantine bucket.
func TestBoltStoreCorruptItem(t *testing.T) {
	ctx := context.Background()
	cases := map[string][]byte{
		"damaged bytes":   []byte(`{"v":1,"ns":["a"],"key":"bad","value":{"x":`),
		"unknown version": []byte(`{"v":9,"ns":["a"],"key":"bad","value":{"x":1}}`),
		"wrong key":       []byte(`{"v":1,"ns":["a"],"key":"other","value":{"x":1}}`),
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			db := openDB(t, "", nil)
			s, err := memory.NewBoltStore(db)
			require.NoError(t, err)
			require.NoError(t, s.Put(ctx, []string{"a"}, "bad", []byte(`{"x":1}`), nil))
			require.NoError(t, s.Put(ctx, []string{"a"}, "good", []byte(`{"x":2}`), nil))
			require.NoError(t, db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte(memory.DefaultStoreBucket)).Bucket([]byte("c")).Bucket([]byte("a")).Bucket([]byte("i"))
				return b.Put([]byte("bad"), raw)
			}))
			_, err = s.Get(ctx, []string{"a"}, "bad")
			require.ErrorIs(t, err, memory.ErrStoreCorrupt)
			assert.Contains(t, err.Error(), `"bad"`)
			items, err := s.Search(ctx, []string{"a"}, graph.SearchQuery{})
			require.ErrorIs(t, err, memory.ErrStoreCorrupt)
			var ce *memory.CorruptRecordsError
			require.ErrorAs(t, err, &ce)
			require.Len(t, ce.Records, 1)
			assert.Equal(t, []string{"a"}, ce.Records[0].Namespace)
			assert.Equal(t, "bad", ce.Records[0].Key)
			require.Len(t, items, 1)
			assert.Equal(t, "good", items[0].Key)
			err = s.Check(ctx)
			require.ErrorAs(t, err, &ce)
			require.Len(t, ce.Records, 1)
			assert.Equal(t, "bad", ce.Records[0].Key)
			it, err := s.Get(ctx, []string{"a"}, "good")
			require.NoError(t, err)
			assert.JSONEq(t, `{"x":2}`, string(it.Value))
			// A Put over the damaged item repairs it and keeps its bytes.
			require.NoError(t, s.Put(ctx, []string{"a"}, "bad", []byte(`{"x":3}`), nil))
			_, err = s.Get(ctx, []string{"a"}, "bad")
			require.NoError(t, err)
			require.NoError(t, s.Check(ctx))
			q, err := s.Quarantined(ctx)
			require.NoError(t, err)
			require.Len(t, q, 1)
			assert.Equal(t, raw, q[0].Raw)
			assert.Equal(t, "bad", q[0].Key)
		})
	}
}

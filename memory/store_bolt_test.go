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

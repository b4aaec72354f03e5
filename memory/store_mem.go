package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// InMemoryStore is a graph.Store that keeps items in memory. It is safe for
// concurrent use; items are copied in and out.
type InMemoryStore struct {
	cfg   storekit.Config
	mu    sync.RWMutex
	items map[string]map[string]*storekit.Record // storekit.NSKey -> key -> record
}

var _ graph.Store = (*InMemoryStore)(nil)

// NewInMemoryStore returns an empty in-memory Store.
func NewInMemoryStore(opts ...StoreOption) *InMemoryStore {
	return &InMemoryStore{cfg: storekit.NewConfig(opts), items: map[string]map[string]*storekit.Record{}}
}

// Put stores value (a JSON object) under ns and key.
func (s *InMemoryStore) Put(ctx context.Context, ns []string, key string, value json.RawMessage, opts *graph.PutOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := storekit.ValidateKey(ns, key); err != nil {
		return err
	}
	if err := storekit.ValidateValue(ns, key, value); err != nil {
		return err
	}
	vec, err := s.cfg.Embed(ctx, value, opts)
	if err != nil {
		return fmt.Errorf("store: put %q/%q: %w", ns, key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := storekit.NSKey(ns)
	m := s.items[k]
	if m == nil {
		m = map[string]*storekit.Record{}
		s.items[k] = m
	}
	r := s.cfg.NewRecord(ns, key, value, opts, m[key])
	r.Vector = vec
	m[key] = r
	return nil
}

// Get returns the item, or an error wrapping graph.ErrNotFound.
func (s *InMemoryStore) Get(ctx context.Context, ns []string, key string) (*graph.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := storekit.ValidateKey(ns, key); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r := s.items[storekit.NSKey(ns)][key]
	if r == nil || r.Expired(s.cfg.Now()) {
		return nil, fmt.Errorf("store: get %q/%q: %w", ns, key, graph.ErrNotFound)
	}
	it := r.Item()
	return &it, nil
}

// Delete removes an item; a missing one is not an error.
func (s *InMemoryStore) Delete(ctx context.Context, ns []string, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := storekit.ValidateKey(ns, key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := storekit.NSKey(ns)
	delete(s.items[k], key)
	if len(s.items[k]) == 0 {
		delete(s.items, k)
	}
	return nil
}

// Search returns the items under prefix that pass the query's filter,
// ranked by the query (keyword match, or similarity with an embedder) or in
// namespace and key order.
func (s *InMemoryStore) Search(ctx context.Context, prefix []string, q graph.SearchQuery) ([]graph.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	se, err := storekit.NewSearcher(ctx, &s.cfg, prefix, q)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, m := range s.items {
		for _, r := range m {
			if err := se.Add(r); err != nil {
				return nil, err
			}
		}
	}
	return se.Done(), nil
}

// ListNamespaces lists the namespaces that hold live items.
func (s *InMemoryStore) ListNamespaces(ctx context.Context, q graph.NamespaceQuery) ([][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := storekit.NewNSLister(q)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, m := range s.items {
		for _, r := range m {
			if !r.Expired(now) {
				l.Add(r.Namespace)
				break
			}
		}
	}
	return l.Done(), nil
}

// PurgeExpired deletes expired items and returns how many it removed.
// Expired items are invisible without it; it only frees their memory.
func (s *InMemoryStore) PurgeExpired(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, m := range s.items {
		for key, r := range m {
			if r.Expired(now) {
				delete(m, key)
				n++
			}
		}
		if len(m) == 0 {
			delete(s.items, k)
		}
	}
	return n, nil
}

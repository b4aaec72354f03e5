package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agentgraph/agentgraph/graph"
)

// InMemoryStore is a graph.Store that keeps items in memory. It is safe for
// concurrent use; items are copied in and out.
type InMemoryStore struct {
	cfg   storeConfig
	mu    sync.RWMutex
	items map[string]map[string]*storeRecord // nsKey -> key -> record
}

var _ graph.Store = (*InMemoryStore)(nil)

// NewInMemoryStore returns an empty in-memory Store.
func NewInMemoryStore(opts ...StoreOption) *InMemoryStore {
	return &InMemoryStore{cfg: newStoreConfig(opts), items: map[string]map[string]*storeRecord{}}
}

// Put stores value (a JSON object) under ns and key.
func (s *InMemoryStore) Put(ctx context.Context, ns []string, key string, value json.RawMessage, opts *graph.PutOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validateKey(ns, key); err != nil {
		return err
	}
	if err := validateValue(ns, key, value); err != nil {
		return err
	}
	vec, err := s.cfg.embed(ctx, value, opts)
	if err != nil {
		return fmt.Errorf("store: put %q/%q: %w", ns, key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := nsKey(ns)
	m := s.items[k]
	if m == nil {
		m = map[string]*storeRecord{}
		s.items[k] = m
	}
	r := s.cfg.newRecord(ns, key, value, opts, m[key])
	r.Vector = vec
	m[key] = r
	return nil
}

// Get returns the item, or an error wrapping graph.ErrNotFound.
func (s *InMemoryStore) Get(ctx context.Context, ns []string, key string) (*graph.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := validateKey(ns, key); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r := s.items[nsKey(ns)][key]
	if r == nil || r.expired(s.cfg.now()) {
		return nil, fmt.Errorf("store: get %q/%q: %w", ns, key, graph.ErrNotFound)
	}
	it := r.item()
	return &it, nil
}

// Delete removes an item; a missing one is not an error.
func (s *InMemoryStore) Delete(ctx context.Context, ns []string, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validateKey(ns, key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := nsKey(ns)
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
	se, err := newSearcher(ctx, &s.cfg, prefix, q)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, m := range s.items {
		for _, r := range m {
			if err := se.add(r); err != nil {
				return nil, err
			}
		}
	}
	return se.done(), nil
}

// ListNamespaces lists the namespaces that hold live items.
func (s *InMemoryStore) ListNamespaces(ctx context.Context, q graph.NamespaceQuery) ([][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := newNSLister(q)
	if err != nil {
		return nil, err
	}
	now := s.cfg.now()
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, m := range s.items {
		for _, r := range m {
			if !r.expired(now) {
				l.add(r.Namespace)
				break
			}
		}
	}
	return l.done(), nil
}

// PurgeExpired deletes expired items and returns how many it removed.
// Expired items are invisible without it; it only frees their memory.
func (s *InMemoryStore) PurgeExpired(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	now := s.cfg.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, m := range s.items {
		for key, r := range m {
			if r.expired(now) {
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

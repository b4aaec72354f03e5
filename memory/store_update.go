package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// Update atomically replaces the value at ns/key by what fn returns given
// the current item (see graph.Store). fn runs under the store's lock: it
// must not call the store.
func (s *InMemoryStore) Update(ctx context.Context, ns []string, key string, fn graph.UpdateFunc, opts *graph.PutOptions) (*graph.Item, error) {
	if err := storekit.CheckUpdate(ctx, ns, key, fn); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := storekit.NSKey(ns)
	old := s.items[k][key]
	now := s.cfg.Now()
	v, err := storekit.CallUpdate(ns, key, fn, old, now)
	if errors.Is(err, graph.ErrSkipUpdate) {
		return storekit.LiveItem(old, now), nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: update %q/%q: %w", ns, key, err)
	}
	vec, err := s.cfg.Embed(ctx, v, opts)
	if err != nil {
		return nil, fmt.Errorf("store: update %q/%q: %w", ns, key, err)
	}
	m := s.items[k]
	if m == nil {
		m = map[string]*storekit.Record{}
		s.items[k] = m
	}
	r := s.cfg.NewRecord(ns, key, v, opts, old)
	r.Vector = vec
	m[key] = r
	it := r.Item()
	return &it, nil
}

// Update atomically replaces the value at ns/key by what fn returns given
// the current item (see graph.Store), in one bbolt write transaction: fn
// must not call the store. A current record that does not decode fails the
// update (an error wrapping ErrStoreCorrupt) rather than being replaced.
func (s *BoltStore) Update(ctx context.Context, ns []string, key string, fn graph.UpdateFunc, opts *graph.PutOptions) (*graph.Item, error) {
	if err := storekit.CheckUpdate(ctx, ns, key, fn); err != nil {
		return nil, err
	}
	var out *graph.Item
	err := s.update(func(tx *bolt.Tx) error {
		var old *storekit.Record
		b, err := s.nsBucket(tx, ns, false)
		if err != nil {
			return err
		}
		if b != nil {
			if items := b.Bucket(storeItems); items != nil {
				if raw := items.Get([]byte(key)); raw != nil {
					if old, err = storekit.DecodeRecord(raw, ns, key); err != nil {
						return &CorruptRecordsError{Records: []CorruptRecord{{Namespace: slices.Clone(ns), Key: key, Err: err}}}
					}
				}
			}
		}
		now := s.cfg.Now()
		v, err := storekit.CallUpdate(ns, key, fn, old, now)
		if errors.Is(err, graph.ErrSkipUpdate) {
			out = storekit.LiveItem(old, now)
			return nil
		}
		if err != nil {
			return err
		}
		vec, err := s.cfg.Embed(ctx, v, opts)
		if err != nil {
			return err
		}
		if b, err = s.nsBucket(tx, ns, true); err != nil {
			return err
		}
		items, err := b.CreateBucketIfNotExists(storeItems)
		if err != nil {
			return err
		}
		r := s.cfg.NewRecord(ns, key, v, opts, old)
		r.Vector = vec
		raw, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := items.Put([]byte(key), raw); err != nil {
			return err
		}
		it := r.Item()
		out = &it
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: update %q/%q: %w", ns, key, err)
	}
	return out, nil
}

package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/graph"
)

// callUpdate runs fn on the live record old (nil when missing or expired)
// and checks what it returns. It returns graph.ErrSkipUpdate as it is.
func callUpdate(ns []string, key string, fn graph.UpdateFunc, old *storeRecord, now time.Time) (json.RawMessage, error) {
	var cur *graph.Item
	if old != nil && !old.expired(now) {
		it := old.item()
		cur = &it
	}
	v, err := fn(cur)
	if err != nil {
		return nil, err
	}
	if err := validateValue(ns, key, v); err != nil {
		return nil, fmt.Errorf("update function: %w", err)
	}
	return v, nil
}

// liveItem returns r's item, or nil when r is nil or expired.
func liveItem(r *storeRecord, now time.Time) *graph.Item {
	if r == nil || r.expired(now) {
		return nil
	}
	it := r.item()
	return &it
}

func checkUpdate(ctx context.Context, ns []string, key string, fn graph.UpdateFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validateKey(ns, key); err != nil {
		return err
	}
	if fn == nil {
		return storeInvalid("update %q/%q: nil update function", ns, key)
	}
	return nil
}

// Update atomically replaces the value at ns/key by what fn returns given
// the current item (see graph.Store). fn runs under the store's lock: it
// must not call the store.
func (s *InMemoryStore) Update(ctx context.Context, ns []string, key string, fn graph.UpdateFunc, opts *graph.PutOptions) (*graph.Item, error) {
	if err := checkUpdate(ctx, ns, key, fn); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := nsKey(ns)
	old := s.items[k][key]
	now := s.cfg.now()
	v, err := callUpdate(ns, key, fn, old, now)
	if errors.Is(err, graph.ErrSkipUpdate) {
		return liveItem(old, now), nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: update %q/%q: %w", ns, key, err)
	}
	vec, err := s.cfg.embed(ctx, v, opts)
	if err != nil {
		return nil, fmt.Errorf("store: update %q/%q: %w", ns, key, err)
	}
	m := s.items[k]
	if m == nil {
		m = map[string]*storeRecord{}
		s.items[k] = m
	}
	r := s.cfg.newRecord(ns, key, v, opts, old)
	r.Vector = vec
	m[key] = r
	it := r.item()
	return &it, nil
}

// Update atomically replaces the value at ns/key by what fn returns given
// the current item (see graph.Store), in one bbolt write transaction: fn
// must not call the store. A current record that does not decode fails the
// update (an error wrapping ErrStoreCorrupt) rather than being replaced.
func (s *BoltStore) Update(ctx context.Context, ns []string, key string, fn graph.UpdateFunc, opts *graph.PutOptions) (*graph.Item, error) {
	if err := checkUpdate(ctx, ns, key, fn); err != nil {
		return nil, err
	}
	var out *graph.Item
	err := s.update(func(tx *bolt.Tx) error {
		var old *storeRecord
		b, err := s.nsBucket(tx, ns, false)
		if err != nil {
			return err
		}
		if b != nil {
			if items := b.Bucket(storeItems); items != nil {
				if raw := items.Get([]byte(key)); raw != nil {
					if old, err = decodeStoreRecord(raw, ns, key); err != nil {
						return &CorruptRecordsError{Records: []CorruptRecord{{Namespace: slices.Clone(ns), Key: key, Err: err}}}
					}
				}
			}
		}
		now := s.cfg.now()
		v, err := callUpdate(ns, key, fn, old, now)
		if errors.Is(err, graph.ErrSkipUpdate) {
			out = liveItem(old, now)
			return nil
		}
		if err != nil {
			return err
		}
		vec, err := s.cfg.embed(ctx, v, opts)
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
		r := s.cfg.newRecord(ns, key, v, opts, old)
		r.Vector = vec
		raw, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := items.Put([]byte(key), raw); err != nil {
			return err
		}
		it := r.item()
		out = &it
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: update %q/%q: %w", ns, key, err)
	}
	return out, nil
}

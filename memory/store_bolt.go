package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// BoltStore is a graph.Store kept in a bbolt database. Namespaces are
// nested buckets, one level per label, under one top-level bucket
// (DefaultStoreBucket, or WithStoreBucket), so the file can be shared with
// a checkpoint.Bolt:
//
//	db, _ := checkpoint.OpenBoltDB("explorer.db", nil)
//	cp, _ := checkpoint.NewBolt(db)
//	st, _ := memory.NewBoltStore(db)
//
// It is safe for concurrent use.
type BoltStore struct {
	db  *bolt.DB
	cfg storekit.Config
}

var _ graph.Store = (*BoltStore)(nil)

// Bucket names inside a namespace bucket: items, and child namespaces.
var (
	storeItems    = []byte("i")
	storeChildren = []byte("c")
)

// NewBoltStore returns a Store that keeps its items in db, creating its
// top-level bucket if needed. The caller owns db and closes it.
func NewBoltStore(db *bolt.DB, opts ...StoreOption) (*BoltStore, error) {
	s := &BoltStore{db: db, cfg: storekit.NewConfig(opts)}
	if s.cfg.Bucket == "" {
		return nil, storekit.Invalid("empty bucket name")
	}
	if db.IsReadOnly() {
		return s, nil
	}
	err := s.update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists([]byte(s.cfg.Bucket))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: create bucket %q: %w", s.cfg.Bucket, err)
	}
	return s, nil
}

func (s *BoltStore) update(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverStore(&err)
	return s.db.Update(fn)
}

func (s *BoltStore) view(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverStore(&err)
	return s.db.View(fn)
}

// recoverStore turns a bbolt panic on a damaged file into an error.
func recoverStore(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: bbolt: %v", ErrStoreCorrupt, r)
	}
}

// nsBucket returns the bucket of ns (nil if it does not exist and create is
// false). An empty ns is the top-level bucket.
func (s *BoltStore) nsBucket(tx *bolt.Tx, ns []string, create bool) (*bolt.Bucket, error) {
	b := tx.Bucket([]byte(s.cfg.Bucket))
	if b == nil {
		if !create {
			return nil, nil
		}
		var err error
		if b, err = tx.CreateBucket([]byte(s.cfg.Bucket)); err != nil {
			return nil, err
		}
	}
	for _, label := range ns {
		c := b.Bucket(storeChildren)
		if c == nil {
			if !create {
				return nil, nil
			}
			var err error
			if c, err = b.CreateBucket(storeChildren); err != nil {
				return nil, err
			}
		}
		next := c.Bucket([]byte(label))
		if next == nil {
			if !create {
				return nil, nil
			}
			var err error
			if next, err = c.CreateBucket([]byte(label)); err != nil {
				return nil, err
			}
		}
		b = next
	}
	return b, nil
}

// Put stores value (a JSON object) under ns and key.
func (s *BoltStore) Put(ctx context.Context, ns []string, key string, value json.RawMessage, opts *graph.PutOptions) error {
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
	err = s.update(func(tx *bolt.Tx) error {
		b, err := s.nsBucket(tx, ns, true)
		if err != nil {
			return err
		}
		items, err := b.CreateBucketIfNotExists(storeItems)
		if err != nil {
			return err
		}
		var old *storekit.Record
		if raw := items.Get([]byte(key)); raw != nil {
			var derr error
			if old, derr = storekit.DecodeRecord(raw, ns, key); derr != nil {
				// A damaged old record is replaced; its bytes are kept.
				if err := s.quarantineTx(tx, ns, key, raw, derr); err != nil {
					return err
				}
				s.cfg.Logger.Warn("store: put replaces a record that does not decode; its bytes are in the quarantine bucket",
					"namespace", ns, "key", key, "bucket", s.QuarantineBucket(), "err", derr)
			}
		}
		r := s.cfg.NewRecord(ns, key, value, opts, old)
		r.Vector = vec
		raw, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return items.Put([]byte(key), raw)
	})
	if err != nil {
		return fmt.Errorf("store: put %q/%q: %w", ns, key, err)
	}
	return nil
}

// Get returns the item, or an error wrapping graph.ErrNotFound.
func (s *BoltStore) Get(ctx context.Context, ns []string, key string) (*graph.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := storekit.ValidateKey(ns, key); err != nil {
		return nil, err
	}
	var it *graph.Item
	err := s.view(func(tx *bolt.Tx) error {
		b, err := s.nsBucket(tx, ns, false)
		if err != nil || b == nil {
			return err
		}
		items := b.Bucket(storeItems)
		if items == nil {
			return nil
		}
		raw := items.Get([]byte(key))
		if raw == nil {
			return nil
		}
		r, err := storekit.DecodeRecord(raw, ns, key)
		if err != nil {
			return &CorruptRecordsError{Records: []CorruptRecord{{Namespace: slices.Clone(ns), Key: key, Err: err}}}
		}
		if !r.Expired(s.cfg.Now()) {
			item := r.Item()
			it = &item
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: get %q/%q: %w", ns, key, err)
	}
	if it == nil {
		return nil, fmt.Errorf("store: get %q/%q: %w", ns, key, graph.ErrNotFound)
	}
	return it, nil
}

// Delete removes an item; a missing one is not an error. Namespace buckets
// left empty are removed.
func (s *BoltStore) Delete(ctx context.Context, ns []string, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := storekit.ValidateKey(ns, key); err != nil {
		return err
	}
	err := s.update(func(tx *bolt.Tx) error {
		b, err := s.nsBucket(tx, ns, false)
		if err != nil || b == nil {
			return err
		}
		items := b.Bucket(storeItems)
		if items == nil {
			return nil
		}
		if err := items.Delete([]byte(key)); err != nil {
			return err
		}
		return s.prune(tx, ns)
	})
	if err != nil {
		return fmt.Errorf("store: delete %q/%q: %w", ns, key, err)
	}
	return nil
}

// prune removes the buckets of ns and its ancestors that hold nothing.
func (s *BoltStore) prune(tx *bolt.Tx, ns []string) error {
	for depth := len(ns); depth > 0; depth-- {
		b, err := s.nsBucket(tx, ns[:depth], false)
		if err != nil || b == nil {
			return err
		}
		if items := b.Bucket(storeItems); items != nil {
			if k, _ := items.Cursor().First(); k != nil {
				return nil
			}
		}
		if children := b.Bucket(storeChildren); children != nil {
			if k, _ := children.Cursor().First(); k != nil {
				return nil
			}
		}
		parent, err := s.nsBucket(tx, ns[:depth-1], false)
		if err != nil || parent == nil {
			return err
		}
		if err := parent.Bucket(storeChildren).DeleteBucket([]byte(ns[depth-1])); err != nil {
			return err
		}
	}
	return nil
}

// walk visits every namespace bucket under b (ns is b's namespace) in
// namespace order, calling fn with the namespace and its items bucket.
func storeWalk(b *bolt.Bucket, ns []string, fn func(ns []string, items *bolt.Bucket) error) error {
	if items := b.Bucket(storeItems); items != nil {
		if err := fn(ns, items); err != nil {
			return err
		}
	}
	children := b.Bucket(storeChildren)
	if children == nil {
		return nil
	}
	c := children.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil {
			continue // not a bucket
		}
		child := children.Bucket(k)
		if child == nil {
			continue
		}
		if err := storeWalk(child, append(slices.Clip(ns), string(k)), fn); err != nil {
			return err
		}
	}
	return nil
}

// Search returns the items under prefix that pass the query's filter,
// ranked by the query (keyword match, or similarity with an embedder) or in
// namespace and key order. Items that do not decode are skipped: Search
// then returns the other items together with a *CorruptRecordsError
// listing them.
func (s *BoltStore) Search(ctx context.Context, prefix []string, q graph.SearchQuery) ([]graph.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	se, err := storekit.NewSearcher(ctx, &s.cfg, prefix, q)
	if err != nil {
		return nil, err
	}
	var bad storekit.CorruptSet
	err = s.view(func(tx *bolt.Tx) error {
		b, err := s.nsBucket(tx, prefix, false)
		if err != nil || b == nil {
			return err
		}
		return storeWalk(b, slices.Clone(prefix), func(ns []string, items *bolt.Bucket) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return items.ForEach(func(k, v []byte) error {
				r, err := storekit.DecodeRecord(v, ns, string(k))
				if err == nil {
					err = se.Add(r)
				}
				if err != nil {
					s.cfg.Logger.Warn("store: skipping an item that does not decode", "err", err)
					bad.Add(ns, string(k), err)
				}
				return nil
			})
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: search %q: %w", prefix, err)
	}
	return se.Done(), bad.Err()
}

// ListNamespaces lists the namespaces that hold live items.
func (s *BoltStore) ListNamespaces(ctx context.Context, q graph.NamespaceQuery) ([][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := storekit.NewNSLister(q)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	errLive := errors.New("live")
	err = s.view(func(tx *bolt.Tx) error {
		b, err := s.nsBucket(tx, nil, false)
		if err != nil || b == nil {
			return err
		}
		return storeWalk(b, nil, func(ns []string, items *bolt.Bucket) error {
			err := items.ForEach(func(k, v []byte) error {
				r, err := storekit.DecodeRecord(v, ns, string(k))
				if err != nil || !r.Expired(now) {
					return errLive // a damaged item still shows its namespace exists
				}
				return nil
			})
			if errors.Is(err, errLive) {
				l.Add(ns)
				return nil
			}
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: list namespaces: %w", err)
	}
	return l.Done(), nil
}

// PurgeExpired deletes expired items (and namespaces left empty) and
// returns how many items it removed.
func (s *BoltStore) PurgeExpired(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	now := s.cfg.Now()
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		top, err := s.nsBucket(tx, nil, false)
		if err != nil || top == nil {
			return err
		}
		type victim struct {
			ns  []string
			key []byte
		}
		var victims []victim
		err = storeWalk(top, nil, func(ns []string, items *bolt.Bucket) error {
			return items.ForEach(func(k, v []byte) error {
				if r, err := storekit.DecodeRecord(v, ns, string(k)); err == nil && r.Expired(now) {
					victims = append(victims, victim{slices.Clone(ns), slices.Clone(k)})
				}
				return nil
			})
		})
		if err != nil {
			return err
		}
		for _, v := range victims {
			b, err := s.nsBucket(tx, v.ns, false)
			if err != nil || b == nil {
				return err
			}
			if err := b.Bucket(storeItems).Delete(v.key); err != nil {
				return err
			}
			if err := s.prune(tx, v.ns); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: purge expired: %w", err)
	}
	s.cfg.Logger.Debug("store: purged expired items", "count", n)
	return n, nil
}

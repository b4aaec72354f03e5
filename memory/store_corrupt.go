package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// QuarantinedRecord is a record moved aside because it did not decode:
// its bytes as they were stored, where it was and why it went.
type QuarantinedRecord struct {
	Namespace []string  `json:"ns"`
	Key       string    `json:"key"`
	At        time.Time `json:"at"`
	Reason    string    `json:"reason"`
	Raw       []byte    `json:"raw"`
}

// QuarantineBucket is the top-level bbolt bucket that keeps quarantined
// records: the store's bucket name + ".quarantine".
func (s *BoltStore) QuarantineBucket() string { return s.cfg.Bucket + ".quarantine" }

// Check reads every record of the store and returns nil when all decode,
// or a *CorruptRecordsError listing each one that does not (namespace,
// key, error). A damaged bbolt page that makes bbolt panic is reported as
// an error wrapping ErrStoreCorrupt.
func (s *BoltStore) Check(ctx context.Context) error {
	bad, err := s.scan(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: check: %w", err)
	}
	return bad.Err()
}

// Quarantine moves every record under prefix (nil: the whole store) that
// does not decode into QuarantineBucket, keeping its bytes, and returns
// the records it moved. Readers stop reporting them; Quarantined lists them.
func (s *BoltStore) Quarantine(ctx context.Context, prefix []string) ([]CorruptRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := storekit.ValidateNS(prefix, true); err != nil {
		return nil, err
	}
	var moved []CorruptRecord
	err := s.update(func(tx *bolt.Tx) error {
		moved = nil
		type victim struct {
			CorruptRecord
			raw []byte
		}
		var victims []victim
		b, err := s.nsBucket(tx, prefix, false)
		if err != nil || b == nil {
			return err
		}
		err = storeWalk(b, slices.Clone(prefix), func(ns []string, items *bolt.Bucket) error {
			return items.ForEach(func(k, v []byte) error {
				if v == nil {
					return nil // a nested bucket: Check reports it, nothing to move
				}
				if _, err := storekit.DecodeRecord(v, ns, string(k)); err != nil {
					victims = append(victims, victim{CorruptRecord{Namespace: slices.Clone(ns), Key: string(k), Err: err}, slices.Clone(v)})
				}
				return nil
			})
		})
		if err != nil {
			return err
		}
		for _, v := range victims {
			if err := s.quarantineTx(tx, v.Namespace, v.Key, v.raw, v.Err); err != nil {
				return err
			}
			if err := s.prune(tx, v.Namespace); err != nil {
				return err
			}
			moved = append(moved, v.CorruptRecord)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: quarantine %q: %w", prefix, err)
	}
	for _, r := range moved {
		s.cfg.Logger.Warn("store: quarantined a record that does not decode", "namespace", r.Namespace, "key", r.Key, "err", r.Err)
	}
	return moved, nil
}

// Quarantined lists the quarantined records, oldest first.
func (s *BoltStore) Quarantined(ctx context.Context) ([]QuarantinedRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []QuarantinedRecord
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(s.QuarantineBucket()))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var q QuarantinedRecord
			if err := json.Unmarshal(v, &q); err != nil {
				return fmt.Errorf("%w: quarantine entry %q: %v", ErrStoreCorrupt, k, err)
			}
			out = append(out, q)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: quarantined: %w", err)
	}
	return out, nil
}

// quarantineTx copies raw (the record of ns/key) into the quarantine
// bucket and deletes it from its namespace. reason may be nil.
func (s *BoltStore) quarantineTx(tx *bolt.Tx, ns []string, key string, raw []byte, reason ...error) error {
	qb, err := tx.CreateBucketIfNotExists([]byte(s.QuarantineBucket()))
	if err != nil {
		return err
	}
	now := s.cfg.Now().UTC()
	rec := QuarantinedRecord{Namespace: slices.Clone(ns), Key: key, At: now, Raw: slices.Clone(raw)}
	if e := errors.Join(reason...); e != nil {
		rec.Reason = e.Error()
	} else {
		rec.Reason = "replaced by a put"
	}
	val, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	// Time first, so entries list oldest first; a sequence keeps two of
	// the same instant apart.
	seq, err := qb.NextSequence()
	if err != nil {
		return err
	}
	qk := fmt.Sprintf("%020d-%020d-%s%s", now.UnixNano(), seq, storekit.NSKey(ns), key)
	if err := qb.Put([]byte(qk), val); err != nil {
		return err
	}
	b, err := s.nsBucket(tx, ns, false)
	if err != nil || b == nil {
		return err
	}
	if items := b.Bucket(storeItems); items != nil {
		return items.Delete([]byte(key))
	}
	return nil
}

// scan decodes every record under prefix and gathers those that fail.
func (s *BoltStore) scan(ctx context.Context, prefix []string) (*storekit.CorruptSet, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bad := &storekit.CorruptSet{}
	err := s.view(func(tx *bolt.Tx) error {
		b, err := s.nsBucket(tx, prefix, false)
		if err != nil || b == nil {
			return err
		}
		return storeWalk(b, slices.Clone(prefix), func(ns []string, items *bolt.Bucket) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return items.ForEach(func(k, v []byte) error {
				if v == nil {
					bad.Add(ns, string(k), fmt.Errorf("%w: namespace %q key %q: a bucket where a record belongs", ErrStoreCorrupt, ns, k))
					return nil
				}
				if _, err := storekit.DecodeRecord(v, ns, string(k)); err != nil {
					bad.Add(ns, string(k), err)
				}
				return nil
			})
		})
	})
	return bad, err
}

// Check of an in-memory store always passes: it keeps decoded records.
func (s *InMemoryStore) Check(ctx context.Context) error { return ctx.Err() }

// Quarantine of an in-memory store moves nothing: it keeps decoded records.
func (s *InMemoryStore) Quarantine(ctx context.Context, _ []string) ([]CorruptRecord, error) {
	return nil, ctx.Err()
}

var (
	_ StoreChecker = (*BoltStore)(nil)
	_ Quarantiner  = (*BoltStore)(nil)
	_ StoreChecker = (*InMemoryStore)(nil)
	_ Quarantiner  = (*InMemoryStore)(nil)
)

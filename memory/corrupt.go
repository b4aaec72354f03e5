package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// CorruptRecord is one stored record a read could not decode.
type CorruptRecord struct {
	Namespace []string
	Key       string
	Err       error
}

// CorruptRecordsError lists the records a read skipped because they do not
// decode. A reader that returns it also returns everything it could read,
// so a caller can warn, keep going and move the records aside
// (QA.Quarantine, BoltStore.Quarantine). It wraps ErrStoreCorrupt.
type CorruptRecordsError struct {
	Records []CorruptRecord
}

func (e *CorruptRecordsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %d record(s) do not decode", ErrStoreCorrupt, len(e.Records))
	for i, r := range e.Records {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Records)-i)
			break
		}
		fmt.Fprintf(&b, "; %q key %q: %v", r.Namespace, r.Key, r.Err)
	}
	return b.String()
}

func (e *CorruptRecordsError) Unwrap() error { return ErrStoreCorrupt }

// IsCorruptOnly reports whether err is nil or only lists corrupt records
// (a *CorruptRecordsError): the result returned with it is usable.
func IsCorruptOnly(err error) bool {
	var ce *CorruptRecordsError
	return err == nil || errors.As(err, &ce)
}

// corruptSet gathers the corrupt records of one read, once each.
type corruptSet struct {
	recs []CorruptRecord
	seen map[string]bool
}

func (c *corruptSet) add(ns []string, key string, err error) {
	id := nsKey(ns) + "\x00" + key
	if c.seen[id] {
		return
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[id] = true
	c.recs = append(c.recs, CorruptRecord{Namespace: slices.Clone(ns), Key: key, Err: err})
}

// keep takes in the records of a *CorruptRecordsError found in err and
// returns nil for it; any other error is returned as it is.
func (c *corruptSet) keep(err error) error {
	var ce *CorruptRecordsError
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	for _, r := range ce.Records {
		c.add(r.Namespace, r.Key, r.Err)
	}
	return nil
}

// err is nil, or a *CorruptRecordsError of the gathered records.
func (c *corruptSet) err() error {
	if len(c.recs) == 0 {
		return nil
	}
	return &CorruptRecordsError{Records: slices.Clone(c.recs)}
}

// StoreChecker is a Store that can read all its records and report the
// ones that do not decode (BoltStore, InMemoryStore).
type StoreChecker interface {
	Check(ctx context.Context) error
}

// Quarantiner is a Store that can move the records under a namespace
// prefix that do not decode out of the way, keeping their bytes.
type Quarantiner interface {
	Quarantine(ctx context.Context, prefix []string) ([]CorruptRecord, error)
}

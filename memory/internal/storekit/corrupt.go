package storekit

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// CorruptRecord is one stored record a read could not decode
// (memory.CorruptRecord).
type CorruptRecord struct {
	Namespace []string
	Key       string
	Err       error
}

// CorruptRecordsError lists the records a read skipped because they do not
// decode (memory.CorruptRecordsError). It wraps ErrStoreCorrupt.
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

// CorruptSet gathers the corrupt records of one read, once each.
type CorruptSet struct {
	recs []CorruptRecord
	seen map[string]bool
}

func (c *CorruptSet) Add(ns []string, key string, err error) {
	id := NSKey(ns) + "\x00" + key
	if c.seen[id] {
		return
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[id] = true
	c.recs = append(c.recs, CorruptRecord{Namespace: slices.Clone(ns), Key: key, Err: err})
}

// Keep takes in the records of a *CorruptRecordsError found in err and
// returns nil for it; any other error is returned as it is.
func (c *CorruptSet) Keep(err error) error {
	var ce *CorruptRecordsError
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	for _, r := range ce.Records {
		c.Add(r.Namespace, r.Key, r.Err)
	}
	return nil
}

// Err is nil, or a *CorruptRecordsError of the gathered records.
func (c *CorruptSet) Err() error {
	if len(c.recs) == 0 {
		return nil
	}
	return &CorruptRecordsError{Records: slices.Clone(c.recs)}
}

// Records returns the gathered records, in the order they were added.
func (c *CorruptSet) Records() []CorruptRecord { return c.recs }

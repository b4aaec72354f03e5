package memory

import (
	"context"
	"errors"

	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// CorruptRecord is one stored record a read could not decode.
type CorruptRecord = storekit.CorruptRecord

// CorruptRecordsError lists the records a read skipped because they do not
// decode. A reader that returns it also returns everything it could read,
// so a caller can warn, keep going and move the records aside
// (QA.Quarantine, BoltStore.Quarantine). It wraps ErrStoreCorrupt.
type CorruptRecordsError = storekit.CorruptRecordsError

// IsCorruptOnly reports whether err is nil or only lists corrupt records
// (a *CorruptRecordsError): the result returned with it is usable.
func IsCorruptOnly(err error) bool {
	var ce *CorruptRecordsError
	return err == nil || errors.As(err, &ce)
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

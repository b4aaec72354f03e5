package storekit

import (
	"encoding/json"
	"fmt"
	"slices"
)

// DecodeRecord decodes the stored record of ns/key, checking that it is one
// Put could have written; any failure wraps ErrStoreCorrupt.
func DecodeRecord(raw []byte, ns []string, key string) (*Record, error) {
	var r Record
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%w: namespace %q key %q: %v", ErrStoreCorrupt, ns, key, err)
	}
	if r.V != RecordVersion {
		return nil, fmt.Errorf("%w: namespace %q key %q: unknown record version %d (this build reads %d)", ErrStoreCorrupt, ns, key, r.V, RecordVersion)
	}
	if r.Key != key || !slices.Equal(r.Namespace, ns) {
		return nil, fmt.Errorf("%w: namespace %q key %q: record holds %q/%q", ErrStoreCorrupt, ns, key, r.Namespace, r.Key)
	}
	// Only what Put could have written: a damaged record must not reach a
	// reader as a null or non-object value (it would decode as a zero value).
	if err := ValidateKey(ns, key); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStoreCorrupt, err)
	}
	if err := ValidateValue(ns, key, r.Value); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStoreCorrupt, err)
	}
	return &r, nil
}

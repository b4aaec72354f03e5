package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned by Store.Get for a missing key.
var ErrNotFound = errors.New("store: not found")

// ErrSkipUpdate, returned by an UpdateFunc, leaves the item as it is:
// Update then returns the current item (nil when there is none) and no
// error.
var ErrSkipUpdate = errors.New("store: update skipped")

// UpdateFunc computes an item's new value from its current one: cur is nil
// when the key is missing or expired. It must compute from cur alone (a
// back-end may call it more than once, when another writer got in between)
// and must not call the store.
type UpdateFunc func(cur *Item) (json.RawMessage, error)

// Item is one value in a Store.
type Item struct {
	Namespace []string
	Key       string
	Value     json.RawMessage // a JSON object
	CreatedAt time.Time
	UpdatedAt time.Time
	ExpiresAt time.Time // zero: never
	// Score is set by Search when a Query ranked the result (higher is better).
	Score float64
}

// PutOptions tune a Put.
type PutOptions struct {
	// TTL makes the item expire after this long; 0 keeps it forever.
	TTL time.Duration
	// Index names the top-level fields of the value whose text is embedded for
	// semantic search when the store has an embedder; nil means the store's
	// default fields, and NoIndex skips embedding.
	Index   []string
	NoIndex bool
}

// SearchQuery filters and ranks a Store search.
type SearchQuery struct {
	// Filter keeps the items whose value satisfies every condition; nil
	// keeps all.
	Filter Filter
	// Query ranks items by keyword match (or by embedding similarity when the
	// store has an embedder); empty means namespace order.
	Query  string
	Limit  int // 0 means the store's default (10)
	Offset int
}

// Op is the comparison of a filter Condition.
type Op string

// The comparisons of a Condition. OpEq and OpNe compare any JSON values
// (objects and arrays structurally); the order comparisons hold for two
// numbers or two strings only (strings compare bytewise), so a missing
// field or one of another type fails them.
const (
	OpEq  Op = "$eq"  // equal
	OpNe  Op = "$ne"  // not equal, or the field is missing
	OpGt  Op = "$gt"  // greater
	OpGte Op = "$gte" // greater or equal
	OpLt  Op = "$lt"  // less
	OpLte Op = "$lte" // less or equal
)

// Condition tests one field of an item's value: the field at Field
// (dotted names reach nested objects) compared with Value by Op. Build it
// with Where or Eq, Ne, Gt, Gte, Lt, Lte, which encode the value.
type Condition struct {
	Field string
	Op    Op              // "" means OpEq
	Value json.RawMessage // the JSON value compared with
	err   error           // Where could not encode the value
}

// Err is the error Where met encoding the value, if any; a Store rejects
// such a condition.
func (c Condition) Err() error { return c.err }

// Filter keeps the items whose value satisfies every Condition.
type Filter []Condition

// Where returns the condition "field op value", value encoded as JSON. A
// value that does not encode (a channel, say) gives a condition with an
// Err, which a Store's Search rejects.
func Where[T any](field string, op Op, value T) Condition {
	b, err := json.Marshal(value)
	if err != nil {
		return Condition{Field: field, Op: op, err: fmt.Errorf("value is not JSON: %w", err)}
	}
	return Condition{Field: field, Op: op, Value: b}
}

// Eq is Where(field, OpEq, value).
func Eq[T any](field string, value T) Condition { return Where(field, OpEq, value) }

// Ne is Where(field, OpNe, value).
func Ne[T any](field string, value T) Condition { return Where(field, OpNe, value) }

// Gt is Where(field, OpGt, value).
func Gt[T any](field string, value T) Condition { return Where(field, OpGt, value) }

// Gte is Where(field, OpGte, value).
func Gte[T any](field string, value T) Condition { return Where(field, OpGte, value) }

// Lt is Where(field, OpLt, value).
func Lt[T any](field string, value T) Condition { return Where(field, OpLt, value) }

// Lte is Where(field, OpLte, value).
func Lte[T any](field string, value T) Condition { return Where(field, OpLte, value) }

// NamespaceQuery filters ListNamespaces.
type NamespaceQuery struct {
	Prefix   []string
	Suffix   []string
	MaxDepth int // 0: full depth; otherwise namespaces are cut to this depth and deduplicated
	Limit    int // 0: 100
	Offset   int
}

// Store is long-term, cross-thread memory: JSON values under hierarchical
// namespaces. Implementations must be safe for concurrent use. Nodes reach the
// run's store with StoreFrom(ctx). See package memory for back-ends.
type Store interface {
	Put(ctx context.Context, ns []string, key string, value json.RawMessage, opts *PutOptions) error
	// Get returns ErrNotFound (wrapped) for a missing or expired key.
	Get(ctx context.Context, ns []string, key string) (*Item, error)
	// Delete of a missing key is not an error.
	Delete(ctx context.Context, ns []string, key string) error
	// Search returns the items whose namespace starts with prefix.
	Search(ctx context.Context, prefix []string, q SearchQuery) ([]Item, error)
	ListNamespaces(ctx context.Context, q NamespaceQuery) ([][]string, error)
	// Update atomically replaces the value at ns/key by what fn returns
	// given the current item: no other Put, Delete or Update of that key,
	// in this process or in another sharing the store, lands between the
	// read and the write (a read-modify-write such as a counter bumped by
	// several processes loses no increment). opts apply to the new value as
	// in Put. It returns the item as stored. An error from fn aborts the
	// update and is returned wrapped; ErrSkipUpdate leaves the item as it is.
	Update(ctx context.Context, ns []string, key string, fn UpdateFunc, opts *PutOptions) (*Item, error)
}

// PutJSON marshals v and stores it.
func PutJSON[T any](ctx context.Context, s Store, ns []string, key string, v T, opts *PutOptions) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.Put(ctx, ns, key, b, opts)
}

// GetJSON loads a value and unmarshals it into a T.
func GetJSON[T any](ctx context.Context, s Store, ns []string, key string) (T, error) {
	var v T
	it, err := s.Get(ctx, ns, key)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(it.Value, &v); err != nil {
		return v, err
	}
	return v, nil
}

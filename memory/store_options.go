package memory

import (
	"log/slog"
	"slices"
	"time"

	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// Embedder turns text into vectors for semantic search. Its method set is
// that of langchaingo's embeddings.Embedder, so any langchaingo embedder
// can be passed to WithEmbedder as it is.
type Embedder = storekit.Embedder

// ErrInvalidStoreInput is wrapped by every Store error about a bad
// argument: an empty namespace label or key, a value that is not a JSON
// object, a malformed filter.
var ErrInvalidStoreInput = storekit.ErrInvalidStoreInput

// ErrStoreCorrupt is wrapped when a stored item cannot be decoded.
var ErrStoreCorrupt = storekit.ErrStoreCorrupt

// Defaults of Search and ListNamespaces.
const (
	DefaultSearchLimit    = storekit.DefaultSearchLimit
	DefaultNamespaceLimit = storekit.DefaultNamespaceLimit
)

// StoreOption configures a Store back-end.
type StoreOption = storekit.Option

// DefaultStoreBucket is the top-level bbolt bucket of BoltStore.
const DefaultStoreBucket = storekit.DefaultStoreBucket

// WithStoreClock sets the clock used for timestamps and TTL expiry.
func WithStoreClock(now func() time.Time) StoreOption {
	return func(c *storekit.Config) { c.Now = now }
}

// WithEmbedder makes Search rank by embedding similarity when a query is
// given. fields are the default top-level (or dotted) fields whose text is
// embedded when PutOptions.Index is nil; with none, every string in the
// value is embedded.
func WithEmbedder(e Embedder, fields ...string) StoreOption {
	return func(c *storekit.Config) {
		c.Embedder = e
		c.IndexFields = slices.Clone(fields)
	}
}

// WithIndexFields sets the default fields used for keyword ranking (and
// embedding) when PutOptions.Index is nil.
func WithIndexFields(fields ...string) StoreOption {
	return func(c *storekit.Config) { c.IndexFields = slices.Clone(fields) }
}

// WithStoreBucket sets the top-level bbolt bucket BoltStore uses.
func WithStoreBucket(name string) StoreOption { return func(c *storekit.Config) { c.Bucket = name } }

// WithStoreLogger sets the logger for skipped corrupt items and purges.
func WithStoreLogger(l *slog.Logger) StoreOption { return func(c *storekit.Config) { c.Logger = l } }

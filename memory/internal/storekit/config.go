package storekit

import (
	"log/slog"
	"time"
)

// Option configures a Store back-end (memory.StoreOption is this type).
type Option func(*Config)

// Config is what the options set, shared by every back-end.
type Config struct {
	Now         func() time.Time
	Embedder    Embedder
	IndexFields []string
	Bucket      string
	Logger      *slog.Logger
}

// NewConfig applies opts to the defaults: UTC wall clock, DefaultStoreBucket,
// a logger that discards.
func NewConfig(opts []Option) Config {
	c := Config{
		Now:    func() time.Time { return time.Now().UTC() },
		Bucket: DefaultStoreBucket,
		Logger: slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// DefaultStoreBucket is the default store name: the top-level bbolt bucket
// of memory.BoltStore, the store column of the PostgreSQL store.
const DefaultStoreBucket = "agentgraph.store"

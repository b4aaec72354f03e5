// Package postgres is the PostgreSQL (github.com/jackc/pgx/v5) back-end of
// graph.Store, for the stores of package memory shared by several processes
// or machines. It is a package of its own, as checkpoint/postgres is, so
// that importing memory does not link pgx:
//
//	st, pool, err := postgres.Open(ctx, "postgres://user@db:5432/agentgraph")
//	defer pool.Close()
//	app, err := g.Compile(graph.WithStore(st))
//
// It takes memory's StoreOptions (memory.WithEmbedder, memory.WithStoreBucket,
// ...) and passes memory/storetest unchanged.
//
// New (or Open with a DSN) returns a Store: a graph.Store on PostgreSQL
// (pgx), shared by every process that opens the same database: the store
// for several explorer shards or graph replicas. Its schema
// (table agentgraph_store_items) is created or migrated on open, versioned
// in agentgraph_schema and under an advisory lock (package
// internal/pgmigrate), so processes may open it at once. A row holds the
// same JSON record as the bbolt store and the expiry as a column; a
// namespace is a length-prefixed byte key, so the items under a prefix are
// one index range. SQL narrows a Search to that range and to live items;
// the filter, keyword or vector ranking (cosine in Go, no extension) and
// paging run on the rows with the code every back-end of package memory
// shares, so results match the other back-ends. memory.WithStoreBucket
// names the store (a column), so several stores can share a database. Update locks the item's row;
// when the key is missing, it inserts only if no one else did meanwhile
// and otherwise runs the function again on the other writer's value.
// Records that do not decode are reported as in the bbolt store (Get fails,
// Search returns the rest with a *memory.CorruptRecordsError); Check, Quarantine
// (into the table agentgraph_store_quarantine, bytes kept) and Quarantined
// work the same way, so memory.QA.Check and QA.Quarantine do too.
// The tests start a throwaway cluster (internal/pgtest) once per test
// binary.
package postgres

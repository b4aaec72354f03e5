// Package storekit is what every graph.Store back-end of package memory
// shares: options and their defaults, the stored record and its decoding,
// validation, filters, keyword and vector ranking, namespace listing,
// Update's checks and the gathering of corrupt records. memory's in-memory
// and bbolt stores and memory/postgres's PostgreSQL store use it, so the
// three return the same results; memory re-exports the public part
// (Embedder, StoreOption, the errors, CorruptRecord, CorruptRecordsError).
// It lives under memory/internal so that it is no public API and so that
// memory/postgres can use it without memory linking pgx.
package storekit

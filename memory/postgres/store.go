package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/pgmigrate"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// Store is a graph.Store kept in PostgreSQL (pgx), shared by every
// process that opens the same database. Items live in one table,
// agentgraph_store_items, keyed by store name (memory.DefaultStoreBucket,
// or memory.WithStoreBucket), namespace and key; each row holds the same JSON
// record the bbolt store keeps (value, times, index fields, vector) and
// the expiry time as a column.
//
// SQL narrows a Search to the namespace prefix (an index range) and to the
// live items; the filter, the keyword or vector ranking (cosine computed
// in Go, no database extension) and the paging then run on those rows with
// the code every back-end of package memory shares, so results are the
// same as the in-memory and bbolt stores'. Update locks the item's row (SELECT
// ... FOR UPDATE), so read-modify-writes from several processes never lose
// a change. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	cfg     storekit.Config
	timeout time.Duration
}

var _ graph.Store = (*Store)(nil)

// storeMigrations take the store's schema from version i to i+1.
var storeMigrations = []string{
	// 1: one row per item. nskey is storekit.NSKey(namespace): length-prefixed
	// labels, so the items under a namespace prefix are one key range.
	`CREATE TABLE agentgraph_store_items (
		store   text   NOT NULL,
		nskey   bytea  NOT NULL,
		key     bytea  NOT NULL,
		expires bigint NOT NULL, -- Unix nanoseconds; 0: never
		record  bytea  NOT NULL, -- the JSON record (storekit.Record)
		PRIMARY KEY (store, nskey, key));
	CREATE INDEX agentgraph_store_items_expires ON agentgraph_store_items (store, expires) WHERE expires <> 0;`,
	// 2: records moved aside because they do not decode (Quarantine, and
	// a Put over a damaged record), bytes kept.
	`CREATE TABLE agentgraph_store_quarantine (
		store  text   NOT NULL,
		seq    bigserial,
		entry  bytea  NOT NULL, -- JSON: memory.QuarantinedRecord
		PRIMARY KEY (store, seq));`,
}

// pgStoreTimeout bounds each operation on top of its context.
const pgStoreTimeout = 30 * time.Second

// New creates or migrates the store's schema (versioned,
// under an advisory lock: safe from several processes at once) and returns
// a Store on pool. The caller closes the pool.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...memory.StoreOption) (*Store, error) {
	if pool == nil {
		return nil, storekit.Invalid("nil pool")
	}
	s := &Store{pool: pool, cfg: storekit.NewConfig(opts), timeout: pgStoreTimeout}
	if s.cfg.Bucket == "" {
		return nil, storekit.Invalid("empty store name")
	}
	if _, err := pgmigrate.Apply(ctx, pool, "store", storeMigrations); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return s, nil
}

// Open connects to dsn, migrates and returns the Store and
// its pool, which the caller closes.
func Open(ctx context.Context, dsn string, opts ...memory.StoreOption) (*Store, *pgxpool.Pool, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	s, err := New(ctx, pool, opts...)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return s, pool, nil
}

// Pool returns the connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// parseNSKey is the inverse of storekit.NSKey.
func parseNSKey(k []byte) ([]string, error) {
	var ns []string
	for len(k) > 0 {
		colon := slices.Index(k, ':')
		if colon <= 0 {
			return nil, fmt.Errorf("%w: namespace key %q", memory.ErrStoreCorrupt, k)
		}
		n, err := strconv.Atoi(string(k[:colon]))
		if err != nil || n < 0 || colon+1+n >= len(k) || k[colon+1+n] != '/' {
			return nil, fmt.Errorf("%w: namespace key %q", memory.ErrStoreCorrupt, k)
		}
		ns = append(ns, string(k[colon+1:colon+1+n]))
		k = k[colon+2+n:]
	}
	return ns, nil
}

// prefixRange returns the nskey range of the namespaces under prefix.
func prefixRange(prefix []string) (lo, hi []byte) {
	if len(prefix) == 0 {
		return []byte{}, nil
	}
	lo = []byte(storekit.NSKey(prefix))              // ends with '/'
	hi = append(slices.Clone(lo[:len(lo)-1]), '/'+1) // the next key after every extension of lo
	return lo, hi
}

func (s *Store) encode(r *storekit.Record) ([]byte, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return raw, nil
}

// lockRecord reads the item's row in tx, locking it; nil when missing.
func (s *Store) lockRecord(ctx context.Context, tx pgx.Tx, ns []string, key string) ([]byte, error) {
	var raw []byte
	err := tx.QueryRow(ctx, `SELECT record FROM agentgraph_store_items WHERE store = $1 AND nskey = $2 AND key = $3 FOR UPDATE`,
		s.cfg.Bucket, []byte(storekit.NSKey(ns)), []byte(key)).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return raw, err
}

// write inserts or replaces the item's row. With insertOnly, a row that
// appeared since it was found missing is left alone and ok is false.
func (s *Store) write(ctx context.Context, tx pgx.Tx, r *storekit.Record, insertOnly bool) (ok bool, err error) {
	raw, err := s.encode(r)
	if err != nil {
		return false, err
	}
	q := `INSERT INTO agentgraph_store_items (store, nskey, key, expires, record) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (store, nskey, key) DO UPDATE SET expires = EXCLUDED.expires, record = EXCLUDED.record`
	if insertOnly {
		q = `INSERT INTO agentgraph_store_items (store, nskey, key, expires, record) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (store, nskey, key) DO NOTHING`
	}
	tag, err := tx.Exec(ctx, q, s.cfg.Bucket, []byte(storekit.NSKey(r.Namespace)), []byte(r.Key), unixNano(r.ExpiresAt), raw)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// Put stores value (a JSON object) under ns and key.
func (s *Store) Put(ctx context.Context, ns []string, key string, value json.RawMessage, opts *graph.PutOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := storekit.ValidateKey(ns, key); err != nil {
		return err
	}
	if err := storekit.ValidateValue(ns, key, value); err != nil {
		return err
	}
	vec, err := s.cfg.Embed(ctx, value, opts)
	if err != nil {
		return fmt.Errorf("store: put %q/%q: %w", ns, key, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		raw, err := s.lockRecord(ctx, tx, ns, key)
		if err != nil {
			return err
		}
		var old *storekit.Record
		if raw != nil {
			var derr error
			if old, derr = storekit.DecodeRecord(raw, ns, key); derr != nil {
				// A damaged old record is replaced; its bytes are kept.
				if err := s.quarantine(ctx, tx, ns, key, raw, derr); err != nil {
					return err
				}
				s.cfg.Logger.Warn("store: put replaces a record that does not decode; its bytes are in the quarantine",
					"namespace", ns, "key", key, "err", derr)
			}
		}
		r := s.cfg.NewRecord(ns, key, value, opts, old)
		r.Vector = vec
		_, err = s.write(ctx, tx, r, false)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: put %q/%q: %w", ns, key, err)
	}
	return nil
}

// Get returns the item, or an error wrapping graph.ErrNotFound.
func (s *Store) Get(ctx context.Context, ns []string, key string) (*graph.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := storekit.ValidateKey(ns, key); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var raw []byte
	err := s.pool.QueryRow(ctx, `SELECT record FROM agentgraph_store_items WHERE store = $1 AND nskey = $2 AND key = $3`,
		s.cfg.Bucket, []byte(storekit.NSKey(ns)), []byte(key)).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("store: get %q/%q: %w", ns, key, graph.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: get %q/%q: %w", ns, key, err)
	}
	r, err := storekit.DecodeRecord(raw, ns, key)
	if err != nil {
		bad := &memory.CorruptRecordsError{Records: []memory.CorruptRecord{{Namespace: slices.Clone(ns), Key: key, Err: err}}}
		return nil, fmt.Errorf("store: get %q/%q: %w", ns, key, bad)
	}
	it := storekit.LiveItem(r, s.cfg.Now())
	if it == nil {
		return nil, fmt.Errorf("store: get %q/%q: %w", ns, key, graph.ErrNotFound)
	}
	return it, nil
}

// Delete removes an item; a missing one is not an error.
func (s *Store) Delete(ctx context.Context, ns []string, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := storekit.ValidateKey(ns, key); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	_, err := s.pool.Exec(ctx, `DELETE FROM agentgraph_store_items WHERE store = $1 AND nskey = $2 AND key = $3`,
		s.cfg.Bucket, []byte(storekit.NSKey(ns)), []byte(key))
	if err != nil {
		return fmt.Errorf("store: delete %q/%q: %w", ns, key, err)
	}
	return nil
}

// Search returns the items under prefix that pass the query's filter,
// ranked by the query (keyword match, or similarity with an embedder) or in
// namespace and key order. Items that do not decode are skipped: Search
// then returns the other items together with a *memory.CorruptRecordsError.
func (s *Store) Search(ctx context.Context, prefix []string, q graph.SearchQuery) ([]graph.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	se, err := storekit.NewSearcher(ctx, &s.cfg, prefix, q)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	lo, hi := prefixRange(prefix)
	rows, err := s.pool.Query(ctx, `SELECT nskey, key, record FROM agentgraph_store_items
		WHERE store = $1 AND nskey >= $2 AND ($3::bytea IS NULL OR nskey < $3) AND (expires = 0 OR expires > $4)`,
		s.cfg.Bucket, lo, hi, unixNano(se.Now))
	if err != nil {
		return nil, fmt.Errorf("store: search %q: %w", prefix, err)
	}
	var bad storekit.CorruptSet
	var nk, key, raw []byte
	_, err = pgx.ForEachRow(rows, []any{&nk, &key, &raw}, func() error {
		ns, err := parseNSKey(nk)
		var r *storekit.Record
		if err == nil {
			r, err = storekit.DecodeRecord(raw, ns, string(key))
		}
		if err == nil {
			err = se.Add(r)
		}
		if err != nil {
			s.cfg.Logger.Warn("store: skipping an item that does not decode", "err", err)
			bad.Add(ns, string(key), err)
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: search %q: %w", prefix, err)
	}
	return se.Done(), bad.Err()
}

// ListNamespaces lists the namespaces that hold live items.
func (s *Store) ListNamespaces(ctx context.Context, q graph.NamespaceQuery) ([][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := storekit.NewNSLister(q)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT nskey FROM agentgraph_store_items WHERE store = $1 AND (expires = 0 OR expires > $2)`,
		s.cfg.Bucket, unixNano(s.cfg.Now()))
	if err != nil {
		return nil, fmt.Errorf("store: list namespaces: %w", err)
	}
	var nk []byte
	_, err = pgx.ForEachRow(rows, []any{&nk}, func() error {
		ns, err := parseNSKey(nk)
		if err != nil {
			s.cfg.Logger.Warn("store: skipping a namespace key that does not decode", "err", err)
			return nil
		}
		l.Add(ns)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list namespaces: %w", err)
	}
	return l.Done(), nil
}

// PurgeExpired deletes expired items and returns how many it removed.
func (s *Store) PurgeExpired(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	tag, err := s.pool.Exec(ctx, `DELETE FROM agentgraph_store_items WHERE store = $1 AND expires <> 0 AND expires <= $2`,
		s.cfg.Bucket, unixNano(s.cfg.Now()))
	if err != nil {
		return 0, fmt.Errorf("store: purge expired: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// maxUpdateAttempts bounds Update's retries when another writer creates
// the key between Update's read and its insert.
const maxUpdateAttempts = 20

// Update atomically replaces the value at ns/key by what fn returns given
// the current item (see graph.Store). An existing row is locked for the
// read-modify-write (other writers wait); a missing key is inserted only if
// no other writer inserted it meanwhile, else fn runs again on that
// writer's value. A current record that does not decode fails the update
// (an error wrapping memory.ErrStoreCorrupt) rather than being replaced.
func (s *Store) Update(ctx context.Context, ns []string, key string, fn graph.UpdateFunc, opts *graph.PutOptions) (*graph.Item, error) {
	if err := storekit.CheckUpdate(ctx, ns, key, fn); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	errRace := errors.New("inserted by another writer")
	for attempt := 1; ; attempt++ {
		var out *graph.Item
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			raw, err := s.lockRecord(ctx, tx, ns, key)
			if err != nil {
				return err
			}
			var old *storekit.Record
			if raw != nil {
				if old, err = storekit.DecodeRecord(raw, ns, key); err != nil {
					return &memory.CorruptRecordsError{Records: []memory.CorruptRecord{{Namespace: slices.Clone(ns), Key: key, Err: err}}}
				}
			}
			now := s.cfg.Now()
			v, err := storekit.CallUpdate(ns, key, fn, old, now)
			if errors.Is(err, graph.ErrSkipUpdate) {
				out = storekit.LiveItem(old, now)
				return nil
			}
			if err != nil {
				return err
			}
			vec, err := s.cfg.Embed(ctx, v, opts)
			if err != nil {
				return err
			}
			r := s.cfg.NewRecord(ns, key, v, opts, old)
			r.Vector = vec
			ok, err := s.write(ctx, tx, r, raw == nil)
			if err != nil {
				return err
			}
			if !ok {
				return errRace
			}
			it := r.Item()
			out = &it
			return nil
		})
		if errors.Is(err, errRace) && attempt < maxUpdateAttempts {
			continue
		}
		if err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "40P01" && attempt < maxUpdateAttempts { // deadlock detected
				continue
			}
			return nil, fmt.Errorf("store: update %q/%q: %w", ns, key, err)
		}
		return out, nil
	}
}

// quarantine keeps raw (the record of ns/key) in the quarantine table;
// reason may be nil.
func (s *Store) quarantine(ctx context.Context, tx pgx.Tx, ns []string, key string, raw []byte, reason error) error {
	rec := memory.QuarantinedRecord{Namespace: slices.Clone(ns), Key: key, At: s.cfg.Now().UTC(), Raw: slices.Clone(raw), Reason: "replaced by a put"}
	if reason != nil {
		rec.Reason = reason.Error()
	}
	entry, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO agentgraph_store_quarantine (store, entry) VALUES ($1, $2)`, s.cfg.Bucket, entry)
	return err
}

// pgVictim is a record that does not decode, as stored.
type pgVictim struct {
	memory.CorruptRecord
	nskey, raw []byte
}

// scan decodes every record under prefix (expired ones too) and returns
// those that fail, with their bytes.
func (s *Store) scan(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, prefix []string) ([]pgVictim, error) {
	lo, hi := prefixRange(prefix)
	rows, err := q.Query(ctx, `SELECT nskey, key, record FROM agentgraph_store_items
		WHERE store = $1 AND nskey >= $2 AND ($3::bytea IS NULL OR nskey < $3)`, s.cfg.Bucket, lo, hi)
	if err != nil {
		return nil, err
	}
	var out []pgVictim
	var nk, key, raw []byte
	_, err = pgx.ForEachRow(rows, []any{&nk, &key, &raw}, func() error {
		ns, err := parseNSKey(nk)
		if err == nil {
			_, err = storekit.DecodeRecord(raw, ns, string(key))
		}
		if err != nil {
			out = append(out, pgVictim{memory.CorruptRecord{Namespace: ns, Key: string(key), Err: err}, slices.Clone(nk), slices.Clone(raw)})
		}
		return ctx.Err()
	})
	return out, err
}

// Check reads every record of the store and returns nil when all decode,
// or a *memory.CorruptRecordsError listing each one that does not.
func (s *Store) Check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	victims, err := s.scan(ctx, s.pool, nil)
	if err != nil {
		return fmt.Errorf("store: check: %w", err)
	}
	var bad storekit.CorruptSet
	for _, v := range victims {
		bad.Add(v.Namespace, v.Key, v.Err)
	}
	return bad.Err()
}

// Quarantine moves every record under prefix (nil: the whole store) that
// does not decode into the quarantine table, keeping its bytes, and
// returns the records it moved. Quarantined lists them.
func (s *Store) Quarantine(ctx context.Context, prefix []string) ([]memory.CorruptRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := storekit.ValidateNS(prefix, true); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var moved []memory.CorruptRecord
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		moved = nil
		victims, err := s.scan(ctx, tx, prefix)
		if err != nil {
			return err
		}
		for _, v := range victims {
			if err := s.quarantine(ctx, tx, v.Namespace, v.Key, v.raw, v.Err); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM agentgraph_store_items WHERE store = $1 AND nskey = $2 AND key = $3`,
				s.cfg.Bucket, v.nskey, []byte(v.Key)); err != nil {
				return err
			}
			moved = append(moved, v.CorruptRecord)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: quarantine: %w", err)
	}
	return moved, nil
}

// Quarantined lists the quarantined records, oldest first.
func (s *Store) Quarantined(ctx context.Context) ([]memory.QuarantinedRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT entry FROM agentgraph_store_quarantine WHERE store = $1 ORDER BY seq`, s.cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("store: quarantined: %w", err)
	}
	var out []memory.QuarantinedRecord
	var entry []byte
	_, err = pgx.ForEachRow(rows, []any{&entry}, func() error {
		var q memory.QuarantinedRecord
		if err := json.Unmarshal(entry, &q); err != nil {
			return fmt.Errorf("%w: quarantine entry: %v", memory.ErrStoreCorrupt, err)
		}
		out = append(out, q)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: quarantined: %w", err)
	}
	return out, nil
}

var (
	_ memory.StoreChecker = (*Store)(nil)
	_ memory.Quarantiner  = (*Store)(nil)
)

package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/pgmigrate"
)

// ErrConflict is wrapped by *ConflictError.
var ErrConflict = errors.New("checkpoint/postgres: the thread was changed by another writer")

// ConflictError is returned by Put and PutWrites when the thread's newest
// checkpoint is no longer the one this Checkpointer last saw: another
// process (another Checkpointer) continued the thread in between. Nothing
// was written. Load the thread again (graph.Continue) to go on from the
// other writer's checkpoint.
type ConflictError struct {
	ThreadID, NS string
	CheckpointID string // what was being written (Put) or written against (PutWrites)
	ParentID     string
	Expected     string // the newest checkpoint this writer saw ("" for none)
	Head         string // the newest checkpoint now stored
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("checkpoint/postgres: thread %q ns %q: checkpoint %q (parent %q) conflicts: this writer saw newest %q, another writer stored %q",
		e.ThreadID, e.NS, e.CheckpointID, e.ParentID, e.Expected, e.Head)
}

// Unwrap lets errors.Is(err, ErrConflict) match.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// Option configures a Checkpointer.
type Option func(*config)

type config struct {
	keepLast      int
	snapshotEvery int
	logger        *slog.Logger
	timeout       time.Duration
}

// WithRetention keeps only the newest n checkpoints of each thread and
// namespace (and their pending writes); n <= 0 keeps everything.
func WithRetention(n int) Option { return func(c *config) { c.keepLast = n } }

// WithSnapshotEvery writes a full snapshot at least every k checkpoints of
// a chain (default checkpoint.DefaultSnapshotEvery); k = 1 stores every
// checkpoint in full.
func WithSnapshotEvery(k int) Option { return func(c *config) { c.snapshotEvery = k } }

// WithLogger sets the logger for maintenance events.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithTimeout bounds each operation (default 30s) on top of its context.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// maxSeen bounds the heads a Checkpointer remembers.
const maxSeen = 1 << 14

// Checkpointer is a graph.Checkpointer stored in PostgreSQL. It is safe for
// concurrent use, and several processes may share one database: see the
// package documentation for how their writes to one thread are ordered.
type Checkpointer struct {
	pool *pgxpool.Pool
	cfg  config

	mu    sync.Mutex
	seen  map[string]string  // thread/ns key -> newest checkpoint this writer saw
	cache map[string]*loaded // thread/ns key -> newest checkpoint it materialised
}

var _ graph.Checkpointer = (*Checkpointer)(nil)

// New creates or migrates the schema (see package pgmigrate) and returns a
// Checkpointer on pool. The caller closes the pool.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Checkpointer, error) {
	if pool == nil {
		return nil, fmt.Errorf("checkpoint/postgres: nil pool: %w", checkpoint.ErrInvalid)
	}
	c := &Checkpointer{pool: pool, seen: map[string]string{}, cache: map[string]*loaded{}}
	c.cfg = config{snapshotEvery: checkpoint.DefaultSnapshotEvery, logger: slog.New(slog.DiscardHandler), timeout: 30 * time.Second}
	for _, o := range opts {
		o(&c.cfg)
	}
	if c.cfg.snapshotEvery < 1 {
		c.cfg.snapshotEvery = 1
	}
	if c.cfg.timeout <= 0 {
		c.cfg.timeout = 30 * time.Second
	}
	if _, err := pgmigrate.Apply(ctx, pool, component, migrations); err != nil {
		return nil, fmt.Errorf("checkpoint/postgres: %w", err)
	}
	return c, nil
}

// Open connects to the database at dsn (a postgres:// URL or key=value
// string), migrates it and returns the Checkpointer and its pool, which the
// caller closes.
func Open(ctx context.Context, dsn string, opts ...Option) (*Checkpointer, *pgxpool.Pool, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint/postgres: %w", err)
	}
	c, err := New(ctx, pool, opts...)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return c, pool, nil
}

// Pool returns the connection pool.
func (c *Checkpointer) Pool() *pgxpool.Pool { return c.pool }

func key(threadID, ns string) string {
	return string(binary.AppendUvarint(nil, uint64(len(threadID)))) + threadID + ns
}

func (c *Checkpointer) sawHead(threadID, ns, head string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := key(threadID, ns)
	if _, ok := c.seen[k]; !ok && len(c.seen) >= maxSeen {
		for k := range c.seen {
			delete(c.seen, k)
			break
		}
	}
	c.seen[k] = head
}

func (c *Checkpointer) expected(threadID, ns string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.seen[key(threadID, ns)]
	return h, ok
}

func (c *Checkpointer) remember(threadID, ns string, l *loaded) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := key(threadID, ns)
	if _, ok := c.cache[k]; !ok && len(c.cache) >= 64 {
		for k := range c.cache {
			delete(c.cache, k)
			break
		}
	}
	c.cache[k] = l
}

func (c *Checkpointer) cached(threadID, ns string) *loaded {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cache[key(threadID, ns)]
}

func (c *Checkpointer) forgetThread(threadID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := key(threadID, "")
	for k := range c.cache {
		if len(k) >= len(p) && k[:len(p)] == p {
			delete(c.cache, k)
		}
	}
	for k := range c.seen {
		if len(k) >= len(p) && k[:len(p)] == p {
			delete(c.seen, k)
		}
	}
}

func (c *Checkpointer) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.cfg.timeout)
}

func validate(cp *graph.Checkpoint) error {
	if cp == nil {
		return fmt.Errorf("checkpoint/postgres: put: nil checkpoint: %w", checkpoint.ErrInvalid)
	}
	if cp.ID == "" {
		return fmt.Errorf("checkpoint/postgres: put: thread %q ns %q: empty checkpoint id: %w", cp.ThreadID, cp.NS, checkpoint.ErrInvalid)
	}
	return nil
}

func notFound(threadID, ns, id string) error {
	if id == "" {
		return fmt.Errorf("checkpoint/postgres: thread %q ns %q: no checkpoint: %w", threadID, ns, graph.ErrCheckpointNotFound)
	}
	return fmt.Errorf("checkpoint/postgres: thread %q ns %q checkpoint %q: %w", threadID, ns, id, graph.ErrCheckpointNotFound)
}

// Put stores cp, relative to its parent when the parent is stored. It
// fails with a *ConflictError when another writer moved the thread since
// this Checkpointer last read or wrote it.
func (c *Checkpointer) Put(ctx context.Context, cp *graph.Checkpoint) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validate(cp); err != nil {
		return err
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	want, known := c.expected(cp.ThreadID, cp.NS)
	hint := c.cached(cp.ThreadID, cp.NS)
	var stored *loaded
	var head string
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		t := c.txn(ctx, tx, cp.ThreadID, cp.NS)
		var err error
		// The thread's row is locked: writers of one thread take turns.
		if stored, head, err = t.put(cp, hint, want, known); err != nil {
			return err
		}
		return t.retain(c.cfg.keepLast)
	})
	if err != nil {
		var ce *ConflictError
		if errors.As(err, &ce) {
			return err
		}
		c.forgetCache(cp.ThreadID, cp.NS)
		return fmt.Errorf("checkpoint/postgres: put thread %q ns %q checkpoint %q: %w", cp.ThreadID, cp.NS, cp.ID, err)
	}
	c.sawHead(cp.ThreadID, cp.NS, head)
	c.remember(cp.ThreadID, cp.NS, stored)
	return nil
}

// conflict says whether a Put of cp must fail, given the stored head and
// the head this writer saw (known is false when it never read the thread:
// then only a child of a checkpoint other than the head conflicts).
func conflict(head, want string, known bool, cp *graph.Checkpoint) bool {
	if known {
		return head != want
	}
	return cp.ParentID != "" && head != "" && head != cp.ParentID && head != cp.ID
}

func (c *Checkpointer) forgetCache(threadID, ns string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.cache, key(threadID, ns))
}

// PutWrites stores pending writes against checkpointID. It fails with a
// *ConflictError when another writer moved the thread since this
// Checkpointer last read or wrote it.
func (c *Checkpointer) PutWrites(ctx context.Context, threadID, ns, checkpointID string, writes []graph.PendingWrite) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if checkpointID == "" {
		return fmt.Errorf("checkpoint/postgres: put writes: thread %q ns %q: empty checkpoint id: %w", threadID, ns, checkpoint.ErrInvalid)
	}
	if len(writes) == 0 {
		return nil
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	want, known := c.expected(threadID, ns)
	check := func(head string) error {
		if known && head != want {
			return &ConflictError{ThreadID: threadID, NS: ns, CheckpointID: checkpointID, Expected: want, Head: head}
		}
		return nil
	}
	// Fast path, one pipelined batch: the check and the upserts, rolled
	// back when the check fails or a child shares these pending writes.
	errShared := errors.New("pending writes shared with a child")
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		head, shared, err := c.txn(ctx, tx, threadID, ns).putWritesChecked(checkpointID, writes)
		if err != nil {
			return err
		}
		if err := check(head); err != nil {
			return err
		}
		if shared {
			return errShared
		}
		return nil
	})
	if errors.Is(err, errShared) {
		err = pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
			t := c.txn(ctx, tx, threadID, ns)
			head, children, err := t.headAndSharers(checkpointID)
			if err != nil {
				return err
			}
			if err := check(head); err != nil {
				return err
			}
			// A child whose Writes are these pending writes keeps its own copy.
			for _, id := range children {
				if err := t.detach(id); err != nil {
					return err
				}
			}
			return t.putWrites(checkpointID, writes)
		})
	}
	if err != nil {
		var ce *ConflictError
		if errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf("checkpoint/postgres: put writes thread %q ns %q checkpoint %q: %w", threadID, ns, checkpointID, err)
	}
	return nil
}

// readTx runs fn in a read-only, repeatable-read transaction: one snapshot.
func (c *Checkpointer) readTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, c.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// Get loads a checkpoint (the newest when checkpointID is empty) and the
// pending writes stored against it.
func (c *Checkpointer) Get(ctx context.Context, threadID, ns, checkpointID string) (*graph.Checkpoint, []graph.PendingWrite, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	var out *graph.Checkpoint
	var ws []graph.PendingWrite
	var head string
	var l *loaded
	err := c.readTx(ctx, func(tx pgx.Tx) error {
		t := c.txn(ctx, tx, threadID, ns)
		var err error
		if head, err = t.head(); err != nil {
			return err
		}
		id := checkpointID
		if id == "" {
			if id, err = t.newest(); err != nil {
				return err
			}
			if id == "" {
				return notFound(threadID, ns, "")
			}
		}
		memo := map[string]*loaded{}
		if h := c.cached(threadID, ns); h != nil {
			memo[h.id] = h
		}
		if l, err = t.load(id, memo); err != nil {
			return err
		}
		out = l.checkpoint(threadID, ns)
		ws, err = t.writes(id)
		return err
	})
	if err != nil {
		if errors.Is(err, graph.ErrCheckpointNotFound) {
			c.sawHead(threadID, ns, head)
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("checkpoint/postgres: get thread %q ns %q: %w", threadID, ns, err)
	}
	c.sawHead(threadID, ns, head)
	if l.id == head {
		c.remember(threadID, ns, l)
	}
	return out, ws, nil
}

// List returns the thread's checkpoints in ns, newest first.
func (c *Checkpointer) List(ctx context.Context, threadID, ns string, opts graph.ListOptions) ([]*graph.Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	var out []*graph.Checkpoint
	err := c.readTx(ctx, func(tx pgx.Tx) error {
		t := c.txn(ctx, tx, threadID, ns)
		ids, err := t.ids(opts)
		if err != nil {
			return err
		}
		memo := map[string]*loaded{}
		if h := c.cached(threadID, ns); h != nil {
			memo[h.id] = h
		}
		out = make([]*graph.Checkpoint, len(ids))
		// Oldest first, so each chain is read once.
		for i := len(ids) - 1; i >= 0; i-- {
			if err := ctx.Err(); err != nil {
				return err
			}
			l, err := t.load(ids[i], memo)
			if err != nil {
				return err
			}
			out[i] = l.checkpoint(threadID, ns)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint/postgres: list thread %q ns %q: %w", threadID, ns, err)
	}
	return out, nil
}

// DeleteThread removes every checkpoint and pending write of threadID.
func (c *Checkpointer) DeleteThread(ctx context.Context, threadID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	c.forgetThread(threadID)
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		for _, table := range []string{"agentgraph_cp_threads", "agentgraph_cp_checkpoints", "agentgraph_cp_channels", "agentgraph_cp_writes"} {
			if _, err := tx.Exec(ctx, "DELETE FROM "+table+" WHERE thread = $1", []byte(threadID)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("checkpoint/postgres: delete thread %q: %w", threadID, err)
	}
	return nil
}

// Check loads every checkpoint of every thread and namespace and returns
// nil when all load, or every problem found (errors.Join), each a
// *checkpoint.DecodeError naming the thread, namespace and checkpoint.
func (c *Checkpointer) Check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var errs []error
	err := c.readTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT thread, ns, array_agg(id ORDER BY id) FROM agentgraph_cp_checkpoints GROUP BY thread, ns ORDER BY thread, ns`)
		if err != nil {
			return err
		}
		type group struct {
			thread, ns []byte
			ids        [][]byte
		}
		var groups []group
		var g group
		if _, err := pgx.ForEachRow(rows, []any{&g.thread, &g.ns, &g.ids}, func() error {
			groups = append(groups, group{thread: g.thread, ns: g.ns, ids: g.ids})
			return nil
		}); err != nil {
			return err
		}
		for _, g := range groups {
			t := c.txn(ctx, tx, string(g.thread), string(g.ns))
			memo := map[string]*loaded{}
			for _, id := range g.ids {
				if err := ctx.Err(); err != nil {
					return err
				}
				if _, err := t.load(string(id), memo); err != nil {
					var de *checkpoint.DecodeError
					if !errors.As(err, &de) {
						return err
					}
					errs = append(errs, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("checkpoint/postgres: check: %w", err))
	}
	return errors.Join(errs...)
}

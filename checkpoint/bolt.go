package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/agentgraph/agentgraph/graph"
)

// OpenBoltDB opens (or creates) a bbolt file for a Bolt checkpointer and,
// through memory.NewBoltStore, a store. bbolt lets one process at a time
// open a file; opts may be nil, and a zero Timeout becomes 2s so a second
// process gets an error instead of waiting forever. A damaged or truncated
// file gives an error wrapping ErrCorrupt. The caller closes the DB after
// the checkpointer and store are no longer used.
func OpenBoltDB(path string, opts *bolt.Options) (*bolt.DB, error) {
	o := bolt.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	return openBolt(path, o) // open.go: a damaged file gives ErrCorrupt, never a panic
}

// Bolt is a graph.Checkpointer stored in a bbolt database.
//
// Each thread and namespace has its own buckets under one top-level bucket
// (WithBucket). A checkpoint whose parent is stored is written
// incrementally: channels whose encoded value equals the parent's are not
// stored, a channel whose new encoding extends the parent's (a JSON array
// an append reducer grew, or any value sharing a long prefix) stores only
// the new bytes, and every WithSnapshotEvery checkpoints of a chain the
// full state is written. A checkpoint's Writes that equal the pending
// writes stored against its parent are stored once. Loading any checkpoint
// gives exactly the Values that were Put.
//
// Bolt is safe for concurrent use. Use one Bolt per DB and bucket: it keeps
// the newest state of each thread in memory to write deltas quickly, and it
// checks that cache against the stored record's checksum.
type Bolt struct {
	db  *bolt.DB
	cfg config

	wmu   sync.Mutex // serialises writers
	cmu   sync.Mutex // guards cache
	cache map[string]*loaded

	wal    *wal // nil without WithWAL
	replay WALReplay
	closed bool // guarded by wmu
}

var _ graph.Checkpointer = (*Bolt)(nil)

const maxCache = 64

// NewBolt returns a checkpointer that keeps its data in db under the
// top-level bucket DefaultBucket (or WithBucket), creating it if needed.
func NewBolt(db *bolt.DB, opts ...Option) (*Bolt, error) {
	b := &Bolt{db: db, cfg: newConfig(opts), cache: map[string]*loaded{}}
	if b.cfg.bucket == "" {
		return nil, fmt.Errorf("checkpoint: empty bucket name: %w", ErrInvalid)
	}
	if !db.IsReadOnly() {
		err := b.update(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucketIfNotExists([]byte(b.cfg.bucket))
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("checkpoint: create bucket %q: %w", b.cfg.bucket, err)
		}
	}
	if b.cfg.wal != nil {
		if err := b.openLog(*b.cfg.wal); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// DB returns the underlying bbolt database.
func (b *Bolt) DB() *bolt.DB { return b.db }

// Bucket names inside a thread's namespace bucket.
var (
	bucketCheckpoints = []byte("c")
	bucketWrites      = []byte("w")
	bucketRefs        = []byte("r") // base id -> ids of checkpoints stored relative to it
)

func threadKey(threadID string) []byte { return append([]byte("t"), threadID...) }
func nsKeyBytes(ns string) []byte      { return append([]byte("n"), ns...) }
func cacheKey(threadID, ns string) string {
	return string(binary.AppendUvarint(nil, uint64(len(threadID)))) + threadID + ns
}

// refKey is the key of "child is stored relative to base" in the refs bucket.
func refKey(base, child string) []byte {
	k := binary.AppendUvarint(nil, uint64(len(base)))
	k = append(k, base...)
	return append(k, child...)
}

func refPrefix(base string) []byte {
	return append(binary.AppendUvarint(nil, uint64(len(base))), base...)
}

// update and view run a transaction and turn a bbolt panic on a damaged
// file into an error.
func (b *Bolt) update(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverCorrupt(&err)
	return b.db.Update(fn)
}

func (b *Bolt) view(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverCorrupt(&err)
	return b.db.View(fn)
}

func recoverCorrupt(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: bbolt: %v", ErrCorrupt, r)
	}
}

// nsBuckets are the buckets of one thread and namespace.
type nsBuckets struct {
	threadID, ns      string
	nb                *bolt.Bucket // the namespace's bucket
	cps, writes, refs *bolt.Bucket
	ext               *bolt.Bucket // external records (extern.go); nil until one is stored
}

func (b *Bolt) openNS(tx *bolt.Tx, threadID, ns string, create bool) (*nsBuckets, error) {
	top := tx.Bucket([]byte(b.cfg.bucket))
	if top == nil {
		if !create {
			return nil, nil
		}
		var err error
		if top, err = tx.CreateBucketIfNotExists([]byte(b.cfg.bucket)); err != nil {
			return nil, err
		}
	}
	th := top.Bucket(threadKey(threadID))
	if th == nil {
		if !create {
			return nil, nil
		}
		var err error
		if th, err = top.CreateBucket(threadKey(threadID)); err != nil {
			return nil, err
		}
	}
	nb := th.Bucket(nsKeyBytes(ns))
	if nb == nil {
		if !create {
			return nil, nil
		}
		var err error
		if nb, err = th.CreateBucket(nsKeyBytes(ns)); err != nil {
			return nil, err
		}
	}
	n := &nsBuckets{threadID: threadID, ns: ns, nb: nb, cps: nb.Bucket(bucketCheckpoints), writes: nb.Bucket(bucketWrites), refs: nb.Bucket(bucketRefs), ext: nb.Bucket(bucketExtern)}
	if create {
		for _, p := range []struct {
			name []byte
			dst  **bolt.Bucket
		}{{bucketCheckpoints, &n.cps}, {bucketWrites, &n.writes}, {bucketRefs, &n.refs}} {
			if *p.dst != nil {
				continue
			}
			bk, err := nb.CreateBucket(p.name)
			if err != nil {
				return nil, err
			}
			*p.dst = bk
		}
		// Ids grow, so pages can be filled: less space after compaction.
		n.cps.FillPercent = 0.9
	}
	if n.cps == nil || n.writes == nil || n.refs == nil {
		return nil, &DecodeError{ThreadID: threadID, NS: ns, Err: fmt.Errorf("%w: namespace bucket lacks its sub-buckets", ErrCorrupt)}
	}
	return n, nil
}

// Put stores cp, incrementally when its parent is stored.
func (b *Bolt) Put(ctx context.Context, cp *graph.Checkpoint) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validate(cp); err != nil {
		return err
	}
	if b.wal != nil {
		if err := b.logPut(cp); err != nil {
			return fmt.Errorf("checkpoint: put thread %q ns %q checkpoint %q: %w", cp.ThreadID, cp.NS, cp.ID, err)
		}
		return nil
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	var stored *loaded
	err := b.update(func(tx *bolt.Tx) error {
		var err error
		stored, err = b.putTx(tx, cp, b.cached(cp.ThreadID, cp.NS))
		return err
	})
	if err != nil {
		b.forget(cp.ThreadID, cp.NS)
		return fmt.Errorf("checkpoint: put thread %q ns %q checkpoint %q: %w", cp.ThreadID, cp.NS, cp.ID, err)
	}
	b.remember(cp.ThreadID, cp.NS, stored.ropify())
	return nil
}

// putTx stores cp in tx. hint, when not nil, is a materialised checkpoint
// of the same thread and namespace (used only if its record is unchanged).
func (b *Bolt) putTx(tx *bolt.Tx, cp *graph.Checkpoint, hint *loaded) (*loaded, error) {
	n, err := b.openNS(tx, cp.ThreadID, cp.NS, true)
	if err != nil {
		return nil, err
	}
	if n.cps.Get([]byte(cp.ID)) != nil {
		// Replacing: checkpoints stored relative to the old one get
		// their own full copy first.
		if err := b.detachChildren(n, cp.ID); err != nil {
			return nil, err
		}
	}
	var base *loaded
	var baseWrites []graph.PendingWrite
	if cp.ParentID != "" && cp.ParentID != cp.ID && n.cps.Get([]byte(cp.ParentID)) != nil {
		memo := map[string]*loaded{}
		if hint != nil {
			memo[hint.cp.ID] = hint
		}
		base, err = b.load(n, cp.ParentID, memo)
		if err != nil {
			b.cfg.logger.Warn("checkpoint: parent does not load; writing a full snapshot",
				"thread", cp.ThreadID, "ns", cp.NS, "parent", cp.ParentID, "err", err)
			base = nil
		} else if baseWrites, err = b.loadWrites(n, cp.ParentID); err != nil {
			baseWrites = nil
		}
	}
	rec, l, err := b.encodeCheckpoint(cp, base, baseWrites)
	if err != nil {
		return nil, err
	}
	if err := n.putRecord(cp.ID, rec); err != nil {
		return nil, err
	}
	if l.refsParent {
		if err := n.refs.Put(refKey(cp.ParentID, cp.ID), nil); err != nil {
			return nil, err
		}
	}
	return l, b.retain(n)
}

func (b *Bolt) remember(threadID, ns string, l *loaded) {
	b.rememberKey(cacheKey(threadID, ns), l)
}

func (b *Bolt) rememberKey(key string, l *loaded) {
	b.cmu.Lock()
	defer b.cmu.Unlock()
	if len(b.cache) >= maxCache {
		for k := range b.cache {
			delete(b.cache, k)
			break
		}
	}
	b.cache[key] = l
}

func (b *Bolt) forget(threadID, ns string) {
	b.cmu.Lock()
	defer b.cmu.Unlock()
	delete(b.cache, cacheKey(threadID, ns))
}

// cached returns the newest checkpoint Put for the thread and namespace,
// with every value materialised.
func (b *Bolt) cached(threadID, ns string) *loaded {
	return b.cachedRaw(threadID, ns).full()
}

func (b *Bolt) cachedRaw(threadID, ns string) *loaded {
	b.cmu.Lock()
	defer b.cmu.Unlock()
	return b.cache[cacheKey(threadID, ns)]
}

// retain deletes the oldest checkpoints beyond the retention limit.
func (b *Bolt) retain(n *nsBuckets) error {
	keep := b.cfg.keepLast
	if keep <= 0 {
		return nil
	}
	c := n.cps.Cursor()
	k, _ := c.Last()
	for i := 1; i < keep && k != nil; i++ {
		k, _ = c.Prev()
	}
	if k == nil {
		return nil
	}
	var drop [][]byte
	for k, _ = c.Prev(); k != nil; k, _ = c.Prev() {
		drop = append(drop, bytes.Clone(k))
	}
	// Oldest first, so a checkpoint's children are detached while it exists.
	for i := len(drop) - 1; i >= 0; i-- {
		id := string(drop[i])
		if err := b.detachChildren(n, id); err != nil {
			return err
		}
		if err := n.deleteRecord(drop[i]); err != nil {
			return err
		}
		if err := b.deleteWrites(n, id); err != nil {
			return err
		}
		b.cfg.logger.Debug("checkpoint: retention dropped a checkpoint", "thread", n.threadID, "ns", n.ns, "id", id)
	}
	return nil
}

// detachChildren rewrites every checkpoint stored relative to id as a full
// record, so id can change or go.
func (b *Bolt) detachChildren(n *nsBuckets, id string) error {
	prefix := refPrefix(id)
	var children []string
	c := n.refs.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		children = append(children, string(k[len(prefix):]))
	}
	for _, child := range children {
		if n.cps.Get([]byte(child)) != nil {
			l, err := b.load(n, child, nil)
			if err != nil {
				return err
			}
			rec, _, err := b.encodeCheckpoint(l.checkpoint(n.threadID, n.ns), nil, nil)
			if err != nil {
				return err
			}
			if err := n.putRecord(child, rec); err != nil {
				return err
			}
		}
		if err := n.refs.Delete(refKey(id, child)); err != nil {
			return err
		}
	}
	return nil
}

// PutWrites stores pending writes against checkpointID.
func (b *Bolt) PutWrites(ctx context.Context, threadID, ns, checkpointID string, writes []graph.PendingWrite) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if checkpointID == "" {
		return fmt.Errorf("put writes: thread %q ns %q: empty checkpoint id: %w", threadID, ns, ErrInvalid)
	}
	if len(writes) == 0 {
		return nil
	}
	if b.wal != nil {
		encode := func(*wal) ([]byte, error) { return b.encodeLogWrites(threadID, ns, checkpointID, writes) }
		if err := b.logAppend(encode, !b.wal.lazyWrites, nil); err != nil {
			return fmt.Errorf("checkpoint: put writes thread %q ns %q checkpoint %q: %w", threadID, ns, checkpointID, err)
		}
		return nil
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	err := b.update(func(tx *bolt.Tx) error { return b.putWritesTx(tx, threadID, ns, checkpointID, writes) })
	if err != nil {
		b.forget(threadID, ns)
		return fmt.Errorf("checkpoint: put writes thread %q ns %q checkpoint %q: %w", threadID, ns, checkpointID, err)
	}
	return nil
}

// Get loads a checkpoint (the newest when checkpointID is empty) and its
// pending writes.
func (b *Bolt) Get(ctx context.Context, threadID, ns, checkpointID string) (*graph.Checkpoint, []graph.PendingWrite, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := b.Flush(ctx); err != nil {
		return nil, nil, fmt.Errorf("checkpoint: get thread %q ns %q: %w", threadID, ns, err)
	}
	var cp *graph.Checkpoint
	var ws []graph.PendingWrite
	hint := b.cached(threadID, ns)
	err := b.view(func(tx *bolt.Tx) error {
		n, err := b.openNS(tx, threadID, ns, false)
		if err != nil {
			return err
		}
		if n == nil {
			return notFound(threadID, ns, checkpointID)
		}
		id := checkpointID
		if id == "" {
			k, _ := n.cps.Cursor().Last()
			if k == nil {
				return notFound(threadID, ns, "")
			}
			id = string(k)
		}
		if n.cps.Get([]byte(id)) == nil {
			return notFound(threadID, ns, checkpointID)
		}
		memo := map[string]*loaded{}
		if hint != nil {
			memo[hint.cp.ID] = hint
		}
		l, err := b.load(n, id, memo)
		if err != nil {
			return err
		}
		cp = l.checkpoint(threadID, ns)
		ws, err = b.loadWrites(n, id)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return cp, ws, nil
}

// List returns the thread's checkpoints in ns, newest first.
func (b *Bolt) List(ctx context.Context, threadID, ns string, opts graph.ListOptions) ([]*graph.Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := b.Flush(ctx); err != nil {
		return nil, fmt.Errorf("checkpoint: list thread %q ns %q: %w", threadID, ns, err)
	}
	var out []*graph.Checkpoint
	hint := b.cached(threadID, ns)
	err := b.view(func(tx *bolt.Tx) error {
		n, err := b.openNS(tx, threadID, ns, false)
		if err != nil || n == nil {
			return err
		}
		var ids []string
		c := n.cps.Cursor()
		var k []byte
		if opts.Before != "" {
			if k, _ = c.Seek([]byte(opts.Before)); k == nil {
				k, _ = c.Last()
			} else {
				k, _ = c.Prev()
			}
		} else {
			k, _ = c.Last()
		}
		for ; k != nil; k, _ = c.Prev() {
			ids = append(ids, string(k))
			if opts.Limit > 0 && len(ids) >= opts.Limit {
				break
			}
		}
		memo := map[string]*loaded{}
		if hint != nil {
			memo[hint.cp.ID] = hint
		}
		// Oldest first, so each chain is decoded once.
		out = make([]*graph.Checkpoint, len(ids))
		for i := len(ids) - 1; i >= 0; i-- {
			if err := ctx.Err(); err != nil {
				return err
			}
			l, err := b.load(n, ids[i], memo)
			if err != nil {
				return err
			}
			out[i] = l.checkpoint(threadID, ns)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteThread removes every checkpoint and pending write of threadID.
func (b *Bolt) DeleteThread(ctx context.Context, threadID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	b.cmu.Lock()
	clear(b.cache) // cheap, and no thread can be served stale
	b.cmu.Unlock()
	var err error
	if b.wal != nil {
		// The logged records first (this op is not logged), then the
		// delete, each in a synced bbolt transaction.
		if err = b.applyLog(); err == nil {
			err = b.applyOps([]walOp{{kind: opDelete, thread: threadID}}, nil, nil)
		}
	} else {
		err = b.update(func(tx *bolt.Tx) error { return b.deleteThreadTx(tx, threadID) })
	}
	if err != nil {
		return fmt.Errorf("checkpoint: delete thread %q: %w", threadID, err)
	}
	return nil
}

func (b *Bolt) deleteThreadTx(tx *bolt.Tx, threadID string) error {
	top := tx.Bucket([]byte(b.cfg.bucket))
	if top == nil {
		return nil
	}
	err := top.DeleteBucket(threadKey(threadID))
	if errors.Is(err, bolterrors.ErrBucketNotFound) {
		return nil
	}
	return err
}

// Compact copies the live data of src into a new file at dst (bbolt's
// Compact), which reclaims the pages freed by deletes and rewrites. The
// destination must not exist.
func Compact(dst string, src *bolt.DB) error {
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("checkpoint: compact: %s exists", dst)
	}
	// NoGrowSync: the file ends at the last page written instead of being
	// pre-sized to the next mmap step.
	out, err := bolt.Open(dst, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoSync: true, NoGrowSync: true})
	if err != nil {
		return fmt.Errorf("checkpoint: compact: %w", err)
	}
	if err := bolt.Compact(out, src, 64<<20); err != nil {
		out.Close()
		return fmt.Errorf("checkpoint: compact: %w", err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return fmt.Errorf("checkpoint: compact: %w", err)
	}
	return out.Close()
}

// Check reads the whole file: bbolt's own consistency check, then every
// checkpoint and pending-write record of every thread and namespace. It
// returns nil for a sound file, or every problem found (errors.Join), each
// naming the thread, namespace and checkpoint.
func (b *Bolt) Check(ctx context.Context) error {
	var errs []error
	if err := b.Flush(ctx); err != nil {
		errs = append(errs, err)
	}
	err := b.view(func(tx *bolt.Tx) error {
		for _, err := range txCheck(tx) { // corrupt.go: never a fatal fault
			errs = append(errs, fmt.Errorf("%w: bbolt: %v", ErrCorrupt, err))
		}
		top := tx.Bucket([]byte(b.cfg.bucket))
		if top == nil {
			return nil
		}
		return top.ForEachBucket(func(tk []byte) error {
			thread := string(tk[1:])
			return top.Bucket(tk).ForEachBucket(func(nk []byte) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				n, err := b.openNS(tx, thread, string(nk[1:]), false)
				if err != nil {
					errs = append(errs, err)
					return nil
				}
				memo := map[string]*loaded{}
				_ = n.cps.ForEach(func(k, _ []byte) error {
					if _, err := b.load(n, string(k), memo); err != nil {
						errs = append(errs, err)
					}
					return nil
				})
				errs = append(errs, b.checkWrites(n)...)
				errs = append(errs, n.checkExtern()...)
				return nil
			})
		})
	})
	if err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

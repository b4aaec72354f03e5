package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
)

// maxChain bounds the delta chain a load follows (a stored loop ends there).
const maxChain = 1 << 16

// txn is one transaction's view of one thread and namespace.
type txn struct {
	c          *Checkpointer
	ctx        context.Context
	tx         pgx.Tx
	threadID   string
	ns         string
	thread, nb []byte
}

func (c *Checkpointer) txn(ctx context.Context, tx pgx.Tx, threadID, ns string) *txn {
	return &txn{c: c, ctx: ctx, tx: tx, threadID: threadID, ns: ns, thread: []byte(threadID), nb: []byte(ns)}
}

func (t *txn) decodeErr(id string, err error) error {
	return &checkpoint.DecodeError{ThreadID: t.threadID, NS: t.ns, CheckpointID: id, Err: err}
}

func (t *txn) head() (string, error) {
	var head []byte
	err := t.tx.QueryRow(t.ctx, `SELECT head FROM agentgraph_cp_threads WHERE thread = $1 AND ns = $2`, t.thread, t.nb).Scan(&head)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return string(head), err
}

// headAndSharers returns the head and the checkpoints whose Writes are
// the pending writes of id.
func (t *txn) headAndSharers(id string) (string, []string, error) {
	var head []byte
	var ids [][]byte
	err := t.tx.QueryRow(t.ctx, `SELECT
		COALESCE((SELECT head FROM agentgraph_cp_threads WHERE thread = $1 AND ns = $2), ''),
		ARRAY(SELECT id FROM agentgraph_cp_checkpoints WHERE thread = $1 AND ns = $2 AND writes_of = $3)`,
		t.thread, t.nb, []byte(id)).Scan(&head, &ids)
	return string(head), strs(ids), err
}

func strs(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

// newest returns the greatest id stored ("" for none).
func (t *txn) newest() (string, error) {
	var id []byte
	err := t.tx.QueryRow(t.ctx, `SELECT id FROM agentgraph_cp_checkpoints WHERE thread = $1 AND ns = $2 ORDER BY id DESC LIMIT 1`, t.thread, t.nb).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return string(id), err
}

func (t *txn) ids(opts graph.ListOptions) ([]string, error) {
	var limit *int64
	if opts.Limit > 0 {
		l := int64(opts.Limit)
		limit = &l
	}
	rows, err := t.tx.Query(t.ctx, `SELECT id FROM agentgraph_cp_checkpoints WHERE thread = $1 AND ns = $2 AND ($3::bytea = '' OR id < $3)
		ORDER BY id DESC LIMIT $4`, t.thread, t.nb, []byte(opts.Before), limit)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	return strs(ids), err
}

// children returns the checkpoints stored relative to id (values or writes).
func (t *txn) children(id string) ([]string, error) {
	rows, err := t.tx.Query(t.ctx, `SELECT id FROM agentgraph_cp_checkpoints WHERE thread = $1 AND ns = $2 AND (base = $3 OR writes_of = $3) AND id <> $3`,
		t.thread, t.nb, []byte(id))
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	return strs(ids), err
}

const (
	sqlLockHead = `INSERT INTO agentgraph_cp_threads AS th (thread, ns, head) VALUES ($1, $2, '')
		ON CONFLICT (thread, ns) DO UPDATE SET head = th.head RETURNING head`
	sqlRevs   = `SELECT id, rev FROM agentgraph_cp_checkpoints WHERE thread = $1 AND ns = $2 AND id = ANY($3)`
	sqlWrites = `SELECT task, node, channel, value FROM agentgraph_cp_writes
		WHERE thread = $1 AND ns = $2 AND id = $3 ORDER BY seq, idx`
)

// scanWrites reads rows of sqlWrites.
func scanWrites(rows pgx.Rows) ([]graph.PendingWrite, error) {
	var out []graph.PendingWrite
	var task, node, channel, value []byte
	_, err := pgx.ForEachRow(rows, []any{&task, &node, &channel, &value}, func() error {
		out = append(out, graph.PendingWrite{TaskID: string(task), Node: string(node), Channel: string(channel), Value: cloneBytes(value)})
		return nil
	})
	return out, err
}

// put stores cp after checking that the thread's head is the one this
// writer saw (want; known is false when it never read the thread). hint,
// when not nil, is a materialised checkpoint of the thread (used only when
// its row is unchanged). It returns what it stored and the new head.
// The statements go in two pipelined batches: the thread lock with what
// the delta needs, then the writes.
func (t *txn) put(cp *graph.Checkpoint, hint *loaded, want string, known bool) (*loaded, string, error) {
	var headB []byte
	revs := map[string]int64{}
	var parentWrites []graph.PendingWrite
	wantWrites := cp.ParentID != "" && cp.ParentID != cp.ID && len(cp.Writes) > 0
	b := &pgx.Batch{}
	b.Queue(sqlLockHead, t.thread, t.nb).QueryRow(func(row pgx.Row) error { return row.Scan(&headB) })
	b.Queue(sqlRevs, t.thread, t.nb, [][]byte{[]byte(cp.ID), []byte(cp.ParentID)}).Query(func(rows pgx.Rows) error {
		var id []byte
		var rev int64
		_, err := pgx.ForEachRow(rows, []any{&id, &rev}, func() error {
			revs[string(id)] = rev
			return nil
		})
		return err
	})
	if wantWrites {
		b.Queue(sqlWrites, t.thread, t.nb, []byte(cp.ParentID)).Query(func(rows pgx.Rows) error {
			var err error
			parentWrites, err = scanWrites(rows)
			return err
		})
	}
	if err := t.tx.SendBatch(t.ctx, b).Close(); err != nil {
		return nil, "", err
	}
	head := string(headB)
	if conflict(head, want, known, cp) {
		return nil, "", &ConflictError{ThreadID: cp.ThreadID, NS: cp.NS, CheckpointID: cp.ID, ParentID: cp.ParentID, Expected: want, Head: head}
	}
	if _, ok := revs[cp.ID]; ok {
		// Replacing: checkpoints stored relative to the old one get a full copy first.
		kids, err := t.children(cp.ID)
		if err != nil {
			return nil, "", err
		}
		for _, id := range kids {
			if err := t.detach(id); err != nil {
				return nil, "", err
			}
		}
	}
	var base *loaded
	if rev, ok := revs[cp.ParentID]; ok && cp.ParentID != "" && cp.ParentID != cp.ID {
		var err error
		if hint != nil && hint.id == cp.ParentID && hint.rev == rev && hint.cp != nil {
			base = hint // the parent as this writer last stored or read it, unchanged since
		} else if base, err = t.load(cp.ParentID, nil); err != nil {
			t.c.cfg.logger.Warn("checkpoint/postgres: parent does not load; writing a full snapshot",
				"thread", cp.ThreadID, "ns", cp.NS, "parent", cp.ParentID, "err", err)
			base = nil
		}
	}
	if base == nil {
		parentWrites = nil
	}
	rec, l, err := encode(cp, base, parentWrites, t.c.cfg.snapshotEvery)
	if err != nil {
		return nil, "", err
	}
	b = &pgx.Batch{}
	t.queueWrite(b, rec, &l.rev)
	if cp.ID > head {
		head = cp.ID
		b.Queue(`UPDATE agentgraph_cp_threads SET head = $3 WHERE thread = $1 AND ns = $2`, t.thread, t.nb, []byte(head))
	}
	if err := t.tx.SendBatch(t.ctx, b).Close(); err != nil {
		return nil, "", err
	}
	return l, head, nil
}

// queueWrite queues the statements that store a record, replacing the row
// and channels of its id; the new row's rev goes to *rev.
func (t *txn) queueWrite(b *pgx.Batch, r *record, rev *int64) {
	b.Queue(`INSERT INTO agentgraph_cp_checkpoints AS c (thread, ns, id, parent, base, depth, writes_of, rev, header)
		VALUES ($1, $2, $3, $4, $5, $6, $7, nextval('agentgraph_cp_rev'), $8)
		ON CONFLICT (thread, ns, id) DO UPDATE SET parent = EXCLUDED.parent, base = EXCLUDED.base, depth = EXCLUDED.depth,
			writes_of = EXCLUDED.writes_of, rev = EXCLUDED.rev, header = EXCLUDED.header
		RETURNING rev`,
		t.thread, t.nb, []byte(r.id), []byte(r.parent), []byte(r.base), r.depth, []byte(r.writesOf), r.header).
		QueryRow(func(row pgx.Row) error { return row.Scan(rev) })
	b.Queue(`DELETE FROM agentgraph_cp_channels WHERE thread = $1 AND ns = $2 AND id = $3`, t.thread, t.nb, []byte(r.id))
	if len(r.channels) == 0 {
		return
	}
	names := make([][]byte, len(r.channels))
	keeps := make([]int32, len(r.channels))
	blobs := make([][]byte, len(r.channels))
	removed := make([]bool, len(r.channels))
	for i, ch := range r.channels {
		names[i], keeps[i], blobs[i], removed[i] = []byte(ch.name), int32(ch.keep), ch.blob, ch.removed
	}
	b.Queue(`INSERT INTO agentgraph_cp_channels (thread, ns, id, name, keep, blob, removed)
		SELECT $1, $2, $3, u.name, u.keep, u.blob, u.removed FROM unnest($4::bytea[], $5::integer[], $6::bytea[], $7::boolean[]) AS u(name, keep, blob, removed)`,
		t.thread, t.nb, []byte(r.id), names, keeps, blobs, removed)
}

// write stores a record (one pipelined batch).
func (t *txn) write(r *record) (int64, error) {
	var rev int64
	b := &pgx.Batch{}
	t.queueWrite(b, r, &rev)
	return rev, t.tx.SendBatch(t.ctx, b).Close()
}

// detach rewrites checkpoint id as a full record (its values and writes its
// own), so what it was stored relative to can change or go.
func (t *txn) detach(id string) error {
	l, err := t.load(id, nil)
	if err != nil {
		return err
	}
	rec, _, err := encode(l.cp, nil, nil, t.c.cfg.snapshotEvery)
	if err != nil {
		return err
	}
	_, err = t.write(rec)
	return err
}

type link struct {
	id, base string
	rev      int64
	depth    int
}

// load materialises checkpoint id: its delta chain back to a full snapshot
// (or to a checkpoint in memo with the same rev), the channel rows of the
// records on it, its header and its Writes. What it materialises on the
// way is added to memo.
func (t *txn) load(id string, memo map[string]*loaded) (*loaded, error) {
	// The walk stops at a checkpoint in memo (its rev is checked below).
	stops := make([][]byte, 0, len(memo))
	for k := range memo {
		stops = append(stops, []byte(k))
	}
	// A record's depth is its distance to a full snapshot: the walk goes no
	// further (a damaged chain that loops ends there).
	rows, err := t.tx.Query(t.ctx, `WITH RECURSIVE chain(id, base, rev, depth, lvl, maxlvl) AS (
			SELECT id, base, rev, depth, 0, LEAST(GREATEST(depth, 0), $4) FROM agentgraph_cp_checkpoints WHERE thread = $1 AND ns = $2 AND id = $3
			UNION ALL
			SELECT c.id, c.base, c.rev, c.depth, chain.lvl + 1, chain.maxlvl FROM agentgraph_cp_checkpoints c JOIN chain
				ON c.thread = $1 AND c.ns = $2 AND c.id = chain.base
			WHERE chain.base <> '' AND chain.lvl < chain.maxlvl AND NOT (chain.id = ANY($5)))
		SELECT id, base, rev, depth FROM chain ORDER BY lvl`, t.thread, t.nb, []byte(id), maxChain, stops)
	if err != nil {
		return nil, err
	}
	var chain []link
	var lid, lbase []byte
	var lk link
	if _, err := pgx.ForEachRow(rows, []any{&lid, &lbase, &lk.rev, &lk.depth}, func() error {
		lk.id, lk.base = string(lid), string(lbase)
		chain = append(chain, lk)
		return nil
	}); err != nil {
		return nil, err
	}
	if len(chain) == 0 {
		return nil, notFound(t.threadID, t.ns, id)
	}
	// The records to apply: up to a memo hit or a full snapshot.
	var base *loaded
	n := len(chain)
	for i, lk := range chain {
		if m := memo[lk.id]; m != nil && m.rev == lk.rev {
			base, n = m, i
			break
		}
	}
	if base == nil {
		last := chain[len(chain)-1]
		if last.base != "" {
			for _, lk := range chain {
				if lk.id == last.base {
					return nil, t.decodeErr(id, fmt.Errorf("%w: delta chain loops at %q", checkpoint.ErrCorrupt, last.base))
				}
			}
			if len(chain) > chain[0].depth {
				return nil, t.decodeErr(id, fmt.Errorf("%w: delta chain longer than its depth %d", checkpoint.ErrCorrupt, chain[0].depth))
			}
			return nil, t.decodeErr(id, fmt.Errorf("%w: checkpoint %q, which %q is stored relative to, is missing", checkpoint.ErrCorrupt, last.base, last.id))
		}
	}
	// A record is deeper than its base (at least one more: a base rewritten
	// as a snapshot leaves its children's depth as it was); a snapshot's
	// depth is not negative. So a record's depth bounds its chain.
	for i := range n {
		least := 0
		switch {
		case i+1 < len(chain):
			least = chain[i+1].depth + 1
		case base != nil:
			least = base.depth + 1
		}
		if chain[i].depth < least {
			return nil, t.decodeErr(id, fmt.Errorf("%w: record %q has depth %d, its base needs at least %d", checkpoint.ErrCorrupt, chain[i].id, chain[i].depth, least))
		}
	}
	if n == 0 && base.cp != nil {
		return base, nil
	}
	byID := map[string][]chanRow{}
	if n > 0 {
		ids := make([][]byte, n)
		for i := range n {
			ids[i] = []byte(chain[i].id)
		}
		rows, err := t.tx.Query(t.ctx, `SELECT id, name, keep, blob, removed FROM agentgraph_cp_channels
			WHERE thread = $1 AND ns = $2 AND id = ANY($3) ORDER BY id, name`, t.thread, t.nb, ids)
		if err != nil {
			return nil, err
		}
		var cid, name, blob []byte
		var keep int
		var removed bool
		if _, err := pgx.ForEachRow(rows, []any{&cid, &name, &keep, &blob, &removed}, func() error {
			byID[string(cid)] = append(byID[string(cid)], chanRow{name: string(name), keep: keep, blob: cloneBytes(blob), removed: removed})
			return nil
		}); err != nil {
			return nil, err
		}
	}
	var values map[string][]byte
	if base != nil {
		values = base.values
	}
	var l *loaded
	for i := n - 1; i >= 0; i-- {
		lk := chain[i]
		v, err := apply(values, byID[lk.id])
		if err != nil {
			return nil, t.decodeErr(id, fmt.Errorf("record %q: %w", lk.id, err))
		}
		values = v
		l = &loaded{id: lk.id, rev: lk.rev, depth: lk.depth, values: values}
		if memo != nil && i > 0 {
			memo[lk.id] = l
		}
	}
	if l == nil { // a memo hit on id itself, loaded only as a base
		l = &loaded{id: base.id, rev: base.rev, depth: base.depth, values: base.values}
	}
	var parent, hdr, writesOf []byte
	err = t.tx.QueryRow(t.ctx, `SELECT parent, header, writes_of FROM agentgraph_cp_checkpoints WHERE thread = $1 AND ns = $2 AND id = $3`,
		t.thread, t.nb, []byte(id)).Scan(&parent, &hdr, &writesOf)
	if err != nil {
		return nil, err
	}
	if l.cp, err = decodeHeader(id, string(parent), hdr, l.values); err != nil {
		return nil, t.decodeErr(id, err)
	}
	if len(writesOf) > 0 {
		ws, err := t.writes(string(writesOf))
		if err != nil {
			return nil, err
		}
		if len(ws) == 0 {
			return nil, t.decodeErr(id, fmt.Errorf("%w: the pending writes of %q it refers to are missing", checkpoint.ErrCorrupt, writesOf))
		}
		l.cp.Writes = ws
	}
	if memo != nil {
		memo[id] = l
	}
	return l, nil
}

// writes returns the pending writes stored against id, grouped by task in
// the order each task's first write was stored (nil if none).
func (t *txn) writes(id string) ([]graph.PendingWrite, error) {
	rows, err := t.tx.Query(t.ctx, sqlWrites, t.thread, t.nb, []byte(id))
	if err != nil {
		return nil, err
	}
	return scanWrites(rows)
}

const sqlPutWrite = `INSERT INTO agentgraph_cp_writes AS w (thread, ns, id, task, channel, seq, idx, node, value)
	VALUES ($1, $2, $3, $4, $5,
		COALESCE((SELECT seq FROM agentgraph_cp_writes WHERE thread = $1 AND ns = $2 AND id = $3 AND task = $4 LIMIT 1), nextval('agentgraph_cp_rev')),
		COALESCE((SELECT max(idx) + 1 FROM agentgraph_cp_writes WHERE thread = $1 AND ns = $2 AND id = $3 AND task = $4), 0),
		$6, $7)
	ON CONFLICT (thread, ns, id, task, channel) DO UPDATE SET node = EXCLUDED.node, value = EXCLUDED.value`

// queuePutWrites queues the upserts of writes, one row per task and
// channel: a task keeps the place of its first write, a channel its place
// within the task.
func (t *txn) queuePutWrites(b *pgx.Batch, id string, writes []graph.PendingWrite) {
	for _, w := range writes {
		b.Queue(sqlPutWrite, t.thread, t.nb, []byte(id), []byte(w.TaskID), []byte(w.Channel), []byte(w.Node), w.Value)
	}
}

// putWrites upserts writes (one pipelined batch).
func (t *txn) putWrites(id string, writes []graph.PendingWrite) error {
	b := &pgx.Batch{}
	t.queuePutWrites(b, id, writes)
	return t.tx.SendBatch(t.ctx, b).Close()
}

// putWritesChecked reads the head and whether a checkpoint shares id's
// pending writes, and upserts writes, in one pipelined batch; the caller
// rolls back when what it read forbids the upserts.
func (t *txn) putWritesChecked(id string, writes []graph.PendingWrite) (head string, shared bool, err error) {
	var headB []byte
	b := &pgx.Batch{}
	b.Queue(`SELECT COALESCE((SELECT head FROM agentgraph_cp_threads WHERE thread = $1 AND ns = $2), ''),
		EXISTS (SELECT 1 FROM agentgraph_cp_checkpoints WHERE thread = $1 AND ns = $2 AND writes_of = $3)`,
		t.thread, t.nb, []byte(id)).QueryRow(func(row pgx.Row) error { return row.Scan(&headB, &shared) })
	t.queuePutWrites(b, id, writes)
	err = t.tx.SendBatch(t.ctx, b).Close()
	return string(headB), shared, err
}

// retain drops the oldest checkpoints beyond keep, oldest first, after
// giving the checkpoints stored relative to each a full copy.
func (t *txn) retain(keep int) error {
	if keep <= 0 {
		return nil
	}
	rows, err := t.tx.Query(t.ctx, `SELECT id FROM agentgraph_cp_checkpoints WHERE thread = $1 AND ns = $2 ORDER BY id DESC OFFSET $3`, t.thread, t.nb, keep)
	if err != nil {
		return err
	}
	drop, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return err
	}
	for i := len(drop) - 1; i >= 0; i-- {
		id := string(drop[i])
		kids, err := t.children(id)
		if err != nil {
			return err
		}
		for _, k := range kids {
			if err := t.detach(k); err != nil {
				return err
			}
		}
		for _, table := range []string{"agentgraph_cp_checkpoints", "agentgraph_cp_channels", "agentgraph_cp_writes"} {
			if _, err := t.tx.Exec(t.ctx, "DELETE FROM "+table+" WHERE thread = $1 AND ns = $2 AND id = $3", t.thread, t.nb, drop[i]); err != nil {
				return err
			}
		}
		t.c.cfg.logger.Debug("checkpoint/postgres: retention dropped a checkpoint", "thread", t.threadID, "ns", t.ns, "id", id)
	}
	return nil
}

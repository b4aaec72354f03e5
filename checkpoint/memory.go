package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentgraph/agentgraph/graph"
)

// ErrInvalid is wrapped by errors for arguments a Checkpointer cannot accept
// (a nil checkpoint, an empty checkpoint id).
var ErrInvalid = errors.New("checkpoint: invalid argument")

// Memory is an in-memory graph.Checkpointer. It keeps deep copies, so
// callers may reuse what they pass in and change what they get back. It is
// safe for concurrent use and loses everything when the process ends.
type Memory struct {
	cfg     config
	mu      sync.RWMutex
	threads map[string]map[string]*memNS // thread -> namespace -> checkpoints
}

type memNS struct {
	ids    []string // sorted ascending
	cps    map[string]*graph.Checkpoint
	writes map[string]*taskWrites // pending writes by checkpoint id
	// ropes holds, by checkpoint id, the values of channels stored by
	// PutDelta (absent from the checkpoint's Values).
	ropes map[string]map[string]*rope
}

// value returns channel k's value in stored checkpoint id, materialised
// only when it is a rope (then fresh).
func (n *memNS) value(id, k string) ([]byte, *rope, bool) {
	if v, ok := n.cps[id].Values[k]; ok {
		return v, nil, true
	}
	if r := n.ropes[id][k]; r != nil {
		return nil, r, true
	}
	return nil, nil, false
}

// get returns a copy of stored checkpoint id with every value.
func (n *memNS) get(id string) *graph.Checkpoint {
	c := cloneCheckpoint(n.cps[id])
	if rs := n.ropes[id]; len(rs) > 0 {
		if c.Values == nil {
			c.Values = make(map[string][]byte, len(rs))
		}
		for k, r := range rs {
			c.Values[k] = r.bytes()
		}
	}
	return c
}

// store puts stored (and its ropes) under its id and applies retention.
func (n *memNS) store(stored *graph.Checkpoint, ropes map[string]*rope, keepLast int) {
	if _, ok := n.cps[stored.ID]; !ok {
		i, _ := slices.BinarySearch(n.ids, stored.ID)
		n.ids = slices.Insert(n.ids, i, stored.ID)
	}
	n.cps[stored.ID] = stored
	delete(n.ropes, stored.ID)
	if len(ropes) > 0 {
		if n.ropes == nil {
			n.ropes = map[string]map[string]*rope{}
		}
		n.ropes[stored.ID] = ropes
	}
	if k := keepLast; k > 0 && len(n.ids) > k {
		drop := n.ids[:len(n.ids)-k]
		for _, id := range drop {
			delete(n.cps, id)
			delete(n.writes, id)
			delete(n.ropes, id)
		}
		n.ids = slices.Clone(n.ids[len(n.ids)-k:])
	}
}

// taskWrites are the pending writes stored against one checkpoint, kept
// per task so that storing one task's writes costs only that task's.
type taskWrites struct {
	order []string // task ids, in the order their first write was stored
	tasks map[string][]graph.PendingWrite
}

// put merges ws (cloned) into the writes of their tasks: a write for a
// (task, channel) pair already present replaces it in place.
func (tw *taskWrites) put(ws []graph.PendingWrite) {
	n := 0
	for _, w := range ws {
		n += len(w.Value)
	}
	a := make(arena, 0, n)
	for _, w := range ws {
		w.Value = a.copy(w.Value)
		cur, ok := tw.tasks[w.TaskID]
		if !ok {
			tw.order = append(tw.order, w.TaskID)
		}
		tw.tasks[w.TaskID] = mergeTaskWrite(cur, w)
	}
}

// all returns copies of the writes, grouped by task in storing order.
func (tw *taskWrites) all() []graph.PendingWrite {
	if tw == nil || len(tw.order) == 0 {
		return nil
	}
	n := 0
	for _, id := range tw.order {
		n += len(tw.tasks[id])
	}
	out := make([]graph.PendingWrite, 0, n)
	for _, id := range tw.order {
		out = appendWrites(out, tw.tasks[id])
	}
	return out
}

var _ graph.Checkpointer = (*Memory)(nil)

// NewMemory returns an empty in-memory Checkpointer. Of the options only
// WithRetention applies.
func NewMemory(opts ...Option) *Memory {
	return &Memory{cfg: newConfig(opts), threads: map[string]map[string]*memNS{}}
}

func validate(cp *graph.Checkpoint) error {
	if cp == nil {
		return fmt.Errorf("put: nil checkpoint: %w", ErrInvalid)
	}
	if cp.ID == "" {
		return fmt.Errorf("put: thread %q ns %q: empty checkpoint id: %w", cp.ThreadID, cp.NS, ErrInvalid)
	}
	return nil
}

func notFound(threadID, ns, id string) error {
	if id == "" {
		return fmt.Errorf("thread %q ns %q: no checkpoint: %w", threadID, ns, graph.ErrCheckpointNotFound)
	}
	return fmt.Errorf("thread %q ns %q checkpoint %q: %w", threadID, ns, id, graph.ErrCheckpointNotFound)
}

// Put stores a copy of cp.
func (m *Memory) Put(ctx context.Context, cp *graph.Checkpoint) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validate(cp); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	nss := m.threads[cp.ThreadID]
	if nss == nil {
		nss = map[string]*memNS{}
		m.threads[cp.ThreadID] = nss
	}
	n := nss[cp.NS]
	if n == nil {
		n = &memNS{cps: map[string]*graph.Checkpoint{}, writes: map[string]*taskWrites{}}
		nss[cp.NS] = n
	}
	stored := cloneCheckpointShared(cp, n.cps[cp.ParentID])
	var ropes map[string]*rope
	for k, v := range stored.Values {
		// a long value is kept as a rope, so that a PutDelta extending
		// it grows it in place
		if len(v) >= ropeMin && v[len(v)-1] == ']' {
			if ropes == nil {
				ropes = map[string]*rope{}
			}
			ropes[k] = newRope(v, nil)
			delete(stored.Values, k)
		}
	}
	n.store(stored, ropes, m.cfg.keepLast)
	return nil
}

var _ graph.DeltaPutter = (*Memory)(nil)

// PutDelta stores cp relative to its parent (see graph.DeltaPutter). A
// list channel grown by deltas shares one buffer along the chain, so a
// step costs the bytes it added.
func (m *Memory) PutDelta(ctx context.Context, cp *graph.Checkpoint, deltas []graph.ChannelDelta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validate(cp); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.threads[cp.ThreadID][cp.NS]
	if n == nil || cp.ParentID == "" || cp.ParentID == cp.ID || n.cps[cp.ParentID] == nil {
		return fmt.Errorf("put delta: thread %q ns %q checkpoint %q: parent %q not stored: %w", cp.ThreadID, cp.NS, cp.ID, cp.ParentID, graph.ErrDeltaBase)
	}
	parent := cp.ParentID
	stored, ropes, err := deltaValues(cp, deltas, n.cps[parent], func(k string) ([]byte, *rope, bool) { return n.value(parent, k) })
	if err != nil {
		return err
	}
	n.store(stored, ropes, m.cfg.keepLast)
	return nil
}

// deltaValues builds the stored form of a PutDelta: a copy of cp whose
// Values hold the given and inherited plain values, and the ropes of the
// channels given by deltas or inherited as ropes. parent looks up the
// parent's value of a channel; parentCP, when not nil, is the stored
// parent, whose equal values and Metadata the copy shares.
func deltaValues(cp *graph.Checkpoint, deltas []graph.ChannelDelta, parentCP *graph.Checkpoint, parent func(string) ([]byte, *rope, bool)) (*graph.Checkpoint, map[string]*rope, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("put delta: thread %q ns %q checkpoint %q: %s", cp.ThreadID, cp.NS, cp.ID, fmt.Sprintf(format, args...))
	}
	// A step has a few deltas: they are looked up by a scan, not a map.
	deltaOf := func(ch string) int {
		for i := range deltas {
			if deltas[i].Channel == ch {
				return i
			}
		}
		return -1
	}
	for i, d := range deltas {
		if deltaOf(d.Channel) != i {
			return nil, nil, fmt.Errorf("%w: %w", fail("two deltas for channel %q", d.Channel), ErrInvalid)
		}
		if _, ok := cp.Versions[d.Channel]; !ok {
			return nil, nil, fmt.Errorf("%w: %w", fail("delta for channel %q, which has no version", d.Channel), ErrInvalid)
		}
		if _, ok := cp.Values[d.Channel]; ok {
			return nil, nil, fmt.Errorf("%w: %w", fail("channel %q given both in full and as a delta", d.Channel), ErrInvalid)
		}
	}
	stored := cloneWith(cp, cp.Values, parentCP)
	if stored.Values == nil {
		stored.Values = make(map[string][]byte, len(cp.Versions))
	}
	var ropes map[string]*rope
	for k := range cp.Versions {
		if _, ok := cp.Values[k]; ok {
			continue
		}
		pv, pr, ok := parent(k)
		if !ok {
			return nil, nil, fmt.Errorf("%w: %w", fail("channel %q is not in the parent", k), graph.ErrDeltaBase)
		}
		i := deltaOf(k)
		if i < 0 {
			if pr != nil {
				if ropes == nil {
					ropes = map[string]*rope{}
				}
				ropes[k] = pr
			} else {
				stored.Values[k] = pv // stored values are never changed: shared
			}
			continue
		}
		d := deltas[i]
		var r *rope
		if pr != nil {
			r, ok = pr.extend(d.Keep, d.Tail)
		} else if ok = d.Keep >= 0 && d.Keep <= len(pv); ok {
			r = newRope(pv[:d.Keep], d.Tail)
		}
		if !ok {
			return nil, nil, fmt.Errorf("%w: %w", fail("delta of channel %q keeps %d bytes of a shorter value", k, d.Keep), graph.ErrDeltaBase)
		}
		if ropes == nil {
			ropes = map[string]*rope{}
		}
		ropes[k] = r
	}
	return stored, ropes, nil
}

// PutWrites stores pending writes against a checkpoint id. Its cost is
// that of the writes given, whatever the checkpoint already holds.
func (m *Memory) PutWrites(ctx context.Context, threadID, ns, checkpointID string, writes []graph.PendingWrite) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if checkpointID == "" {
		return fmt.Errorf("put writes: thread %q ns %q: empty checkpoint id: %w", threadID, ns, ErrInvalid)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	nss := m.threads[threadID]
	if nss == nil {
		nss = map[string]*memNS{}
		m.threads[threadID] = nss
	}
	n := nss[ns]
	if n == nil {
		n = &memNS{cps: map[string]*graph.Checkpoint{}, writes: map[string]*taskWrites{}}
		nss[ns] = n
	}
	tw := n.writes[checkpointID]
	if tw == nil {
		tw = &taskWrites{tasks: map[string][]graph.PendingWrite{}}
		n.writes[checkpointID] = tw
	}
	tw.put(writes)
	return nil
}

// Get loads a checkpoint (the newest when checkpointID is empty) and its
// pending writes.
func (m *Memory) Get(ctx context.Context, threadID, ns, checkpointID string) (*graph.Checkpoint, []graph.PendingWrite, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := m.threads[threadID][ns]
	if n == nil || len(n.ids) == 0 {
		return nil, nil, notFound(threadID, ns, checkpointID)
	}
	id := checkpointID
	if id == "" {
		id = n.ids[len(n.ids)-1]
	}
	cp, ok := n.cps[id]
	if !ok {
		return nil, nil, notFound(threadID, ns, checkpointID)
	}
	return n.get(cp.ID), n.writes[id].all(), nil
}

// List returns the thread's checkpoints in ns, newest first.
func (m *Memory) List(ctx context.Context, threadID, ns string, opts graph.ListOptions) ([]*graph.Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := m.threads[threadID][ns]
	if n == nil {
		return nil, nil
	}
	var out []*graph.Checkpoint
	for i := len(n.ids) - 1; i >= 0; i-- {
		id := n.ids[i]
		if opts.Before != "" && strings.Compare(id, opts.Before) >= 0 {
			continue
		}
		out = append(out, n.get(id))
		if opts.Limit > 0 && len(out) >= opts.Limit {
			break
		}
	}
	return out, nil
}

// DeleteThread removes everything stored for threadID.
func (m *Memory) DeleteThread(ctx context.Context, threadID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.threads, threadID)
	return nil
}

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
	for _, w := range ws {
		w.Value = cloneBytes(w.Value)
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
	var out []graph.PendingWrite
	for _, id := range tw.order {
		out = append(out, cloneWrites(tw.tasks[id])...)
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
	if _, ok := n.cps[cp.ID]; !ok {
		i, _ := slices.BinarySearch(n.ids, cp.ID)
		n.ids = slices.Insert(n.ids, i, cp.ID)
	}
	stored := cloneCheckpointShared(cp, n.cps[cp.ParentID])
	n.cps[cp.ID] = stored
	if k := m.cfg.keepLast; k > 0 && len(n.ids) > k {
		drop := n.ids[:len(n.ids)-k]
		for _, id := range drop {
			delete(n.cps, id)
			delete(n.writes, id)
		}
		n.ids = slices.Clone(n.ids[len(n.ids)-k:])
	}
	return nil
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
	return cloneCheckpoint(cp), n.writes[id].all(), nil
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
		out = append(out, cloneCheckpoint(n.cps[id]))
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

package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
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
	intern  metaIntern
	cfg     config
	mu      sync.RWMutex
	threads map[string]map[string]*memNS // thread -> namespace -> checkpoints
}

type memNS struct {
	cps    []*memCP               // sorted by id ascending
	writes map[string]*taskWrites // pending writes by checkpoint id (nil: none yet)
	intern *metaIntern            // the Memory's

	// The stored checkpoints' records, channel lists, Next and Writes
	// slices and copied bytes are cut from these slabs: a step's
	// checkpoint costs a few allocations per 64 steps, not one per slice.
	cpSlab    slab[memCP]
	chanSlab  slab[memChan]
	nextSlab  slab[graph.TaskRef]
	writeSlab slab[graph.PendingWrite]
	intrSlab  slab[graph.InterruptInfo]
	bytes     byteSlab
}

func newMemNS(intern *metaIntern) *memNS {
	return &memNS{cps: make([]*memCP, 0, 16), intern: intern}
}

// search returns the index of checkpoint id in n.cps, or where it would
// be, and whether it is there. Ids mostly grow: the newest is tried first.
func (n *memNS) search(id string) (int, bool) {
	if k := len(n.cps); k > 0 {
		if last := n.cps[k-1].cp.ID; id > last {
			return k, false
		} else if id == last {
			return k - 1, true
		}
	}
	return slices.BinarySearchFunc(n.cps, id, func(c *memCP, id string) int { return strings.Compare(c.cp.ID, id) })
}

// get returns stored checkpoint id, nil when there is none.
func (n *memNS) get(id string) *memCP {
	if n == nil {
		return nil
	}
	if i, ok := n.search(id); ok {
		return n.cps[i]
	}
	return nil
}

// memCP is a stored checkpoint: a copy of what was Put, its channels (the
// keys of Values and of Versions) kept in one slice sorted by name rather
// than in two maps, so that storing a step costs few allocations.
type memCP struct {
	cp       graph.Checkpoint // Values and Versions nil
	chans    []memChan
	noValues bool // Values was nil (not empty)
	noVers   bool // Versions was nil (not empty)
}

// memChan is one key of a stored checkpoint's Values or Versions. A value
// is plain or a rope (a long list grown by deltas); stored values are
// never changed, so checkpoints share them. A rope is immutable and kept
// here by value.
type memChan struct {
	name     string
	value    []byte
	rope     rope
	isRope   bool
	hasValue bool
	version  int64
	hasVer   bool
}

// find returns the index of channel k in c.chans, or -1.
func (c *memCP) find(k string) int {
	i, ok := slices.BinarySearchFunc(c.chans, k, func(ch memChan, k string) int { return strings.Compare(ch.name, k) })
	if !ok {
		return -1
	}
	return i
}

// value returns channel k's stored value: plain, or a rope (a pointer
// into c, valid while c is stored).
func (c *memCP) value(k string) ([]byte, *rope, bool) {
	if i := c.find(k); i >= 0 && c.chans[i].hasValue {
		return c.chans[i].get()
	}
	return nil, nil, false
}

// get returns ch's value: plain, or a rope.
func (ch *memChan) get() ([]byte, *rope, bool) {
	if ch.isRope {
		return nil, &ch.rope, true
	}
	return ch.value, nil, true
}

// checkpoint returns a copy of c with every value (ropes materialised).
func (c *memCP) checkpoint() *graph.Checkpoint {
	n := headerBytes(&c.cp)
	for _, ch := range c.chans {
		if ch.hasValue && !ch.isRope {
			n += len(ch.value)
		}
	}
	a := make(arena, 0, n)
	out := new(graph.Checkpoint)
	cloneHeader(out, &c.cp, &a, nil)
	if !c.noValues {
		out.Values = make(map[string][]byte, len(c.chans))
	}
	if !c.noVers {
		out.Versions = make(map[string]int64, len(c.chans))
	}
	for _, ch := range c.chans {
		if ch.hasValue {
			if ch.isRope {
				out.Values[ch.name] = ch.rope.bytes()
			} else {
				out.Values[ch.name] = a.copy(ch.value)
			}
		}
		if ch.hasVer {
			out.Versions[ch.name] = ch.version
		}
	}
	return out
}

// release clears a checkpoint dropped from the store, so that the slab
// chunks it shares with stored checkpoints keep none of its data alive.
func (c *memCP) release() {
	clear(c.chans)
	clear(c.cp.Next)
	clear(c.cp.Writes)
	clear(c.cp.Interrupts)
	*c = memCP{}
}

// cloneHeader sets dst to a copy of cp without its Values and Versions,
// cut from n's slabs; its Metadata is shared with parentMeta when equal
// (stored metadata is never changed), else copied.
func (n *memNS) cloneHeader(dst, cp *graph.Checkpoint, parentMeta map[string]string) {
	*dst = *cp
	dst.Values, dst.Versions = nil, nil
	if cp.Next != nil {
		dst.Next = n.nextSlab.take(len(cp.Next))
		for i, t := range cp.Next {
			t.Arg = n.bytes.copy(t.Arg)
			dst.Next[i] = t
		}
	}
	if cp.Writes != nil {
		dst.Writes = n.writeSlab.take(len(cp.Writes))
		for i, w := range cp.Writes {
			w.Value = n.bytes.copy(w.Value)
			dst.Writes[i] = w
		}
	}
	if cp.Interrupts != nil {
		dst.Interrupts = n.intrSlab.take(len(cp.Interrupts))
		for i, in := range cp.Interrupts {
			in.Value = n.bytes.copy(in.Value)
			dst.Interrupts[i] = in
		}
	}
	switch {
	case parentMeta != nil && sameMetadata(parentMeta, cp.Metadata):
		dst.Metadata = parentMeta
	case n.intern != nil:
		dst.Metadata = n.intern.get(cp.Metadata)
	default:
		dst.Metadata = maps.Clone(cp.Metadata)
	}
}

// metaIntern keeps the last few distinct metadata maps stored, so that
// the checkpoints of many threads (most have the same few: the source of
// the step) share them. Stored metadata is never changed.
type metaIntern struct {
	maps [8]map[string]string
	next int
}

// get returns a stored map equal to m: an interned one, or a copy of m.
func (in *metaIntern) get(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	for _, k := range in.maps {
		if k != nil && maps.Equal(k, m) {
			return k
		}
	}
	c := maps.Clone(m)
	in.maps[in.next] = c
	in.next = (in.next + 1) % len(in.maps)
	return c
}

// newCP returns a new stored checkpoint record holding a copy of cp's
// header (see cloneHeader).
func (n *memNS) newCP(parent *memCP, src *graph.Checkpoint) *memCP {
	c := &n.cpSlab.take(1)[0]
	c.noValues, c.noVers = src.Values == nil, src.Versions == nil
	var pm map[string]string
	if parent != nil {
		pm = parent.cp.Metadata
	}
	n.cloneHeader(&c.cp, src, pm)
	return c
}

// newMemCP copies cp into a stored checkpoint whose channels are those of
// cp.Values and cp.Versions. A value or the Metadata equal to the
// parent's is shared with it; with ropify a long list value becomes a
// rope, so that a PutDelta extending it grows it in place.
func (n *memNS) newMemCP(cp *graph.Checkpoint, parent *memCP, ropify bool) *memCP {
	c := n.newCP(parent, cp)
	nch := len(cp.Values)
	for k := range cp.Versions {
		if _, ok := cp.Values[k]; !ok {
			nch++
		}
	}
	c.chans = n.chanSlab.take(nch)[:0]
	for k, v := range cp.Values {
		ver, hasVer := cp.Versions[k]
		ch := memChan{name: k, hasValue: true, version: ver, hasVer: hasVer}
		switch {
		case ropify && ropeValue(v):
			ch.rope, ch.isRope = makeRope(v, nil), true
		case parent != nil && parent.sameValue(k, v):
			ch.value, _, _ = parent.value(k)
		default:
			ch.value = n.bytes.copy(v)
		}
		c.chans = append(c.chans, ch)
	}
	for k, ver := range cp.Versions {
		if _, ok := cp.Values[k]; !ok {
			c.chans = append(c.chans, memChan{name: k, version: ver, hasVer: true})
		}
	}
	slices.SortFunc(c.chans, func(a, b memChan) int { return strings.Compare(a.name, b.name) })
	return c
}

// plainMax is the length up to which PutDelta stores an extended value
// as a plain copy rather than as a rope.
const plainMax = 128

// ropeValue reports whether Put keeps v as a rope: a long JSON list.
func ropeValue(v []byte) bool { return len(v) >= ropeMin && v[len(v)-1] == ']' }

// sameValue reports whether c's channel k is the plain value v.
func (c *memCP) sameValue(k string, v []byte) bool {
	pv, pr, ok := c.value(k)
	return ok && pr == nil && bytes.Equal(pv, v) && (pv == nil) == (v == nil)
}

// store puts c under its id and applies retention.
func (n *memNS) store(c *memCP, keepLast int) {
	i, ok := n.search(c.cp.ID)
	if ok {
		if old := n.cps[i]; old != c {
			old.release()
		}
		n.cps[i] = c
	} else {
		n.cps = slices.Insert(n.cps, i, c)
	}
	if k := keepLast; k > 0 && len(n.cps) > k {
		drop := len(n.cps) - k
		for _, d := range n.cps[:drop] {
			delete(n.writes, d.cp.ID)
			d.release()
		}
		m := copy(n.cps, n.cps[drop:])
		clear(n.cps[m:])
		n.cps = n.cps[:m]
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
	// The engine passes a task's writes together: each run of writes of
	// one task is merged with one map look-up, into a slice sized for it.
	for i := 0; i < len(ws); {
		id := ws[i].TaskID
		j := i + 1
		for j < len(ws) && ws[j].TaskID == id {
			j++
		}
		cur, ok := tw.tasks[id]
		if !ok {
			tw.order = append(tw.order, id)
			cur = make([]graph.PendingWrite, 0, j-i)
		}
		for _, w := range ws[i:j] {
			w.Value = a.copy(w.Value)
			cur = mergeTaskWrite(cur, w)
		}
		tw.tasks[id] = cur
		i = j
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
	return &notFoundError{threadID: threadID, ns: ns, id: id}
}

// notFoundError wraps graph.ErrCheckpointNotFound; its message is made
// when asked for (a run on a new thread gets one and only tests it).
type notFoundError struct{ threadID, ns, id string }

func (e *notFoundError) Error() string {
	if e.id == "" {
		return fmt.Sprintf("thread %q ns %q: no checkpoint: %v", e.threadID, e.ns, graph.ErrCheckpointNotFound)
	}
	return fmt.Sprintf("thread %q ns %q checkpoint %q: %v", e.threadID, e.ns, e.id, graph.ErrCheckpointNotFound)
}

func (e *notFoundError) Unwrap() error { return graph.ErrCheckpointNotFound }

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
		n = newMemNS(&m.intern)
		nss[cp.NS] = n
	}
	parent := n.get(cp.ParentID)
	n.store(n.newMemCP(cp, parent, true), m.cfg.keepLast)
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
	parent := n.get(cp.ParentID)
	if parent == nil || cp.ParentID == "" || cp.ParentID == cp.ID {
		return fmt.Errorf("put delta: thread %q ns %q checkpoint %q: parent %q not stored: %w", cp.ThreadID, cp.NS, cp.ID, cp.ParentID, graph.ErrDeltaBase)
	}
	c, err := n.memDelta(cp, deltas, parent)
	if err != nil {
		return err
	}
	n.store(c, m.cfg.keepLast)
	return nil
}

// deltaErr is an error of a PutDelta of cp.
func deltaErr(cp *graph.Checkpoint, format string, args ...any) error {
	return fmt.Errorf("put delta: thread %q ns %q checkpoint %q: %s", cp.ThreadID, cp.NS, cp.ID, fmt.Sprintf(format, args...))
}

// checkDeltas validates a PutDelta's deltas against cp: one per channel,
// each for a channel with a version and not also given in full.
func checkDeltas(cp *graph.Checkpoint, deltas []graph.ChannelDelta) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %w", deltaErr(cp, format, args...), ErrInvalid)
	}
	for i, d := range deltas {
		if deltaOf(deltas, d.Channel) != i {
			return fail("two deltas for channel %q", d.Channel)
		}
		if _, ok := cp.Versions[d.Channel]; !ok {
			return fail("delta for channel %q, which has no version", d.Channel)
		}
		if _, ok := cp.Values[d.Channel]; ok {
			return fail("channel %q given both in full and as a delta", d.Channel)
		}
	}
	return nil
}

// deltaOf returns the index of channel ch's delta, -1 for none; a step
// has a few deltas, so they are looked up by a scan, not a map.
func deltaOf(deltas []graph.ChannelDelta, ch string) int {
	for i := range deltas {
		if deltas[i].Channel == ch {
			return i
		}
	}
	return -1
}

// memDelta builds the stored form of a PutDelta against the stored parent
// (see graph.DeltaPutter): the given values copied, the other channels of
// cp.Versions inherited from the parent or extended by their delta.
func (n *memNS) memDelta(cp *graph.Checkpoint, deltas []graph.ChannelDelta, parent *memCP) (*memCP, error) {
	fail := func(format string, args ...any) error { return deltaErr(cp, format, args...) }
	if err := checkDeltas(cp, deltas); err != nil {
		return nil, err
	}
	c, ok := n.sameChans(cp, parent)
	if !ok {
		c = n.newMemCP(cp, parent, false)
	}
	c.noValues = false // the stored checkpoint has the inherited values
	for i := range c.chans {
		ch := &c.chans[i]
		if ch.hasValue || !ch.hasVer {
			continue
		}
		pv, pr, ok := parent.value(ch.name)
		if !ok {
			c.release()
			return nil, fmt.Errorf("%w: %w", fail("channel %q is not in the parent", ch.name), graph.ErrDeltaBase)
		}
		ch.hasValue = true
		di := deltaOf(deltas, ch.name)
		if di < 0 {
			// stored values are never changed: shared
			if pr != nil {
				ch.rope, ch.isRope = *pr, true
			} else {
				ch.value = pv
			}
			continue
		}
		d := deltas[di]
		switch {
		case pr != nil:
			ch.rope, ok = pr.extendVal(d.Keep, d.Tail)
			ch.isRope = ok
		case d.Keep < 0 || d.Keep > len(pv):
			ok = false
		case d.Keep+len(d.Tail) <= plainMax:
			// short: a plain copy (from the slab) costs less than a rope
			ch.value = n.bytes.concat(pv[:d.Keep], d.Tail)
		default:
			ch.rope, ch.isRope = makeRope(pv[:d.Keep], d.Tail), true
		}
		if !ok {
			c.release()
			return nil, fmt.Errorf("%w: %w", fail("delta of channel %q keeps %d bytes of a shorter value", ch.name, d.Keep), graph.ErrDeltaBase)
		}
	}
	return c, nil
}

// sameChans is newMemCP(cp, parent, false) for the common case of a step:
// cp's channels (the keys of Values and Versions) are the parent's. It
// walks the parent's sorted channels instead of cp's maps (no sort), and
// reports false, storing nothing, when the channels differ.
func (n *memNS) sameChans(cp *graph.Checkpoint, parent *memCP) (*memCP, bool) {
	nv, nver := 0, 0
	for i := range parent.chans {
		name := parent.chans[i].name
		if _, ok := cp.Values[name]; ok {
			nv++
		}
		if _, ok := cp.Versions[name]; ok {
			nver++
		}
	}
	if nv != len(cp.Values) || nver != len(cp.Versions) || cp.Versions == nil {
		return nil, false
	}
	nch := 0
	for i := range parent.chans {
		name := parent.chans[i].name
		_, hv := cp.Values[name]
		_, hver := cp.Versions[name]
		if hv || hver {
			nch++
		}
	}
	c := n.newCP(parent, cp)
	c.chans = n.chanSlab.take(nch)[:0]
	for i := range parent.chans {
		pc := &parent.chans[i]
		v, hv := cp.Values[pc.name]
		ver, hver := cp.Versions[pc.name]
		if !hv && !hver {
			continue
		}
		ch := memChan{name: pc.name, hasValue: hv, version: ver, hasVer: hver}
		if hv {
			if pc.hasValue && !pc.isRope && bytes.Equal(pc.value, v) && (pc.value == nil) == (v == nil) {
				ch.value = pc.value
			} else {
				ch.value = n.bytes.copy(v)
			}
		}
		c.chans = append(c.chans, ch)
	}
	return c, true
}

// deltaValues builds the stored form of a PutDelta: a copy of cp whose
// Values hold the given and inherited plain values, and the ropes of the
// channels given by deltas or inherited as ropes. parent looks up the
// parent's value of a channel. (Bolt's; Memory has memDelta.)
func deltaValues(cp *graph.Checkpoint, deltas []graph.ChannelDelta, parent func(string) ([]byte, *rope, bool)) (*graph.Checkpoint, map[string]*rope, error) {
	fail := func(format string, args ...any) error { return deltaErr(cp, format, args...) }
	if err := checkDeltas(cp, deltas); err != nil {
		return nil, nil, err
	}
	stored := cloneWith(cp, cp.Values, nil)
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
		i := deltaOf(deltas, k)
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
		n = newMemNS(&m.intern)
		nss[ns] = n
	}
	if n.writes == nil {
		n.writes = map[string]*taskWrites{}
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
	if n == nil || len(n.cps) == 0 {
		return nil, nil, notFound(threadID, ns, checkpointID)
	}
	id := checkpointID
	if id == "" {
		id = n.cps[len(n.cps)-1].cp.ID
	}
	cp := n.get(id)
	if cp == nil {
		return nil, nil, notFound(threadID, ns, checkpointID)
	}
	return cp.checkpoint(), n.writes[id].all(), nil
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
	for i := len(n.cps) - 1; i >= 0; i-- {
		id := n.cps[i].cp.ID
		if opts.Before != "" && strings.Compare(id, opts.Before) >= 0 {
			continue
		}
		out = append(out, n.cps[i].checkpoint())
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

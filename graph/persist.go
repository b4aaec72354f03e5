package graph

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/agentgraph/agentgraph/internal/bytesx"
)

// Reserved channels of pending writes and checkpoint values.
const (
	chanRoute     = "__route__"     // a finished task's routing: its presence marks the task done
	chanResume    = "__resume__"    // a task's answered interrupts, in order
	chanOverwrite = "__overwrite__" // prefix: "__overwrite__:Field"
	chanJoins     = "__joins__"     // checkpoint value: which join sources have finished
	chanDeferred  = "__deferred__"  // checkpoint value: deferred tasks that wait (Defer)
)

type sendRec struct {
	Node string
	Arg  []byte
}

// deferRec is the checkpoint value of the deferred tasks that wait.
type deferRec struct {
	Nodes []string  `json:",omitempty"`
	Sends []sendRec `json:",omitempty"`
}

type routeRec struct {
	Nodes []string  `json:",omitempty"`
	Sends []sendRec `json:",omitempty"`
}

// newID returns a new checkpoint id (16 hex digits: a time in
// nanoseconds, greater than the parent's and than the last id made).
// The run remembers the last id it made, so that the parent id, mostly
// that one, is not parsed again.
func (r *run[S]) newID(parent string, now time.Time) uint64 {
	p, ok := r.lastNum, parent != "" && parent == r.lastStr
	if !ok && parent != "" {
		v, err := strconv.ParseInt(parent, 16, 64)
		p, ok = v, err == nil
	}
	c := r.g
	c.idMu.Lock()
	n := now.UnixNano()
	if n <= c.lastID {
		n = c.lastID + 1
	}
	if ok && p >= n {
		n = p + 1
	}
	c.lastID = n
	c.idMu.Unlock()
	r.lastNum = n
	return uint64(n)
}

func appendHex16(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	var d [16]byte
	for i := 15; i >= 0; i-- {
		d[i] = digits[v&0xf]
		v >>= 4
	}
	return append(b, d[:]...)
}

// cpRecord is a reusable checkpoint record of a run (see run.cpBuf).
type cpRecord struct {
	cp       Checkpoint
	values   map[string][]byte
	versions map[string]int64
	next     []TaskRef
	writes   []PendingWrite
}

// idChunk is the size of the chunks that ids are cut from.
const idChunk = 1024

// stepIDs returns, in one string, a new checkpoint id followed by the ids
// of the tasks of next it schedules (each 16 hex digits: FNV-1a over the
// checkpoint id, the node and the task's index). The string is cut from
// r.idBuf, whose bytes are never changed once handed out.
func stepIDs[S any](r *run[S], parent string, now time.Time, next []task[S]) string {
	n := 16 * (1 + len(next))
	var b []byte
	if n > idChunk/4 {
		b = make([]byte, 0, n)
	} else {
		if cap(r.idBuf)-len(r.idBuf) < n {
			r.idBuf = make([]byte, 0, idChunk)
		}
		b = r.idBuf[len(r.idBuf):len(r.idBuf)]
		r.idBuf = r.idBuf[:len(r.idBuf)+n]
	}
	b = appendHex16(b, r.newID(parent, now))
	id := unsafe.String(unsafe.SliceData(b), 16) // b's first 16 bytes do not change
	r.lastStr = id
	for i := range next {
		b = appendHex16(b, taskHash(id, next[i].node.name, i))
	}
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not changed after
}

func taskHash(cpID, node string, i int) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	mix := func(b byte) { h ^= uint64(b); h *= prime }
	for j := 0; j < len(cpID); j++ {
		mix(cpID[j])
	}
	mix(0)
	for j := 0; j < len(node); j++ {
		mix(node[j])
	}
	mix(0)
	mix(byte(i))
	mix(byte(i >> 8))
	mix(byte(i >> 16))
	return h
}

// emptyRoute is the encoding of a task result with no routing, made once,
// with the encodings of the routes to one node (see routeTo).
func (c *CompiledGraph[S]) emptyRoute() ([]byte, error) {
	c.emptyOnce.Do(func() {
		c.emptyEnc, c.emptyErr = c.ser.Marshal(routeRec{})
		if c.emptyErr != nil {
			return
		}
		c.oneRoute = make([][]byte, len(c.nodes)+1)
		for i := range c.oneRoute {
			name := End
			if i < len(c.nodes) {
				name = c.nodes[i].name
			}
			b, err := c.ser.Marshal(routeRec{Nodes: []string{name}})
			if err != nil {
				c.oneRoute = nil
				return
			}
			c.oneRoute[i] = b
		}
	})
	return c.emptyEnc, c.emptyErr
}

// routeTo returns the encoding of a route to node name alone, nil when it
// was not made (the caller then encodes it).
func (c *CompiledGraph[S]) routeTo(name string) []byte {
	if _, err := c.emptyRoute(); err != nil || c.oneRoute == nil {
		return nil
	}
	if name == End {
		return c.oneRoute[len(c.nodes)]
	}
	if i, ok := c.nodeIdx[name]; ok {
		return c.oneRoute[i]
	}
	return nil
}

// restore loads a checkpoint's values into r.
func (r *run[S]) restore(cp *Checkpoint) error {
	g := r.g
	if cp.Format != "" && cp.Format != g.ser.Format() {
		return fmt.Errorf("graph: checkpoint %s is %q, the serializer reads %q", cp.ID, cp.Format, g.ser.Format())
	}
	var zero S
	r.state = zero
	sp := unsafe.Pointer(&r.state)
	for fi := range g.fields {
		f := &g.fields[fi]
		b, ok := cp.Values[f.name]
		if !ok {
			r.enc[fi], r.versions[fi], r.encAt[fi] = nil, 0, sliceHeader{}
			continue
		}
		if err := g.ser.Unmarshal(b, f.iface(sp)); err != nil {
			return fmt.Errorf("graph: checkpoint %s: decode channel %s of %s (stored as %s): %w", cp.ID, f.name, g.typeName, cp.StateType, err)
		}
		r.enc[fi], r.versions[fi] = b, cp.Versions[f.name]
		r.encShared[fi] = true
		r.encAt[fi] = sliceHeader{}
		if f.splice {
			r.encAt[fi] = *(*sliceHeader)(f.ptr(sp))
		}
	}
	if b, ok := cp.Values[chanJoins]; ok && len(g.joins) > 0 {
		var seen [][]bool
		if err := g.ser.Unmarshal(b, &seen); err != nil {
			return fmt.Errorf("graph: checkpoint %s: decode joins: %w", cp.ID, err)
		}
		for i := range r.joinSeen {
			if i < len(seen) {
				copy(r.joinSeen[i], seen[i])
			}
		}
	}
	r.deferNode, r.deferSends = nil, nil
	if b, ok := cp.Values[chanDeferred]; ok {
		var rec deferRec
		if err := g.ser.Unmarshal(b, &rec); err != nil {
			return fmt.Errorf("graph: checkpoint %s: decode deferred tasks: %w", cp.ID, err)
		}
		for _, n := range rec.Nodes {
			ni, ok := g.nodeIdx[n]
			if !ok {
				return fmt.Errorf("graph: checkpoint %s defers unknown node %q", cp.ID, n)
			}
			r.deferNodeAt(ni)
		}
		for _, s := range rec.Sends {
			if _, ok := g.nodeIdx[s.Node]; !ok {
				return fmt.Errorf("graph: checkpoint %s defers a Send to unknown node %q", cp.ID, s.Node)
			}
			var arg S
			if err := g.ser.Unmarshal(s.Arg, &arg); err != nil {
				return fmt.Errorf("graph: checkpoint %s: decode deferred Send to %s: %w", cp.ID, s.Node, err)
			}
			r.deferSends = append(r.deferSends, Send[S]{Node: s.Node, Arg: arg})
		}
	}
	r.cur, r.curPartial = cp, false
	r.step = cp.Step + 1
	return nil
}

// checkpoint writes the checkpoint after the input or a step; it names
// r.next's tasks.
func (r *run[S]) checkpoint(ctx context.Context, source Source, tasks []task[S]) error {
	g := r.g
	parent := ""
	if r.cur != nil {
		parent = r.cur.ID
	}
	now := time.Now()
	ids := stepIDs(r, parent, now, r.next)
	id := ids[:16]
	sp := unsafe.Pointer(&r.state)
	dp, useDelta := r.cp.(DeltaPutter)
	useDelta = useDelta && r.cur != nil
	deltas := r.deltas[:0] // PutDelta keeps no delta: the buffer is reused
	// PutDelta keeps neither cp nor its maps and slices: with it, the
	// record is one of the run's two, not the one r.cur is.
	var rec *cpRecord
	var values map[string][]byte
	var versions map[string]int64
	if useDelta {
		rec = &r.cpBuf[r.cpTurn]
		if &rec.cp == r.cur {
			r.cpTurn ^= 1
			rec = &r.cpBuf[r.cpTurn]
		}
		if rec.values == nil {
			rec.values = make(map[string][]byte, len(g.fields)+1)
			rec.versions = make(map[string]int64, len(g.fields))
			rec.next, rec.writes = make([]TaskRef, 0, 1), make([]PendingWrite, 0, 1)
		}
		values, versions = rec.values, rec.versions
		clear(values)
		clear(versions)
	} else {
		values = make(map[string][]byte, len(g.fields)+1)
		versions = make(map[string]int64, len(g.fields))
	}
	for fi := range g.fields {
		f := &g.fields[fi]
		if r.written[fi] {
			b, keep, err := r.encodeChannel(fi, sp, useDelta)
			if err != nil {
				return fmt.Errorf("graph: encode channel %s: %w", f.name, err)
			}
			r.enc[fi] = b
			r.versions[fi]++
			if useDelta && keep > 0 {
				deltas = append(deltas, ChannelDelta{Channel: f.name, Keep: keep, Tail: b[keep:]})
			} else if useDelta {
				values[f.name] = b
				r.encShared[fi] = true
			}
		}
		if r.enc[fi] != nil {
			if !useDelta {
				values[f.name] = r.enc[fi]
				r.encShared[fi] = true
			}
			versions[f.name] = r.versions[fi]
		}
	}
	if len(g.joins) > 0 {
		b, err := g.ser.Marshal(r.joinSeen)
		if err != nil {
			return fmt.Errorf("graph: encode joins: %w", err)
		}
		values[chanJoins] = b
	}
	if r.hasDeferred() {
		var drec deferRec
		for ni, d := range r.deferNode {
			if d {
				drec.Nodes = append(drec.Nodes, g.nodes[ni].name)
			}
		}
		for _, s := range r.deferSends {
			b, err := g.ser.Marshal(&s.Arg)
			if err != nil {
				return fmt.Errorf("graph: encode deferred Send to %s: %w", s.Node, err)
			}
			drec.Sends = append(drec.Sends, sendRec{Node: s.Node, Arg: b})
		}
		b, err := g.ser.Marshal(drec)
		if err != nil {
			return fmt.Errorf("graph: encode deferred tasks: %w", err)
		}
		values[chanDeferred] = b
	}
	var next []TaskRef
	if rec != nil {
		next = slices.Grow(rec.next[:0], len(r.next))[:len(r.next)]
		rec.next = next
	} else {
		next = make([]TaskRef, len(r.next))
	}
	for i := range r.next {
		t := &r.next[i]
		t.sc.id = ids[16*(i+1) : 16*(i+2)]
		next[i] = TaskRef{ID: t.sc.id, Node: t.node.name, Send: t.send}
		if t.send {
			b, err := g.ser.Marshal(&t.input)
			if err != nil {
				return fmt.Errorf("graph: encode Send to %s: %w", t.node.name, err)
			}
			next[i].Arg = b
		}
	}
	var writes []PendingWrite
	switch len(tasks) {
	case 0:
	case 1:
		// One task: its encoded writes are the step's (checkpointers copy
		// what they keep, and the task's encoding is not changed after).
		w, err := r.encodeWrites(&tasks[0])
		if err != nil {
			return err
		}
		writes = w[:len(w):len(w)]
	default:
		n := 0
		for i := range tasks {
			w, err := r.encodeWrites(&tasks[i])
			if err != nil {
				return err
			}
			n += len(w)
		}
		if rec != nil {
			writes = slices.Grow(rec.writes[:0], n)
			clear(writes[:cap(writes)])
		} else {
			writes = make([]PendingWrite, 0, n)
		}
		for i := range tasks {
			writes = append(writes, tasks[i].encoded...)
		}
		if rec != nil {
			rec.writes = writes
		}
	}
	var cp *Checkpoint
	if rec != nil {
		cp = &rec.cp
	} else {
		cp = new(Checkpoint)
	}
	*cp = Checkpoint{
		ThreadID: r.thread, NS: r.ns, ID: id, ParentID: parent, Step: r.step, Source: source,
		CreatedAt: now, Values: values, Versions: versions, Format: g.ser.Format(),
		StateType: g.typeName, Next: next, Writes: writes, Metadata: r.metadata(source),
	}
	partial := false
	if useDelta {
		err := dp.PutDelta(ctx, cp, deltas)
		clear(deltas)
		r.deltas = deltas[:0]
		switch {
		case err == nil:
			partial = true
		case errors.Is(err, ErrDeltaBase):
			// Put may keep what it is given: a record of its own.
			full := new(Checkpoint)
			*full = *cp
			full.Values, full.Versions = maps.Clone(values), maps.Clone(versions)
			full.Next, full.Writes = slices.Clone(next), slices.Clone(writes)
			cp = full
			r.fillValues(cp.Values)
		default:
			return fmt.Errorf("graph: save checkpoint (step %d): %w", r.step, err)
		}
	}
	if !partial {
		if err := r.cp.Put(ctx, cp); err != nil {
			return fmt.Errorf("graph: save checkpoint (step %d): %w", r.step, err)
		}
		if dp != nil {
			r.ownLists()
		}
	}
	r.cur, r.curPartial = cp, partial
	if r.out != nil {
		r.send(Event[S]{Mode: Debug, NS: r.ns, Step: r.step, Debug: &DebugInfo{Kind: DebugCheckpoint, CheckpointID: id}})
	}
	return nil
}

// fillValues adds every channel's current encoding to values (the reserved
// channels are already there): a checkpoint in full.
func (r *run[S]) fillValues(values map[string][]byte) {
	for fi := range r.g.fields {
		if r.enc[fi] != nil {
			values[r.g.fields[fi].name] = r.enc[fi]
			r.encShared[fi] = true
		}
	}
}

// ownLists gives the run its own, growable copy of each list channel's
// encoding after a full Put, so that the next PutDelta steps extend it in
// place: the copy is paid once per run, with the full checkpoint.
func (r *run[S]) ownLists() {
	for fi := range r.g.fields {
		if b := r.enc[fi]; r.g.fields[fi].splice && r.encShared[fi] && len(b) > 0 {
			r.enc[fi] = append(make([]byte, 0, 2*len(b)), b...)
			r.encShared[fi] = false
		}
	}
}

// fullCur returns a copy of r.cur with all its Values, for a Put that
// replaces it (an interrupt recorded on the step-start checkpoint). A
// checkpoint stored with PutDelta is one of the run's reused records: its
// maps and slices are copied.
func (r *run[S]) fullCur() Checkpoint {
	cp := *r.cur
	if r.curPartial {
		cp.Versions = maps.Clone(cp.Versions)
		cp.Next, cp.Writes = slices.Clone(cp.Next), slices.Clone(cp.Writes)
		values := make(map[string][]byte, len(r.g.fields)+len(cp.Values))
		for k, v := range cp.Values {
			if _, ok := r.g.byName[k]; !ok {
				values[k] = v
			}
		}
		r.fillValues(values)
		cp.Values = values
	}
	return cp
}

// encodeChannel encodes field fi of the state at sp. A list that only
// grew since it was last encoded (same backing array, longer: an append
// reducer's work) is encoded by adding the new elements' JSON to the
// previous encoding, so the encoder's work is the step's, not the list's;
// keep is then the length of the previous encoding kept (without its
// closing bracket), else 0. With grow, the encoding is extended in place
// when the run owns it (amortised: the copy is the step's, too).
func (r *run[S]) encodeChannel(fi int, sp unsafe.Pointer, grow bool) (b []byte, keep int, err error) {
	g := r.g
	f := &g.fields[fi]
	if !f.splice {
		b, err = r.encodeField(f, sp)
		return b, 0, err
	}
	h := *(*sliceHeader)(f.ptr(sp))
	at, old := r.encAt[fi], r.enc[fi]
	if f.fastElem != nil && h.data != nil && h.data == at.data && h.len > at.len && at.len > 0 && len(old) > 2 && old[0] == '[' && old[len(old)-1] == ']' {
		// The new elements' encoding written straight after the kept part.
		keep = len(old) - 1
		inPlace := grow && !r.encShared[fi]
		if inPlace {
			b = old[:keep]
		} else {
			c := len(old) + 64
			if grow {
				c = 2 * c
			}
			b = append(make([]byte, 0, c), old[:keep]...)
		}
		b = append(b, ',')
		b, ok := appendJSONElems(b, f.fastElem, unsafe.Add(h.data, uintptr(at.len)*f.typ.Elem().Size()), h.len-at.len, f.typ.Elem().Size())
		if ok {
			r.encShared[fi] = false // b is the run's: old extended in place, or new
			r.encAt[fi] = h
			return append(b, ']'), keep, nil
		}
		// Not one it can write: the serializer's way below. In place, the
		// ',' overwrote old's closing bracket; what was written past it is
		// in no value handed out.
		if inPlace {
			old[keep] = ']'
		}
		keep = 0
	}
	if h.data != nil && h.data == at.data && h.len > at.len && at.len > 0 && len(old) > 2 && old[0] == '[' && old[len(old)-1] == ']' {
		// The tail's header lives in r (no allocation per step); it is
		// cleared after, so that it keeps nothing alive.
		r.tail = sliceHeader{data: unsafe.Add(h.data, uintptr(at.len)*f.typ.Elem().Size()), len: h.len - at.len, cap: h.len - at.len}
		tb, err := g.ser.Marshal(reflect.NewAt(f.typ, unsafe.Pointer(&r.tail)).Interface())
		r.tail = sliceHeader{}
		if err != nil {
			return nil, 0, err
		}
		if len(tb) > 2 && tb[0] == '[' && tb[len(tb)-1] == ']' {
			keep = len(old) - 1
			n := keep + len(tb)
			if grow && !r.encShared[fi] && cap(old) >= n {
				b = old[:keep]
			} else {
				c := n
				if grow {
					c = 2 * n
				}
				b = append(make([]byte, 0, c), old[:keep]...)
				r.encShared[fi] = false
			}
			b = append(append(b, ','), tb[1:]...)
			r.encAt[fi] = h
			return b, keep, nil
		}
	}
	ok := false
	if f.fast != nil {
		// the run's own buffer, with room for the next steps' appends
		b, ok = f.fast(make([]byte, 0, 2*len(old)+64), f.ptr(sp))
	}
	if !ok {
		if b, err = g.ser.Marshal(f.iface(sp)); err != nil {
			return nil, 0, err
		}
	}
	r.encAt[fi] = h
	r.encShared[fi] = false
	if grow && len(old) > 0 {
		// The list moved (an append past its capacity copies it) or
		// changed: what it shares with the last encoding still goes as a
		// delta. The comparison is the encoding's cost again, paid at
		// each doubling of a growing list.
		if p := bytesx.CommonPrefix(old, b); p >= minDeltaKeep {
			return b, p, nil
		}
	}
	return b, 0, nil
}

// encodeField encodes the field f of the state or update at sp: with its
// fast encoder into a chunk of r.byteBuf when it has one, else with the
// serializer. The bytes are never changed after.
func (r *run[S]) encodeField(f *field, sp unsafe.Pointer) ([]byte, error) {
	if f.fast != nil {
		if cap(r.byteBuf)-len(r.byteBuf) < 32 {
			r.byteBuf = make([]byte, 0, byteChunk)
		}
		start, c := len(r.byteBuf), cap(r.byteBuf)
		b, ok := f.fast(r.byteBuf, f.ptr(sp))
		if ok {
			out := b[start:len(b):len(b)]
			if cap(b) != c {
				b = nil // it outgrew the chunk: the new buffer is out's alone
			}
			r.byteBuf = b
			return out, nil
		}
	}
	return r.g.ser.Marshal(f.iface(sp))
}

// byteChunk is the size of the chunks that encoded fields are cut from.
const byteChunk = 2048

// minDeltaKeep is the shortest prefix worth sending as a ChannelDelta.
const minDeltaKeep = 64

// metadata returns the checkpoint metadata for source. The map is shared by
// the run's checkpoints of that source and never modified after creation.
func (r *run[S]) metadata(source Source) map[string]string {
	if source == SourceLoop && r.metaLoop != nil {
		return r.metaLoop
	}
	if len(r.meta) == 0 && r.parentTask == "" {
		if m := r.g.sourceMeta[source]; m != nil {
			return m
		}
	}
	m := make(map[string]string, len(r.meta)+2)
	for k, v := range r.meta {
		m[k] = v
	}
	m["source"] = string(source)
	if r.parentTask != "" {
		m["parent_task"] = r.parentTask
	}
	if source == SourceLoop {
		r.metaLoop = m
	}
	return m
}

// encodeWrites encodes a finished task's writes and routing (once: the
// encoding is kept on the task).
func (r *run[S]) encodeWrites(t *task[S]) ([]PendingWrite, error) {
	if t.encoded != nil {
		return t.encoded, nil
	}
	w, err := r.encodeTaskWrites(t)
	if err == nil {
		t.encoded = w
	}
	return w, err
}

// pwChunk is the size of the chunks that tasks' encoded writes are cut from.
const pwChunk = 64

// takeWrites returns an empty slice of capacity n for a task's encoded
// writes, cut from r.pwBuf (whose elements are never reused; appending
// past n moves the slice).
func (r *run[S]) takeWrites(n int) []PendingWrite {
	if n > pwChunk/4 {
		return make([]PendingWrite, 0, n)
	}
	if cap(r.pwBuf)-len(r.pwBuf) < n {
		r.pwBuf = make([]PendingWrite, 0, pwChunk)
	}
	i := len(r.pwBuf)
	r.pwBuf = r.pwBuf[:i+n]
	return r.pwBuf[i : i : i+n]
}

func (r *run[S]) encodeTaskWrites(t *task[S]) ([]PendingWrite, error) {
	g := r.g
	up := unsafe.Pointer(&t.update)
	n := 1 + len(t.overwrite) // the route, the overwrites
	for fi := range g.fields {
		if f := &g.fields[fi]; !f.isZero(f.ptr(up)) {
			n++
		}
	}
	out := r.takeWrites(n)
	for fi := range g.fields {
		f := &g.fields[fi]
		if f.isZero(f.ptr(up)) {
			continue
		}
		b, err := r.encodeField(f, up)
		if err != nil {
			return nil, fmt.Errorf("graph: encode write of %s to %s: %w", t.node.name, f.name, err)
		}
		out = append(out, PendingWrite{TaskID: t.sc.id, Node: t.node.name, Channel: f.name, Value: b})
	}
	for _, w := range t.overwrite {
		if w.locate == nil {
			continue
		}
		var tmp S
		fi := g.fieldOf(&tmp, w.locate(&tmp))
		if fi < 0 {
			continue
		}
		w.assign(&tmp)
		f := &g.fields[fi]
		b, err := g.ser.Marshal(f.iface(unsafe.Pointer(&tmp)))
		if err != nil {
			return nil, fmt.Errorf("graph: encode overwrite of %s: %w", f.name, err)
		}
		out = append(out, PendingWrite{TaskID: t.sc.id, Node: t.node.name, Channel: chanOverwrite + ":" + f.name, Value: b})
	}
	if t.one == "" && len(t.gotos) == 0 && len(t.sends) == 0 {
		b, err := g.emptyRoute()
		if err != nil {
			return nil, fmt.Errorf("graph: encode route of %s: %w", t.node.name, err)
		}
		return append(out, PendingWrite{TaskID: t.sc.id, Node: t.node.name, Channel: chanRoute, Value: b}), nil
	}
	if t.one != "" && len(t.gotos) == 0 && len(t.sends) == 0 {
		if b := g.routeTo(t.one); b != nil {
			return append(out, PendingWrite{TaskID: t.sc.id, Node: t.node.name, Channel: chanRoute, Value: b}), nil
		}
	}
	rec := routeRec{Nodes: t.gotos}
	if t.one != "" {
		rec.Nodes = append([]string{t.one}, t.gotos...)
	}
	for _, s := range t.sends {
		b, err := g.ser.Marshal(&s.Arg)
		if err != nil {
			return nil, fmt.Errorf("graph: encode Send to %s: %w", s.Node, err)
		}
		rec.Sends = append(rec.Sends, sendRec{Node: s.Node, Arg: b})
	}
	b, err := g.ser.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("graph: encode route of %s: %w", t.node.name, err)
	}
	out = append(out, PendingWrite{TaskID: t.sc.id, Node: t.node.name, Channel: chanRoute, Value: b})
	return out, nil
}

func (r *run[S]) resumeWrite(t *task[S]) (PendingWrite, error) {
	raws := make([][]byte, len(t.sc.resume))
	for i, v := range t.sc.resume {
		raws[i] = v.raw
	}
	b, err := r.g.ser.Marshal(raws)
	if err != nil {
		return PendingWrite{}, fmt.Errorf("graph: encode resume values: %w", err)
	}
	return PendingWrite{TaskID: t.sc.id, Node: t.node.name, Channel: chanResume, Value: b}, nil
}

// savePending stores the writes of the step's finished tasks against the
// step-start checkpoint, so a resume does not run them again.
func (r *run[S]) savePending(ctx context.Context, tasks []task[S], finished []bool) error {
	if r.cp == nil || r.cur == nil {
		return nil
	}
	var writes []PendingWrite
	for i := range tasks {
		t := &tasks[i]
		if finished != nil && !finished[i] {
			continue
		}
		if !t.done || t.loaded || t.saved {
			continue
		}
		w, err := r.encodeWrites(t)
		if err != nil {
			return err
		}
		writes = append(writes, w...)
	}
	if len(writes) == 0 {
		return nil
	}
	if err := r.cp.PutWrites(ctx, r.thread, r.ns, r.cur.ID, writes); err != nil {
		if l := r.g.cfg.logger; l != nil {
			l.Error("graph: save pending writes", "thread", r.thread, "checkpoint", r.cur.ID, "err", err)
		}
		return fmt.Errorf("graph: save pending writes: %w", err)
	}
	return nil
}

// saveTask stores one finished task's writes against the step-start
// checkpoint while its siblings still run. A failure is logged and left to
// savePending, which tries again if the step does not commit.
func (r *run[S]) saveTask(ctx context.Context, t *task[S]) {
	if r.cp == nil || r.cur == nil || t.loaded || t.saved {
		return
	}
	w, err := r.encodeWrites(t)
	if err == nil && len(w) > 0 {
		err = r.cp.PutWrites(ctx, r.thread, r.ns, r.cur.ID, w)
	}
	if err != nil {
		if l := r.g.cfg.logger; l != nil {
			l.Warn("graph: save task writes", "thread", r.thread, "node", t.node.name, "err", err)
		}
		return
	}
	t.saved = true
}

// pause records the step's interrupts on its start checkpoint.
func (r *run[S]) pause(ctx context.Context, tasks []task[S], intr []*task[S]) error {
	if r.cp == nil || r.cur == nil {
		return fmt.Errorf("graph: interrupt: %w", ErrNoCheckpointer)
	}
	if err := r.savePending(ctx, tasks, nil); err != nil {
		return err
	}
	cp := r.fullCur()
	cp.Interrupts = nil
	ie := &InterruptError{ThreadID: r.thread}
	for _, t := range intr {
		b, err := r.g.ser.Marshal(t.intr.payload)
		if err != nil {
			return fmt.Errorf("graph: encode interrupt payload of %s: %w", t.node.name, err)
		}
		id := t.sc.id + ":" + strconv.Itoa(t.intr.index)
		cp.Interrupts = append(cp.Interrupts, InterruptInfo{ID: id, Node: t.node.name, TaskID: t.sc.id, Value: b})
		ie.Interrupts = append(ie.Interrupts, Interruption{ID: id, Node: t.node.name, TaskID: t.sc.id, Value: t.intr.payload, Raw: b})
	}
	if err := r.cp.Put(ctx, &cp); err != nil {
		return fmt.Errorf("graph: save interrupt: %w", err)
	}
	r.cur, r.curPartial = &cp, false
	return ie
}

// load continues a thread from its checkpoint (Continue / Resume).
func (r *run[S]) load(ctx context.Context) error {
	cp, pend, err := r.cp.Get(ctx, r.thread, r.ns, r.cfg.checkpointID)
	if err != nil {
		return fmt.Errorf("graph: continue thread %q: %w", r.thread, err)
	}
	if err := r.restore(cp); err != nil {
		return err
	}
	byID, err := r.loadTasks(cp, pend)
	if err != nil {
		return err
	}
	if r.cfg.resume {
		if err := r.applyResume(ctx, cp, byID); err != nil {
			return err
		}
	}
	r.skipBefore = true
	return nil
}

// loadTasks makes r.tasks the tasks cp schedules, with the results of
// those that finished (their pending writes) loaded. It returns the task
// index by task id.
func (r *run[S]) loadTasks(cp *Checkpoint, pend []PendingWrite) (map[string]int, error) {
	g := r.g
	r.tasks = r.tasks[:0]
	byID := map[string]int{}
	for _, ref := range cp.Next {
		ni, ok := g.nodeIdx[ref.Node]
		if !ok {
			return nil, fmt.Errorf("graph: checkpoint %s schedules unknown node %q", cp.ID, ref.Node)
		}
		t := task[S]{node: g.nodes[ni], send: ref.Send}
		t.sc.id = ref.ID
		if ref.Send {
			if err := g.ser.Unmarshal(ref.Arg, &t.input); err != nil {
				return nil, fmt.Errorf("graph: checkpoint %s: decode Send to %s: %w", cp.ID, ref.Node, err)
			}
		}
		byID[ref.ID] = len(r.tasks)
		r.tasks = append(r.tasks, t)
	}
	// Pending writes: finished tasks (marked by a route write) and answered interrupts.
	for _, w := range pend {
		i, ok := byID[w.TaskID]
		if !ok {
			continue
		}
		t := &r.tasks[i]
		switch w.Channel {
		case chanRoute:
			var rec routeRec
			if err := g.ser.Unmarshal(w.Value, &rec); err != nil {
				return nil, fmt.Errorf("graph: pending write of %s: %w", t.node.name, err)
			}
			t.gotos = rec.Nodes
			for _, s := range rec.Sends {
				var arg S
				if err := g.ser.Unmarshal(s.Arg, &arg); err != nil {
					return nil, fmt.Errorf("graph: pending Send of %s: %w", t.node.name, err)
				}
				t.sends = append(t.sends, Send[S]{Node: s.Node, Arg: arg})
			}
			t.done, t.loaded, t.routed = true, true, true
		case chanResume:
			var raws [][]byte
			if err := g.ser.Unmarshal(w.Value, &raws); err != nil {
				return nil, fmt.Errorf("graph: resume values of %s: %w", t.node.name, err)
			}
			t.sc.resume = t.sc.resume[:0]
			for _, b := range raws {
				t.sc.resume = append(t.sc.resume, resumeVal{raw: b})
			}
		}
	}
	for _, w := range pend {
		i, ok := byID[w.TaskID]
		if !ok || !r.tasks[i].loaded {
			continue
		}
		t := &r.tasks[i]
		name, over := strings.CutPrefix(w.Channel, chanOverwrite+":")
		fi, ok := g.byName[name]
		if !ok {
			continue
		}
		f := &g.fields[fi]
		if !over {
			if err := g.ser.Unmarshal(w.Value, f.iface(unsafe.Pointer(&t.update))); err != nil {
				return nil, fmt.Errorf("graph: pending write of %s to %s: %w", t.node.name, name, err)
			}
			continue
		}
		holder := new(S)
		if err := g.ser.Unmarshal(w.Value, f.iface(unsafe.Pointer(holder))); err != nil {
			return nil, fmt.Errorf("graph: pending overwrite of %s to %s: %w", t.node.name, name, err)
		}
		t.overwrite = append(t.overwrite, Write[S]{
			locate: func(s *S) unsafe.Pointer { return f.ptr(unsafe.Pointer(s)) },
			assign: func(s *S) { f.assign(f.ptr(unsafe.Pointer(s)), f.ptr(unsafe.Pointer(holder))) },
		})
	}
	return byID, nil
}

func (r *run[S]) applyResume(ctx context.Context, cp *Checkpoint, byID map[string]int) error {
	var dyn []InterruptInfo
	for _, in := range cp.Interrupts {
		if in.TaskID != "" {
			dyn = append(dyn, in)
		}
	}
	add := func(in InterruptInfo, v any) error {
		i, ok := byID[in.TaskID]
		if !ok {
			return fmt.Errorf("graph: resume %s: task %s is not pending", in.ID, in.TaskID)
		}
		t := &r.tasks[i]
		b, err := r.g.ser.Marshal(v)
		if err != nil {
			return fmt.Errorf("graph: encode resume value: %w", err)
		}
		t.sc.resume = append(t.sc.resume, resumeVal{raw: b, value: v, hasValue: true})
		t.sc.fresh = &t.sc.resume[len(t.sc.resume)-1]
		w, err := r.resumeWrite(t)
		if err != nil {
			return err
		}
		if err := r.cp.PutWrites(ctx, r.thread, r.ns, cp.ID, []PendingWrite{w}); err != nil {
			return fmt.Errorf("graph: save resume value: %w", err)
		}
		return nil
	}
	if r.cfg.resumeByID != nil {
		for id, v := range r.cfg.resumeByID {
			found := false
			for _, in := range dyn {
				if in.ID == id {
					found = true
					if err := add(in, v); err != nil {
						return err
					}
				}
			}
			if !found {
				return fmt.Errorf("%w: no interrupt %q on thread %q", ErrNoPendingInterrupt, id, r.thread)
			}
		}
		return nil
	}
	switch len(dyn) {
	case 0:
		if len(cp.Interrupts) == 0 {
			return fmt.Errorf("%w on thread %q", ErrNoPendingInterrupt, r.thread)
		}
		return nil // a static interrupt: Resume continues
	case 1:
		return add(dyn[0], r.cfg.resumeValue)
	default:
		ids := make([]string, len(dyn))
		for i, in := range dyn {
			ids[i] = in.ID
		}
		return errors.New("graph: several interrupts pending (" + strings.Join(ids, ", ") + "); use graph.ResumeByID")
	}
}

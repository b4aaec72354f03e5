package checkpoint

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/bytesx"
)

// Record kinds stored in envelopes.
const (
	kindCheckpoint = "checkpoint"
	kindWrites     = "writes"
)

// minPrefix is the shortest shared prefix worth storing a channel as a delta.
const minPrefix = 32

// cpHeader is the serialized header of a checkpoint record. Byte fields
// are indexes into the envelope's blobs. Maps and slices keep the
// difference between nil and empty (null vs {} / []).
type cpHeader struct {
	ID         string            `json:"id"`
	ParentID   string            `json:"parent,omitempty"`
	Step       int               `json:"step"`
	Source     graph.Source      `json:"source,omitempty"`
	CreatedAt  time.Time         `json:"created"`
	Versions   map[string]int64  `json:"versions"`
	Format     string            `json:"format,omitempty"`
	Next       []taskHdr         `json:"next"`
	Writes     []writeHdr        `json:"writes"`
	WritesOf   string            `json:"writes_of,omitempty"` // Writes are the pending writes stored against this id
	Interrupts []interruptHdr    `json:"interrupts"`
	Metadata   map[string]string `json:"meta"`
	// Base is the checkpoint the values are stored relative to; "" means
	// the record is a full snapshot. Depth counts records back to one.
	Base      string    `json:"base,omitempty"`
	Depth     int       `json:"depth,omitempty"`
	ValuesNil bool      `json:"values_nil,omitempty"`
	Channels  []chanHdr `json:"ch,omitempty"`
	Removed   []string  `json:"removed,omitempty"`
}

type taskHdr struct {
	ID   string `json:"id"`
	Node string `json:"node"`
	Send bool   `json:"send,omitempty"`
	Arg  int    `json:"arg"`
}

type writeHdr struct {
	TaskID  string `json:"task"`
	Node    string `json:"node"`
	Channel string `json:"ch"`
	Value   int    `json:"v"`
}

type interruptHdr struct {
	ID     string `json:"id"`
	Node   string `json:"node"`
	TaskID string `json:"task"`
	Value  int    `json:"v"`
}

// chanHdr is one stored channel. Its value is, in order: the first Keep
// bytes of the base's value, the blob, and the last Suffix bytes of the
// value of the checkpoint's write number Write-1 (Write 0: none). So an
// appended element that also is a write of the step is stored once.
type chanHdr struct {
	Name   string `json:"n"`
	Blob   int    `json:"b"`
	Keep   int    `json:"keep,omitempty"`
	Write  int    `json:"w,omitempty"`
	Suffix int    `json:"ws,omitempty"`
}

// loaded is a materialised checkpoint. cp is never changed after it is
// built; callers get copies.
type loaded struct {
	cp    *graph.Checkpoint
	depth int
	crc   uint32 // checksum and size of the record it came from
	size  int
	// refsParent is set on a freshly encoded record that is stored
	// relative to its parent (values or writes).
	refsParent bool
	// ropes holds the values of channels stored by PutDelta (absent from
	// cp.Values); see full.
	ropes map[string]*rope
}

// full returns l with every value in cp.Values (l itself when it has no
// ropes).
func (l *loaded) full() *loaded {
	if l == nil || len(l.ropes) == 0 {
		return l
	}
	c := *l
	cp := *l.cp
	cp.Values = make(map[string][]byte, len(l.cp.Values)+len(l.ropes))
	for k, v := range l.cp.Values {
		cp.Values[k] = v
	}
	for k, r := range l.ropes {
		cp.Values[k] = r.bytes()
	}
	c.cp, c.ropes = &cp, nil
	return &c
}

// ropify moves l's long list values into ropes, so that a PutDelta
// against l grows them in place. l must be fresh (not shared yet).
func (l *loaded) ropify() *loaded {
	for k, v := range l.cp.Values {
		if len(v) >= ropeMin && v[len(v)-1] == ']' {
			if l.ropes == nil {
				l.ropes = map[string]*rope{}
			}
			l.ropes[k] = newRope(v, nil)
			delete(l.cp.Values, k)
		}
	}
	return l
}

// value returns channel k of l: a plain value or a rope.
func (l *loaded) value(k string) ([]byte, *rope, bool) {
	if v, ok := l.cp.Values[k]; ok {
		return v, nil, true
	}
	if r := l.ropes[k]; r != nil {
		return nil, r, true
	}
	return nil, nil, false
}

func (l *loaded) checkpoint(threadID, ns string) *graph.Checkpoint {
	c := cloneCheckpoint(l.cp)
	c.ThreadID, c.NS = threadID, ns
	return c
}

func recordSum(raw []byte) uint32 {
	if len(raw) < 4 {
		return 0
	}
	return binary.BigEndian.Uint32(raw[len(raw)-4:])
}

type blobs [][]byte

func (b *blobs) add(v []byte) int {
	*b = append(*b, v)
	return len(*b) - 1
}

func (b blobs) get(i int) ([]byte, error) {
	if i < 0 || i >= len(b) {
		return nil, fmt.Errorf("%w: blob %d of %d", ErrCorrupt, i, len(b))
	}
	return cloneBytes(b[i]), nil
}

func writesHdr(ws []graph.PendingWrite, bl *blobs) []writeHdr {
	if ws == nil {
		return nil
	}
	out := make([]writeHdr, len(ws))
	for i, w := range ws {
		out[i] = writeHdr{TaskID: w.TaskID, Node: w.Node, Channel: w.Channel, Value: bl.add(w.Value)}
	}
	return out
}

func writesFromHdr(hs []writeHdr, bl blobs) ([]graph.PendingWrite, error) {
	if hs == nil {
		return nil, nil
	}
	out := make([]graph.PendingWrite, len(hs))
	for i, h := range hs {
		v, err := bl.get(h.Value)
		if err != nil {
			return nil, err
		}
		out[i] = graph.PendingWrite{TaskID: h.TaskID, Node: h.Node, Channel: h.Channel, Value: v}
	}
	return out, nil
}

func writesEqual(a, b []graph.PendingWrite) bool {
	return slices.EqualFunc(a, b, func(x, y graph.PendingWrite) bool {
		return x.TaskID == y.TaskID && x.Node == y.Node && x.Channel == y.Channel &&
			bytes.Equal(x.Value, y.Value) && (x.Value == nil) == (y.Value == nil)
	})
}

func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[len(a)-1-i] != b[len(b)-1-i] {
			return i
		}
	}
	return n
}

// channel encodes value v of channel name, reusing its first keep bytes
// from the base and, when long enough, its tail from one of the writes.
func channel(name string, v []byte, keep int, writes []graph.PendingWrite, bl *blobs) chanHdr {
	if v == nil {
		return chanHdr{Name: name, Blob: bl.add(nil)}
	}
	return channelTail(name, keep, v[keep:], writes, bl)
}

// channelTail encodes a value of channel name made of the first keep bytes
// of the base's value and tail.
func channelTail(name string, keep int, tail []byte, writes []graph.PendingWrite, bl *blobs) chanHdr {
	best, bi := 0, -1
	for i, w := range writes {
		if w.Channel != name {
			continue
		}
		if s := commonSuffix(tail, w.Value); s > best {
			best, bi = s, i
		}
	}
	if best < minPrefix {
		return chanHdr{Name: name, Keep: keep, Blob: bl.add(tail)}
	}
	return chanHdr{Name: name, Keep: keep, Blob: bl.add(tail[:len(tail)-best]), Write: bi + 1, Suffix: best}
}

// encodeCheckpoint builds the record of cp. base is the materialised
// parent (nil when the parent is not stored); parentWrites are the pending
// writes stored against it.
func (b *Bolt) encodeCheckpoint(cp *graph.Checkpoint, base *loaded, parentWrites []graph.PendingWrite) ([]byte, *loaded, error) {
	var bl blobs
	h := cpHeader{
		ID: cp.ID, ParentID: cp.ParentID, Step: cp.Step, Source: cp.Source, CreatedAt: cp.CreatedAt,
		Versions: cp.Versions, Format: cp.Format, Metadata: cp.Metadata, ValuesNil: cp.Values == nil,
	}
	if cp.Next != nil {
		h.Next = make([]taskHdr, len(cp.Next))
		for i, t := range cp.Next {
			h.Next[i] = taskHdr{ID: t.ID, Node: t.Node, Send: t.Send, Arg: bl.add(t.Arg)}
		}
	}
	if cp.Interrupts != nil {
		h.Interrupts = make([]interruptHdr, len(cp.Interrupts))
		for i, in := range cp.Interrupts {
			h.Interrupts[i] = interruptHdr{ID: in.ID, Node: in.Node, TaskID: in.TaskID, Value: bl.add(in.Value)}
		}
	}
	if base != nil && len(cp.Writes) > 0 && writesEqual(cp.Writes, parentWrites) {
		h.WritesOf = base.cp.ID
	} else {
		h.Writes = writesHdr(cp.Writes, &bl)
	}
	names := slices.Sorted(maps.Keys(cp.Values))
	if base != nil && base.depth+1 < b.cfg.snapshotEvery {
		h.Base, h.Depth = base.cp.ID, base.depth+1
		for _, name := range names {
			v := cp.Values[name]
			bv, ok := base.cp.Values[name]
			p := 0
			if ok && v != nil {
				p = bytesx.CommonPrefix(bv, v)
			}
			switch {
			case ok && len(bv) == len(v) && p == len(v) && (bv == nil) == (v == nil):
				// unchanged: inherited from the base
			case p >= minPrefix:
				h.Channels = append(h.Channels, channel(name, v, p, cp.Writes, &bl))
			default: // a new channel, or a value with no long shared prefix
				h.Channels = append(h.Channels, channel(name, v, 0, cp.Writes, &bl))
			}
		}
		for _, name := range slices.Sorted(maps.Keys(base.cp.Values)) {
			if _, ok := cp.Values[name]; !ok {
				h.Removed = append(h.Removed, name)
			}
		}
	} else {
		for _, name := range names {
			h.Channels = append(h.Channels, channel(name, cp.Values[name], 0, cp.Writes, &bl))
		}
	}
	hb, err := b.cfg.serializer.Marshal(&h)
	if err != nil {
		return nil, nil, fmt.Errorf("encode record: %w", err)
	}
	rec := EncodeEnvelope(Envelope{Kind: kindCheckpoint, StateType: cp.StateType, Serializer: b.cfg.serializer.Format(), Header: hb, Blobs: bl})
	l := &loaded{cp: cloneCheckpoint(cp), depth: h.Depth, crc: recordSum(rec), size: len(rec), refsParent: h.Base != "" || h.WritesOf != ""}
	l.cp.ThreadID, l.cp.NS = "", ""
	return rec, l, nil
}

func (b *Bolt) encodeWrites(ws []graph.PendingWrite) ([]byte, error) {
	var bl blobs
	hs := writesHdr(ws, &bl)
	hb, err := b.cfg.serializer.Marshal(hs)
	if err != nil {
		return nil, fmt.Errorf("encode pending writes: %w", err)
	}
	return EncodeEnvelope(Envelope{Kind: kindWrites, Serializer: b.cfg.serializer.Format(), Header: hb, Blobs: bl}), nil
}

type decoded struct {
	hdr   cpHeader
	env   Envelope
	crc   uint32
	size  int
	id    string
	blobs blobs
}

func (b *Bolt) openEnvelope(raw []byte, kind string) (Envelope, error) {
	env, err := DecodeEnvelope(raw)
	if err != nil {
		return env, err
	}
	if env.Kind != kind {
		return env, fmt.Errorf("%w: record kind %q, want %q", ErrCorrupt, env.Kind, kind)
	}
	if env.Serializer != b.cfg.serializer.Format() {
		return env, fmt.Errorf("%w: record written with serializer %q, checkpointer uses %q", ErrFormat, env.Serializer, b.cfg.serializer.Format())
	}
	return env, nil
}

func (b *Bolt) decodeRecord(id string, raw []byte) (*decoded, error) {
	env, err := b.openEnvelope(raw, kindCheckpoint)
	if err != nil {
		return nil, err
	}
	d := &decoded{env: env, crc: recordSum(raw), size: len(raw), id: id, blobs: env.Blobs}
	if err := b.cfg.serializer.Unmarshal(env.Header, &d.hdr); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	if d.hdr.ID != id {
		return nil, fmt.Errorf("%w: record under key %q holds checkpoint %q", ErrCorrupt, id, d.hdr.ID)
	}
	return d, nil
}

func (b *Bolt) decodeErr(n *nsBuckets, id string, err error) error {
	return &DecodeError{ThreadID: n.threadID, NS: n.ns, CheckpointID: id, Err: err}
}

// load materialises checkpoint id, walking back to its full snapshot (or to
// a checkpoint in memo) and applying the deltas forward. Every checkpoint
// it materialises is added to memo when memo is not nil.
func (b *Bolt) load(n *nsBuckets, id string, memo map[string]*loaded) (*loaded, error) {
	var chain []*decoded
	var base *loaded
	cur := id
	seen := map[string]bool{}
	for {
		raw, err := n.record(cur)
		if err != nil {
			if cur != id {
				err = fmt.Errorf("base record %q: %w", cur, err)
			}
			return nil, b.decodeErr(n, id, err)
		}
		if raw == nil {
			if cur == id {
				return nil, notFound(n.threadID, n.ns, id)
			}
			return nil, b.decodeErr(n, id, fmt.Errorf("%w: checkpoint %q, which it is stored relative to, is missing", ErrCorrupt, cur))
		}
		if l := memo[cur]; l != nil && l.crc == recordSum(raw) && l.size == len(raw) {
			base = l
			break
		}
		d, err := b.decodeRecord(cur, raw)
		if err != nil {
			if cur != id {
				err = fmt.Errorf("base record %q: %w", cur, err)
			}
			return nil, b.decodeErr(n, id, err)
		}
		chain = append(chain, d)
		if d.hdr.Base == "" {
			break
		}
		seen[cur] = true
		if seen[d.hdr.Base] {
			return nil, b.decodeErr(n, id, fmt.Errorf("%w: delta chain loops at %q", ErrCorrupt, d.hdr.Base))
		}
		cur = d.hdr.Base
	}
	for i := len(chain) - 1; i >= 0; i-- {
		l, err := b.apply(n, chain[i], base)
		if err != nil {
			return nil, b.decodeErr(n, id, fmt.Errorf("record %q: %w", chain[i].id, err))
		}
		base = l
		if memo != nil {
			memo[l.cp.ID] = l
		}
	}
	return base, nil
}

// apply builds the checkpoint of record d on top of its materialised base.
func (b *Bolt) apply(n *nsBuckets, d *decoded, base *loaded) (*loaded, error) {
	h := &d.hdr
	cp := &graph.Checkpoint{
		ID: h.ID, ParentID: h.ParentID, Step: h.Step, Source: h.Source, CreatedAt: h.CreatedAt,
		Versions: h.Versions, Format: h.Format, StateType: d.env.StateType, Metadata: h.Metadata,
	}
	var err error
	if h.WritesOf != "" {
		if n == nil {
			return nil, fmt.Errorf("%w: writes of %q referenced without a namespace", ErrCorrupt, h.WritesOf)
		}
		if cp.Writes, err = b.loadWrites(n, h.WritesOf); err != nil {
			return nil, err
		}
		if len(cp.Writes) == 0 {
			return nil, fmt.Errorf("%w: the pending writes of %q it refers to are missing", ErrCorrupt, h.WritesOf)
		}
	} else if cp.Writes, err = writesFromHdr(h.Writes, d.blobs); err != nil {
		return nil, err
	}
	var values map[string][]byte
	if h.Base != "" {
		if base == nil || base.cp.ID != h.Base {
			return nil, fmt.Errorf("%w: base %q not loaded", ErrCorrupt, h.Base)
		}
		values = maps.Clone(base.cp.Values)
		if values == nil {
			values = map[string][]byte{}
		}
	} else {
		values = make(map[string][]byte, len(h.Channels))
	}
	for _, ch := range h.Channels {
		v, err := d.blobs.get(ch.Blob)
		if err != nil {
			return nil, err
		}
		if ch.Keep > 0 {
			bv, ok := values[ch.Name]
			if !ok || ch.Keep > len(bv) {
				return nil, fmt.Errorf("%w: channel %q keeps %d bytes of a base value of %d", ErrCorrupt, ch.Name, ch.Keep, len(bv))
			}
			v = append(append(make([]byte, 0, ch.Keep+len(v)), bv[:ch.Keep]...), v...)
		}
		if ch.Write > 0 {
			if ch.Write > len(cp.Writes) || ch.Suffix <= 0 || ch.Suffix > len(cp.Writes[ch.Write-1].Value) {
				return nil, fmt.Errorf("%w: channel %q refers to write %d of %d", ErrCorrupt, ch.Name, ch.Write, len(cp.Writes))
			}
			w := cp.Writes[ch.Write-1].Value
			v = append(v, w[len(w)-ch.Suffix:]...)
		}
		values[ch.Name] = v
	}
	for _, name := range h.Removed {
		delete(values, name)
	}
	if h.ValuesNil && len(values) == 0 {
		values = nil
	}
	cp.Values = values
	if h.Next != nil {
		cp.Next = make([]graph.TaskRef, len(h.Next))
		for i, t := range h.Next {
			arg, err := d.blobs.get(t.Arg)
			if err != nil {
				return nil, err
			}
			cp.Next[i] = graph.TaskRef{ID: t.ID, Node: t.Node, Send: t.Send, Arg: arg}
		}
	}
	if h.Interrupts != nil {
		cp.Interrupts = make([]graph.InterruptInfo, len(h.Interrupts))
		for i, in := range h.Interrupts {
			v, err := d.blobs.get(in.Value)
			if err != nil {
				return nil, err
			}
			cp.Interrupts[i] = graph.InterruptInfo{ID: in.ID, Node: in.Node, TaskID: in.TaskID, Value: v}
		}
	}
	return &loaded{cp: cp, depth: h.Depth, crc: d.crc, size: d.size}, nil
}

package postgres

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/bytesx"
)

// minPrefix is the shortest shared prefix worth storing a channel as a delta.
const minPrefix = 32

// header is a checkpoint row's JSON: everything but the channel values
// (rows of agentgraph_cp_channels) and the ids (columns). Maps and slices
// keep the difference between nil and empty (null vs {} / []), []byte
// fields between nil and empty (null vs "").
type header struct {
	Step       int                   `json:"step"`
	Source     graph.Source          `json:"source,omitempty"`
	CreatedAt  time.Time             `json:"created"`
	Versions   map[string]int64      `json:"versions"`
	Format     string                `json:"format,omitempty"`
	StateType  string                `json:"state_type,omitempty"`
	Next       []graph.TaskRef       `json:"next"`
	Writes     []graph.PendingWrite  `json:"writes"` // null when writes_of is set
	Interrupts []graph.InterruptInfo `json:"interrupts"`
	Metadata   map[string]string     `json:"meta"`
	ValuesNil  bool                  `json:"values_nil,omitempty"`
}

// record is what one checkpoint stores.
type record struct {
	id, parent string
	base       string // "" for a full snapshot
	depth      int
	writesOf   string
	header     []byte
	channels   []chanRow
}

// chanRow is one stored channel: the first keep bytes of the base's value
// followed by blob; or, removed, a channel the base has and this one not.
type chanRow struct {
	name    string
	keep    int
	blob    []byte
	removed bool
}

// loaded is a materialised checkpoint: its values always, its other
// fields (cp) when it was loaded whole. Neither is changed once built.
type loaded struct {
	id     string
	rev    int64
	depth  int
	values map[string][]byte // never nil
	cp     *graph.Checkpoint // nil for a checkpoint loaded only as a base
}

// checkpoint returns a deep copy of l's checkpoint for a caller.
func (l *loaded) checkpoint(threadID, ns string) *graph.Checkpoint {
	c := *l.cp
	c.ThreadID, c.NS = threadID, ns
	c.Values = cloneValues(l.cp.Values)
	c.Versions = maps.Clone(l.cp.Versions)
	if l.cp.Next != nil {
		c.Next = make([]graph.TaskRef, len(l.cp.Next))
		for i, t := range l.cp.Next {
			t.Arg = cloneBytes(t.Arg)
			c.Next[i] = t
		}
	}
	c.Writes = cloneWrites(l.cp.Writes)
	if l.cp.Interrupts != nil {
		c.Interrupts = make([]graph.InterruptInfo, len(l.cp.Interrupts))
		for i, in := range l.cp.Interrupts {
			in.Value = cloneBytes(in.Value)
			c.Interrupts[i] = in
		}
	}
	c.Metadata = maps.Clone(l.cp.Metadata)
	return &c
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

func cloneValues(m map[string][]byte) map[string][]byte {
	if m == nil {
		return nil
	}
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = cloneBytes(v)
	}
	return out
}

func cloneWrites(ws []graph.PendingWrite) []graph.PendingWrite {
	if ws == nil {
		return nil
	}
	out := make([]graph.PendingWrite, len(ws))
	for i, w := range ws {
		w.Value = cloneBytes(w.Value)
		out[i] = w
	}
	return out
}

func writesEqual(a, b []graph.PendingWrite) bool {
	return slices.EqualFunc(a, b, func(x, y graph.PendingWrite) bool {
		return x.TaskID == y.TaskID && x.Node == y.Node && x.Channel == y.Channel &&
			bytes.Equal(x.Value, y.Value) && (x.Value == nil) == (y.Value == nil)
	})
}

// encode builds the record of cp. base is the materialised parent (nil
// when it is not stored or a snapshot is due); parentWrites are the pending
// writes stored against it. The returned loaded is cp as stored.
func encode(cp *graph.Checkpoint, base *loaded, parentWrites []graph.PendingWrite, snapshotEvery int) (*record, *loaded, error) {
	h := header{
		Step: cp.Step, Source: cp.Source, CreatedAt: cp.CreatedAt, Versions: cp.Versions, Format: cp.Format,
		StateType: cp.StateType, Next: cp.Next, Writes: cp.Writes, Interrupts: cp.Interrupts, Metadata: cp.Metadata,
		ValuesNil: cp.Values == nil,
	}
	r := &record{id: cp.ID, parent: cp.ParentID}
	if base != nil && len(cp.Writes) > 0 && writesEqual(cp.Writes, parentWrites) {
		r.writesOf, h.Writes = base.id, nil
	}
	names := slices.Sorted(maps.Keys(cp.Values))
	if base != nil && base.depth+1 < snapshotEvery {
		r.base, r.depth = base.id, base.depth+1
		for _, name := range names {
			v := cp.Values[name]
			bv, ok := base.values[name]
			p := 0
			if ok && v != nil {
				p = bytesx.CommonPrefix(bv, v)
			}
			switch {
			case ok && len(bv) == len(v) && p == len(v) && (bv == nil) == (v == nil):
				// unchanged: inherited from the base
			case p >= minPrefix:
				r.channels = append(r.channels, chanRow{name: name, keep: p, blob: cloneBytes(v[p:])})
			default:
				r.channels = append(r.channels, chanRow{name: name, blob: cloneBytes(v)})
			}
		}
		for _, name := range slices.Sorted(maps.Keys(base.values)) {
			if _, ok := cp.Values[name]; !ok {
				r.channels = append(r.channels, chanRow{name: name, removed: true})
			}
		}
	} else {
		for _, name := range names {
			r.channels = append(r.channels, chanRow{name: name, blob: cloneBytes(cp.Values[name])})
		}
	}
	var err error
	if r.header, err = json.Marshal(&h); err != nil {
		return nil, nil, fmt.Errorf("encode header: %w", err)
	}
	c := (&loaded{cp: cp}).checkpoint("", "")
	values := c.Values
	if values == nil {
		values = map[string][]byte{}
	}
	return r, &loaded{id: cp.ID, depth: r.depth, values: values, cp: c}, nil
}

// apply builds the values of a record from its base's values and its
// channel rows.
func apply(base map[string][]byte, rows []chanRow) (map[string][]byte, error) {
	values := maps.Clone(base)
	if values == nil {
		values = map[string][]byte{}
	}
	for _, ch := range rows {
		if ch.removed {
			delete(values, ch.name)
			continue
		}
		v := ch.blob
		if ch.keep > 0 {
			bv, ok := values[ch.name]
			if !ok || ch.keep > len(bv) {
				return nil, fmt.Errorf("%w: channel %q keeps %d bytes of a base value of %d", checkpoint.ErrCorrupt, ch.name, ch.keep, len(bv))
			}
			v = append(append(make([]byte, 0, ch.keep+len(ch.blob)), bv[:ch.keep]...), ch.blob...)
		}
		values[ch.name] = v
	}
	return values, nil
}

// decodeHeader builds the checkpoint of a row from its header and values.
func decodeHeader(id, parent string, raw []byte, values map[string][]byte) (*graph.Checkpoint, error) {
	var h header
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", checkpoint.ErrCorrupt, err)
	}
	cp := &graph.Checkpoint{
		ID: id, ParentID: parent, Step: h.Step, Source: h.Source, CreatedAt: h.CreatedAt,
		Versions: h.Versions, Format: h.Format, StateType: h.StateType, Next: h.Next,
		Writes: h.Writes, Interrupts: h.Interrupts, Metadata: h.Metadata, Values: values,
	}
	if h.ValuesNil && len(values) == 0 {
		cp.Values = nil
	}
	return cp, nil
}

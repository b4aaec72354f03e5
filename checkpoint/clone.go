package checkpoint

import (
	"bytes"
	"maps"

	"github.com/agentgraph/agentgraph/graph"
)

// cloneBytes copies b, keeping the difference between nil and empty.
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

func cloneWrites(ws []graph.PendingWrite) []graph.PendingWrite {
	if ws == nil {
		return nil
	}
	return appendWrites(make([]graph.PendingWrite, 0, len(ws)), ws)
}

// appendWrites appends copies of ws to out, their values copied with one
// allocation.
func appendWrites(out, ws []graph.PendingWrite) []graph.PendingWrite {
	n := 0
	for _, w := range ws {
		n += len(w.Value)
	}
	a := make(arena, 0, n)
	for _, w := range ws {
		w.Value = a.copy(w.Value)
		out = append(out, w)
	}
	return out
}

// arena hands out copies of byte slices cut from one buffer, so that a
// checkpoint's values, arguments and writes are copied with one
// allocation. Sized by the caller; were it too small, append would move
// it and earlier copies would keep the old buffer (still correct).
type arena []byte

// copy returns a copy of b, keeping the difference between nil and empty.
func (a *arena) copy(b []byte) []byte {
	if b == nil {
		return nil
	}
	n := len(*a)
	*a = append(*a, b...)
	return (*a)[n:len(*a):len(*a)]
}

// cloneCheckpoint returns a deep copy of cp, so that neither the caller nor
// the back-end can change the other's data.
func cloneCheckpoint(cp *graph.Checkpoint) *graph.Checkpoint {
	return cloneWith(cp, cp.Values, nil)
}

// cloneWith returns a deep copy of cp whose Values are a copy of values;
// with a parent, values and Metadata equal to the parent's are shared with
// it. All copied bytes come from one allocation.
func cloneWith(cp *graph.Checkpoint, values map[string][]byte, parent *graph.Checkpoint) *graph.Checkpoint {
	n := headerBytes(cp)
	for _, v := range values {
		n += len(v)
	}
	a := make(arena, 0, n)
	c := new(graph.Checkpoint)
	var pm map[string]string
	if parent != nil {
		pm = parent.Metadata
	}
	cloneHeader(c, cp, &a, pm)
	c.Versions = maps.Clone(cp.Versions)
	if values != nil {
		c.Values = make(map[string][]byte, len(values))
		for k, v := range values {
			if parent != nil {
				if pv, ok := parent.Values[k]; ok && bytes.Equal(pv, v) && (pv == nil) == (v == nil) {
					c.Values[k] = pv
					continue
				}
			}
			c.Values[k] = a.copy(v)
		}
	}
	return c
}

// headerBytes is the length of cp's Send arguments, write values and
// interrupt payloads.
func headerBytes(cp *graph.Checkpoint) int {
	n := 0
	for _, t := range cp.Next {
		n += len(t.Arg)
	}
	for _, w := range cp.Writes {
		n += len(w.Value)
	}
	for _, in := range cp.Interrupts {
		n += len(in.Value)
	}
	return n
}

// cloneHeader sets dst to a copy of cp without its Values and Versions: the bytes of
// its Next, Writes and Interrupts copied into a, its Metadata shared with
// parentMeta when equal (stored metadata is never changed), else copied.
func cloneHeader(dst, cp *graph.Checkpoint, a *arena, parentMeta map[string]string) {
	*dst = *cp
	dst.Values, dst.Versions = nil, nil
	if cp.Next != nil {
		dst.Next = make([]graph.TaskRef, len(cp.Next))
		for i, t := range cp.Next {
			t.Arg = a.copy(t.Arg)
			dst.Next[i] = t
		}
	}
	if cp.Writes != nil {
		dst.Writes = make([]graph.PendingWrite, len(cp.Writes))
		for i, w := range cp.Writes {
			w.Value = a.copy(w.Value)
			dst.Writes[i] = w
		}
	}
	if cp.Interrupts != nil {
		dst.Interrupts = make([]graph.InterruptInfo, len(cp.Interrupts))
		for i, in := range cp.Interrupts {
			in.Value = a.copy(in.Value)
			dst.Interrupts[i] = in
		}
	}
	if parentMeta != nil && sameMetadata(parentMeta, cp.Metadata) {
		dst.Metadata = parentMeta
	} else {
		dst.Metadata = maps.Clone(cp.Metadata)
	}
}

// sameMetadata reports whether a and b hold the same entries and are both
// nil or both not.
func sameMetadata(a, b map[string]string) bool {
	return (a == nil) == (b == nil) && maps.Equal(a, b)
}

// mergeTaskWrite adds w to the writes of its task: a write to a channel
// already present replaces it in place, a new channel is appended.
func mergeTaskWrite(task []graph.PendingWrite, w graph.PendingWrite) []graph.PendingWrite {
	for i := range task {
		if task[i].Channel == w.Channel {
			task[i] = w
			return task
		}
	}
	return append(task, w)
}

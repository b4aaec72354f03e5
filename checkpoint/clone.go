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

// cloneCheckpointShared is cloneCheckpoint for storing: a value equal to
// the stored parent's is shared with it instead of copied (stored values
// are never changed, and what callers get is cloned).
func cloneCheckpointShared(cp, parent *graph.Checkpoint) *graph.Checkpoint {
	if parent == nil || len(parent.Values) == 0 {
		return cloneCheckpoint(cp)
	}
	values := cp.Values
	cp2 := *cp
	cp2.Values = nil
	c := cloneCheckpoint(&cp2)
	if values != nil {
		c.Values = make(map[string][]byte, len(values))
		for k, v := range values {
			if pv, ok := parent.Values[k]; ok && bytes.Equal(pv, v) && (pv == nil) == (v == nil) {
				c.Values[k] = pv
				continue
			}
			c.Values[k] = cloneBytes(v)
		}
	}
	return c
}

// cloneCheckpoint returns a deep copy of cp, so that neither the caller nor
// the back-end can change the other's data.
func cloneCheckpoint(cp *graph.Checkpoint) *graph.Checkpoint {
	c := *cp
	c.Values = cloneValues(cp.Values)
	c.Versions = maps.Clone(cp.Versions)
	if cp.Next != nil {
		c.Next = make([]graph.TaskRef, len(cp.Next))
		for i, t := range cp.Next {
			t.Arg = cloneBytes(t.Arg)
			c.Next[i] = t
		}
	}
	c.Writes = cloneWrites(cp.Writes)
	if cp.Interrupts != nil {
		c.Interrupts = make([]graph.InterruptInfo, len(cp.Interrupts))
		for i, in := range cp.Interrupts {
			in.Value = cloneBytes(in.Value)
			c.Interrupts[i] = in
		}
	}
	c.Metadata = maps.Clone(cp.Metadata)
	return &c
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

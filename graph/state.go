package graph

import (
	"context"
	"fmt"
	"slices"
)

// GetState returns the thread's newest checkpoint (or CheckpointID's) as a
// Snapshot: values, the next nodes, pending interrupts and pending writes.
func (c *CompiledGraph[S]) GetState(ctx context.Context, opts ...RunOption) (Snapshot[S], error) {
	r, err := c.newRun(opts)
	if err != nil {
		return Snapshot[S]{}, err
	}
	defer c.release(r)
	if r.cp == nil {
		return Snapshot[S]{}, fmt.Errorf("graph: GetState: %w", ErrNoCheckpointer)
	}
	if r.thread == "" {
		return Snapshot[S]{}, fmt.Errorf("graph: GetState: %w", ErrNoThread)
	}
	cp, pend, err := r.cp.Get(ctx, r.thread, r.ns, r.cfg.checkpointID)
	if err != nil {
		return Snapshot[S]{}, fmt.Errorf("graph: GetState of thread %q: %w", r.thread, err)
	}
	snap, err := r.snapshot(cp)
	snap.PendingWrites = pend
	if err != nil || len(pend) == 0 {
		return snap, err
	}
	return r.withPending(cp, pend, snap)
}

// withPending shows a paused or broken step as LangGraph does: the tasks
// that finished (their writes are stored) are left out of Next, and their
// writes are applied to Values, in the barrier's order.
func (r *run[S]) withPending(cp *Checkpoint, pend []PendingWrite, snap Snapshot[S]) (Snapshot[S], error) {
	if _, err := r.loadTasks(cp, pend); err != nil {
		return snap, err
	}
	for i := range r.written {
		r.written[i], r.overw[i], r.writer[i] = false, false, -1
	}
	snap.Next = snap.Next[:0]
	for i := range r.tasks {
		t := &r.tasks[i]
		if !t.loaded {
			snap.Next = append(snap.Next, t.node.name)
			continue
		}
		if err := r.apply(&r.state, &t.update, i, t.overwrite); err != nil {
			return snap, fmt.Errorf("graph: GetState: apply the stored writes of %s: %w", t.node.name, err)
		}
	}
	snap.Values = r.g.view(r.state)
	return snap, nil
}

// History returns the checkpoints of the thread given with Thread (in the
// namespace given with Namespace), newest first, bounded by lo.
func (c *CompiledGraph[S]) History(ctx context.Context, lo ListOptions, opts ...RunOption) ([]Snapshot[S], error) {
	r, err := c.newRun(opts)
	if err != nil {
		return nil, err
	}
	defer c.release(r)
	if r.cp == nil {
		return nil, fmt.Errorf("graph: History: %w", ErrNoCheckpointer)
	}
	if r.thread == "" {
		return nil, fmt.Errorf("graph: History: %w", ErrNoThread)
	}
	cps, err := r.cp.List(ctx, r.thread, r.ns, lo)
	if err != nil {
		return nil, fmt.Errorf("graph: History of thread %q: %w", r.thread, err)
	}
	out := make([]Snapshot[S], 0, len(cps))
	for _, cp := range cps {
		s, err := r.snapshot(cp)
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (r *run[S]) snapshot(cp *Checkpoint) (Snapshot[S], error) {
	if err := r.restore(cp); err != nil {
		return Snapshot[S]{}, err
	}
	s := Snapshot[S]{
		Values: r.g.view(r.state), Tasks: cp.Next, ThreadID: cp.ThreadID, NS: cp.NS,
		CheckpointID: cp.ID, ParentID: cp.ParentID, Step: cp.Step, Source: cp.Source,
		CreatedAt: cp.CreatedAt, Metadata: cp.Metadata, Writes: cp.Writes,
	}
	for _, t := range cp.Next {
		s.Next = append(s.Next, t.Node)
	}
	for _, in := range cp.Interrupts {
		x := Interruption{ID: in.ID, Node: in.Node, TaskID: in.TaskID, Raw: in.Value}
		if in.TaskID == "" {
			x.When, _, _ = cutColon(in.ID)
		} else if len(in.Value) > 0 {
			var v any
			if err := r.g.ser.Unmarshal(in.Value, &v); err != nil {
				return s, fmt.Errorf("graph: decode interrupt %s: %w", in.ID, err)
			}
			x.Value = v
		}
		s.Interrupts = append(s.Interrupts, x)
	}
	return s, nil
}

func cutColon(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// UpdateState writes update to the thread as if node asNode had returned it
// (through the reducers) and stores a new checkpoint whose parent is the
// thread's newest checkpoint, or CheckpointID's (a fork). With asNode set,
// the next tasks are asNode's successors (its edges and routers, evaluated
// on the new state); with asNode "" the pending tasks stay scheduled, so a
// paused run continues with the edited state. Overwrite writes bypass
// reducers. It returns the new checkpoint id; Invoke with Continue runs on.
func (c *CompiledGraph[S]) UpdateState(ctx context.Context, update S, asNode string, opts ...RunOption) (string, error) {
	return c.UpdateStateWith(ctx, Command[S]{Update: update}, asNode, opts...)
}

// UpdateStateWith is UpdateState with a Command: its Update and Overwrite
// are written, and its Goto and Sends are scheduled too.
func (c *CompiledGraph[S]) UpdateStateWith(ctx context.Context, cmd Command[S], asNode string, opts ...RunOption) (string, error) {
	r, err := c.newRun(opts)
	if err != nil {
		return "", err
	}
	defer c.release(r)
	if r.cp == nil {
		return "", fmt.Errorf("graph: UpdateState: %w", ErrNoCheckpointer)
	}
	if r.thread == "" {
		return "", fmt.Errorf("graph: UpdateState: %w", ErrNoThread)
	}
	var node *cnode[S]
	switch asNode {
	case "":
	case Start:
		node = c.start
	default:
		i, ok := c.nodeIdx[asNode]
		if !ok {
			return "", fmt.Errorf("graph: UpdateState as unknown node %q: %w", asNode, ErrInvalidRoute)
		}
		node = c.nodes[i]
	}
	cp, _, err := r.cp.Get(ctx, r.thread, r.ns, r.cfg.checkpointID)
	if err != nil {
		return "", fmt.Errorf("graph: UpdateState of thread %q: %w", r.thread, err)
	}
	if err := r.restore(cp); err != nil {
		return "", err
	}
	r.step = cp.Step + 1
	for i := range r.written {
		r.written[i], r.overw[i], r.writer[i] = false, false, -1
	}
	if err := r.apply(&r.state, &cmd.Update, 0, cmd.Overwrite); err != nil {
		return "", err
	}
	r.next = r.next[:0]
	if node == nil {
		// Keep the pending tasks and add the command's, in schedule order.
		t := task[S]{node: &cnode[S]{name: "", idx: -1}, gotos: slices.Clone(cmd.Goto), routed: true}
		for _, ref := range cp.Next {
			if !ref.Send {
				t.gotos = append(t.gotos, ref.Node)
				continue
			}
			var arg S
			if err := c.ser.Unmarshal(ref.Arg, &arg); err != nil {
				return "", fmt.Errorf("graph: UpdateState: decode Send: %w", err)
			}
			t.sends = append(t.sends, Send[S]{Node: ref.Node, Arg: arg})
		}
		t.sends = append(t.sends, cmd.Sends...)
		if err := r.schedule([]task[S]{t}); err != nil {
			return "", err
		}
	} else {
		t := task[S]{node: node, update: cmd.Update, gotos: cmd.Goto, sends: cmd.Sends, overwrite: cmd.Overwrite}
		t.sc.node = asNode
		t.sc.inline = true
		r.tc = taskCtx{r: r, task: &t.sc}
		rctx := context.WithValue(ctx, ctxKey{}, &r.tc)
		t.sc.ctx = rctx
		if err := r.route(rctx, &t, r.state); err != nil {
			return "", fmt.Errorf("graph: UpdateState as %q: %w", asNode, err)
		}
		if err := r.schedule([]task[S]{t}); err != nil {
			return "", err
		}
	}
	if r.meta == nil {
		r.meta = map[string]string{}
	}
	m := map[string]string{"as_node": asNode}
	for k, v := range r.meta {
		m[k] = v
	}
	r.meta = m
	if err := r.checkpoint(ctx, SourceUpdate, nil); err != nil {
		return "", err
	}
	return r.cur.ID, nil
}

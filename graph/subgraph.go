package graph

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// Subgraph returns a node of a graph over P that runs child. in maps the
// parent state to the child's input and out maps the child's final state to
// the parent's partial update; either may be nil when P and C are the same
// type (then the child's whole final state is the update, so fields with an
// append reducer come back whole: give an out that returns only what is new).
//
// The child runs with the parent's checkpointer, store and thread in its own
// checkpoint namespace ("node", "node#i" for the i-th task of a step when
// it came from a Send, and "parent:node" when nested). An interrupt
// inside the child pauses the parent; resuming the parent resumes the child
// where it stopped. Custom events the child emits reach the parent's stream.
func Subgraph[P, C any](child *CompiledGraph[C], in func(P) C, out func(C) P) NodeFunc[P] {
	return func(ctx context.Context, s P) (P, error) {
		var zero P
		if child == nil {
			return zero, errors.New("graph: Subgraph: nil child graph")
		}
		var input C
		if in != nil {
			input = in(s)
		} else if v, ok := any(s).(C); ok {
			input = v
		} else {
			return zero, fmt.Errorf("graph: Subgraph: no input mapping from %T to %s", s, child.typeName)
		}
		res, err := child.runChild(ctx, input)
		if err != nil {
			return zero, err
		}
		if out != nil {
			return out(res), nil
		}
		if v, ok := any(res).(P); ok {
			return v, nil
		}
		return zero, fmt.Errorf("graph: Subgraph: no output mapping from %s to %T", child.typeName, zero)
	}
}

// runChild runs c as a subgraph of the run found in ctx.
func (c *CompiledGraph[S]) runChild(ctx context.Context, input S) (S, error) {
	tc := fromCtx(ctx)
	if tc == nil {
		return c.Invoke(ctx, input)
	}
	p, ok := tc.r.(interface{ childConfig() childConfig })
	if !ok {
		return c.Invoke(ctx, input)
	}
	pc := p.childConfig()
	sc := tc.task
	ns := sc.node
	if sc.send {
		ns += "#" + strconv.Itoa(sc.index) // parallel Send tasks need their own namespaces
	}
	if pc.ns != "" {
		ns = pc.ns + ":" + sc.node
	}
	r, err := c.newRun(nil)
	if err != nil {
		var zero S
		return zero, err
	}
	defer c.release(r)
	r.ns, r.thread, r.cp = ns, pc.thread, pc.cp
	if pc.st != nil {
		r.st = pc.st
	}
	if r.cp == nil {
		r.thread = ""
	}
	r.initCP()
	r.parentTask = sc.id
	if pc.emit != nil {
		obs := r.out
		r.out = func(ev Event[S]) bool {
			if obs != nil {
				obs(ev)
			}
			if ev.Mode == Custom {
				pc.emit(ctx, sc, ev.Custom)
			}
			return true
		}
	}
	if r.cp != nil {
		// Continue the child when this same parent task left it unfinished
		// (interrupted or failed); otherwise start it afresh.
		last, _, err := r.cp.Get(ctx, r.thread, ns, "")
		if err == nil && len(last.Next) > 0 && last.Metadata["parent_task"] == sc.id && sc.id != "" {
			r.cfg.cont = true
			if sc.fresh != nil && len(last.Interrupts) > 0 {
				r.cfg.resume = true
				r.cfg.resumeValue = sc.fresh.value
				sc.fresh = nil
			}
		} else {
			r.noLoad = true
		}
	}
	out, err := r.exec(ctx, input)
	var ie *InterruptError
	if errors.As(err, &ie) && len(ie.Interrupts) > 0 {
		first := ie.Interrupts[0]
		return out, &interruptSignal{index: sc.nextInterrupt, payload: first.Value}
	}
	if err != nil {
		return out, fmt.Errorf("subgraph %s: %w", ns, err)
	}
	return out, nil
}

type childConfig struct {
	ns, thread string
	cp         Checkpointer
	st         Store
	emit       func(ctx context.Context, t *taskScratch, v any)
}

func (r *run[S]) childConfig() childConfig {
	cc := childConfig{ns: r.ns, thread: r.thread, cp: r.cp, st: r.st}
	if r.out != nil {
		cc.emit = r.emit
	}
	return cc
}

package graph

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// resumeVal is one answered Interrupt call of a task.
type resumeVal struct {
	raw      []byte
	value    any
	hasValue bool
}

// taskScratch is a task's per-run bookkeeping reachable from its context.
type taskScratch struct {
	node          string
	id            string
	step          int
	attempt       int
	resume        []resumeVal
	nextInterrupt int
	overwrite     []any      // Write[S] values a plain node passed to Overwrite
	fresh         *resumeVal // the value given by this run's Resume, for subgraphs
	inline        bool
	send          bool // a Send task
	index         int  // position in the step's task list
	ctx           context.Context
}

type task[S any] struct {
	node    *cnode[S]
	send    bool
	sendIdx int
	input   S
	sc      taskScratch
	tcx     taskCtx
	ctx     taskContext // a parallel task's context

	update    S
	overwrite []Write[S]
	gotos     []string
	one       string // a single route target (kept out of gotos to save an allocation)
	sends     []Send[S]
	routed    bool // routers already ran (or were loaded)
	err       error
	intr      *interruptSignal
	done      bool
	loaded    bool           // result came from pending writes
	streamed  bool           // its Updates and Debug result events were sent
	encoded   []PendingWrite // its writes as encoded for PutWrites, reused by the checkpoint
	saved     bool           // writes already stored as pending writes of the step
	attempts  int
	dur       time.Duration
}

type result struct {
	i int
}

// run is one Invoke or Stream.
type run[S any] struct {
	g      *CompiledGraph[S]
	cfg    runConfig
	thread string
	ns     string
	cp     Checkpointer
	st     Store
	limit  int
	ran    int // steps run so far
	step   int // number of the step being run / of the next checkpoint
	state  S

	// checkpointing
	cur      *Checkpoint // step-start checkpoint
	versions []int64
	enc      [][]byte
	encAt    []sliceHeader // a slice field's value when it was last encoded
	// encShared[i]: enc[i] was handed to the checkpointer or came from it,
	// so it may not be extended in place.
	encShared  []bool
	curPartial bool           // r.cur was stored with PutDelta: its Values are the changes only
	tail       sliceHeader    // scratch: the appended part of a list being encoded
	deltas     []ChannelDelta // scratch: a step's deltas
	// cpBuf: the records of the checkpoints stored with PutDelta, which
	// keeps none of them: two, used in turn, so that r.cur's is never the
	// one being filled. idBuf, pwBuf and byteBuf: chunks that checkpoint
	// and task ids, tasks' encoded writes and encoded fields are cut from
	// (never reused).
	cpBuf    [2]cpRecord
	cpTurn   int
	idBuf    []byte
	pwBuf    []PendingWrite
	byteBuf  []byte
	lastStr  string // the last checkpoint id made, and its value
	lastNum  int64
	written  []bool
	joinSeen [][]bool
	// deferred nodes triggered while other tasks were scheduled (Defer)
	deferNode  []bool
	deferSends []Send[S]
	meta       map[string]string
	metaLoop   map[string]string
	parentTask string

	tasks     []task[S]
	stepStart S // the state at the start of the running step
	next      []task[S]
	pending   []bool
	writer    []int
	overw     []bool

	out        func(Event[S]) bool // nil: nobody listens
	modes      Mode
	customCh   chan Event[S]
	stopped    bool
	fail       error // an observer's panic: ends the run with this error
	tainted    bool
	skipBefore bool
	noLoad     bool // a subgraph run that starts afresh
	tc         taskCtx
	baseCtx    context.Context
	parCtx     context.Context
	parCancel  context.CancelFunc
	done       chan int
	finished   []bool
	inlineCtx  context.Context // the run's context carrying r.tc, for one-task steps
}

func (r *run[S]) store() Store           { return r.st }
func (r *run[S]) remaining() int         { return r.limit - r.ran }
func (r *run[S]) serializer() Serializer { return r.g.ser }
func (r *run[S]) hasCheckpointer() bool  { return r.cp != nil }
func (r *run[S]) info(t *taskScratch) TaskInfo {
	return TaskInfo{ThreadID: r.thread, NS: r.ns, Node: t.node, TaskID: t.id, Step: t.step, Attempt: t.attempt}
}

func (r *run[S]) emit(ctx context.Context, t *taskScratch, v any) {
	if r.out == nil {
		return
	}
	ev := Event[S]{Mode: Custom, NS: r.ns, Step: t.step, Node: t.node, TaskID: t.id, Custom: v}
	if t.inline {
		r.send(ev)
		return
	}
	select {
	case r.customCh <- ev:
	case <-ctx.Done():
	}
}

// send delivers an event; it records a consumer that stopped listening.
func (r *run[S]) send(ev Event[S]) {
	if r.out == nil || r.stopped {
		return
	}
	if !r.out(ev) {
		r.stopped = true
	}
}

func (r *run[S]) wants(m Mode) bool { return r.out != nil && r.modes&m != 0 }

// Invoke runs the graph on input until it ends and returns the final state.
// With Resume or Continue the input is ignored and the thread's checkpoint
// is continued. A paused run returns the state so far and an *InterruptError.
func (c *CompiledGraph[S]) Invoke(ctx context.Context, input S, opts ...RunOption) (S, error) {
	r, err := c.newRun(opts)
	if err != nil {
		var zero S
		return zero, err
	}
	out, err := r.exec(ctx, input)
	c.release(r)
	return out, err
}

// Resume continues the paused thread given with Thread: the pending
// Interrupt call returns value. It is Invoke with the Resume option and
// no input. With several interrupts pending, use Invoke with ResumeByID.
func (c *CompiledGraph[S]) Resume(ctx context.Context, value any, opts ...RunOption) (S, error) {
	var zero S
	return c.Invoke(ctx, zero, append(opts, Resume(value))...)
}

// Continue runs the pending tasks of the thread given with Thread from its
// checkpoint (after a failure, a cancellation or a static interrupt, or
// from CheckpointID to replay). It is Invoke with the Continue option and
// no input.
func (c *CompiledGraph[S]) Continue(ctx context.Context, opts ...RunOption) (S, error) {
	var zero S
	return c.Invoke(ctx, zero, append(opts, Continue())...)
}

// Stream runs the graph like Invoke and yields its events (Modes, default
// Values). A failure or interrupt ends the sequence with a zero Event and the
// error. Breaking out of the loop cancels the run; its last checkpoint stays
// resumable.
func (c *CompiledGraph[S]) Stream(ctx context.Context, input S, opts ...RunOption) iter.Seq2[Event[S], error] {
	return func(yield func(Event[S], error) bool) {
		r, err := c.newRun(opts)
		if err != nil {
			yield(Event[S]{}, err)
			return
		}
		if r.modes == 0 {
			r.modes = Values
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		obs := r.out
		r.out = func(ev Event[S]) bool {
			if obs != nil && !obs(ev) {
				return false
			}
			if ev.Mode&r.modes == 0 {
				return true
			}
			if !yield(ev, nil) {
				cancel()
				return false
			}
			return true
		}
		r.customCh = make(chan Event[S])
		_, err = r.exec(ctx, input)
		stopped := r.stopped && r.fail == nil
		c.release(r)
		if err != nil && !stopped {
			yield(Event[S]{}, err)
		}
	}
}

func (c *CompiledGraph[S]) newRun(opts []RunOption) (*run[S], error) {
	r, _ := c.pool.Get().(*run[S])
	if r == nil {
		r = &run[S]{g: c}
	}
	r.cfg = runConfig{}
	for _, o := range opts {
		if o != nil {
			o(&r.cfg)
		}
	}
	r.thread, r.ns = r.cfg.thread, r.cfg.ns
	r.cp, r.st = c.cfg.checkpointer, c.cfg.store
	r.limit = c.limit
	if r.cfg.recursionLimit > 0 {
		r.limit = r.cfg.recursionLimit
	}
	r.modes = r.cfg.modes
	r.out = nil
	if c.observer != nil || r.cfg.observer != nil {
		var fn func(Event[S])
		if r.cfg.observer != nil {
			f, ok := r.cfg.observer.(func(Event[S]))
			if !ok {
				return nil, fmt.Errorf("graph: Observe: %T does not observe %s", r.cfg.observer, c.typeName)
			}
			fn = f
		}
		obs := c.observer
		r.out = func(ev Event[S]) (ok bool) {
			defer func() {
				if p := recover(); p != nil {
					r.fail, ok = newPanic("observer", ev.Node, "", p), false
				}
			}()
			if obs != nil {
				obs(ev)
			}
			if fn != nil {
				fn(ev)
			}
			return true
		}
	}
	r.ran, r.step, r.stopped, r.tainted, r.skipBefore, r.noLoad = 0, 0, false, false, false, false
	r.fail = nil
	r.cur, r.meta, r.metaLoop, r.parentTask = nil, r.cfg.metadata, nil, ""
	var zero S
	r.state = zero
	r.customCh = nil
	r.tasks = r.tasks[:0]
	r.next = r.next[:0]
	n := len(c.fields)
	if cap(r.written) < n {
		r.written = make([]bool, n)
		r.writer = make([]int, n)
		r.overw = make([]bool, n)
	}
	r.written, r.writer, r.overw = r.written[:n], r.writer[:n], r.overw[:n]
	if cap(r.pending) < len(c.nodes) {
		r.pending = make([]bool, len(c.nodes))
	}
	r.pending = r.pending[:len(c.nodes)]
	r.deferNode, r.deferSends = nil, nil
	if len(c.joins) > 0 {
		r.joinSeen = make([][]bool, len(c.joins))
		for i, j := range c.joins {
			r.joinSeen[i] = make([]bool, len(j.from))
		}
	}
	r.initCP()
	return r, nil
}

func (r *run[S]) initCP() {
	if n := len(r.g.fields); r.cp != nil {
		// A pooled run keeps its slices (cleared at release).
		if cap(r.enc) < n {
			r.versions = make([]int64, n)
			r.enc = make([][]byte, n)
			r.encAt = make([]sliceHeader, n)
			r.encShared = make([]bool, n)
		}
		r.versions, r.enc, r.encAt, r.encShared = r.versions[:n], r.enc[:n], r.encAt[:n], r.encShared[:n]
	}
	r.curPartial = false
}

func (c *CompiledGraph[S]) release(r *run[S]) {
	if r.tainted {
		return
	}
	var zero S
	r.state, r.stepStart = zero, zero
	for i := range r.tasks {
		r.tasks[i] = task[S]{}
	}
	for i := range r.next {
		r.next[i] = task[S]{}
	}
	clear(r.versions)
	clear(r.enc)
	clear(r.encAt)
	clear(r.encShared)
	r.out, r.customCh, r.cur, r.baseCtx, r.tc, r.inlineCtx = nil, nil, nil, nil, taskCtx{}, nil
	r.curPartial = false
	for i := range r.cpBuf {
		b := &r.cpBuf[i]
		if b.values == nil {
			continue
		}
		clear(b.values)
		clear(b.versions)
		clear(b.next[:cap(b.next)])
		clear(b.writes[:cap(b.writes)])
		b.cp = Checkpoint{}
	}
	r.parCtx, r.parCancel = nil, nil
	r.st, r.cp = nil, nil
	c.pool.Put(r)
}

// view returns s with every slice field clipped to its length, so a node
// appending to it never writes into the engine's spare capacity.
func (c *CompiledGraph[S]) view(s S) S {
	p := unsafe.Pointer(&s)
	for _, off := range c.slices {
		h := (*sliceHeader)(unsafe.Add(p, off))
		h.cap = h.len
	}
	return s
}

// exec runs the loop.
func (r *run[S]) exec(ctx context.Context, input S) (S, error) {
	g := r.g
	if r.cp != nil && r.thread == "" {
		return r.state, fmt.Errorf("graph: the graph has a checkpointer: %w (pass graph.Thread)", ErrNoThread)
	}
	if r.cp == nil && (r.cfg.cont || r.cfg.checkpointID != "") {
		return r.state, fmt.Errorf("graph: Continue/Resume/CheckpointID: %w", ErrNoCheckpointer)
	}
	r.baseCtx = ctx
	r.tc = taskCtx{r: r}
	r.inlineCtx, r.parCtx, r.parCancel = nil, nil, nil
	defer func() {
		if r.parCancel != nil {
			r.parCancel()
		}
	}()
	if err := r.begin(ctx, input); err != nil {
		return g.view(r.state), err
	}
	for len(r.tasks) > 0 {
		if err := ctx.Err(); err != nil {
			return g.view(r.state), fmt.Errorf("graph: step %d: %w", r.step, err)
		}
		if r.stopped {
			if r.fail != nil {
				return g.view(r.state), r.fail
			}
			return g.view(r.state), context.Canceled
		}
		if !r.skipBefore {
			if err := r.staticInterrupt(ctx, r.tasks, g.before, "before"); err != nil {
				return g.view(r.state), err
			}
		}
		r.skipBefore = false
		if r.ran >= r.limit {
			return g.view(r.state), fmt.Errorf("%w: %d steps (set graph.RecursionLimit)", ErrRecursionLimit, r.limit)
		}
		r.ran++
		if err := r.runStep(ctx); err != nil {
			return g.view(r.state), err
		}
		executed := r.tasks
		if err := r.commit(ctx); err != nil {
			return g.view(r.state), err
		}
		if l := g.cfg.logger; l != nil {
			l.LogAttrs(ctx, slog.LevelDebug, "graph: step committed", slog.String("graph", g.name),
				slog.String("thread", r.thread), slog.String("ns", r.ns), slog.Int("step", r.step-1),
				slog.Int("tasks", len(executed)), slog.Int("next", len(r.next)))
		}
		if len(r.next) > 0 {
			if err := r.staticInterrupt(ctx, executed, g.after, "after"); err != nil {
				r.tasks, r.next = r.next, executed[:0]
				return g.view(r.state), err
			}
		}
		r.tasks, r.next = r.next, executed[:0]
	}
	return g.view(r.state), r.fail
}

// begin loads the thread and prepares the first step's tasks.
func (r *run[S]) begin(ctx context.Context, input S) error {
	g := r.g
	if r.cfg.cont {
		return r.load(ctx)
	}
	var parentStep = -2
	if r.cp != nil && !r.noLoad {
		cp, _, err := r.cp.Get(ctx, r.thread, r.ns, r.cfg.checkpointID)
		switch {
		case err == nil:
			if err := r.restore(cp); err != nil {
				return err
			}
			// New input abandons the thread's unfinished work, deferred tasks too.
			r.deferNode, r.deferSends = nil, nil
			parentStep = cp.Step
		case errors.Is(err, ErrCheckpointNotFound) && r.cfg.checkpointID == "":
		default:
			return fmt.Errorf("graph: load thread %q: %w", r.thread, err)
		}
	}
	// The input is the Start node's write.
	for i := range r.written {
		r.written[i] = false
		r.overw[i] = false
	}
	if err := r.apply(&r.state, &input, 0, nil); err != nil {
		return err
	}
	t := task[S]{node: g.start, done: true}
	t.sc.node, t.sc.step, t.sc.inline = Start, parentStep+1, true
	t.sc.ctx = ctx
	r.step = parentStep + 1
	if err := r.route(ctx, &t, r.state); err != nil {
		return &NodeError{Node: Start, Step: r.step, Attempts: 1, Err: err}
	}
	r.next = r.next[:0]
	if err := r.schedule([]task[S]{t}); err != nil {
		return err
	}
	if r.cp != nil {
		if err := r.checkpoint(ctx, SourceInput, nil); err != nil {
			return err
		}
	}
	r.tasks, r.next = r.next, r.tasks[:0]
	r.step++
	if r.wants(Values) || r.out != nil {
		r.send(Event[S]{Mode: Values, NS: r.ns, Step: r.step - 1, State: g.view(r.state)})
	}
	return nil
}

// runStep runs r.tasks.
func (r *run[S]) runStep(ctx context.Context) error {
	tasks := r.tasks
	r.stepStart = r.state
	start := r.stepStart
	for i := range tasks {
		t := &tasks[i]
		t.sc.step = r.step
		t.sc.node = t.node.name
		t.sc.send, t.sc.index = t.send, i
		if r.out != nil && !t.loaded {
			r.send(Event[S]{Mode: Debug, NS: r.ns, Step: r.step, Node: t.node.name, TaskID: t.sc.id, Debug: &DebugInfo{Kind: DebugTask}})
		}
	}
	var runnable int
	for i := range tasks {
		if !tasks[i].done {
			runnable++
		}
	}
	switch {
	case runnable == 0:
	case len(tasks) == 1:
		// One task: run it inline; its routers run after the barrier on the
		// committed state, which is exactly step-start plus its own writes.
		t := &tasks[0]
		t.sc.inline = true
		r.tc.task = &t.sc
		if r.inlineCtx == nil {
			r.inlineCtx = context.WithValue(ctx, ctxKey{}, &r.tc)
		}
		r.runTask(r.inlineCtx, t, start, false)
		if t.done {
			r.finishedEvents(t)
		}
	default:
		if err := r.runParallel(ctx, tasks); err != nil {
			return err
		}
	}
	return r.afterTasks(ctx)
}

// finishedEvents sends a finished task's Debug result and Updates events,
// once: as the task finishes, not at the barrier.
func (r *run[S]) finishedEvents(t *task[S]) {
	if r.out == nil || t.streamed {
		return
	}
	t.streamed = true
	upd := r.g.view(t.update)
	r.send(Event[S]{Mode: Debug, NS: r.ns, Step: r.step, Node: t.node.name, TaskID: t.sc.id, State: upd,
		Debug: &DebugInfo{Kind: DebugTaskResult, Duration: t.dur}})
	r.send(Event[S]{Mode: Updates, NS: r.ns, Step: r.step, Node: t.node.name, TaskID: t.sc.id, State: upd})
}

func (r *run[S]) runParallel(ctx context.Context, tasks []task[S]) error {
	// One cancellable context per run: a failed task fails the step, and
	// with it the run, so it is never needed again after a cancel.
	if r.parCtx == nil {
		r.parCtx, r.parCancel = context.WithCancel(ctx)
	}
	if r.out != nil && r.customCh == nil {
		r.customCh = make(chan Event[S])
	}
	if cap(r.done) < len(tasks) {
		r.done = make(chan int, len(tasks))
	}
	if cap(r.finished) < len(tasks) {
		r.finished = make([]bool, len(tasks))
	}
	done, finished := r.done, r.finished[:len(tasks)]
	clear(finished)
	running := 0
	for i := range tasks {
		t := &tasks[i]
		if t.done {
			continue
		}
		running++
		t.sc.inline = false
		t.tcx = taskCtx{r: r, task: &t.sc}
		t.ctx = taskContext{Context: r.parCtx, tc: &t.tcx}
		go r.runAsync(&t.ctx, i, done)
	}
	for running > 0 {
		select {
		case i := <-done:
			running--
			finished[i] = true
			if t := &tasks[i]; t.err != nil {
				r.parCancel() // a failed task fails the step: stop the siblings
			} else if t.done {
				// Store a finished task's writes at once (LangGraph does the
				// same): if the process dies before the barrier, a resume
				// does not run this task again.
				r.saveTask(ctx, t)
				r.finishedEvents(t)
			}
		case ev := <-r.customCh:
			r.send(ev)
		case <-ctx.Done():
			// Stop waiting: tasks still running are abandoned (and re-run on
			// resume); the finished ones keep their writes. The run is not
			// reused, since abandoned tasks may still write to it.
			r.tainted = true
			r.parCancel()
			_ = r.savePending(context.WithoutCancel(ctx), tasks, finished)
			return fmt.Errorf("graph: step %d: %w", r.step, ctx.Err())
		}
	}
	return nil
}

func (r *run[S]) runAsync(ctx context.Context, i int, done chan<- int) {
	r.runTask(ctx, &r.tasks[i], r.stepStart, true)
	done <- i
}

// runTask runs one task with its retry policy, and its routers when inRouters.
func (r *run[S]) runTask(ctx context.Context, t *task[S], start S, inRouters bool) {
	// The common path (a node function that succeeds) is kept in small
	// frames: a task runs on a new goroutine, whose stack starts small and
	// is copied each time it must grow.
	t.sc.ctx = ctx
	began := time.Now()
	defer r.endTask(t, began)
	in := &start
	if t.send {
		in = &t.input
	}
	if !r.attempt(ctx, t, r.g.view(*in)) {
		return
	}
	n := t.node
	if n.cmd != nil {
		if err := r.checkCommand(n, t); err != nil {
			t.err = err
			return
		}
	} else if l := r.g.cfg.logger; l != nil && len(t.overwrite) == 0 {
		r.warnNoWrite(ctx, l, t)
	}
	if inRouters && n.routes {
		if err := r.routeTask(ctx, t, start); err != nil {
			t.err = err
			return
		}
	}
	t.done = true
}

// endTask records a task's duration and turns a panic of its node into
// its error.
func (r *run[S]) endTask(t *task[S], began time.Time) {
	t.dur = time.Since(began)
	if p := recover(); p != nil {
		t.err = newPanic("node", t.node.name, "", p)
		t.done = false
	}
}

// attempt calls t's node on in, with its retry policy; it reports whether
// the node succeeded (else t.err or t.intr is set).
func (r *run[S]) attempt(ctx context.Context, t *task[S], in S) bool {
	for attempt := 1; ; attempt++ {
		t.attempts = attempt
		t.sc.attempt, t.sc.nextInterrupt = attempt, 0
		t.sc.overwrite = t.sc.overwrite[:0]
		var err error
		if t.node.fn != nil {
			t.update, err = t.node.fn(ctx, in)
		} else {
			err = r.callCommand(ctx, t, in)
		}
		if err == nil && len(t.sc.overwrite) > 0 {
			err = r.addOverwrites(t)
		}
		if err == nil {
			return true
		}
		if !r.failed(ctx, t, attempt, err) {
			return false
		}
	}
}

// callCommand calls t's command node and keeps its result on t.
func (r *run[S]) callCommand(ctx context.Context, t *task[S], in S) error {
	c, err := t.node.cmd(ctx, in)
	t.update, t.gotos, t.sends, t.overwrite = c.Update, c.Goto[:len(c.Goto):len(c.Goto)], c.Sends[:len(c.Sends):len(c.Sends)], c.Overwrite
	return err
}

// addOverwrites adds the writes a node passed to Overwrite to t's.
func (r *run[S]) addOverwrites(t *task[S]) error {
	ws, err := ctxWrites[S](t.sc.overwrite, r.g.typeName)
	if err == nil {
		t.overwrite = append(t.overwrite[:len(t.overwrite):len(t.overwrite)], ws...)
	}
	return err
}

// failed handles a failed attempt: an interrupt, or an error to retry
// (then t's result is reset and it reports true) or to keep.
func (r *run[S]) failed(ctx context.Context, t *task[S], attempt int, err error) bool {
	var is *interruptSignal
	if errors.As(err, &is) {
		t.intr = is
		return false
	}
	if !r.retry(ctx, t.node.retry, attempt, err) {
		t.err = err
		return false
	}
	var zero S
	t.update, t.gotos, t.sends, t.overwrite, t.one = zero, nil, nil, nil, ""
	return true
}

// warnNoWrite logs, in debug mode, a node whose update writes nothing:
// the usual cause is a node that meant to write a zero.
func (r *run[S]) warnNoWrite(ctx context.Context, l *slog.Logger, t *task[S]) {
	if !l.Enabled(ctx, slog.LevelDebug) || !r.g.writesNothing(&t.update) {
		return
	}
	l.LogAttrs(ctx, slog.LevelWarn, "graph: node returned an update that writes nothing; "+
		"zero values count as unset: write them with graph.Overwrite(ctx, graph.Set(field, v))",
		slog.String("graph", r.g.name), slog.String("node", t.node.name), slog.Int("step", t.sc.step))
}

// routeTask runs t's routers on the step-start state plus t's own writes.
func (r *run[S]) routeTask(ctx context.Context, t *task[S], start S) error {
	// Clipped: siblings' routers must not append into the same spare capacity.
	v := r.g.view(start)
	if err := r.applyLocal(&v, t); err != nil {
		return err
	}
	return r.route(ctx, t, v)
}

// checkCommand checks a command's Goto and Sends: known nodes, and among
// the node's Destinations when it declared them.
func (r *run[S]) checkCommand(n *cnode[S], t *task[S]) error {
	check := func(what, name string) error {
		if name == End && what == "Goto" {
			return nil
		}
		if _, ok := r.g.nodeIdx[name]; !ok {
			return fmt.Errorf("%w: Command.%s names %q, which is not a node of the graph (nodes: %s)",
				ErrInvalidRoute, what, name, strings.Join(r.g.Nodes(), ", "))
		}
		if n.dest != nil && !n.dest[name] {
			return fmt.Errorf("%w: Command.%s %q is not among the node's Destinations", ErrInvalidRoute, what, name)
		}
		return nil
	}
	for _, name := range t.gotos {
		if err := check("Goto", name); err != nil {
			return err
		}
	}
	for _, s := range t.sends {
		if err := check("Sends", s.Node); err != nil {
			return err
		}
	}
	return nil
}

// retry sleeps before the next attempt and reports whether to make it.
func (r *run[S]) retry(ctx context.Context, p *RetryPolicy, attempt int, err error) bool {
	if p == nil || attempt >= p.MaxAttempts || ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if p.RetryOn != nil && !p.RetryOn(err) {
		return false
	}
	wait := p.InitialInterval
	if wait <= 0 {
		wait = 100 * time.Millisecond
	}
	factor := p.BackoffFactor
	if factor <= 0 {
		factor = 2
	}
	maxWait := p.MaxInterval
	if maxWait <= 0 {
		maxWait = 10 * time.Second
	}
	d := float64(wait)
	for i := 1; i < attempt; i++ {
		d *= factor
		if d > float64(maxWait) {
			d = float64(maxWait)
			break
		}
	}
	if p.Jitter {
		d = d/2 + rand.Float64()*d
	}
	timer := time.NewTimer(time.Duration(d))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// applyLocal applies t's writes to v (a copy of the step-start state) for
// its routers, without conflict checks.
func (r *run[S]) applyLocal(v *S, t *task[S]) (err error) {
	g := r.g
	dp, up := unsafe.Pointer(v), unsafe.Pointer(&t.update)
	where, cur := "reducer", -1
	defer func() {
		if p := recover(); p != nil {
			err = newPanic(where, t.node.name, g.fieldName(cur), p)
		}
	}()
	for fi := range g.fields {
		f := &g.fields[fi]
		if f.isZero(f.ptr(up)) {
			continue
		}
		cur = fi
		if f.merge != nil {
			f.merge(f.ptr(dp), f.ptr(up))
		} else {
			f.assign(f.ptr(dp), f.ptr(up))
		}
	}
	where, cur = "overwrite", -1
	for _, w := range t.overwrite {
		if w.assign != nil {
			w.assign(v)
		}
	}
	return nil
}

// route runs t's node's routers on v and records their choices.
func (r *run[S]) route(ctx context.Context, t *task[S], v S) error {
	if t.routed {
		return nil
	}
	t.routed = true
	if !t.node.routes {
		return nil
	}
	v = r.g.view(v)
	for _, b := range t.node.branches {
		rt, err := callRouter(ctx, b.route, v, t.node.name)
		if err != nil {
			return err
		}
		if rt.one != "" {
			if b.targets != nil && !b.targets[rt.one] {
				return fmt.Errorf("%w: router chose %q, not among its targets", ErrInvalidRoute, rt.one)
			}
			if t.gotos == nil && len(t.node.branches) == 1 {
				t.one = rt.one
			} else {
				t.gotos = append(t.gotos, rt.one)
			}
		}
		for _, n := range rt.Nodes {
			if b.targets != nil && !b.targets[n] {
				return fmt.Errorf("%w: router chose %q, not among its targets", ErrInvalidRoute, n)
			}
		}
		for _, s := range rt.Sends {
			if b.targets != nil && !b.targets[s.Node] {
				return fmt.Errorf("%w: router sent to %q, not among its targets", ErrInvalidRoute, s.Node)
			}
		}
		if t.gotos == nil {
			t.gotos = rt.Nodes[:len(rt.Nodes):len(rt.Nodes)]
		} else {
			t.gotos = append(t.gotos, rt.Nodes...)
		}
		if t.sends == nil {
			t.sends = rt.Sends[:len(rt.Sends):len(rt.Sends)]
		} else {
			t.sends = append(t.sends, rt.Sends...)
		}
	}
	return nil
}

// callRouter runs one router, turning a panic into a *PanicError.
func callRouter[S any](ctx context.Context, route Router[S], v S, node string) (rt Route[S], err error) {
	defer func() {
		if p := recover(); p != nil {
			err = newPanic("router", node, "", p)
		}
	}()
	rt, err = route(ctx, v)
	if err != nil {
		return rt, fmt.Errorf("router: %w", err)
	}
	return rt, nil
}

// afterTasks handles failed and interrupted tasks of the step.
func (r *run[S]) afterTasks(ctx context.Context) error {
	tasks := r.tasks
	var failed *task[S]
	var intr []*task[S]
	for i := range tasks {
		t := &tasks[i]
		switch {
		case t.intr != nil:
			intr = append(intr, t)
		case t.err != nil && (failed == nil || errors.Is(failed.err, context.Canceled) && !errors.Is(t.err, context.Canceled)):
			// Report the root cause, not a sibling cancelled because of it.
			failed = t
		}
	}
	if failed == nil && len(intr) == 0 {
		return nil
	}
	if r.out != nil {
		for i := range tasks {
			t := &tasks[i]
			if !t.loaded && (t.err != nil || t.intr != nil) {
				r.send(Event[S]{Mode: Debug, NS: r.ns, Step: r.step, Node: t.node.name, TaskID: t.sc.id,
					Debug: &DebugInfo{Kind: DebugTaskResult, Err: t.err, Interrupted: t.intr != nil, Duration: t.dur}})
			}
		}
	}
	if l := r.g.cfg.logger; l != nil {
		if failed != nil {
			l.LogAttrs(ctx, slog.LevelWarn, "graph: task failed", slog.String("graph", r.g.name), slog.String("thread", r.thread),
				slog.String("node", failed.node.name), slog.Int("step", r.step), slog.String("err", failed.err.Error()))
		} else {
			l.LogAttrs(ctx, slog.LevelDebug, "graph: interrupted", slog.String("graph", r.g.name), slog.String("thread", r.thread),
				slog.Int("step", r.step), slog.Int("interrupts", len(intr)))
		}
	}
	if failed != nil {
		if ctx.Err() != nil && errors.Is(failed.err, ctx.Err()) {
			r.savePending(context.WithoutCancel(ctx), tasks, nil)
			return fmt.Errorf("graph: step %d: %w", r.step, ctx.Err())
		}
		r.savePending(ctx, tasks, nil)
		return &NodeError{Node: failed.node.name, TaskID: failed.sc.id, Step: r.step, Attempts: failed.attempts, Err: failed.err}
	}
	return r.pause(ctx, tasks, intr)
}

// commit applies the step's writes at the barrier, schedules the next step
// and writes the checkpoint.
func (r *run[S]) commit(ctx context.Context) error {
	g := r.g
	tasks := r.tasks
	prev := r.state
	for i := range r.written {
		r.written[i], r.overw[i], r.writer[i] = false, false, -1
	}
	for i := range tasks {
		if err := r.apply(&r.state, &tasks[i].update, i, tasks[i].overwrite); err != nil {
			r.state = prev
			return err
		}
	}
	if len(tasks) == 1 && !tasks[0].routed {
		t := &tasks[0]
		if err := r.route(t.sc.ctx, t, r.state); err != nil {
			r.state = prev
			return &NodeError{Node: t.node.name, TaskID: t.sc.id, Step: r.step, Attempts: t.attempts, Err: err}
		}
	}
	r.next = r.next[:0]
	if err := r.schedule(tasks); err != nil {
		r.state = prev
		return err
	}
	if r.cp != nil {
		if err := r.checkpoint(ctx, SourceLoop, tasks); err != nil {
			return err
		}
	}
	if r.out != nil {
		// Tasks loaded from pending writes report at the barrier.
		for i := range tasks {
			r.finishedEvents(&tasks[i])
		}
		r.send(Event[S]{Mode: Values, NS: r.ns, Step: r.step, State: g.view(r.state)})
	}
	r.step++
	return nil
}

// apply merges upd (written by task i) into dst.
func (r *run[S]) apply(dst *S, upd *S, ti int, overwrite []Write[S]) (err error) {
	g := r.g
	dp, up := unsafe.Pointer(dst), unsafe.Pointer(upd)
	where, cur := "reducer", -1
	defer func() {
		if p := recover(); p != nil {
			err = newPanic(where, r.taskNode(ti), g.fieldName(cur), p)
		}
	}()
	for fi := range g.fields {
		f := &g.fields[fi]
		if f.isZero(f.ptr(up)) {
			continue
		}
		cur = fi
		r.written[fi] = true
		if r.overw[fi] {
			continue
		}
		if f.merge != nil {
			f.merge(f.ptr(dp), f.ptr(up))
			continue
		}
		if w := r.writer[fi]; w >= 0 && w != ti {
			return r.conflict(fi)
		}
		r.writer[fi] = ti
		f.assign(f.ptr(dp), f.ptr(up))
	}
	where, cur = "overwrite", -1
	for _, w := range overwrite {
		if w.locate == nil {
			continue
		}
		fi := g.fieldOf(dst, w.locate(dst))
		if fi < 0 {
			return fmt.Errorf("graph: Set: accessor does not point to a top-level field of %s", g.typeName)
		}
		cur = fi
		if r.overw[fi] {
			return r.conflict(fi)
		}
		r.overw[fi], r.written[fi] = true, true
		w.assign(dst)
	}
	return nil
}

// taskNode names the node of task i of the running step, "" if none.
func (r *run[S]) taskNode(i int) string {
	if i >= 0 && i < len(r.tasks) && r.tasks[i].node != nil {
		return r.tasks[i].node.name
	}
	return ""
}

func (r *run[S]) conflict(fi int) error {
	g := r.g
	f := &g.fields[fi]
	e := &InvalidUpdateError{Field: f.name, Step: r.step}
	for i := range r.tasks {
		t := &r.tasks[i]
		hit := !f.isZero(f.ptr(unsafe.Pointer(&t.update)))
		for _, w := range t.overwrite {
			if w.locate != nil && g.fieldOf(&t.update, w.locate(&t.update)) == fi {
				hit = true
			}
		}
		if hit {
			e.Nodes = append(e.Nodes, t.node.name)
		}
	}
	return e
}

// schedule computes r.next from the finished tasks' edges, routes and joins:
// tasks triggered by edges in node-name order, then Send tasks in order.
func (r *run[S]) schedule(tasks []task[S]) error {
	g := r.g
	for i := range r.pending {
		r.pending[i] = false
	}
	any := false
	var sends []Send[S]
	for i := range tasks {
		t := &tasks[i]
		for _, e := range t.node.edges {
			r.pending[e], any = true, true
		}
		if t.one != "" && t.one != End {
			ni, ok := g.nodeIdx[t.one]
			if !ok {
				return &NodeError{Node: t.node.name, TaskID: t.sc.id, Step: r.step, Attempts: 1,
					Err: fmt.Errorf("%w: unknown node %q", ErrInvalidRoute, t.one)}
			}
			r.pending[ni], any = true, true
		}
		for _, name := range t.gotos {
			if name == End {
				continue
			}
			ni, ok := g.nodeIdx[name]
			if !ok {
				return &NodeError{Node: t.node.name, TaskID: t.sc.id, Step: r.step, Attempts: 1,
					Err: fmt.Errorf("%w: unknown node %q", ErrInvalidRoute, name)}
			}
			r.pending[ni], any = true, true
		}
		for _, s := range t.sends {
			if _, ok := g.nodeIdx[s.Node]; !ok {
				return &NodeError{Node: t.node.name, TaskID: t.sc.id, Step: r.step, Attempts: 1,
					Err: fmt.Errorf("%w: Send to unknown node %q", ErrInvalidRoute, s.Node)}
			}
		}
		sends = append(sends, t.sends...)
		for _, ji := range t.node.joins {
			j := &g.joins[ji]
			seen := r.joinSeen[ji]
			all := true
			for k, from := range j.from {
				if from == t.node.idx {
					seen[k] = true
				}
				all = all && seen[k]
			}
			if all {
				r.pending[j.to], any = true, true
				for k := range seen {
					seen[k] = false
				}
			}
		}
	}
	if any {
		for ni, p := range r.pending {
			if !p {
				continue
			}
			if g.nodes[ni].deferred {
				r.deferNodeAt(ni)
				continue
			}
			r.next = append(r.next, task[S]{node: g.nodes[ni]})
		}
	}
	for _, s := range sends {
		if g.nodes[g.nodeIdx[s.Node]].deferred {
			r.deferSends = append(r.deferSends, s)
			continue
		}
		r.next = append(r.next, task[S]{node: g.nodes[g.nodeIdx[s.Node]], send: true, sendIdx: len(r.next), input: s.Arg})
	}
	if len(r.next) == 0 {
		// Nothing else to run: the deferred tasks run now, each node once.
		for ni, d := range r.deferNode {
			if d {
				r.next = append(r.next, task[S]{node: g.nodes[ni]})
			}
		}
		for _, s := range r.deferSends {
			r.next = append(r.next, task[S]{node: g.nodes[g.nodeIdx[s.Node]], send: true, sendIdx: len(r.next), input: s.Arg})
		}
		r.deferNode, r.deferSends = nil, nil
	}
	return nil
}

func (r *run[S]) deferNodeAt(ni int) {
	if r.deferNode == nil {
		r.deferNode = make([]bool, len(r.g.nodes))
	}
	r.deferNode[ni] = true
}

// hasDeferred reports whether deferred tasks wait.
func (r *run[S]) hasDeferred() bool {
	return len(r.deferSends) > 0 || slices.Contains(r.deferNode, true)
}

// staticInterrupt pauses before/after a step when one of its tasks' nodes is listed.
func (r *run[S]) staticInterrupt(ctx context.Context, tasks []task[S], set []bool, when string) error {
	var hits []Interruption
	for i := range tasks {
		t := &tasks[i]
		if t.node.idx >= 0 && set[t.node.idx] {
			hits = append(hits, Interruption{ID: when + ":" + t.node.name, Node: t.node.name, TaskID: t.sc.id, When: when})
		}
	}
	if len(hits) == 0 {
		return nil
	}
	if r.cp == nil {
		return fmt.Errorf("graph: Interrupt%s %s: %w", map[string]string{"before": "Before", "after": "After"}[when], hits[0].Node, ErrNoCheckpointer)
	}
	cp := r.fullCur()
	cp.Interrupts = nil
	for _, h := range hits {
		cp.Interrupts = append(cp.Interrupts, InterruptInfo{ID: h.ID, Node: h.Node})
	}
	if err := r.cp.Put(ctx, &cp); err != nil {
		return fmt.Errorf("graph: save interrupt: %w", err)
	}
	r.cur, r.curPartial = &cp, false
	return &InterruptError{ThreadID: r.thread, Interrupts: hits}
}

// Drain runs Stream and collects its events; a helper for tests and tools.
func Drain[S any](seq iter.Seq2[Event[S], error]) ([]Event[S], error) {
	var out []Event[S]
	for ev, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

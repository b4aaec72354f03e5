package otelgraph

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/agentgraph/agentgraph/graph"
)

// ScopeName is the instrumentation scope of the spans this package creates.
const ScopeName = "github.com/agentgraph/agentgraph/graph/otelgraph"

// DefaultMaxUpdateSize is the default cap, in bytes, of a task's update
// recorded as the agentgraph.update attribute.
const DefaultMaxUpdateSize = 4 << 10

// Attribute keys set on the spans.
const (
	AttrGraph           = attribute.Key("agentgraph.graph")
	AttrThreadID        = attribute.Key("agentgraph.thread_id")
	AttrNamespace       = attribute.Key("agentgraph.checkpoint_ns")
	AttrStep            = attribute.Key("agentgraph.step")
	AttrNode            = attribute.Key("agentgraph.node")
	AttrTaskID          = attribute.Key("agentgraph.task_id")
	AttrTaskIndex       = attribute.Key("agentgraph.task_index")
	AttrAttempt         = attribute.Key("agentgraph.attempt")
	AttrUpdate          = attribute.Key("agentgraph.update")
	AttrUpdateTruncated = attribute.Key("agentgraph.update.truncated")
	AttrInterrupted     = attribute.Key("agentgraph.interrupted")
	AttrCheckpointID    = attribute.Key("agentgraph.checkpoint_id")
	AttrTasks           = attribute.Key("agentgraph.tasks")
)

// Option configures a Tracer.
type Option func(*Tracer)

// WithMaxUpdateSize caps the JSON of a task's update recorded on its span
// (default DefaultMaxUpdateSize). A longer update is cut at a UTF-8 boundary
// and the span gets agentgraph.update.truncated=true. n < 0 records no update.
func WithMaxUpdateSize(n int) Option { return func(t *Tracer) { t.maxUpdate = n } }

// Tracer turns the events of graph runs into spans: one span per run, a child
// span per super-step, and a child span of the step per task. It is safe for
// concurrent use; create one per process (or per TracerProvider) and share it
// between a graph and its subgraphs.
type Tracer struct {
	tracer    trace.Tracer
	maxUpdate int

	mu       sync.Mutex
	active   []*taskState         // running task spans, of all runs
	children map[string]*runState // subgraph runs by checkpoint namespace
}

// New returns a Tracer creating spans with tp. A nil tp gives a Tracer whose
// spans are not recorded.
func New(tp trace.TracerProvider, opts ...Option) *Tracer {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	t := &Tracer{tracer: tp.Tracer(ScopeName), maxUpdate: DefaultMaxUpdateSize, children: map[string]*runState{}}
	for _, o := range opts {
		if o != nil {
			o(t)
		}
	}
	return t
}

type runState struct {
	t      *Tracer
	thread string
	ns     string
	ctx    context.Context // carries the run span
	span   trace.Span
	step   *stepState
	parent *taskState // the task running this subgraph run; nil for a root run
	ended  bool
}

type stepState struct {
	n     int
	ctx   context.Context
	span  trace.Span
	tasks []*taskState // in start order
}

type taskState struct {
	run     *runState
	node    string
	id      string
	index   int
	ctx     context.Context
	span    trace.Span
	attempt int
	failed  bool // ended with an error; the span ends with the step, to learn the attempts
	done    bool
	subruns []*runState
}

// Start begins the span of one run of app on thread (which may be "") as a
// child of the span in ctx. Pass the returned option to the run
// (Invoke, Stream, Resume, Continue) and call end with the run's error when
// it returned:
//
//	obs, end := otelgraph.Start(ctx, tr, app, "t1")
//	out, err := app.Invoke(ctx, in, graph.Thread("t1"), obs)
//	end(err)
//
// An *graph.InterruptError marks the run interrupted, not failed. A run has
// one graph.Observe option (the last given wins), so pass no other.
func Start[S any](ctx context.Context, t *Tracer, app *graph.CompiledGraph[S], thread string) (graph.RunOption, func(error)) {
	attrs := []attribute.KeyValue{AttrGraph.String(app.Name()), AttrNamespace.String("")}
	if thread != "" {
		attrs = append(attrs, AttrThreadID.String(thread))
	}
	ctx, span := t.tracer.Start(ctx, runSpanName(app.Name()), trace.WithAttributes(attrs...))
	rs := &runState{t: t, thread: thread, ctx: ctx, span: span}
	obs := graph.Observe(func(ev graph.Event[S]) { t.handle(rs, toEvent(ev)) })
	return obs, func(err error) {
		t.mu.Lock()
		defer t.mu.Unlock()
		rs.end(err)
	}
}

// Invoke runs app.Invoke in a traced run; thread, when not "", is passed
// to the run with graph.Thread.
func Invoke[S any](ctx context.Context, t *Tracer, app *graph.CompiledGraph[S], thread string, input S, opts ...graph.RunOption) (S, error) {
	obs, end := Start(ctx, t, app, thread)
	if thread != "" {
		opts = append(opts, graph.Thread(thread))
	}
	out, err := app.Invoke(ctx, input, append(opts, obs)...)
	end(err)
	return out, err
}

// Stream runs app.Stream in a traced run; thread, when not "", is passed
// to the run with graph.Thread. The run span ends when the sequence does.
func Stream[S any](ctx context.Context, t *Tracer, app *graph.CompiledGraph[S], thread string, input S, opts ...graph.RunOption) iter.Seq2[graph.Event[S], error] {
	return func(yield func(graph.Event[S], error) bool) {
		obs, end := Start(ctx, t, app, thread)
		if thread != "" {
			opts = append(opts, graph.Thread(thread))
		}
		var runErr error
		for ev, err := range app.Stream(ctx, input, append(opts, obs)...) {
			if err != nil {
				runErr = err
			}
			if !yield(ev, err) {
				break
			}
		}
		end(runErr)
	}
}

// SubgraphOption is the compile option of a graph used as a subgraph
// (graph.Subgraph): its runs get spans under the span of the parent task
// that runs them, with the parent run's thread. Events of its runs outside
// a traced parent are ignored. The parent task is found by the child's
// checkpoint namespace, so at most one run per namespace and node should be
// active at a time on one Tracer (see the package documentation). A graph
// has one graph.WithObserver (the last given wins).
func SubgraphOption[S any](t *Tracer) graph.CompileOption {
	return graph.WithObserver(func(ev graph.Event[S]) {
		if ev.NS == "" {
			return
		}
		e := toEvent(ev)
		t.mu.Lock()
		rs := t.children[ev.NS]
		if rs == nil {
			rs = t.startChild(ev.NS)
		}
		t.mu.Unlock()
		if rs != nil {
			t.handle(rs, e)
		}
	})
}

// Context returns ctx carrying the span of the task running in ctx (found
// with graph.TaskInfoFrom), so that spans a node starts — model calls,
// tool calls, HTTP clients — are children of its task span. It also
// records the task's attempt number on the span. Outside a traced task it
// returns ctx unchanged.
func (t *Tracer) Context(ctx context.Context) context.Context {
	info, ok := graph.TaskInfoFrom(ctx)
	if !ok {
		return ctx
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.active) - 1; i >= 0; i-- {
		ts := t.active[i]
		if ts.run.ns != info.NS || ts.node != info.Node || ts.id != info.TaskID || ts.run.thread != info.ThreadID {
			continue
		}
		if info.Attempt > ts.attempt {
			ts.attempt = info.Attempt
			ts.span.SetAttributes(AttrAttempt.Int(info.Attempt))
		}
		return trace.ContextWithSpan(ctx, ts.span)
	}
	return ctx
}

// startChild starts the run span of a subgraph run in namespace ns under
// its parent task; t.mu is held.
func (t *Tracer) startChild(ns string) *runState {
	parentNS, seg := "", ns
	if i := strings.LastIndexByte(ns, ':'); i >= 0 {
		parentNS, seg = ns[:i], ns[i+1:]
	}
	node, index := seg, -1
	if i := strings.LastIndexByte(seg, '#'); i >= 0 {
		if n, err := strconv.Atoi(seg[i+1:]); err == nil {
			node, index = seg[:i], n
		}
	}
	var parent *taskState
	for i := len(t.active) - 1; i >= 0; i-- {
		ts := t.active[i]
		if ts.run.ns == parentNS && ts.node == node && (index < 0 || ts.index == index) {
			parent = ts
			break
		}
	}
	if parent == nil {
		return nil
	}
	attrs := []attribute.KeyValue{AttrNamespace.String(ns)}
	if parent.run.thread != "" {
		attrs = append(attrs, AttrThreadID.String(parent.run.thread))
	}
	ctx, span := t.tracer.Start(parent.ctx, runSpanName(node), trace.WithAttributes(attrs...))
	rs := &runState{t: t, thread: parent.run.thread, ns: ns, ctx: ctx, span: span, parent: parent}
	parent.subruns = append(parent.subruns, rs)
	t.children[ns] = rs
	return rs
}

func runSpanName(graphName string) string {
	if graphName == "" {
		return "graph.run"
	}
	return "graph.run " + graphName
}

// event is the part of a graph.Event the tracer uses, without its type
// parameter.
type event struct {
	mode   graph.Mode
	step   int
	node   string
	taskID string
	update any // a task result's update
	debug  *graph.DebugInfo
}

func toEvent[S any](ev graph.Event[S]) event {
	e := event{mode: ev.Mode, step: ev.Step, node: ev.Node, taskID: ev.TaskID, debug: ev.Debug}
	if ev.Mode == graph.Debug && ev.Debug != nil && ev.Debug.Kind == graph.DebugTaskResult && ev.Debug.Err == nil && !ev.Debug.Interrupted {
		e.update = ev.State
	}
	return e
}

func (t *Tracer) handle(rs *runState, e event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if rs.ended {
		return
	}
	switch {
	case e.mode == graph.Values:
		// The state after a step's barrier: the step committed.
		if rs.step != nil && rs.step.n == e.step {
			rs.endStep(nil)
		}
	case e.mode != graph.Debug || e.debug == nil:
	case e.debug.Kind == graph.DebugCheckpoint:
		if rs.step != nil && rs.step.n == e.step {
			rs.step.span.SetAttributes(AttrCheckpointID.String(e.debug.CheckpointID))
		} else {
			rs.span.AddEvent("checkpoint", trace.WithAttributes(AttrCheckpointID.String(e.debug.CheckpointID), AttrStep.Int(e.step)))
		}
	case e.debug.Kind == graph.DebugTask:
		rs.startTask(e)
	case e.debug.Kind == graph.DebugTaskResult:
		rs.finishTask(e)
	}
}

func (rs *runState) startTask(e event) {
	t := rs.t
	if rs.step != nil && rs.step.n != e.step {
		rs.endStep(nil)
	}
	if rs.step == nil {
		ctx, span := t.tracer.Start(rs.ctx, "graph.step", trace.WithAttributes(rs.attrs(AttrStep.Int(e.step))...))
		rs.step = &stepState{n: e.step, ctx: ctx, span: span}
	}
	st := rs.step
	ts := &taskState{run: rs, node: e.node, id: e.taskID, index: len(st.tasks)}
	attrs := rs.attrs(AttrStep.Int(e.step), AttrNode.String(e.node), AttrTaskIndex.Int(ts.index))
	if e.taskID != "" {
		attrs = append(attrs, AttrTaskID.String(e.taskID))
	}
	ts.ctx, ts.span = t.tracer.Start(st.ctx, e.node, trace.WithAttributes(attrs...))
	st.tasks = append(st.tasks, ts)
	st.span.SetAttributes(AttrTasks.Int(len(st.tasks)))
	t.active = append(t.active, ts)
}

// attrs returns the run's identifying attributes followed by more.
func (rs *runState) attrs(more ...attribute.KeyValue) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 2+len(more))
	if rs.thread != "" {
		a = append(a, AttrThreadID.String(rs.thread))
	}
	a = append(a, AttrNamespace.String(rs.ns))
	return append(a, more...)
}

func (rs *runState) finishTask(e event) {
	if rs.step == nil || rs.step.n != e.step {
		return // a task whose result was loaded from pending writes
	}
	var ts *taskState
	for _, c := range rs.step.tasks {
		if !c.done && c.node == e.node && c.id == e.taskID {
			ts = c
			break
		}
	}
	if ts == nil {
		return
	}
	switch {
	case e.debug.Interrupted:
		ts.span.SetAttributes(AttrInterrupted.Bool(true))
		ts.span.AddEvent("interrupt")
	case e.debug.Err != nil:
		// The run's *graph.NodeError, which says how many attempts were
		// made, comes when the run returns: the span ends with the step.
		ts.failed = true
		ts.span.RecordError(e.debug.Err)
		ts.span.SetStatus(codes.Error, e.debug.Err.Error())
		return
	default:
		rs.t.recordUpdate(ts.span, e.update)
	}
	var err error
	if e.debug.Interrupted {
		err = graph.ErrInterrupted // for the subgraph runs it ends
	}
	ts.end(err)
}

// end ends the task span and the subgraph runs it started; t.mu is held.
func (ts *taskState) end(err error) {
	if ts.done {
		return
	}
	ts.done = true
	for _, sub := range ts.subruns {
		sub.end(err)
	}
	ts.span.End()
	t := ts.run.t
	for i, a := range t.active {
		if a == ts {
			t.active = append(t.active[:i], t.active[i+1:]...)
			break
		}
	}
}

// endStep ends the step span and its unfinished tasks; t.mu is held.
func (rs *runState) endStep(err error) {
	st := rs.step
	if st == nil {
		return
	}
	rs.step = nil
	for _, ts := range st.tasks {
		if ts.done {
			continue
		}
		var ne *graph.NodeError
		switch {
		case ts.failed:
			if errors.As(err, &ne) && ne.Node == ts.node && ne.TaskID == ts.id && ne.Attempts > 0 {
				ts.span.SetAttributes(AttrAttempt.Int(ne.Attempts))
			}
		case err != nil && !isInterrupt(err):
			setError(ts.span, err)
		}
		ts.end(err)
	}
	markEnd(st.span, err)
	st.span.End()
}

// end ends the run span, with err the run's outcome; t.mu is held.
func (rs *runState) end(err error) {
	if rs.ended {
		return
	}
	rs.endStep(err)
	rs.ended = true
	markEnd(rs.span, err)
	rs.span.End()
	if rs.parent != nil && rs.t.children[rs.ns] == rs {
		delete(rs.t.children, rs.ns)
	}
}

func markEnd(span trace.Span, err error) {
	switch {
	case err == nil:
	case isInterrupt(err):
		span.SetAttributes(AttrInterrupted.Bool(true))
	default:
		setError(span, err)
	}
}

func isInterrupt(err error) bool {
	var ie *graph.InterruptError
	return errors.Is(err, graph.ErrInterrupted) || errors.As(err, &ie)
}

func setError(span trace.Span, err error) {
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// recordUpdate sets the update attribute: the JSON of the update's
// written (non-zero) fields, cut at the cap.
func (t *Tracer) recordUpdate(span trace.Span, update any) {
	if t.maxUpdate < 0 || update == nil {
		return
	}
	b, err := json.Marshal(written(update))
	if err != nil {
		span.SetAttributes(AttrUpdate.String("unencodable update: " + err.Error()))
		return
	}
	s, cut := truncate(string(b), t.maxUpdate)
	attrs := []attribute.KeyValue{AttrUpdate.String(s)}
	if cut {
		attrs = append(attrs, AttrUpdateTruncated.Bool(true))
	}
	span.SetAttributes(attrs...)
}

// written returns the fields of a struct update that are written (not their
// type's zero value), by name; other values are returned as they are.
func written(update any) any {
	v := reflect.ValueOf(update)
	if v.Kind() != reflect.Struct {
		return update
	}
	m := make(map[string]any, v.NumField())
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.IsExported() && !v.Field(i).IsZero() {
			m[f.Name] = v.Field(i).Interface()
		}
	}
	return m
}

// truncate cuts s to at most n bytes at a UTF-8 boundary.
func truncate(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

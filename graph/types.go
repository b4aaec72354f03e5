package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unsafe"
)

// Route is what a Router returns: nodes to run next (End or nothing ends
// this branch) and Send tasks, each running a node on its own input.
type Route[S any] struct {
	Nodes []string
	Sends []Send[S]
	one   string // set by Branch: a single node without a slice allocation
}

// Send schedules one task of Node with Arg as its input state instead of the
// graph state (LangGraph's Send, used for map-reduce). The node's update is
// applied to the graph state like any other.
type Send[S any] struct {
	Node string
	Arg  S
}

// Command is what a CommandFunc node returns.
type Command[S any] struct {
	// Update is the node's partial update, as a NodeFunc would return it.
	Update S
	// Goto lists nodes to run next, in addition to the node's edges.
	Goto []string
	// Sends schedules Send tasks in the next step.
	Sends []Send[S]
	// Overwrite writes fields past their reducers, zero values included.
	Overwrite []Write[S]
}

// Write is one field write that bypasses the field's reducer and counts even
// when the value is zero. Build it with Set.
type Write[S any] struct {
	locate func(*S) unsafe.Pointer
	assign func(*S)
}

// Set returns a Write of v to the field that field points to:
//
//	graph.Set(func(s *State) *int { return &s.Count }, 0)
//
// Like LangGraph's Overwrite, it wins over the other writes of the field in
// the same step; two overwrites of one field in one step are an InvalidUpdateError.
func Set[S, F any](field func(*S) *F, v F) Write[S] {
	return Write[S]{
		locate: func(s *S) unsafe.Pointer { return unsafe.Pointer(field(s)) },
		assign: func(s *S) { *field(s) = v },
	}
}

// Overwrite writes fields of the running node's update past their
// reducers, zero values included, from a plain node (a command node can
// also return them in Command.Overwrite):
//
//	func reset(ctx context.Context, s State) (State, error) {
//		err := graph.Overwrite(ctx, graph.Set(func(s *State) *int { return &s.Retries }, 0))
//		return State{}, err
//	}
//
// The writes count when the node returns without error; a retried attempt
// starts without them. It fails outside a node, and the node fails when S
// is not the graph's state type.
func Overwrite[S any](ctx context.Context, writes ...Write[S]) error {
	tc := fromCtx(ctx)
	if tc == nil || tc.task == nil {
		return errors.New("graph: Overwrite called outside a node")
	}
	for _, w := range writes {
		tc.task.overwrite = append(tc.task.overwrite, w)
	}
	return nil
}

// ctxWrites converts the writes a node passed to Overwrite.
func ctxWrites[S any](ws []any, stateType string) ([]Write[S], error) {
	out := make([]Write[S], 0, len(ws))
	for _, w := range ws {
		x, ok := w.(Write[S])
		if !ok {
			return nil, fmt.Errorf("graph: Overwrite: %T does not write the graph state %s", w, stateType)
		}
		out = append(out, x)
	}
	return out, nil
}

// NodeOption configures one node.
type NodeOption func(*nodeOptions)

type nodeOptions struct {
	retry        *RetryPolicy
	destinations []string
	hasDest      bool
	writes       []string
	deferred     bool
}

// WithRetry retries the node after errors, as the policy says.
func WithRetry(p RetryPolicy) NodeOption {
	return func(o *nodeOptions) { o.retry = &p }
}

// Destinations declares where a command node may go (for Compile's
// reachability check and to reject other routes at run time).
func Destinations(nodes ...string) NodeOption {
	return func(o *nodeOptions) { o.destinations = append(o.destinations, nodes...); o.hasDest = true }
}

// Defer makes the node deferred, as LangGraph's defer=True: when it is
// scheduled while other tasks are too, it waits — its triggers kept, in
// checkpoints as well — and runs, once, in the first step in which no other
// task is scheduled. So a node after a Send fan-out whose branches have
// different lengths runs once, after the longest branch.
func Defer() NodeOption { return func(o *nodeOptions) { o.deferred = true } }

// Writes declares the fields (by Go field name) the node may write. Compile
// uses it to reject two nodes that always run in the same step and both
// write a field without a reducer, and rejects unknown field names.
func Writes(fields ...string) NodeOption {
	return func(o *nodeOptions) { o.writes = append(o.writes, fields...) }
}

// RetryPolicy says how a node is retried after an error. Interrupts and
// context cancellation are never retried.
type RetryPolicy struct {
	MaxAttempts     int           // total attempts including the first; <= 1 means no retry
	InitialInterval time.Duration // wait before the second attempt; default 100ms
	BackoffFactor   float64       // multiplier per attempt; default 2
	MaxInterval     time.Duration // cap of the wait; default 10s
	Jitter          bool          // randomise each wait in [wait/2, wait*3/2)
	// RetryOn reports whether an error is worth retrying; nil retries every error.
	RetryOn func(error) bool
}

// Mode selects stream events.
type Mode uint8

const (
	Values  Mode = 1 << iota // the full state after the input and after each step
	Updates                  // each task's partial update, as the task finishes
	Debug                    // task start and result, checkpoint written
	Custom                   // values nodes pass to Emit
)

func (m Mode) String() string {
	var parts []string
	for _, x := range []struct {
		m Mode
		s string
	}{{Values, "values"}, {Updates, "updates"}, {Debug, "debug"}, {Custom, "custom"}} {
		if m&x.m != 0 {
			parts = append(parts, x.s)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "|")
}

// DebugKind names a debug event.
type DebugKind string

const (
	DebugTask       DebugKind = "task"        // a task starts
	DebugTaskResult DebugKind = "task_result" // a task finished (Err set on failure)
	DebugCheckpoint DebugKind = "checkpoint"  // a checkpoint was written
)

// DebugInfo is the payload of a Debug event.
type DebugInfo struct {
	Kind         DebugKind
	CheckpointID string
	Duration     time.Duration
	Err          error
	Interrupted  bool
}

// Event is one item of a Stream.
type Event[S any] struct {
	Mode   Mode
	NS     string // checkpoint namespace: "" for the root graph
	Step   int
	Node   string // Updates, Debug and Custom events
	TaskID string
	// State is the full state (Values) or the task's partial update (Updates,
	// Debug task results).
	State  S
	Custom any // Custom events: the value passed to Emit
	Debug  *DebugInfo
}

// Interruption is a pending interrupt of a paused thread.
type Interruption struct {
	ID     string // pass to ResumeByID
	Node   string
	TaskID string
	// Value is the payload given to Interrupt (as given in this process,
	// otherwise decoded by the serializer into an any).
	Value any
	// Raw is the encoded payload.
	Raw []byte
	// When is "before" or "after" for static interrupts, "" for Interrupt calls.
	When string
}

// Snapshot is a thread's state at one checkpoint.
type Snapshot[S any] struct {
	// Values is the state at the checkpoint; when a step that started there
	// paused or failed (GetState), with its finished tasks' writes applied.
	Values S
	// Next names the nodes of the tasks still to run: the next step's, less
	// those whose writes are already stored (GetState).
	Next         []string
	Tasks        []TaskRef
	Interrupts   []Interruption
	ThreadID     string
	NS           string
	CheckpointID string
	ParentID     string
	Step         int
	Source       Source
	CreatedAt    time.Time
	Metadata     map[string]string
	// Writes are the writes the step that produced this checkpoint applied.
	Writes []PendingWrite
	// PendingWrites are the writes of tasks that finished in a step that
	// started from this checkpoint and did not commit.
	PendingWrites []PendingWrite
}

// DefaultRecursionLimit is the number of super-steps one Invoke or Stream
// may run before it fails with ErrRecursionLimit. LangGraph started at 25,
// which legitimate agent loops kept hitting, and raised it to about 10000.
const DefaultRecursionLimit = 10000

// Errors callers branch on.
var (
	// ErrInvalidGraph wraps every Compile validation error.
	ErrInvalidGraph = errors.New("invalid graph")
	// ErrRecursionLimit is returned when a run exceeds its recursion limit.
	ErrRecursionLimit = errors.New("graph: recursion limit reached")
	// ErrInterrupted matches an *InterruptError with errors.Is.
	ErrInterrupted = errors.New("graph: interrupted")
	// ErrNoCheckpointer is returned by calls that need a checkpointer.
	ErrNoCheckpointer = errors.New("graph: no checkpointer")
	// ErrNoThread is returned when a call needs Thread and none was given.
	ErrNoThread = errors.New("graph: no thread id")
	// ErrInvalidRoute is returned when a router, Command or Send names an
	// unknown node or one outside its declared targets.
	ErrInvalidRoute = errors.New("graph: invalid route")
	// ErrNoPendingInterrupt is returned by Resume when nothing waits for it.
	ErrNoPendingInterrupt = errors.New("graph: no pending interrupt")
)

// InvalidUpdateError reports conflicting writes in one super-step: a field
// without a reducer written by several tasks, or two overwrites of a field.
type InvalidUpdateError struct {
	Field string
	Nodes []string // the writing nodes, in task order
	Step  int
	// Static is true when Compile found the conflict from the graph's shape.
	Static bool
}

func (e *InvalidUpdateError) Error() string {
	where := fmt.Sprintf("step %d", e.Step)
	if e.Static {
		where = "compile"
	}
	return fmt.Sprintf("graph: invalid update (%s): field %q written by %s in one step; give it a reducer",
		where, e.Field, strings.Join(e.Nodes, ", "))
}

// NodeError is a node (or its router) failing after its retries.
type NodeError struct {
	Node     string
	TaskID   string
	Step     int
	Attempts int
	Err      error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("graph: node %q (step %d, %d attempt(s)): %v", e.Node, e.Step, e.Attempts, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// InterruptError is returned by Invoke and Stream when the run paused. The
// thread's checkpoint holds the pending work; resume with Resume or Continue.
type InterruptError struct {
	ThreadID   string
	Interrupts []Interruption
}

func (e *InterruptError) Error() string {
	nodes := make([]string, len(e.Interrupts))
	for i, in := range e.Interrupts {
		nodes[i] = in.Node
	}
	return fmt.Sprintf("graph: interrupted at %s", strings.Join(nodes, ", "))
}

// Is makes errors.Is(err, ErrInterrupted) match.
func (e *InterruptError) Is(target error) bool { return target == ErrInterrupted }

// CompileOption configures Compile.
type CompileOption func(*compileConfig)

type compileConfig struct {
	checkpointer    Checkpointer
	store           Store
	serializer      Serializer
	interruptBefore []string
	interruptAfter  []string
	name            string
	observer        any
	logger          *slog.Logger
	recursionLimit  int
}

// WithCheckpointer persists a checkpoint per super-step, enabling
// interrupts, resume, GetState, History, UpdateState and replay.
func WithCheckpointer(cp Checkpointer) CompileOption {
	return func(c *compileConfig) { c.checkpointer = cp }
}

// WithStore makes st reachable from nodes with StoreFrom.
func WithStore(st Store) CompileOption { return func(c *compileConfig) { c.store = st } }

// WithSerializer replaces the JSON serializer used for checkpoints.
func WithSerializer(s Serializer) CompileOption { return func(c *compileConfig) { c.serializer = s } }

// InterruptBefore pauses the run before any of these nodes runs.
func InterruptBefore(nodes ...string) CompileOption {
	return func(c *compileConfig) { c.interruptBefore = append(c.interruptBefore, nodes...) }
}

// InterruptAfter pauses the run after a step in which any of these nodes ran.
func InterruptAfter(nodes ...string) CompileOption {
	return func(c *compileConfig) { c.interruptAfter = append(c.interruptAfter, nodes...) }
}

// WithName names the graph (in logs and errors).
func WithName(name string) CompileOption { return func(c *compileConfig) { c.name = name } }

// WithLogger sets the logger for the engine's debug logs (default: none).
func WithLogger(l *slog.Logger) CompileOption { return func(c *compileConfig) { c.logger = l } }

// WithRecursionLimit sets the graph's default recursion limit.
func WithRecursionLimit(n int) CompileOption { return func(c *compileConfig) { c.recursionLimit = n } }

// WithObserver calls fn with every event of every run of the graph, in all
// modes, whatever the run's stream modes; for embedding in harnesses. fn is
// called from the run's goroutine and must not block for long. Compile
// fails if S is not the graph's state type.
func WithObserver[S any](fn func(Event[S])) CompileOption {
	return func(c *compileConfig) { c.observer = fn }
}

// RunOption configures one Invoke, Stream, GetState or UpdateState call.
type RunOption func(*runConfig)

type runConfig struct {
	thread         string
	checkpointID   string
	ns             string
	nsSet          bool
	resume         bool
	resumeValue    any
	resumeByID     map[string]any
	cont           bool
	recursionLimit int
	modes          Mode
	metadata       map[string]string
	observer       any
}

// Thread selects the conversation thread whose checkpoints the call uses.
func Thread(id string) RunOption { return func(c *runConfig) { c.thread = id } }

// CheckpointID selects a checkpoint of the thread: GetState reads it; Invoke
// and Stream replay from it (with Continue) or fork it with new input.
func CheckpointID(id string) RunOption { return func(c *runConfig) { c.checkpointID = id } }

// Namespace selects a checkpoint namespace (a subgraph's, for GetState and
// History of a subgraph); "" is the root graph.
func Namespace(ns string) RunOption { return func(c *runConfig) { c.ns = ns; c.nsSet = true } }

// Resume continues an interrupted thread; the pending Interrupt call returns
// v. The input state passed with it is ignored. With several interrupts
// pending in one step, use ResumeByID.
func Resume(v any) RunOption {
	return func(c *runConfig) { c.resume = true; c.resumeValue = v; c.cont = true }
}

// ResumeByID resumes several pending interrupts at once, by Interruption.ID.
func ResumeByID(values map[string]any) RunOption {
	return func(c *runConfig) { c.resume = true; c.resumeByID = values; c.cont = true }
}

// Continue runs the thread's pending tasks from its checkpoint (after a
// static interrupt, a failure or a cancellation, or to replay from
// CheckpointID); the input state passed with it is ignored.
func Continue() RunOption { return func(c *runConfig) { c.cont = true } }

// RecursionLimit caps the number of super-steps of this run.
func RecursionLimit(n int) RunOption { return func(c *runConfig) { c.recursionLimit = n } }

// Modes selects the Stream event modes (default Values).
func Modes(m ...Mode) RunOption {
	return func(c *runConfig) {
		c.modes = 0
		for _, x := range m {
			c.modes |= x
		}
	}
}

// Metadata adds metadata to the checkpoints this call writes.
func Metadata(kv map[string]string) RunOption {
	return func(c *runConfig) { c.metadata = kv }
}

// Observe calls fn with every event of this run, in all modes (see
// WithObserver). The run fails if S is not the graph's state type.
func Observe[S any](fn func(Event[S])) RunOption {
	return func(c *runConfig) { c.observer = fn }
}

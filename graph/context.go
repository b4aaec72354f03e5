package graph

import (
	"context"
	"fmt"
)

type ctxKey struct{}

// taskCtx is what the engine puts in a node's context.
type taskCtx struct {
	r    runner
	task *taskScratch
}

// runner is the non-generic face of a run, for context accessors.
type runner interface {
	store() Store
	remaining() int
	emit(ctx context.Context, t *taskScratch, v any)
	info(t *taskScratch) TaskInfo
	serializer() Serializer
	hasCheckpointer() bool
}

// taskContext is a parallel task's context: the step's context with the
// task's taskCtx under ctxKey{}, as context.WithValue would make it, but
// held in the task (no allocation per task).
type taskContext struct {
	context.Context
	tc *taskCtx
}

func (c *taskContext) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return c.tc
	}
	return c.Context.Value(key)
}

func fromCtx(ctx context.Context) *taskCtx {
	if ctx == nil {
		return nil
	}
	tc, _ := ctx.Value(ctxKey{}).(*taskCtx)
	return tc
}

// StoreFrom returns the Store of the running graph (WithStore), or nil.
func StoreFrom(ctx context.Context) Store {
	if tc := fromCtx(ctx); tc != nil {
		return tc.r.store()
	}
	return nil
}

// RemainingSteps returns how many more super-steps the run may start after
// the current one before it hits its recursion limit (0 in the last allowed
// step), or -1 outside a run.
func RemainingSteps(ctx context.Context) int {
	if tc := fromCtx(ctx); tc != nil {
		return tc.r.remaining()
	}
	return -1
}

// Emit sends v to the run's stream as a Custom event (and to observers).
// It does nothing when nobody listens.
func Emit(ctx context.Context, v any) {
	if tc := fromCtx(ctx); tc != nil {
		tc.r.emit(ctx, tc.task, v)
	}
}

// StreamWriter returns a function that calls Emit with ctx.
func StreamWriter(ctx context.Context) func(v any) {
	return func(v any) { Emit(ctx, v) }
}

// TaskInfo describes the running task.
type TaskInfo struct {
	ThreadID string
	NS       string
	Node     string
	TaskID   string // "" when the graph has no checkpointer
	Step     int
	Attempt  int // 1 for the first attempt
}

// TaskInfoFrom returns the running task's identity; ok is false outside a node.
func TaskInfoFrom(ctx context.Context) (TaskInfo, bool) {
	if tc := fromCtx(ctx); tc != nil {
		return tc.r.info(tc.task), true
	}
	return TaskInfo{}, false
}

// interruptSignal is the error Interrupt returns to pause the run.
type interruptSignal struct {
	index   int
	payload any
}

func (s *interruptSignal) Error() string {
	return fmt.Sprintf("graph: interrupt %d (return this error from the node)", s.index)
}

func (s *interruptSignal) Is(target error) bool { return target == ErrInterrupted }

// Interrupt pauses the thread at this point of the node. The first time it
// returns an error the node must return (possibly wrapped); the run stops,
// the step's other tasks finish and keep their writes, and Invoke returns an
// *InterruptError carrying payload. When the thread is resumed with
// Resume(v), the node runs again from its start and this call returns v.
// A node may call Interrupt several times: on each resume the calls return,
// in order, the values given so far, and the first unanswered call pauses
// again. Values from an earlier process come back decoded by the serializer
// into an any (for JSON: string, float64, bool, map[string]any, ...); use
// InterruptAs for a typed value. Interrupt needs a checkpointer and must
// be called from the node's own goroutine, not concurrently.
func Interrupt(ctx context.Context, payload any) (any, error) {
	r, ser, err := nextResume(ctx, payload)
	if err != nil {
		return nil, err
	}
	if r.hasValue {
		return r.value, nil
	}
	var v any
	if err := ser.Unmarshal(r.raw, &v); err != nil {
		return nil, fmt.Errorf("graph: Interrupt: decode resume value: %w", err)
	}
	return v, nil
}

// InterruptAs is Interrupt with the resume value decoded into a T.
func InterruptAs[T any](ctx context.Context, payload any) (T, error) {
	var zero T
	r, ser, err := nextResume(ctx, payload)
	if err != nil {
		return zero, err
	}
	if v, ok := r.value.(T); ok && r.hasValue {
		return v, nil
	}
	var v T
	if err := ser.Unmarshal(r.raw, &v); err != nil {
		return zero, fmt.Errorf("graph: Interrupt: decode resume value as %T: %w", zero, err)
	}
	return v, nil
}

// nextResume takes the node's next Interrupt call: the resume value that
// answers it, or the *interruptSignal that pauses the node.
func nextResume(ctx context.Context, payload any) (resumeVal, Serializer, error) {
	tc := fromCtx(ctx)
	if tc == nil {
		return resumeVal{}, nil, fmt.Errorf("graph: Interrupt called outside a node")
	}
	if !tc.r.hasCheckpointer() {
		return resumeVal{}, nil, fmt.Errorf("graph: Interrupt: %w", ErrNoCheckpointer)
	}
	t := tc.task
	i := t.nextInterrupt
	t.nextInterrupt++
	if i < len(t.resume) {
		return t.resume[i], tc.r.serializer(), nil
	}
	return resumeVal{}, nil, &interruptSignal{index: i, payload: payload}
}

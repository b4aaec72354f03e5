package graph

import (
	"context"
	"errors"
	"time"
)

// ErrCheckpointNotFound is returned by a Checkpointer when the thread, namespace
// or checkpoint id has no stored checkpoint.
var ErrCheckpointNotFound = errors.New("checkpoint not found")

// Source says why a checkpoint was written.
type Source string

const (
	SourceInput  Source = "input"  // the run's input was applied
	SourceLoop   Source = "loop"   // a super-step committed
	SourceUpdate Source = "update" // UpdateState wrote it
	SourceFork   Source = "fork"   // a copy of an earlier checkpoint made for replay or a fork
)

// Checkpoint is a thread's state after one super-step, in encoded form.
//
// The engine encodes each channel (each exported field of the state type) on
// its own, so a back-end may store only the channels whose Versions changed
// since the parent checkpoint, and may store a growing list as a delta.
// Loading a checkpoint must give back exactly the Values that were Put.
type Checkpoint struct {
	ThreadID  string
	NS        string // checkpoint namespace: "" for the root graph, "parent:node" paths for subgraphs
	ID        string // unique per thread and namespace; ids sort in creation order
	ParentID  string // "" for the first checkpoint of a thread
	Step      int    // -1 for the input checkpoint, then 0, 1, 2, ...
	Source    Source
	CreatedAt time.Time

	// Values holds the encoded value of every channel that has been written.
	Values map[string][]byte
	// Versions holds each channel's version; a channel's version grows each
	// time a step writes it.
	Versions map[string]int64
	// Format names the encoding of Values and of pending write values
	// (for example "json"); back-ends store it with the checkpoint.
	Format string
	// StateType names the Go type of the state, for clear decode errors.
	StateType string

	// Next lists the tasks the following super-step will run.
	Next []TaskRef
	// Writes lists the writes the step that produced this checkpoint applied,
	// by task, for History and debugging.
	Writes []PendingWrite
	// Interrupts lists the interrupts raised in the step that started from
	// this checkpoint and did not commit (set when the run paused).
	Interrupts []InterruptInfo
	// Metadata is free-form, set by the engine (and by UpdateState's caller).
	Metadata map[string]string
}

// TaskRef names a task that is scheduled to run.
type TaskRef struct {
	ID   string // deterministic task id (derived from checkpoint id, node and index)
	Node string
	// Send is set for tasks created by a graph.Send; its Arg is the encoded input.
	Send bool
	Arg  []byte
}

// PendingWrite is one write of one task, stored against the checkpoint its
// step started from. When a step fails or is interrupted, the writes of the
// tasks that finished are kept, so a resume does not run those tasks again.
type PendingWrite struct {
	TaskID  string
	Node    string
	Channel string // a state field name, or one of the engine's reserved channels
	Value   []byte
}

// InterruptInfo describes a pending interrupt.
type InterruptInfo struct {
	ID     string // stable id of the interrupt (task id + index)
	Node   string
	TaskID string
	Value  []byte // the encoded payload passed to Interrupt
}

// ListOptions bounds a History / List call.
type ListOptions struct {
	Limit  int    // 0 means no limit
	Before string // only checkpoints older than this checkpoint id
}

// Checkpointer persists checkpoints. Implementations must be safe for
// concurrent use. See package checkpoint for the in-memory and bbolt
// back-ends and checkpoint/checkpointtest for the conformance suite.
type Checkpointer interface {
	// Put stores a checkpoint. Put of an existing id replaces it.
	Put(ctx context.Context, cp *Checkpoint) error
	// PutWrites stores pending writes of one or more tasks against
	// checkpoint id. Writes for the same (task, channel) replace earlier
	// ones; the other tasks' writes are untouched. The engine calls it once
	// per finished task of a parallel step, so its cost should be that of
	// the writes given, not of what the checkpoint already holds.
	PutWrites(ctx context.Context, threadID, ns, checkpointID string, writes []PendingWrite) error
	// Get loads a checkpoint and the pending writes stored against it,
	// grouped by task, tasks in the order their first write was stored.
	// An empty checkpointID means the newest checkpoint of the thread and
	// namespace. A missing one returns an error wrapping ErrCheckpointNotFound.
	Get(ctx context.Context, threadID, ns, checkpointID string) (*Checkpoint, []PendingWrite, error)
	// List returns checkpoints of a thread and namespace, newest first.
	List(ctx context.Context, threadID, ns string, opts ListOptions) ([]*Checkpoint, error)
	// DeleteThread removes every checkpoint and pending write of a thread,
	// in every namespace.
	DeleteThread(ctx context.Context, threadID string) error
}

// ErrDeltaBase is wrapped by a DeltaPutter's error when a delta checkpoint
// cannot be stored relative to its parent (the parent is not stored, or a
// channel's value is shorter than a delta keeps). Nothing was stored; the
// engine then stores the checkpoint in full with Put.
var ErrDeltaBase = errors.New("checkpoint: delta base missing")

// ChannelDelta gives one channel's value relative to the parent
// checkpoint's value of the same channel: the parent's first Keep bytes
// followed by Tail. The engine sends one for a list that an append-style
// reducer only grew (with the JSON serializer: Keep drops the closing ']'
// and Tail is ",<new elements>]").
type ChannelDelta struct {
	Channel string
	Keep    int
	Tail    []byte
}

// DeltaPutter is an optional interface of a Checkpointer: it stores a
// checkpoint given as changes against its parent, so that a step's cost
// is what the step added, not the size of the state. The engine uses it
// when the checkpointer implements it and a step's parent checkpoint is
// the one it stored before; otherwise it calls Put.
//
// PutDelta stores cp, whose ParentID names a stored checkpoint of the same
// thread and namespace. The stored checkpoint's Values are:
//   - for each channel in cp.Versions: cp.Values[channel] when present,
//     else the parent's value modified by the delta of that channel when
//     there is one, else the parent's value unchanged;
//   - each other key of cp.Values (the engine's reserved channels) as given.
//
// A channel in neither is not stored. Get, List and every later Put or
// PutDelta then see exactly those Values, as if cp had been Put with them.
// When the parent is not stored, or a channel to inherit or extend is not
// in it, or a delta's Keep exceeds the parent value's length, PutDelta
// stores nothing and returns an error wrapping ErrDeltaBase. PutDelta must
// not keep cp, its maps and slices, or the deltas' slices after it returns:
// the engine reuses them for its next checkpoints (Put, by contrast, is
// always given a checkpoint of its own). checkpoint/checkpointtest's suite
// checks these rules.
type DeltaPutter interface {
	PutDelta(ctx context.Context, cp *Checkpoint, deltas []ChannelDelta) error
}

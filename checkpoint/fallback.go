package checkpoint

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentgraph/agentgraph/graph"
)

// NewestReadable returns the newest checkpoint of a thread and namespace
// that loads, walking back past damaged ones: the way back to a parent
// when the latest checkpoint does not decode. skipped holds the error of
// each newer checkpoint it passed (each a *DecodeError wrapping ErrCorrupt,
// ErrUnknownVersion or ErrFormat), newest first. To resume from it:
//
//	cp, skipped, err := checkpoint.NewestReadable(ctx, saver, "mission-1", "")
//	out, err := app.Invoke(ctx, State{}, graph.Thread("mission-1"), graph.CheckpointID(cp.ID), graph.Continue())
//
// It works on any graph.Checkpointer (it uses only List) whose ids sort by
// time, as the graph engine's do. An error that names no checkpoint (a
// damaged thread bucket, a closed file) ends the walk; a thread with no
// readable checkpoint gives graph.ErrCheckpointNotFound joined with the
// skipped errors.
func NewestReadable(ctx context.Context, saver graph.Checkpointer, threadID, ns string) (cp *graph.Checkpoint, skipped []error, err error) {
	before := ""
	for {
		list, err := saver.List(ctx, threadID, ns, graph.ListOptions{Before: before, Limit: 1})
		if err == nil {
			if len(list) == 0 {
				err := fmt.Errorf("checkpoint: thread %q ns %q: no readable checkpoint: %w", threadID, ns, graph.ErrCheckpointNotFound)
				return nil, skipped, errors.Join(append([]error{err}, skipped...)...)
			}
			return list[0], skipped, nil
		}
		var de *DecodeError
		if !errors.As(err, &de) || de.CheckpointID == "" || de.CheckpointID == before {
			return nil, skipped, err
		}
		skipped = append(skipped, err)
		before = de.CheckpointID
	}
}

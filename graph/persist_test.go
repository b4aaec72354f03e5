package graph_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var bg = context.Background()

func TestInterruptResumeAndTypedValue(t *testing.T) {
	g := newG()
	g.AddNode("ask", func(ctx context.Context, s S) (S, error) {
		ok, err := graph.InterruptAs[bool](ctx, map[string]string{"question": "approve?"})
		if err != nil {
			return S{}, err
		}
		if ok {
			return S{Note: "approved"}, nil
		}
		return S{Note: "rejected"}, nil
	})
	g.AddEdge(graph.Start, "ask")
	cp := checkpoint.NewMemory()
	app, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)

	_, err = app.Invoke(bg, S{}, graph.Thread("t1"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	assert.Equal(t, "ask", ie.Interrupts[0].Node)
	assert.Equal(t, map[string]string{"question": "approve?"}, ie.Interrupts[0].Value)
	assert.Equal(t, "t1", ie.ThreadID)

	snap, err := app.GetState(bg, graph.Thread("t1"))
	require.NoError(t, err)
	assert.Equal(t, []string{"ask"}, snap.Next)
	require.Len(t, snap.Interrupts, 1)
	assert.Equal(t, map[string]any{"question": "approve?"}, snap.Interrupts[0].Value, "decoded from the checkpoint")
	assert.Equal(t, ie.Interrupts[0].ID, snap.Interrupts[0].ID)

	out, err := app.Invoke(bg, S{}, graph.Thread("t1"), graph.Resume(true))
	require.NoError(t, err)
	assert.Equal(t, "approved", out.Note)

	// Nothing left to resume.
	_, err = app.Invoke(bg, S{}, graph.Thread("t1"), graph.Resume(true))
	require.ErrorIs(t, err, graph.ErrNoPendingInterrupt)
}

// LangGraph: several interrupts in one node are answered in order; the node
// re-runs from its start on each resume.
func TestMultipleInterruptsInOneNodeResumeInOrder(t *testing.T) {
	var runs atomic.Int32
	g := newG()
	g.AddNode("form", func(ctx context.Context, s S) (S, error) {
		runs.Add(1)
		name, err := graph.Interrupt(ctx, "name?")
		if err != nil {
			return S{}, err
		}
		age, err := graph.Interrupt(ctx, "age?")
		if err != nil {
			return S{}, err
		}
		return S{Log: []string{name.(string), age.(string)}}, nil
	})
	g.AddEdge(graph.Start, "form")
	cp := checkpoint.NewMemory()
	app, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)

	_, err = app.Invoke(bg, S{}, graph.Thread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "name?", ie.Interrupts[0].Value)

	_, err = app.Invoke(bg, S{}, graph.Thread("t"), graph.Resume("ada"))
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "age?", ie.Interrupts[0].Value)

	// A second compiled instance (as after a restart) sees the stored value.
	app2, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	out, err := app2.Invoke(bg, S{}, graph.Thread("t"), graph.Resume("36"))
	require.NoError(t, err)
	assert.Equal(t, []string{"ada", "36"}, out.Log)
	assert.Equal(t, int32(3), runs.Load())
}

// LangGraph: when one task interrupts, its siblings in the step finish and
// their writes are saved; on resume they are not run again.
func TestInterruptKeepsSiblingWritesAsPending(t *testing.T) {
	var sibRuns, askRuns atomic.Int32
	g := newG()
	g.AddNode("sib", func(ctx context.Context, s S) (S, error) {
		sibRuns.Add(1)
		return S{Log: []string{"sib"}, Total: 1}, nil
	})
	g.AddNode("ask", func(ctx context.Context, s S) (S, error) {
		askRuns.Add(1)
		v, err := graph.Interrupt(ctx, "?")
		if err != nil {
			return S{}, err
		}
		return S{Log: []string{"ask:" + v.(string)}}, nil
	})
	g.AddNode("after", logNode("after"))
	g.AddEdge(graph.Start, "sib").AddEdge(graph.Start, "ask").AddEdge("ask", "after")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)

	out, err := app.Invoke(bg, S{Log: []string{"in"}}, graph.Thread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	assert.Equal(t, []string{"in"}, out.Log, "the interrupted step does not commit")

	snap, err := app.GetState(bg, graph.Thread("t"))
	require.NoError(t, err)
	// LangGraph: a task whose writes are stored is not next, and its
	// writes show in Values.
	assert.Equal(t, []string{"ask"}, snap.Next)
	assert.Equal(t, []string{"in", "sib"}, snap.Values.Log)
	assert.Equal(t, 1, snap.Values.Total)
	assert.Len(t, snap.Tasks, 2, "Tasks lists the step's tasks, finished or not")
	var chans []string
	for _, w := range snap.PendingWrites {
		if w.Node == "sib" {
			chans = append(chans, w.Channel)
		}
	}
	assert.Contains(t, chans, "Log")
	assert.Contains(t, chans, "Total")

	out, err = app.Invoke(bg, S{}, graph.Thread("t"), graph.Resume("yes"))
	require.NoError(t, err)
	assert.Equal(t, []string{"in", "ask:yes", "sib", "after"}, out.Log)
	assert.Equal(t, 1, out.Total)
	assert.Equal(t, int32(1), sibRuns.Load())
	assert.Equal(t, int32(2), askRuns.Load())
}

func TestParallelInterruptsNeedResumeByID(t *testing.T) {
	g := newG()
	for _, n := range []string{"p", "q"} {
		g.AddNode(n, func(ctx context.Context, s S) (S, error) {
			v, err := graph.Interrupt(ctx, n+"?")
			if err != nil {
				return S{}, err
			}
			return S{Log: []string{n + "=" + v.(string)}}, nil
		})
		g.AddEdge(graph.Start, n)
	}
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{}, graph.Thread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 2)
	assert.Contains(t, ie.Error(), "p, q")

	_, err = app.Invoke(bg, S{}, graph.Thread("t"), graph.Resume("x"))
	require.ErrorContains(t, err, "ResumeByID")

	_, err = app.Invoke(bg, S{}, graph.Thread("t"), graph.ResumeByID(map[string]any{"nope": 1}))
	require.ErrorIs(t, err, graph.ErrNoPendingInterrupt)

	ids := map[string]any{}
	for _, in := range ie.Interrupts {
		ids[in.ID] = "v" + in.Node
	}
	out, err := app.Invoke(bg, S{}, graph.Thread("t"), graph.ResumeByID(ids))
	require.NoError(t, err)
	assert.Equal(t, []string{"p=vp", "q=vq"}, out.Log)
}

func TestNewInputAbandonsInterruptedWork(t *testing.T) {
	var askRuns atomic.Int32
	g := newG()
	g.AddNode("ask", func(ctx context.Context, s S) (S, error) {
		askRuns.Add(1)
		if s.Note == "skip" {
			return S{Log: []string{"skipped"}}, nil
		}
		_, err := graph.Interrupt(ctx, "?")
		return S{}, err
	})
	g.AddEdge(graph.Start, "ask")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{Log: []string{"first"}}, graph.Thread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := app.Invoke(bg, S{Log: []string{"second"}, Note: "skip"}, graph.Thread("t"))
	require.NoError(t, err)
	assert.Equal(t, []string{"first", "second", "skipped"}, out.Log, "new input applies through reducers on the thread's state")
	snap, err := app.GetState(bg, graph.Thread("t"))
	require.NoError(t, err)
	assert.Empty(t, snap.Next)
	assert.Empty(t, snap.Interrupts)
}

func TestInterruptNeedsCheckpointer(t *testing.T) {
	g := newG()
	g.AddNode("ask", func(ctx context.Context, s S) (S, error) {
		_, err := graph.Interrupt(ctx, "?")
		return S{}, err
	})
	g.AddEdge(graph.Start, "ask")
	app, err := g.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{})
	require.ErrorIs(t, err, graph.ErrNoCheckpointer)

	_, err = graph.Interrupt(bg, 1)
	require.Error(t, err)
	_, err = graph.InterruptAs[int](bg, 1)
	require.Error(t, err)
	_, err = app.Invoke(bg, S{}, graph.Continue())
	require.ErrorIs(t, err, graph.ErrNoCheckpointer)
	_, err = app.GetState(bg, graph.Thread("x"))
	require.ErrorIs(t, err, graph.ErrNoCheckpointer)
	_, err = app.History(bg, graph.ListOptions{}, graph.Thread("x"))
	require.ErrorIs(t, err, graph.ErrNoCheckpointer)
	_, err = app.UpdateState(bg, S{}, "")
	require.ErrorIs(t, err, graph.ErrNoCheckpointer)
}

func TestCheckpointerNeedsThread(t *testing.T) {
	g := newG().AddNode("a", logNode("a")).AddEdge(graph.Start, "a")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{})
	require.ErrorIs(t, err, graph.ErrNoThread)
	_, err = app.GetState(bg)
	require.ErrorIs(t, err, graph.ErrNoThread)
	_, err = app.UpdateState(bg, S{}, "")
	require.ErrorIs(t, err, graph.ErrNoThread)
}

func TestStaticInterrupts(t *testing.T) {
	g := newG()
	g.AddNode("a", logNode("a")).AddNode("b", logNode("b")).AddNode("c", logNode("c"))
	g.AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()), graph.InterruptBefore("b"), graph.InterruptAfter("b"))
	require.NoError(t, err)

	out, err := app.Invoke(bg, S{}, graph.Thread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "before", ie.Interrupts[0].When)
	assert.Equal(t, []string{"a"}, out.Log)

	snap, err := app.GetState(bg, graph.Thread("t"))
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, snap.Next)
	require.Len(t, snap.Interrupts, 1)
	assert.Equal(t, "before", snap.Interrupts[0].When)

	// Edit the state while paused: asNode "" keeps b scheduled.
	_, err = app.UpdateState(bg, S{Log: []string{"edited"}}, "", graph.Thread("t"))
	require.NoError(t, err)

	out, err = app.Invoke(bg, S{}, graph.Thread("t"), graph.Continue())
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "after", ie.Interrupts[0].When)
	assert.Equal(t, []string{"a", "edited", "b"}, out.Log)

	out, err = app.Invoke(bg, S{}, graph.Thread("t"), graph.Resume(nil))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "edited", "b", "c"}, out.Log)

	noCP, err := g.Compile(graph.InterruptBefore("b"))
	require.NoError(t, err)
	_, err = noCP.Invoke(bg, S{})
	require.ErrorIs(t, err, graph.ErrNoCheckpointer)
}

// LangGraph: when a node fails in a super-step, the writes of the nodes that
// succeeded are kept as pending writes, so resuming does not re-run them.
func TestPendingWritesOnFailure(t *testing.T) {
	var okRuns, flakyRuns atomic.Int32
	fail := atomic.Bool{}
	fail.Store(true)
	g := newG()
	g.AddNode("ok", func(ctx context.Context, s S) (S, error) {
		okRuns.Add(1)
		return S{Log: []string{"ok"}, Note: "ok-note"}, nil
	})
	g.AddCommandNode("router", func(ctx context.Context, s S) (graph.Command[S], error) {
		return graph.Command[S]{Update: S{Log: []string{"router"}}, Goto: []string{"after"},
			Sends:     []graph.Send[S]{{Node: "after", Arg: S{Note: "sent"}}},
			Overwrite: []graph.Write[S]{graph.Set(func(s *S) *int { return &s.Count }, 0)}}, nil
	})
	g.AddNode("flaky", func(ctx context.Context, s S) (S, error) {
		flakyRuns.Add(1)
		if fail.Load() {
			return S{}, errors.New("down")
		}
		return S{Log: []string{"flaky"}}, nil
	})
	g.AddNode("after", func(ctx context.Context, s S) (S, error) { return S{Log: []string{"after:" + s.Note}}, nil })
	g.AddEdge(graph.Start, "ok").AddEdge(graph.Start, "flaky").AddEdge(graph.Start, "router")
	cp := checkpoint.NewMemory()
	app, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)

	_, err = app.Invoke(bg, S{Count: 9}, graph.Thread("t"))
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, "flaky", ne.Node)
	assert.NotEmpty(t, ne.TaskID)

	fail.Store(false)
	out, err := app.Invoke(bg, S{}, graph.Thread("t"), graph.Continue())
	require.NoError(t, err)
	assert.Equal(t, []string{"flaky", "ok", "router", "after:ok-note", "after:sent"}, out.Log)
	assert.Equal(t, 0, out.Count, "the pending overwrite is replayed")
	assert.Equal(t, int32(1), okRuns.Load(), "finished task not re-run")
	assert.Equal(t, int32(2), flakyRuns.Load())
}

func TestHistoryForkAndReplay(t *testing.T) {
	var cRuns atomic.Int32
	g := newG()
	g.AddNode("a", func(ctx context.Context, s S) (S, error) { return S{Count: s.Count + 1, Log: []string{"a"}}, nil })
	g.AddNode("b", func(ctx context.Context, s S) (S, error) { return S{Count: s.Count * 10, Log: []string{"b"}}, nil })
	g.AddNode("c", func(ctx context.Context, s S) (S, error) {
		cRuns.Add(1)
		return S{Log: []string{"c"}}, nil
	})
	g.AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	out, err := app.Invoke(bg, S{Count: 1}, graph.Thread("t"), graph.Metadata(map[string]string{"run": "1"}))
	require.NoError(t, err)
	assert.Equal(t, 20, out.Count)

	hist, err := app.History(bg, graph.ListOptions{}, graph.Thread("t"))
	require.NoError(t, err)
	require.Len(t, hist, 4)
	var steps []int
	var sources []graph.Source
	for _, h := range hist {
		steps = append(steps, h.Step)
		sources = append(sources, h.Source)
		assert.Equal(t, "1", h.Metadata["run"])
	}
	assert.Equal(t, []int{2, 1, 0, -1}, steps)
	assert.Equal(t, []graph.Source{graph.SourceLoop, graph.SourceLoop, graph.SourceLoop, graph.SourceInput}, sources)
	assert.Equal(t, hist[1].CheckpointID, hist[0].ParentID)
	afterA := hist[2] // after step 0 (node a)
	assert.Equal(t, 2, afterA.Values.Count)
	assert.Equal(t, []string{"b"}, afterA.Next)
	require.NotEmpty(t, afterA.Writes)
	assert.Equal(t, "a", afterA.Writes[0].Node)

	limited, err := app.History(bg, graph.ListOptions{Limit: 2}, graph.Thread("t"))
	require.NoError(t, err)
	assert.Len(t, limited, 2)

	// Replay from after a: b and c run again on the old state.
	out, err = app.Invoke(bg, S{}, graph.Thread("t"), graph.CheckpointID(afterA.CheckpointID), graph.Continue())
	require.NoError(t, err)
	assert.Equal(t, 20, out.Count)
	assert.Equal(t, []string{"a", "b", "c"}, out.Log)
	assert.Equal(t, int32(2), cRuns.Load())

	// Fork: rewrite the state after a as node a, then continue.
	forkID, err := app.UpdateState(bg, S{Count: 5}, "a", graph.Thread("t"), graph.CheckpointID(afterA.CheckpointID))
	require.NoError(t, err)
	snap, err := app.GetState(bg, graph.Thread("t"))
	require.NoError(t, err)
	assert.Equal(t, forkID, snap.CheckpointID)
	assert.Equal(t, afterA.CheckpointID, snap.ParentID)
	assert.Equal(t, graph.SourceUpdate, snap.Source)
	assert.Equal(t, "a", snap.Metadata["as_node"])
	assert.Equal(t, []string{"b"}, snap.Next)
	out, err = app.Invoke(bg, S{}, graph.Thread("t"), graph.Continue())
	require.NoError(t, err)
	assert.Equal(t, 50, out.Count)

	old, err := app.GetState(bg, graph.Thread("t"), graph.CheckpointID(afterA.CheckpointID))
	require.NoError(t, err)
	assert.Equal(t, 2, old.Values.Count, "checkpoints are immutable")

	_, err = app.GetState(bg, graph.Thread("t"), graph.CheckpointID("ffffffffffffffff"))
	require.ErrorIs(t, err, graph.ErrCheckpointNotFound)
	_, err = app.UpdateState(bg, S{}, "nope", graph.Thread("t"))
	require.ErrorIs(t, err, graph.ErrInvalidRoute)
	_, err = app.Invoke(bg, S{}, graph.Thread("nobody"), graph.Continue())
	require.ErrorIs(t, err, graph.ErrCheckpointNotFound)
}

func TestUpdateStateWithCommandAndRouter(t *testing.T) {
	g := newG()
	g.AddNode("a", logNode("a")).AddNode("b", logNode("b")).AddNode("c", logNode("c"))
	g.AddEdge(graph.Start, "a")
	g.AddConditionalEdges("a", graph.Branch(func(ctx context.Context, s S) (string, error) {
		if s.Note == "go c" {
			return "c", nil
		}
		return "b", nil
	}), "b", "c")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()), graph.InterruptBefore("b", "c"))
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{Count: 3}, graph.Thread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)

	_, err = app.UpdateState(bg, S{Note: "go c"}, "a", graph.Thread("t"))
	require.NoError(t, err)
	snap, err := app.GetState(bg, graph.Thread("t"))
	require.NoError(t, err)
	assert.Equal(t, []string{"c"}, snap.Next, "the router runs on the updated state")

	_, err = app.UpdateStateWith(bg, graph.Command[S]{
		Overwrite: []graph.Write[S]{graph.Set(func(s *S) *int { return &s.Count }, 0)},
		Goto:      []string{"b"},
	}, "", graph.Thread("t"))
	require.NoError(t, err)
	snap, err = app.GetState(bg, graph.Thread("t"))
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "c"}, snap.Next)
	assert.Equal(t, 0, snap.Values.Count)

	out, err := app.Invoke(bg, S{}, graph.Thread("t"), graph.Continue())
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, out.Log)
}

func TestCancellationStopsPromptlyAndResumes(t *testing.T) {
	release := make(chan struct{})
	var slowRuns atomic.Int32
	g := newG()
	g.AddNode("fast", logNode("fast"))
	g.AddNode("slow", func(ctx context.Context, s S) (S, error) {
		if slowRuns.Add(1) == 1 {
			<-release // ignores ctx on purpose
		}
		return S{Log: []string{"slow"}}, nil
	})
	g.AddNode("next", logNode("next"))
	g.AddEdge(graph.Start, "fast").AddEdge(graph.Start, "slow").AddEdge("slow", "next")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(bg)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err = app.Invoke(ctx, S{}, graph.Thread("t"))
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 2*time.Second)
	close(release)

	snap, err := app.GetState(bg, graph.Thread("t"))
	require.NoError(t, err)
	assert.Equal(t, []string{"slow"}, snap.Next, "fast finished: its writes are stored")
	assert.Equal(t, []string{"fast"}, snap.Values.Log)
	out, err := app.Invoke(bg, S{}, graph.Thread("t"), graph.Continue())
	require.NoError(t, err)
	assert.Equal(t, []string{"fast", "slow", "next"}, out.Log)
}

func TestCancelledBeforeStart(t *testing.T) {
	g := newG().AddNode("a", logNode("a")).AddEdge(graph.Start, "a")
	app, err := g.Compile()
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	_, err = app.Invoke(ctx, S{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestChannelVersionsAndEncodingReuse(t *testing.T) {
	g := newG()
	g.AddNode("a", func(ctx context.Context, s S) (S, error) { return S{Log: []string{"a"}}, nil })
	g.AddNode("b", func(ctx context.Context, s S) (S, error) { return S{Log: []string{"b"}}, nil })
	g.AddEdge(graph.Start, "a").AddEdge("a", "b")
	cp := checkpoint.NewMemory()
	app, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{Note: "n", Count: 1}, graph.Thread("t"))
	require.NoError(t, err)
	cps, err := cp.List(bg, "t", "", graph.ListOptions{})
	require.NoError(t, err)
	require.Len(t, cps, 3)
	last, first := cps[0], cps[2]
	assert.Equal(t, int64(1), last.Versions["Note"], "Note written once, by the input")
	assert.Equal(t, int64(2), last.Versions["Log"], "Log written by a and b")
	assert.Equal(t, `"n"`, string(last.Values["Note"]))
	assert.Equal(t, `["a","b"]`, string(last.Values["Log"]))
	assert.Equal(t, "json", last.Format)
	assert.Contains(t, last.StateType, "graph_test.S")
	assert.NotContains(t, first.Values, "Log", "unwritten channels are not stored")
	assert.NotContains(t, first.Values, "Tags")
}

type upperJSON struct{ graph.JSON }

func (upperJSON) Format() string { return "json-upper" }

func TestPluggableSerializer(t *testing.T) {
	g := newG().AddNode("a", logNode("a")).AddEdge(graph.Start, "a")
	cp := checkpoint.NewMemory()
	app, err := g.Compile(graph.WithCheckpointer(cp), graph.WithSerializer(upperJSON{}))
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{}, graph.Thread("t"))
	require.NoError(t, err)
	c, _, err := cp.Get(bg, "t", "", "")
	require.NoError(t, err)
	assert.Equal(t, "json-upper", c.Format)
	// A graph with another serializer refuses to read it.
	plain, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	_, err = plain.GetState(bg, graph.Thread("t"))
	require.ErrorContains(t, err, "json-upper")
}

func TestCorruptCheckpointIsAnError(t *testing.T) {
	g := newG().AddNode("a", logNode("a")).AddEdge(graph.Start, "a")
	cp := checkpoint.NewMemory()
	app, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	require.NoError(t, cp.Put(bg, &graph.Checkpoint{ThreadID: "t", ID: "0000000000000001", Step: 0, Format: "json",
		Values: map[string][]byte{"Count": []byte(`"not a number"`)}, Versions: map[string]int64{"Count": 1}}))
	_, err = app.GetState(bg, graph.Thread("t"))
	require.ErrorContains(t, err, "decode channel Count")
	_, err = app.Invoke(bg, S{}, graph.Thread("t"))
	require.ErrorContains(t, err, "decode channel Count")
	require.NoError(t, cp.Put(bg, &graph.Checkpoint{ThreadID: "u", ID: "0000000000000001", Step: 0, Format: "json",
		Next: []graph.TaskRef{{ID: "x", Node: "gone"}}}))
	_, err = app.Invoke(bg, S{}, graph.Thread("u"), graph.Continue())
	require.ErrorContains(t, err, `unknown node "gone"`)
}

package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func chainApp(t *testing.T, opts ...graph.CompileOption) *graph.CompiledGraph[S] {
	g := newG()
	g.AddNode("a", func(ctx context.Context, s S) (S, error) {
		graph.Emit(ctx, "a-progress")
		return S{Log: []string{"a"}}, nil
	})
	g.AddNode("b", func(ctx context.Context, s S) (S, error) {
		graph.StreamWriter(ctx)(map[string]int{"b": 1})
		return S{Log: []string{"b"}}, nil
	})
	g.AddNode("c", func(ctx context.Context, s S) (S, error) {
		graph.Emit(ctx, "c-progress")
		return S{Log: []string{"c"}}, nil
	})
	g.AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("a", "c")
	app, err := g.Compile(opts...)
	require.NoError(t, err)
	return app
}

func TestStreamModes(t *testing.T) {
	app := chainApp(t)
	type row struct {
		mode graph.Mode
		step int
		node string
		log  []string
	}
	evs, err := graph.Drain(app.Stream(bg, S{Log: []string{"in"}}, graph.Modes(graph.Values, graph.Updates)))
	require.NoError(t, err)
	var got []row
	for _, e := range evs {
		got = append(got, row{e.Mode, e.Step, e.Node, e.State.Log})
	}
	// b and c run in parallel: their Updates come as each finishes.
	require.Len(t, got, 6)
	if got[3].node == "c" {
		got[3], got[4] = got[4], got[3]
	}
	assert.Equal(t, []row{
		{graph.Values, -1, "", []string{"in"}},
		{graph.Updates, 0, "a", []string{"a"}},
		{graph.Values, 0, "", []string{"in", "a"}},
		{graph.Updates, 1, "b", []string{"b"}},
		{graph.Updates, 1, "c", []string{"c"}},
		{graph.Values, 1, "", []string{"in", "a", "b", "c"}},
	}, got)

	// Default mode is Values.
	evs, err = graph.Drain(app.Stream(bg, S{}))
	require.NoError(t, err)
	require.Len(t, evs, 3)
	for _, e := range evs {
		assert.Equal(t, graph.Values, e.Mode)
	}
}

func TestStreamCustomAndDebug(t *testing.T) {
	app := chainApp(t, graph.WithCheckpointer(checkpoint.NewMemory()))
	evs, err := graph.Drain(app.Stream(bg, S{}, graph.Thread("t"), graph.Modes(graph.Custom)))
	require.NoError(t, err)
	var custom []any
	for _, e := range evs {
		require.Equal(t, graph.Custom, e.Mode)
		custom = append(custom, e.Custom)
	}
	require.Len(t, custom, 3)
	assert.Equal(t, "a-progress", custom[0])
	assert.ElementsMatch(t, []any{map[string]int{"b": 1}, "c-progress"}, custom[1:])

	evs, err = graph.Drain(app.Stream(bg, S{}, graph.Thread("t2"), graph.Modes(graph.Debug)))
	require.NoError(t, err)
	kinds := map[graph.DebugKind]int{}
	for _, e := range evs {
		require.NotNil(t, e.Debug)
		kinds[e.Debug.Kind]++
	}
	assert.Equal(t, map[graph.DebugKind]int{graph.DebugTask: 3, graph.DebugTaskResult: 3, graph.DebugCheckpoint: 3}, kinds)
	assert.Equal(t, "debug", graph.Debug.String())
	assert.Equal(t, "values|custom", (graph.Values | graph.Custom).String())
	assert.Equal(t, "none", graph.Mode(0).String())
}

func TestStreamEndsWithErrorAndBreakStops(t *testing.T) {
	g := newG()
	g.AddNode("a", logNode("a"))
	g.AddNode("ask", func(ctx context.Context, s S) (S, error) {
		_, err := graph.Interrupt(ctx, "?")
		return S{}, err
	})
	g.AddEdge(graph.Start, "a").AddEdge("a", "ask")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	var last error
	n := 0
	for ev, err := range app.Stream(bg, S{}, graph.Thread("t")) {
		if err != nil {
			last = err
			assert.Equal(t, graph.Event[S]{}, ev)
			continue
		}
		n++
	}
	assert.Equal(t, 2, n)
	assert.ErrorIs(t, last, graph.ErrInterrupted)

	// Breaking out after the first event stops the run; the thread resumes.
	loop := newG()
	loop.AddNode("inc", func(ctx context.Context, s S) (S, error) { return S{Count: s.Count + 1}, nil })
	loop.AddEdge(graph.Start, "inc").AddEdge("inc", "inc")
	lapp, err := loop.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	seen := 0
	for _, err := range lapp.Stream(bg, S{}, graph.Thread("l")) {
		require.NoError(t, err)
		seen++
		if seen == 3 {
			break
		}
	}
	assert.Equal(t, 3, seen)
	snap, err := lapp.GetState(bg, graph.Thread("l"))
	require.NoError(t, err)
	assert.Equal(t, []string{"inc"}, snap.Next)
	out, err := lapp.Invoke(bg, S{}, graph.Thread("l"), graph.Continue(), graph.RecursionLimit(5))
	require.ErrorIs(t, err, graph.ErrRecursionLimit)
	assert.Greater(t, out.Count, snap.Values.Count)
}

func TestObservers(t *testing.T) {
	var mu sync.Mutex
	var compiled, perRun []graph.Mode
	app := chainApp(t, graph.WithObserver(func(e graph.Event[S]) {
		mu.Lock()
		compiled = append(compiled, e.Mode)
		mu.Unlock()
	}))
	// Invoke, not Stream: observers still see every mode.
	_, err := app.Invoke(bg, S{}, graph.Observe(func(e graph.Event[S]) { perRun = append(perRun, e.Mode) }))
	require.NoError(t, err)
	count := func(ms []graph.Mode, m graph.Mode) int {
		n := 0
		for _, x := range ms {
			if x == m {
				n++
			}
		}
		return n
	}
	for _, ms := range [][]graph.Mode{compiled, perRun} {
		assert.Equal(t, 3, count(ms, graph.Values))
		assert.Equal(t, 3, count(ms, graph.Updates))
		assert.Equal(t, 3, count(ms, graph.Custom))
		assert.Equal(t, 6, count(ms, graph.Debug))
	}
	// Stream with a mode filter: the observer still sees everything.
	compiled = nil
	evs, err := graph.Drain(app.Stream(bg, S{}, graph.Modes(graph.Updates)))
	require.NoError(t, err)
	assert.Len(t, evs, 3)
	assert.Len(t, compiled, 15)

	_, err = app.Invoke(bg, S{}, graph.Observe(func(graph.Event[int]) {}))
	require.ErrorContains(t, err, "does not observe")
	_, err = graph.Drain(app.Stream(bg, S{}, graph.Observe(func(graph.Event[int]) {})))
	require.ErrorContains(t, err, "does not observe")
}

func TestStoreAndTaskInfoFromContext(t *testing.T) {
	st := memory.NewInMemoryStore()
	g := newG()
	g.AddNode("remember", func(ctx context.Context, s S) (S, error) {
		store := graph.StoreFrom(ctx)
		if store == nil {
			return S{}, errors.New("no store")
		}
		info, ok := graph.TaskInfoFrom(ctx)
		if !ok {
			return S{}, errors.New("no task info")
		}
		if err := graph.PutJSON(ctx, store, []string{"users", info.ThreadID}, "fact", map[string]string{"node": info.Node}, nil); err != nil {
			return S{}, err
		}
		got, err := graph.GetJSON[map[string]string](ctx, store, []string{"users", info.ThreadID}, "fact")
		if err != nil {
			return S{}, err
		}
		return S{Note: got["node"] + "@" + info.ThreadID, Count: info.Step}, nil
	})
	g.AddEdge(graph.Start, "remember")
	app, err := g.Compile(graph.WithStore(st), graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	out, err := app.Invoke(bg, S{}, graph.Thread("u1"))
	require.NoError(t, err)
	assert.Equal(t, "remember@u1", out.Note)
	it, err := st.Get(bg, []string{"users", "u1"}, "fact")
	require.NoError(t, err)
	var v map[string]string
	require.NoError(t, json.Unmarshal(it.Value, &v))
	assert.Equal(t, "remember", v["node"])

	assert.Nil(t, graph.StoreFrom(bg))
	_, ok := graph.TaskInfoFrom(bg)
	assert.False(t, ok)
	graph.Emit(bg, "nobody listens") // no panic outside a run
}

type Child struct {
	Query   string
	Answers []string
}

func TestSubgraph(t *testing.T) {
	cg := graph.New[Child](graph.Reducer(func(c *Child) *[]string { return &c.Answers }, state.Append))
	cg.AddNode("search", func(ctx context.Context, c Child) (Child, error) {
		graph.Emit(ctx, "child searching")
		return Child{Answers: []string{"found " + c.Query}}, nil
	})
	cg.AddNode("check", func(ctx context.Context, c Child) (Child, error) {
		v, err := graph.Interrupt(ctx, "ok to use "+c.Answers[0]+"?")
		if err != nil {
			return Child{}, err
		}
		return Child{Answers: []string{"checked:" + v.(string)}}, nil
	})
	cg.AddEdge(graph.Start, "search").AddEdge("search", "check")
	child, err := cg.Compile()
	require.NoError(t, err)

	var childRuns int
	g := newG()
	g.AddNode("prep", func(ctx context.Context, s S) (S, error) { return S{Note: "golang"}, nil })
	g.AddNode("research", graph.Subgraph(child,
		func(s S) Child { childRuns++; return Child{Query: s.Note} },
		func(c Child) S { return S{Log: c.Answers} }))
	g.AddEdge(graph.Start, "prep").AddEdge("prep", "research")
	cp := checkpoint.NewMemory()
	app, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)

	var custom []any
	var last error
	for ev, err := range app.Stream(bg, S{}, graph.Thread("t"), graph.Modes(graph.Custom)) {
		if err != nil {
			last = err
			break
		}
		custom = append(custom, ev.Custom)
	}
	var ie *graph.InterruptError
	require.ErrorAs(t, last, &ie)
	assert.Equal(t, "ok to use found golang?", ie.Interrupts[0].Value)
	assert.Equal(t, "research", ie.Interrupts[0].Node)
	assert.Equal(t, []any{"child searching"}, custom, "child custom events reach the parent stream")

	_, err = child.GetState(bg, graph.Thread("t"), graph.Namespace("research"))
	require.ErrorIs(t, err, graph.ErrNoCheckpointer, "the child graph itself has no checkpointer")
	inspect, err := cg.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	childSnap, err := inspect.GetState(bg, graph.Thread("t"), graph.Namespace("research"))
	require.NoError(t, err)
	assert.Equal(t, "research", childSnap.NS)
	assert.Equal(t, []string{"check"}, childSnap.Next)
	assert.Equal(t, []string{"found golang"}, childSnap.Values.Answers)
	require.Len(t, childSnap.Interrupts, 1)
	assert.Equal(t, "ok to use found golang?", childSnap.Interrupts[0].Value)
	cps, err := cp.List(bg, "t", "research", graph.ListOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, cps, "the child checkpoints in its own namespace")

	out, err := app.Invoke(bg, S{}, graph.Thread("t"), graph.Resume("yes"))
	require.NoError(t, err)
	assert.Equal(t, []string{"found golang", "checked:yes"}, out.Log)
	assert.Equal(t, 2, childRuns, "the parent node re-runs; the child continues from its checkpoint")

	// Same-type subgraph without mappings, and without a checkpointer.
	sg := newG().AddNode("inner", logNode("inner")).AddEdge(graph.Start, "inner")
	inner, err := sg.Compile()
	require.NoError(t, err)
	pg := graph.New[S]().AddNode("sub", graph.Subgraph[S, S](inner, nil, nil)).AddEdge(graph.Start, "sub")
	papp, err := pg.Compile()
	require.NoError(t, err)
	out, err = papp.Invoke(bg, S{Count: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"inner"}, out.Log)
	assert.Equal(t, 2, out.Count)

	// Mismatched types need mappings; a nil child is an error.
	bad := graph.New[S]().AddNode("sub", graph.Subgraph[S, Child](child, nil, nil)).AddEdge(graph.Start, "sub")
	bapp, err := bad.Compile()
	require.NoError(t, err)
	_, err = bapp.Invoke(bg, S{})
	require.ErrorContains(t, err, "no input mapping")
	nilChild := graph.New[S]().AddNode("sub", graph.Subgraph[S, S](nil, nil, nil)).AddEdge(graph.Start, "sub")
	napp, err := nilChild.Compile()
	require.NoError(t, err)
	_, err = napp.Invoke(bg, S{})
	require.ErrorContains(t, err, "nil child")
}

func TestSubgraphSendsAndFailureContinue(t *testing.T) {
	var failOnce atomic.Bool
	failOnce.Store(true)
	var searches atomic.Int32
	cg := graph.New[Child](graph.Reducer(func(c *Child) *[]string { return &c.Answers }, state.Append))
	cg.AddNode("search", func(ctx context.Context, c Child) (Child, error) {
		searches.Add(1)
		return Child{Answers: []string{"found " + c.Query}}, nil
	})
	// b fails only after a's child has finished, so the failure (which
	// cancels the step's other tasks) cannot cut a short.
	aDone := make(chan struct{})
	var closeA sync.Once
	cg.AddNode("flaky", func(ctx context.Context, c Child) (Child, error) {
		if c.Query == "b" && failOnce.Swap(false) {
			select {
			case <-aDone:
				time.Sleep(100 * time.Millisecond) // let a's child commit and return
			case <-time.After(10 * time.Second):
			}
			return Child{}, errors.New("flaky")
		}
		if c.Query == "a" {
			defer closeA.Do(func() { close(aDone) })
		}
		return Child{Answers: []string{"ok " + c.Query}}, nil
	})
	cg.AddEdge(graph.Start, "search").AddEdge("search", "flaky")
	child, err := cg.Compile()
	require.NoError(t, err)

	g := newG()
	g.AddNode("plan", logNode("plan"))
	g.AddNode("sub", graph.Subgraph(child, func(s S) Child { return Child{Query: s.Note} }, func(c Child) S { return S{Log: c.Answers} }))
	g.AddEdge(graph.Start, "plan")
	g.AddConditionalEdges("plan", graph.FanOut(func(ctx context.Context, s S) ([]graph.Send[S], error) {
		return []graph.Send[S]{{Node: "sub", Arg: S{Note: "a"}}, {Node: "sub", Arg: S{Note: "b"}}}, nil
	}), "sub")
	cp := checkpoint.NewMemory()
	app, err := g.Compile(graph.WithCheckpointer(cp))
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{}, graph.Thread("t"))
	require.ErrorContains(t, err, "flaky")
	for _, ns := range []string{"sub#0", "sub#1"} {
		cps, err := cp.List(bg, "t", ns, graph.ListOptions{})
		require.NoError(t, err)
		assert.NotEmpty(t, cps, ns)
	}
	out, err := app.Invoke(bg, S{}, graph.Thread("t"), graph.Continue())
	require.NoError(t, err)
	assert.Equal(t, []string{"plan", "found a", "ok a", "found b", "ok b"}, out.Log)
	assert.Equal(t, int32(2), searches.Load(), "the failed child continues from its checkpoint; the finished one is not re-run")
}

// TestUpdatesStreamAsTasksFinish: a fast task's Updates (and Debug result)
// event arrives while its slow sibling still runs; Values waits for the
// barrier and keeps the deterministic order.
func TestUpdatesStreamAsTasksFinish(t *testing.T) {
	for _, withCP := range []bool{false, true} {
		t.Run(fmt.Sprintf("checkpointer=%v", withCP), func(t *testing.T) {
			fastSeen := make(chan struct{})
			g := newG()
			g.AddNode("fast", logNode("fast"))
			g.AddNode("slow", func(ctx context.Context, s S) (S, error) {
				select {
				case <-fastSeen:
					return S{Log: []string{"slow"}}, nil
				case <-time.After(10 * time.Second):
					return S{}, errors.New("fast's update did not arrive while slow ran")
				}
			})
			g.AddEdge(graph.Start, "fast").AddEdge(graph.Start, "slow")
			var opts []graph.CompileOption
			var run []graph.RunOption
			if withCP {
				opts = append(opts, graph.WithCheckpointer(checkpoint.NewMemory()))
				run = append(run, graph.Thread("t"))
			}
			app, err := g.Compile(opts...)
			require.NoError(t, err)
			var order []string
			for ev, err := range app.Stream(bg, S{}, append(run, graph.Modes(graph.Updates, graph.Values, graph.Debug))...) {
				require.NoError(t, err)
				switch {
				case ev.Mode == graph.Updates:
					order = append(order, "update:"+ev.Node)
					if ev.Node == "fast" {
						close(fastSeen)
					}
				case ev.Mode == graph.Debug && ev.Debug.Kind == graph.DebugTaskResult:
					order = append(order, "result:"+ev.Node)
				case ev.Mode == graph.Values && ev.Step == 0:
					order = append(order, "values")
					assert.Equal(t, []string{"fast", "slow"}, ev.State.Log, "barrier order, not finish order")
				}
			}
			assert.Equal(t, []string{"result:fast", "update:fast", "result:slow", "update:slow", "values"}, order)
		})
	}
}

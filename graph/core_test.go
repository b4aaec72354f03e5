package graph_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// S is the test state: a counter without reducer, a log with append, a
// last-value string and a map merged by key.
type S struct {
	Count int
	Log   []string
	Note  string
	Tags  map[string]string
	Total int
}

func newG() *graph.StateGraph[S] {
	return graph.New[S](
		graph.Reducer(func(s *S) *[]string { return &s.Log }, state.Append),
		graph.Reducer(func(s *S) *map[string]string { return &s.Tags }, state.MergeMap),
		graph.Reducer(func(s *S) *int { return &s.Total }, state.Sum),
	)
}

func logNode(name string) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (S, error) {
		return S{Log: []string{name}}, nil
	}
}

// jitterNode sleeps a little so parallel tasks finish in random order.
func jitterNode(name string) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (S, error) {
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
		return S{Log: []string{name}}, nil
	}
}

func TestChainAndReducers(t *testing.T) {
	g := newG()
	for i, n := range []string{"a", "b", "c"} {
		g.AddNode(n, func(ctx context.Context, s S) (S, error) {
			return S{Count: s.Count + 1, Log: []string{n}, Tags: map[string]string{"last": n, n: fmt.Sprint(i)}, Total: 10}, nil
		})
	}
	g.AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", graph.End)
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), S{Log: []string{"in"}, Total: 1})
	require.NoError(t, err)
	assert.Equal(t, 3, out.Count)
	assert.Equal(t, []string{"in", "a", "b", "c"}, out.Log)
	assert.Equal(t, map[string]string{"last": "c", "a": "0", "b": "1", "c": "2"}, out.Tags)
	assert.Equal(t, 31, out.Total)
	assert.Equal(t, []string{"a", "b", "c"}, app.Nodes())
}

// LangGraph: all tasks of a super-step read the state of the step's start;
// writes are applied at the barrier in a deterministic order.
func TestParallelStepReadsStepStartAndAppliesInNameOrder(t *testing.T) {
	for run := 0; run < 20; run++ {
		g := newG()
		var seen [3]int
		for i, n := range []string{"c", "a", "b"} {
			g.AddNode(n, func(ctx context.Context, s S) (S, error) {
				seen[i] = len(s.Log)
				time.Sleep(time.Duration(rand.IntN(2)) * time.Millisecond)
				return S{Log: []string{n}, Total: 1}, nil
			})
			g.AddEdge(graph.Start, n)
		}
		g.AddNode("join", func(ctx context.Context, s S) (S, error) {
			return S{Log: []string{fmt.Sprintf("join saw %d", len(s.Log))}}, nil
		})
		g.AddEdge("a", "join").AddEdge("b", "join").AddEdge("c", "join")
		app, err := g.Compile()
		require.NoError(t, err)
		out, err := app.Invoke(context.Background(), S{Log: []string{"in"}})
		require.NoError(t, err)
		assert.Equal(t, []string{"in", "a", "b", "c", "join saw 4"}, out.Log, "join runs once, after all three")
		assert.Equal(t, [3]int{1, 1, 1}, seen, "siblings see only the step-start state")
		assert.Equal(t, 3, out.Total)
	}
}

func TestConflictingWritesWithoutReducer(t *testing.T) {
	g := newG()
	g.AddNode("x", func(ctx context.Context, s S) (S, error) { return S{Note: "x"}, nil })
	g.AddNode("y", func(ctx context.Context, s S) (S, error) { return S{Note: "y"}, nil })
	g.AddNode("z", logNode("z"))
	g.AddEdge(graph.Start, "x").AddEdge(graph.Start, "y").AddEdge(graph.Start, "z")
	app, err := g.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), S{})
	var iu *graph.InvalidUpdateError
	require.ErrorAs(t, err, &iu)
	assert.Equal(t, "Note", iu.Field)
	assert.Equal(t, []string{"x", "y"}, iu.Nodes)
	assert.Equal(t, 0, iu.Step)
	assert.False(t, iu.Static)
	assert.Contains(t, err.Error(), `"Note"`)
}

func TestConflictCaughtAtCompileFromShape(t *testing.T) {
	g := newG()
	g.AddNode("x", logNode("x"), graph.Writes("Note"))
	g.AddNode("y", logNode("y"), graph.Writes("Note", "Log"))
	g.AddEdge(graph.Start, "x").AddEdge(graph.Start, "y")
	_, err := g.Compile()
	var iu *graph.InvalidUpdateError
	require.ErrorAs(t, err, &iu)
	assert.True(t, iu.Static)
	assert.Equal(t, "Note", iu.Field)
	assert.ElementsMatch(t, []string{"x", "y"}, iu.Nodes)

	// Log has a reducer: two declared writers are fine.
	g2 := newG()
	g2.AddNode("x", logNode("x"), graph.Writes("Log"))
	g2.AddNode("y", logNode("y"), graph.Writes("Log"))
	g2.AddEdge(graph.Start, "x").AddEdge(graph.Start, "y")
	_, err = g2.Compile()
	require.NoError(t, err)
}

func TestJoinWaitsForSourcesInDifferentSteps(t *testing.T) {
	g := newG()
	var joins atomic.Int32
	g.AddNode("a", logNode("a"))
	g.AddNode("a2", logNode("a2"))
	g.AddNode("b", logNode("b"))
	g.AddNode("j", func(ctx context.Context, s S) (S, error) {
		joins.Add(1)
		return S{Log: []string{"j"}}, nil
	})
	g.AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").AddEdge("a", "a2")
	g.AddJoin([]string{"a2", "b"}, "j")
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), S{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "a2", "j"}, out.Log)
	assert.Equal(t, int32(1), joins.Load())
}

func TestPlainEdgesFromDifferentStepsRunTargetEachTime(t *testing.T) {
	// Without a join, an edge fires its target in the next step each time.
	g := newG()
	g.AddNode("a", logNode("a")).AddNode("a2", logNode("a2")).AddNode("b", logNode("b")).AddNode("j", logNode("j"))
	g.AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").AddEdge("a", "a2").AddEdge("a2", "j").AddEdge("b", "j")
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), S{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "a2", "j", "j"}, out.Log)
}

func TestSendMapReduce(t *testing.T) {
	type MR struct {
		Topics  []string
		Subject string
		Jokes   []string
	}
	g := graph.New[MR](graph.Reducer(func(s *MR) *[]string { return &s.Jokes }, state.Append))
	g.AddNode("plan", func(ctx context.Context, s MR) (MR, error) {
		return MR{Topics: []string{"cats", "dogs", "owls", "bees"}}, nil
	})
	g.AddNode("joke", func(ctx context.Context, s MR) (MR, error) {
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
		require.Empty(t, s.Topics, "a Send task gets its own input, not the graph state")
		return MR{Jokes: []string{"joke about " + s.Subject}}, nil
	})
	g.AddNode("best", func(ctx context.Context, s MR) (MR, error) {
		return MR{Subject: fmt.Sprintf("%d jokes", len(s.Jokes))}, nil
	})
	g.AddEdge(graph.Start, "plan")
	g.AddConditionalEdges("plan", graph.FanOut(func(ctx context.Context, s MR) ([]graph.Send[MR], error) {
		var out []graph.Send[MR]
		for _, t := range s.Topics {
			out = append(out, graph.Send[MR]{Node: "joke", Arg: MR{Subject: t}})
		}
		return out, nil
	}), "joke")
	g.AddEdge("joke", "best")
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), MR{})
	require.NoError(t, err)
	assert.Equal(t, []string{"joke about cats", "joke about dogs", "joke about owls", "joke about bees"}, out.Jokes, "Send results in Send order")
	assert.Equal(t, "4 jokes", out.Subject)
}

// LangGraph: a branch function sees the state with its own node's writes but
// not those of sibling nodes in the same step.
func TestRouterSeesOwnWritesNotSiblings(t *testing.T) {
	g := newG()
	var routed []string
	g.AddNode("a", func(ctx context.Context, s S) (S, error) { return S{Log: []string{"a"}, Note: "from a"}, nil })
	g.AddNode("b", func(ctx context.Context, s S) (S, error) { return S{Log: []string{"b"}}, nil })
	g.AddNode("c", logNode("c"))
	g.AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
	g.AddConditionalEdges("a", graph.Branch(func(ctx context.Context, s S) (string, error) {
		routed = slices.Clone(s.Log)
		routed = append(routed, s.Note)
		return "c", nil
	}), "c", graph.End)
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), S{Log: []string{"in"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"in", "a", "from a"}, routed)
	assert.Equal(t, []string{"in", "a", "b", "c"}, out.Log)
}

func TestBranchesAndRouteTargets(t *testing.T) {
	build := func(route graph.Router[S], targets ...string) *graph.CompiledGraph[S] {
		g := newG()
		g.AddNode("r", logNode("r")).AddNode("x", logNode("x")).AddNode("y", logNode("y"))
		g.AddEdge(graph.Start, "r")
		if len(targets) == 1 {
			g.AddEdge("x", "y") // keep y reachable when only x is a target
		}
		g.AddConditionalEdges("r", route, targets...)
		app, err := g.Compile()
		require.NoError(t, err)
		return app
	}
	tests := []struct {
		name    string
		route   graph.Router[S]
		targets []string
		want    []string
		wantErr error
	}{
		{"two branches", graph.Branches(func(ctx context.Context, s S) ([]string, error) { return []string{"y", "x"}, nil }), []string{"x", "y"}, []string{"r", "x", "y"}, nil},
		{"end", graph.Branch(func(ctx context.Context, s S) (string, error) { return graph.End, nil }), []string{"x", "y", graph.End}, []string{"r"}, nil},
		{"outside targets", graph.Branch(func(ctx context.Context, s S) (string, error) { return "y", nil }), []string{"x"}, nil, graph.ErrInvalidRoute},
		{"unknown node", graph.Branch(func(ctx context.Context, s S) (string, error) { return "nope", nil }), nil, nil, graph.ErrInvalidRoute},
		{"router error", graph.Branch(func(ctx context.Context, s S) (string, error) { return "", errors.New("boom") }), nil, nil, nil},
		{"send outside targets", graph.FanOut(func(ctx context.Context, s S) ([]graph.Send[S], error) {
			return []graph.Send[S]{{Node: "y"}}, nil
		}), []string{"x"}, nil, graph.ErrInvalidRoute},
		{"send unknown", graph.FanOut(func(ctx context.Context, s S) ([]graph.Send[S], error) {
			return []graph.Send[S]{{Node: "zz"}}, nil
		}), nil, nil, graph.ErrInvalidRoute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := build(tc.route, tc.targets...)
			out, err := app.Invoke(context.Background(), S{})
			if tc.want != nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, out.Log)
				return
			}
			require.Error(t, err)
			var ne *graph.NodeError
			require.ErrorAs(t, err, &ne)
			assert.Equal(t, "r", ne.Node)
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
			}
		})
	}
}

func TestCommandGotoUpdateOverwrite(t *testing.T) {
	g := newG()
	g.AddNode("a", func(ctx context.Context, s S) (S, error) { return S{Count: 5, Log: []string{"a"}, Total: 7}, nil })
	g.AddCommandNode("cmd", func(ctx context.Context, s S) (graph.Command[S], error) {
		return graph.Command[S]{
			Update: S{Log: []string{"cmd"}},
			Goto:   []string{"c"},
			Overwrite: []graph.Write[S]{
				graph.Set(func(s *S) *int { return &s.Count }, 0),
				graph.Set(func(s *S) *int { return &s.Total }, 100),
			},
		}, nil
	}, graph.Destinations("c", "d"))
	g.AddNode("c", logNode("c"))
	g.AddNode("d", logNode("d"))
	g.AddEdge(graph.Start, "a").AddEdge("a", "cmd")
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), S{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "cmd", "c"}, out.Log)
	assert.Equal(t, 0, out.Count, "Set writes a zero value")
	assert.Equal(t, 100, out.Total, "Set bypasses the Sum reducer")
}

func TestOverwriteWinsAndDoubleOverwriteConflicts(t *testing.T) {
	mk := func(second bool) *graph.CompiledGraph[S] {
		g := newG()
		g.AddCommandNode("a", func(ctx context.Context, s S) (graph.Command[S], error) {
			return graph.Command[S]{Overwrite: []graph.Write[S]{graph.Set(func(s *S) *[]string { return &s.Log }, []string{"reset"})}}, nil
		})
		g.AddCommandNode("b", func(ctx context.Context, s S) (graph.Command[S], error) {
			c := graph.Command[S]{Update: S{Log: []string{"b"}}}
			if second {
				c.Overwrite = []graph.Write[S]{graph.Set(func(s *S) *[]string { return &s.Log }, []string{"b-reset"})}
			}
			return c, nil
		})
		g.AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
		app, err := g.Compile()
		require.NoError(t, err)
		return app
	}
	out, err := mk(false).Invoke(context.Background(), S{Log: []string{"in"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"reset"}, out.Log, "after an overwrite, later writes of the step are ignored (LangGraph Overwrite)")
	_, err = mk(true).Invoke(context.Background(), S{Log: []string{"in"}})
	var iu *graph.InvalidUpdateError
	require.ErrorAs(t, err, &iu)
	assert.Equal(t, "Log", iu.Field)
	assert.Equal(t, []string{"a", "b"}, iu.Nodes)
}

func TestCommandRoutesChecked(t *testing.T) {
	tests := []struct {
		name string
		cmd  graph.Command[S]
		dest []string
		want string
	}{
		{"goto outside destinations", graph.Command[S]{Goto: []string{"c"}}, []string{"b"}, `Command.Goto "c" is not among the node's Destinations`},
		{"send outside destinations", graph.Command[S]{Sends: []graph.Send[S]{{Node: "c"}}}, []string{"b"}, `Command.Sends "c" is not among the node's Destinations`},
		{"goto unknown without destinations", graph.Command[S]{Goto: []string{"nope"}}, nil, `Command.Goto names "nope", which is not a node of the graph (nodes: a, b, c)`},
		{"send unknown without destinations", graph.Command[S]{Sends: []graph.Send[S]{{Node: "nope"}}}, nil, `Command.Sends names "nope"`},
		{"goto Start", graph.Command[S]{Goto: []string{graph.Start}}, nil, `Command.Goto names "__start__"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newG()
			var opts []graph.NodeOption
			if tc.dest != nil {
				opts = append(opts, graph.Destinations(tc.dest...))
			}
			g.AddCommandNode("a", func(ctx context.Context, s S) (graph.Command[S], error) { return tc.cmd, nil }, opts...)
			g.AddNode("b", logNode("b")).AddNode("c", logNode("c"))
			g.AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").AddEdge(graph.Start, "c")
			app, err := g.Compile()
			require.NoError(t, err)
			_, err = app.Invoke(context.Background(), S{})
			require.ErrorIs(t, err, graph.ErrInvalidRoute)
			var ne *graph.NodeError
			require.ErrorAs(t, err, &ne)
			assert.Equal(t, "a", ne.Node)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCommandSends(t *testing.T) {
	g := newG()
	g.AddCommandNode("a", func(ctx context.Context, s S) (graph.Command[S], error) {
		return graph.Command[S]{Sends: []graph.Send[S]{{Node: "w", Arg: S{Note: "1"}}, {Node: "w", Arg: S{Note: "2"}}}}, nil
	})
	g.AddNode("w", func(ctx context.Context, s S) (S, error) { return S{Log: []string{"w" + s.Note}}, nil })
	g.AddEdge(graph.Start, "a")
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), S{})
	require.NoError(t, err)
	assert.Equal(t, []string{"w1", "w2"}, out.Log)
}

func TestCompileValidation(t *testing.T) {
	noop := logNode("n")
	tests := []struct {
		name  string
		build func() *graph.StateGraph[S]
		want  string
	}{
		{"duplicate", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddNode("a", noop).AddEdge(graph.Start, "a")
		}, `duplicate node "a"`},
		{"reserved start", func() *graph.StateGraph[S] {
			return newG().AddNode(graph.Start, noop).AddNode("a", noop).AddEdge(graph.Start, "a")
		}, "reserved"},
		{"reserved end", func() *graph.StateGraph[S] {
			return newG().AddNode(graph.End, noop).AddNode("a", noop).AddEdge(graph.Start, "a")
		}, "reserved"},
		{"empty name", func() *graph.StateGraph[S] { return newG().AddNode("", noop).AddEdge(graph.Start, "") }, "empty node name"},
		{"separator", func() *graph.StateGraph[S] { return newG().AddNode("a:b", noop).AddEdge(graph.Start, "a:b") }, "contains"},
		{"nil fn", func() *graph.StateGraph[S] { return newG().AddNode("a", nil).AddEdge(graph.Start, "a") }, "nil function"},
		{"nil cmd", func() *graph.StateGraph[S] { return newG().AddCommandNode("a", nil) }, "nil function"},
		{"no entry", func() *graph.StateGraph[S] { return newG().AddNode("a", noop) }, "no entry"},
		{"unreachable", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddNode("b", noop).AddEdge(graph.Start, "a")
		}, `"b" is unreachable`},
		{"edge to unknown", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").AddEdge("a", "zz")
		}, `unknown node "zz"`},
		{"edge from unknown", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").AddEdge("zz", "a")
		}, `unknown node "zz"`},
		{"edge from end", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").AddEdge(graph.End, "a")
		}, "End has no outgoing"},
		{"edge to start", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").AddEdge("a", graph.Start)
		}, "Start has no incoming"},
		{"router unknown target", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").
				AddConditionalEdges("a", graph.Branch(func(context.Context, S) (string, error) { return "", nil }), "zz")
		}, `unknown target "zz"`},
		{"nil router", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").AddConditionalEdges("a", nil)
		}, "nil router"},
		{"router from unknown", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").
				AddConditionalEdges("q", graph.Branch(func(context.Context, S) (string, error) { return "", nil }))
		}, `from unknown node "q"`},
		{"unknown destination", func() *graph.StateGraph[S] {
			return newG().AddCommandNode("a", func(context.Context, S) (graph.Command[S], error) { return graph.Command[S]{}, nil },
				graph.Destinations("zz")).AddEdge(graph.Start, "a")
		}, `unknown destination "zz"`},
		{"destinations on a plain node", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop, graph.Destinations("a")).AddEdge(graph.Start, "a")
		}, `Destinations applies to command nodes`},
		{"unknown writes field", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop, graph.Writes("Nope")).AddEdge(graph.Start, "a")
		}, `unknown field "Nope"`},
		{"join unknown", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").AddJoin([]string{"a", "q"}, "a")
		}, `unknown source "q"`},
		{"join into unknown", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").AddJoin([]string{"a"}, "q")
		}, `join into unknown node "q"`},
		{"join empty", func() *graph.StateGraph[S] {
			return newG().AddNode("a", noop).AddEdge(graph.Start, "a").AddJoin(nil, "a")
		}, "no sources"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.build().Compile()
			require.Error(t, err)
			assert.ErrorIs(t, err, graph.ErrInvalidGraph)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCompileOptionValidation(t *testing.T) {
	base := func() *graph.StateGraph[S] { return newG().AddNode("a", logNode("a")).AddEdge(graph.Start, "a") }
	tests := []struct {
		name string
		opt  graph.CompileOption
		want string
	}{
		{"interrupt before unknown", graph.InterruptBefore("zz"), `InterruptBefore: unknown node "zz"`},
		{"interrupt after unknown", graph.InterruptAfter("zz"), `InterruptAfter: unknown node "zz"`},
		{"observer type", graph.WithObserver(func(graph.Event[int]) {}), "does not observe"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := base().Compile(tc.opt, graph.WithName("g1"))
			require.ErrorIs(t, err, graph.ErrInvalidGraph)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "compile g1")
		})
	}
}

func TestStateTypeValidation(t *testing.T) {
	_, err := graph.New[int]().AddNode("a", func(ctx context.Context, s int) (int, error) { return 0, nil }).
		AddEdge(graph.Start, "a").Compile()
	require.ErrorIs(t, err, graph.ErrInvalidGraph)
	assert.Contains(t, err.Error(), "not a struct")

	type hidden struct {
		Visible int
		secret  int
	}
	_, err = graph.New[hidden]().AddNode("a", func(ctx context.Context, s hidden) (hidden, error) { return s, nil }).
		AddEdge(graph.Start, "a").Compile()
	require.ErrorIs(t, err, graph.ErrInvalidGraph)
	assert.Contains(t, err.Error(), "secret is unexported")

	type inner struct{ X, Y int }
	type outer struct {
		In  inner
		Log []string
	}
	var global []string
	reducerTests := []struct {
		name string
		opt  graph.Option[outer]
		want string
	}{
		{"nested field", graph.Reducer(func(s *outer) *int { return &s.In.Y }, state.Sum[int]), "not point to a top-level field"},
		{"nested at offset 0", graph.Reducer(func(s *outer) *int { return &s.In.X }, state.Sum[int]), "not a top-level field"},
		{"outside", graph.Reducer(func(s *outer) *[]string { return &global }, state.Append), "does not point into"},
		{"nil accessor", graph.Reducer[outer, []string](nil, state.Append), "nil field accessor"},
		{"nil reducer", graph.Reducer[outer, []string](func(s *outer) *[]string { return &s.Log }, nil), "nil reducer"},
		{"panicking accessor", graph.Reducer(func(s *outer) *[]string { panic("no") }, state.Append), "panicked"},
	}
	for _, tc := range reducerTests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := graph.New[outer](tc.opt).AddNode("a", func(ctx context.Context, s outer) (outer, error) { return outer{}, nil }).
				AddEdge(graph.Start, "a").Compile()
			require.ErrorIs(t, err, graph.ErrInvalidGraph)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err = graph.New[outer](
		graph.Reducer(func(s *outer) *[]string { return &s.Log }, state.Append),
		graph.Reducer(func(s *outer) *[]string { return &s.Log }, state.Append),
	).AddNode("a", func(ctx context.Context, s outer) (outer, error) { return outer{}, nil }).AddEdge(graph.Start, "a").Compile()
	assert.ErrorContains(t, err, "two reducers")
}

func TestUnsetVersusZero(t *testing.T) {
	type Z struct {
		N     int
		Ptr   *int
		Flag  bool
		F     float64
		Items []string
		Inner struct{ A int }
		Any   any
	}
	one := 1
	g := graph.New[Z]()
	g.AddNode("set", func(ctx context.Context, s Z) (Z, error) {
		z := Z{N: 1, Ptr: &one, Flag: true, F: 1.5, Items: []string{"x"}, Any: "v"}
		z.Inner.A = 2
		return z, nil
	})
	g.AddNode("zero", func(ctx context.Context, s Z) (Z, error) { return Z{Items: []string{}}, nil })
	g.AddEdge(graph.Start, "set").AddEdge("set", "zero")
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), Z{})
	require.NoError(t, err)
	assert.Equal(t, 1, out.N, "zero fields are unset: N keeps its value")
	assert.Equal(t, &one, out.Ptr)
	assert.True(t, out.Flag)
	assert.Equal(t, 1.5, out.F)
	assert.Equal(t, 2, out.Inner.A)
	assert.Equal(t, "v", out.Any)
	assert.NotNil(t, out.Items, "an empty non-nil slice is a write")
	assert.Empty(t, out.Items)
}

func TestRecursionLimitAndRemainingSteps(t *testing.T) {
	g := newG()
	var remaining []int
	g.AddNode("loop", func(ctx context.Context, s S) (S, error) {
		remaining = append(remaining, graph.RemainingSteps(ctx))
		return S{Count: s.Count + 1}, nil
	})
	g.AddEdge(graph.Start, "loop").AddEdge("loop", "loop")
	app, err := g.Compile(graph.WithRecursionLimit(50))
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), S{}, graph.RecursionLimit(4))
	require.ErrorIs(t, err, graph.ErrRecursionLimit)
	assert.Equal(t, 4, out.Count)
	assert.Equal(t, []int{3, 2, 1, 0}, remaining)

	remaining = nil
	out, err = app.Invoke(context.Background(), S{})
	require.ErrorIs(t, err, graph.ErrRecursionLimit)
	assert.Equal(t, 50, out.Count, "compile-time default")
	assert.Equal(t, -1, graph.RemainingSteps(context.Background()))
	assert.Equal(t, 10000, graph.DefaultRecursionLimit)
}

func TestLoopEndsByRouter(t *testing.T) {
	g := newG()
	g.AddNode("inc", func(ctx context.Context, s S) (S, error) { return S{Count: s.Count + 1, Log: []string{"i"}}, nil })
	g.AddEdge(graph.Start, "inc")
	g.AddConditionalEdges("inc", graph.Branch(func(ctx context.Context, s S) (string, error) {
		if s.Count >= 100 {
			return graph.End, nil
		}
		return "inc", nil
	}), "inc", graph.End)
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), S{})
	require.NoError(t, err)
	assert.Equal(t, 100, out.Count)
	assert.Len(t, out.Log, 100)
}

func TestNodeErrorAndPanic(t *testing.T) {
	boom := errors.New("boom")
	g := newG()
	g.AddNode("bad", func(ctx context.Context, s S) (S, error) { return S{}, boom })
	g.AddNode("panics", func(ctx context.Context, s S) (S, error) { panic("oops") })
	g.AddEdge(graph.Start, "bad")
	g.AddEdge(graph.Start, "panics")
	app, err := g.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), S{})
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, "bad", ne.Node, "first failure in task order")
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, 1, ne.Attempts)

	g2 := newG()
	g2.AddNode("panics", func(ctx context.Context, s S) (S, error) { panic("oops") })
	g2.AddEdge(graph.Start, "panics")
	app2, err := g2.Compile()
	require.NoError(t, err)
	_, err = app2.Invoke(context.Background(), S{})
	require.ErrorAs(t, err, &ne)
	assert.Contains(t, err.Error(), `panic in node "panics": oops`)
}

func TestNodesDoNotSeeEachOthersAppends(t *testing.T) {
	// Parallel nodes appending to the step-start slice must not race or see
	// each other's elements (views are clipped to their length).
	g := newG()
	for _, n := range []string{"a", "b", "c", "d"} {
		g.AddNode(n, func(ctx context.Context, s S) (S, error) {
			local := append(s.Log, n) // a common Go habit on a shared input
			return S{Note: "", Log: local[len(local)-1:]}, nil
		})
		g.AddEdge(graph.Start, n)
	}
	app, err := g.Compile()
	require.NoError(t, err)
	for i := 0; i < 20; i++ {
		in := make([]string, 1, 16)
		in[0] = "in"
		out, err := app.Invoke(context.Background(), S{Log: in})
		require.NoError(t, err)
		assert.Equal(t, []string{"in", "a", "b", "c", "d"}, out.Log)
	}
}

func TestRetryPolicy(t *testing.T) {
	transient := errors.New("transient")
	fatal := errors.New("fatal")
	tests := []struct {
		name     string
		policy   graph.RetryPolicy
		fails    []error
		wantErr  error
		attempts int32
	}{
		{"succeeds on third", graph.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Millisecond, Jitter: true}, []error{transient, transient}, nil, 3},
		{"gives up", graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Millisecond, BackoffFactor: 1.5, MaxInterval: 2 * time.Millisecond}, []error{transient, transient, transient}, transient, 2},
		{"not retryable", graph.RetryPolicy{MaxAttempts: 5, InitialInterval: time.Millisecond, RetryOn: func(err error) bool { return errors.Is(err, transient) }}, []error{fatal}, fatal, 1},
		{"no retry", graph.RetryPolicy{}, []error{transient}, transient, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			g := newG()
			g.AddNode("flaky", func(ctx context.Context, s S) (S, error) {
				n := calls.Add(1)
				info, ok := graph.TaskInfoFrom(ctx)
				require.True(t, ok)
				require.Equal(t, int(n), info.Attempt)
				if int(n) <= len(tc.fails) {
					return S{Log: []string{"partial"}}, tc.fails[n-1]
				}
				return S{Log: []string{"ok"}}, nil
			}, graph.WithRetry(tc.policy))
			g.AddEdge(graph.Start, "flaky")
			app, err := g.Compile()
			require.NoError(t, err)
			out, err := app.Invoke(context.Background(), S{})
			assert.Equal(t, tc.attempts, calls.Load())
			if tc.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, []string{"ok"}, out.Log, "writes of failed attempts are dropped")
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			var ne *graph.NodeError
			require.ErrorAs(t, err, &ne)
			assert.Equal(t, int(tc.attempts), ne.Attempts)
		})
	}
}

func TestRetryStopsOnCancel(t *testing.T) {
	g := newG()
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	g.AddNode("flaky", func(ctx context.Context, s S) (S, error) {
		calls.Add(1)
		cancel()
		return S{}, errors.New("again")
	}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 100, InitialInterval: time.Hour}))
	g.AddEdge(graph.Start, "flaky")
	app, err := g.Compile()
	require.NoError(t, err)
	start := time.Now()
	_, err = app.Invoke(ctx, S{})
	require.Error(t, err)
	assert.Less(t, time.Since(start), time.Second)
	assert.Equal(t, int32(1), calls.Load())
}

func TestConcurrentInvokes(t *testing.T) {
	g := newG()
	g.AddNode("a", func(ctx context.Context, s S) (S, error) { return S{Count: s.Count + 1, Log: []string{"a"}}, nil })
	g.AddNode("b", logNode("b")).AddNode("c", jitterNode("c"))
	g.AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("a", "c")
	app, err := g.Compile()
	require.NoError(t, err)
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		go func(i int) {
			out, err := app.Invoke(context.Background(), S{Count: i})
			if err == nil && (out.Count != i+1 || !slices.Equal(out.Log, []string{"a", "b", "c"})) {
				err = fmt.Errorf("run %d: got %+v", i, out)
			}
			errs <- err
		}(i)
	}
	for i := 0; i < 16; i++ {
		require.NoError(t, <-errs)
	}
}

func TestLoggerAndName(t *testing.T) {
	var buf strings.Builder
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	g := newG()
	g.AddNode("a", logNode("a"))
	g.AddNode("bad", func(ctx context.Context, s S) (S, error) { return S{}, errors.New("nope") })
	g.AddEdge(graph.Start, "a").AddEdge("a", "bad")
	app, err := g.Compile(graph.WithLogger(logger), graph.WithName("demo"))
	require.NoError(t, err)
	assert.Equal(t, "demo", app.Name())
	_, err = app.Invoke(context.Background(), S{})
	require.Error(t, err)
	out := buf.String()
	assert.Contains(t, out, "graph: step committed")
	assert.Contains(t, out, "graph: task failed")
	assert.Contains(t, out, "node=bad")
	assert.Contains(t, out, "graph=demo")
}

func TestRouterAndSendFromStart(t *testing.T) {
	g := newG()
	g.AddNode("w", func(ctx context.Context, s S) (S, error) { return S{Log: []string{"w:" + s.Note}}, nil })
	g.AddNode("solo", logNode("solo"))
	g.AddConditionalEdges(graph.Start, func(ctx context.Context, s S) (graph.Route[S], error) {
		// A raw Route mixes node names and Sends, like a LangGraph branch
		// returning ["solo", Send("w", ...), ...].
		return graph.Route[S]{Nodes: []string{"solo"}, Sends: []graph.Send[S]{{Node: "w", Arg: S{Note: s.Note + "1"}}, {Node: "w", Arg: S{Note: s.Note + "2"}}}}, nil
	}, "w", "solo")
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), S{Note: "x"})
	require.NoError(t, err)
	assert.Equal(t, []string{"solo", "w:x1", "w:x2"}, out.Log, "edge-triggered tasks first, then Sends in order")

	bad := newG().AddNode("a", logNode("a"))
	bad.AddConditionalEdges(graph.Start, graph.Branch(func(ctx context.Context, s S) (string, error) { return "", errors.New("no route") }), "a")
	bapp, err := bad.Compile()
	require.NoError(t, err)
	_, err = bapp.Invoke(context.Background(), S{})
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, graph.Start, ne.Node)
}

package otelgraph_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/graph/otelgraph"
	"github.com/agentgraph/agentgraph/state"
)

type S struct {
	Items []string
	Big   string
}

func newGraph() *graph.StateGraph[S] {
	return graph.New[S](graph.Reducer(func(s *S) *[]string { return &s.Items }, state.Append[string]))
}

func recorder() (*tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	sr := tracetest.NewSpanRecorder()
	return sr, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
}

func named(spans []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func one(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	got := named(spans, name)
	require.Len(t, got, 1, "spans named %q", name)
	return got[0]
}

func attr(s sdktrace.ReadOnlySpan, k attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func str(s sdktrace.ReadOnlySpan, k attribute.Key) string { v, _ := attr(s, k); return v.AsString() }
func num(s sdktrace.ReadOnlySpan, k attribute.Key) int64  { v, _ := attr(s, k); return v.AsInt64() }
func flag(s sdktrace.ReadOnlySpan, k attribute.Key) bool  { v, _ := attr(s, k); return v.AsBool() }

func childOf(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	assert.Equal(t, parent.SpanContext().SpanID(), child.Parent().SpanID(), "%s parent", child.Name())
	assert.Equal(t, parent.SpanContext().TraceID(), child.SpanContext().TraceID(), "%s trace", child.Name())
}

func add(item string) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (S, error) { return S{Items: []string{item}}, nil }
}

func TestSpans(t *testing.T) {
	tests := []struct {
		name  string
		opts  []otelgraph.Option
		run   func(t *testing.T, tr *otelgraph.Tracer, tp trace.TracerProvider)
		check func(t *testing.T, spans []sdktrace.ReadOnlySpan)
	}{
		{
			name: "fan-out with Send: one span per task, children of their step",
			run: func(t *testing.T, tr *otelgraph.Tracer, _ trace.TracerProvider) {
				g := newGraph()
				g.AddNode("split", add("split"))
				g.AddNode("work", func(ctx context.Context, s S) (S, error) {
					time.Sleep(5 * time.Millisecond)
					return S{Items: []string{"done " + s.Big}}, nil
				})
				g.AddEdge(graph.Start, "split")
				g.AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s S) ([]graph.Send[S], error) {
					return []graph.Send[S]{{Node: "work", Arg: S{Big: "a"}}, {Node: "work", Arg: S{Big: "b"}}, {Node: "work", Arg: S{Big: "c"}}}, nil
				}), "work")
				app, err := g.Compile(graph.WithName("fan"), graph.WithCheckpointer(checkpoint.NewMemory()))
				require.NoError(t, err)
				out, err := otelgraph.Invoke(t.Context(), tr, app, "t-fan", S{})
				require.NoError(t, err)
				assert.Len(t, out.Items, 4)
			},
			check: func(t *testing.T, spans []sdktrace.ReadOnlySpan) {
				run := one(t, spans, "graph.run fan")
				assert.Equal(t, "fan", str(run, otelgraph.AttrGraph))
				assert.Equal(t, "t-fan", str(run, otelgraph.AttrThreadID))
				assert.False(t, run.Parent().IsValid(), "root run span")
				steps := named(spans, "graph.step")
				require.Len(t, steps, 2)
				for _, st := range steps {
					childOf(t, st, run)
					assert.NotEmpty(t, str(st, otelgraph.AttrCheckpointID))
				}
				split := one(t, spans, "split")
				var fanStep sdktrace.ReadOnlySpan
				for _, st := range steps {
					if st.SpanContext().SpanID() != split.Parent().SpanID() {
						fanStep = st
					}
				}
				require.NotNil(t, fanStep)
				assert.Equal(t, int64(3), num(fanStep, otelgraph.AttrTasks))
				assert.Equal(t, num(fanStep, otelgraph.AttrStep), num(split, otelgraph.AttrStep)+1)
				work := named(spans, "work")
				require.Len(t, work, 3)
				ids := map[string]bool{}
				var updates []string
				for _, w := range work {
					childOf(t, w, fanStep)
					assert.Equal(t, "work", str(w, otelgraph.AttrNode))
					assert.Equal(t, "t-fan", str(w, otelgraph.AttrThreadID))
					assert.Equal(t, num(fanStep, otelgraph.AttrStep), num(w, otelgraph.AttrStep))
					ids[str(w, otelgraph.AttrTaskID)] = true
					updates = append(updates, str(w, otelgraph.AttrUpdate))
					assert.Equal(t, codes.Unset, w.Status().Code)
				}
				assert.Len(t, ids, 3, "distinct task ids")
				assert.ElementsMatch(t, []string{`{"Items":["done a"]}`, `{"Items":["done b"]}`, `{"Items":["done c"]}`}, updates)
			},
		},
		{
			name: "retry: a node that fails once succeeds on its second attempt; one that always fails fails the run",
			run: func(t *testing.T, tr *otelgraph.Tracer, _ trace.TracerProvider) {
				var calls atomic.Int32
				g := newGraph()
				retry := graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Millisecond})
				g.AddNode("flaky", func(ctx context.Context, s S) (S, error) {
					_ = tr.Context(ctx) // records the attempt
					if calls.Add(1) == 1 {
						return S{}, errors.New("transient")
					}
					return S{Items: []string{"ok"}}, nil
				}, retry)
				g.AddNode("broken", func(ctx context.Context, s S) (S, error) { return S{}, errors.New("disk on fire") }, retry)
				g.AddEdge(graph.Start, "flaky")
				g.AddEdge("flaky", "broken")
				app, err := g.Compile(graph.WithName("retry"))
				require.NoError(t, err)
				_, err = otelgraph.Invoke(t.Context(), tr, app, "", S{})
				require.ErrorContains(t, err, "disk on fire")
			},
			check: func(t *testing.T, spans []sdktrace.ReadOnlySpan) {
				run := one(t, spans, "graph.run retry")
				_, hasThread := attr(run, otelgraph.AttrThreadID)
				assert.False(t, hasThread)
				assert.Equal(t, codes.Error, run.Status().Code)
				flaky := one(t, spans, "flaky")
				assert.Equal(t, codes.Unset, flaky.Status().Code)
				assert.Equal(t, int64(2), num(flaky, otelgraph.AttrAttempt))
				assert.Equal(t, `{"Items":["ok"]}`, str(flaky, otelgraph.AttrUpdate))
				broken := one(t, spans, "broken")
				assert.Equal(t, codes.Error, broken.Status().Code)
				assert.Contains(t, broken.Status().Description, "disk on fire")
				assert.Equal(t, int64(2), num(broken, otelgraph.AttrAttempt))
				require.Len(t, broken.Events(), 1)
				assert.Equal(t, "exception", broken.Events()[0].Name)
				_, hasUpdate := attr(broken, otelgraph.AttrUpdate)
				assert.False(t, hasUpdate)
				step := spans[0]
				for _, s := range named(spans, "graph.step") {
					if s.SpanContext().SpanID() == broken.Parent().SpanID() {
						step = s
					}
				}
				assert.Equal(t, codes.Error, step.Status().Code, "the failed step")
			},
		},
		{
			name: "interrupt, then resume",
			run: func(t *testing.T, tr *otelgraph.Tracer, _ trace.TracerProvider) {
				g := newGraph()
				g.AddNode("ask", func(ctx context.Context, s S) (S, error) {
					v, err := graph.InterruptAs[string](ctx, "name?")
					if err != nil {
						return S{}, err
					}
					return S{Items: []string{"hello " + v}}, nil
				})
				g.AddEdge(graph.Start, "ask")
				app, err := g.Compile(graph.WithName("ask"), graph.WithCheckpointer(checkpoint.NewMemory()))
				require.NoError(t, err)
				_, err = otelgraph.Invoke(t.Context(), tr, app, "t-ask", S{})
				require.ErrorIs(t, err, graph.ErrInterrupted)
				out, err := otelgraph.Invoke(t.Context(), tr, app, "t-ask", S{}, graph.Resume("ada"))
				require.NoError(t, err)
				assert.Equal(t, []string{"hello ada"}, out.Items)
			},
			check: func(t *testing.T, spans []sdktrace.ReadOnlySpan) {
				runs := named(spans, "graph.run ask")
				require.Len(t, runs, 2)
				asks := named(spans, "ask")
				require.Len(t, asks, 2)
				assert.True(t, flag(runs[0], otelgraph.AttrInterrupted))
				assert.Equal(t, codes.Unset, runs[0].Status().Code)
				assert.True(t, flag(asks[0], otelgraph.AttrInterrupted))
				assert.Equal(t, codes.Unset, asks[0].Status().Code)
				assert.Equal(t, runs[0].SpanContext().TraceID(), asks[0].SpanContext().TraceID())
				assert.False(t, flag(runs[1], otelgraph.AttrInterrupted))
				assert.Equal(t, `{"Items":["hello ada"]}`, str(asks[1], otelgraph.AttrUpdate))
				assert.Equal(t, runs[1].SpanContext().TraceID(), asks[1].SpanContext().TraceID())
			},
		},
		{
			name: "subgraph runs under their parent task",
			run: func(t *testing.T, tr *otelgraph.Tracer, _ trace.TracerProvider) {
				child := newGraph()
				child.AddNode("inner", add("inner"))
				child.AddEdge(graph.Start, "inner")
				cp := checkpoint.NewMemory()
				capp, err := child.Compile(graph.WithName("child"), otelgraph.SubgraphOption[S](tr))
				require.NoError(t, err)
				g := newGraph()
				g.AddNode("sub", graph.Subgraph(capp, nil, func(c S) S { return S{Items: c.Items} }))
				g.AddNode("other", add("other"))
				g.AddEdge(graph.Start, "sub")
				g.AddEdge(graph.Start, "other")
				app, err := g.Compile(graph.WithName("parent"), graph.WithCheckpointer(cp))
				require.NoError(t, err)
				out, err := otelgraph.Invoke(t.Context(), tr, app, "t-sub", S{})
				require.NoError(t, err)
				assert.ElementsMatch(t, []string{"inner", "other"}, out.Items)
			},
			check: func(t *testing.T, spans []sdktrace.ReadOnlySpan) {
				run := one(t, spans, "graph.run parent")
				sub := one(t, spans, "sub")
				childRun := one(t, spans, "graph.run sub")
				childOf(t, childRun, sub)
				assert.Equal(t, "sub", str(childRun, otelgraph.AttrNamespace))
				assert.Equal(t, "t-sub", str(childRun, otelgraph.AttrThreadID))
				inner := one(t, spans, "inner")
				assert.Equal(t, "sub", str(inner, otelgraph.AttrNamespace))
				assert.Equal(t, "t-sub", str(inner, otelgraph.AttrThreadID))
				var innerStep sdktrace.ReadOnlySpan
				for _, s := range named(spans, "graph.step") {
					if s.SpanContext().SpanID() == inner.Parent().SpanID() {
						innerStep = s
					}
				}
				require.NotNil(t, innerStep)
				childOf(t, innerStep, childRun)
				assert.Equal(t, run.SpanContext().TraceID(), inner.SpanContext().TraceID())
				assert.False(t, sub.EndTime().Before(childRun.EndTime()), "the child run ends within its task")
			},
		},
		{
			name: "a node's own spans nest under its task span through Tracer.Context",
			run: func(t *testing.T, tr *otelgraph.Tracer, tp trace.TracerProvider) {
				g := newGraph()
				g.AddNode("call", func(ctx context.Context, s S) (S, error) {
					_, span := tp.Tracer("model").Start(tr.Context(ctx), "model call")
					span.End()
					return S{Items: []string{"answer"}}, nil
				})
				g.AddEdge(graph.Start, "call")
				app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
				require.NoError(t, err)
				_, err = otelgraph.Invoke(t.Context(), tr, app, "t-call", S{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, spans []sdktrace.ReadOnlySpan) {
				childOf(t, one(t, spans, "model call"), one(t, spans, "call"))
				assert.Equal(t, int64(1), num(one(t, spans, "call"), otelgraph.AttrAttempt))
			},
		},
		{
			name: "an interrupt inside a subgraph marks the child run and the parent task",
			run: func(t *testing.T, tr *otelgraph.Tracer, _ trace.TracerProvider) {
				child := newGraph()
				child.AddNode("ask", func(ctx context.Context, s S) (S, error) {
					v, err := graph.InterruptAs[string](ctx, "ok?")
					return S{Items: []string{v}}, err
				})
				child.AddEdge(graph.Start, "ask")
				capp, err := child.Compile(otelgraph.SubgraphOption[S](tr))
				require.NoError(t, err)
				g := newGraph()
				g.AddNode("sub", graph.Subgraph(capp, nil, func(c S) S { return S{Items: c.Items} }))
				g.AddEdge(graph.Start, "sub")
				app, err := g.Compile(graph.WithName("p"), graph.WithCheckpointer(checkpoint.NewMemory()))
				require.NoError(t, err)
				_, err = otelgraph.Invoke(t.Context(), tr, app, "t-si", S{})
				require.ErrorIs(t, err, graph.ErrInterrupted)
				out, err := otelgraph.Invoke(t.Context(), tr, app, "t-si", S{}, graph.Resume("yes"))
				require.NoError(t, err)
				assert.Equal(t, []string{"yes"}, out.Items)
			},
			check: func(t *testing.T, spans []sdktrace.ReadOnlySpan) {
				subs, childRuns, asks := named(spans, "sub"), named(spans, "graph.run sub"), named(spans, "ask")
				require.Len(t, subs, 2)
				require.Len(t, childRuns, 2)
				require.Len(t, asks, 2)
				for i := range 2 {
					childOf(t, childRuns[i], subs[i])
					assert.Equal(t, childRuns[i].SpanContext().TraceID(), asks[i].SpanContext().TraceID())
				}
				assert.True(t, flag(subs[0], otelgraph.AttrInterrupted))
				assert.True(t, flag(childRuns[0], otelgraph.AttrInterrupted))
				assert.True(t, flag(asks[0], otelgraph.AttrInterrupted))
				assert.False(t, flag(childRuns[1], otelgraph.AttrInterrupted))
				assert.Equal(t, `{"Items":["yes"]}`, str(asks[1], otelgraph.AttrUpdate))
			},
		},
		{
			name: "Stream: events pass through, the run span ends with the sequence",
			run: func(t *testing.T, tr *otelgraph.Tracer, _ trace.TracerProvider) {
				g := newGraph()
				g.AddNode("a", add("a"))
				g.AddNode("b", add("b"))
				g.AddEdge(graph.Start, "a")
				g.AddEdge("a", "b")
				app, err := g.Compile(graph.WithName("st"))
				require.NoError(t, err)
				var nodes []string
				for ev, err := range otelgraph.Stream(t.Context(), tr, app, "", S{}, graph.Modes(graph.Updates)) {
					require.NoError(t, err)
					nodes = append(nodes, ev.Node)
				}
				assert.Equal(t, []string{"a", "b"}, nodes)
			},
			check: func(t *testing.T, spans []sdktrace.ReadOnlySpan) {
				run := one(t, spans, "graph.run st")
				assert.Len(t, named(spans, "graph.step"), 2)
				childOf(t, one(t, spans, "b"), named(spans, "graph.step")[1])
				assert.Equal(t, codes.Unset, run.Status().Code)
			},
		},
		{
			name: "update cut at the cap",
			opts: []otelgraph.Option{otelgraph.WithMaxUpdateSize(100)},
			run: func(t *testing.T, tr *otelgraph.Tracer, _ trace.TracerProvider) {
				g := newGraph()
				g.AddNode("big", func(ctx context.Context, s S) (S, error) { return S{Big: strings.Repeat("é", 3000)}, nil })
				g.AddNode("small", add("x"))
				g.AddEdge(graph.Start, "big")
				g.AddEdge("big", "small")
				app, err := g.Compile()
				require.NoError(t, err)
				_, err = otelgraph.Invoke(t.Context(), tr, app, "", S{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, spans []sdktrace.ReadOnlySpan) {
				one(t, spans, "graph.run")
				big := one(t, spans, "big")
				u := str(big, otelgraph.AttrUpdate)
				assert.LessOrEqual(t, len(u), 100)
				assert.Greater(t, len(u), 90)
				assert.True(t, utf8.ValidString(u))
				assert.True(t, strings.HasPrefix(u, `{"Big":"éé`))
				assert.True(t, flag(big, otelgraph.AttrUpdateTruncated))
				small := one(t, spans, "small")
				assert.Equal(t, `{"Items":["x"]}`, str(small, otelgraph.AttrUpdate))
				_, cut := attr(small, otelgraph.AttrUpdateTruncated)
				assert.False(t, cut)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sr, tp := recorder()
			tr := otelgraph.New(tp, tc.opts...)
			tc.run(t, tr, tp)
			ended := sr.Ended()
			assert.Len(t, ended, len(sr.Started()), "every span started is ended")
			tc.check(t, ended)
		})
	}
}

func TestConcurrentRuns(t *testing.T) {
	sr, tp := recorder()
	tr := otelgraph.New(tp)
	g := newGraph()
	g.AddNode("a", add("a"))
	g.AddNode("b", add("b"))
	g.AddEdge(graph.Start, "a")
	g.AddEdge(graph.Start, "b")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	const runs = 8
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			_, err := otelgraph.Invoke(t.Context(), tr, app, fmt.Sprintf("t%d", i), S{})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	ended := sr.Ended()
	assert.Len(t, ended, len(sr.Started()))
	runSpans := named(ended, "graph.run")
	require.Len(t, runSpans, runs)
	for _, name := range []string{"a", "b"} {
		for _, task := range named(ended, name) {
			var run sdktrace.ReadOnlySpan
			for _, r := range runSpans {
				if r.SpanContext().TraceID() == task.SpanContext().TraceID() {
					run = r
				}
			}
			require.NotNil(t, run)
			assert.Equal(t, str(run, otelgraph.AttrThreadID), str(task, otelgraph.AttrThreadID), "a task is in its own run's trace")
		}
	}
}

func TestNothingWithoutTracing(t *testing.T) {
	// A graph compiled and run without the package's options records nothing,
	// and a Tracer from a nil provider records nothing either.
	sr, _ := recorder()
	g := newGraph()
	g.AddNode("a", add("a"))
	g.AddEdge(graph.Start, "a")
	app, err := g.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(t.Context(), S{})
	require.NoError(t, err)
	_, err = otelgraph.Invoke(t.Context(), otelgraph.New(nil), app, "", S{})
	require.NoError(t, err)
	assert.Empty(t, sr.Started())
}

func ExampleInvoke() {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	tr := otelgraph.New(tp) // in a program: tp, shutdown, err := otelgraph.FromEnv(ctx)

	g := graph.New[S](graph.Reducer(func(s *S) *[]string { return &s.Items }, state.Append[string]))
	g.AddNode("greet", func(ctx context.Context, s S) (S, error) { return S{Items: []string{"hello"}}, nil })
	g.AddEdge(graph.Start, "greet")
	app, err := g.Compile(graph.WithName("hello"))
	if err != nil {
		panic(err)
	}
	if _, err := otelgraph.Invoke(context.Background(), tr, app, "", S{}); err != nil {
		panic(err)
	}
	for _, s := range sr.Ended() {
		v, _ := attr(s, otelgraph.AttrUpdate)
		fmt.Println(strings.TrimSpace(s.Name() + " " + v.AsString()))
	}
	// Output:
	// greet {"Items":["hello"]}
	// graph.step
	// graph.run hello
}

func ExampleStart() {
	sr := tracetest.NewSpanRecorder()
	tr := otelgraph.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr)))

	g := graph.New[S]()
	g.AddNode("ask", func(ctx context.Context, s S) (S, error) {
		v, err := graph.InterruptAs[string](ctx, "proceed?")
		return S{Big: v}, err
	})
	g.AddEdge(graph.Start, "ask")
	app, err := g.Compile(graph.WithName("approval"), graph.WithCheckpointer(checkpoint.NewMemory()))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if _, err := otelgraph.Invoke(ctx, tr, app, "t1", S{}); !errors.Is(err, graph.ErrInterrupted) {
		panic(err) // the run pauses: its span is marked interrupted
	}

	obs, end := otelgraph.Start(ctx, tr, app, "t1") // traces any call: here a Resume
	out, err := app.Resume(ctx, "yes", graph.Thread("t1"), obs)
	end(err)

	fmt.Println(out.Big, err)
	for _, s := range sr.Ended() {
		if s.Name() == "graph.run approval" {
			fmt.Println(s.Name(), "interrupted:", flag(s, otelgraph.AttrInterrupted))
		}
	}
	// Output:
	// yes <nil>
	// graph.run approval interrupted: true
	// graph.run approval interrupted: false
}

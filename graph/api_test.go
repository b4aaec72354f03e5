package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
)

func TestResumeAndContinueMethods(t *testing.T) {
	g := newG()
	g.AddNode("ask", func(ctx context.Context, s S) (S, error) {
		v, err := graph.InterruptAs[string](ctx, "name?")
		if err != nil {
			return S{}, err
		}
		return S{Note: v}, nil
	})
	g.AddNode("after", logNode("after"))
	g.AddEdge(graph.Start, "ask").AddEdge("ask", "after")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()), graph.InterruptBefore("after"))
	require.NoError(t, err)

	_, err = app.Invoke(bg, S{Log: []string{"in"}}, graph.Thread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := app.Resume(bg, "ada", graph.Thread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted, "then the static interrupt before after")
	assert.Equal(t, "ada", out.Note)
	out, err = app.Continue(bg, graph.Thread("t"))
	require.NoError(t, err)
	assert.Equal(t, []string{"in", "after"}, out.Log)

	_, err = app.Resume(bg, "x", graph.Thread("t"))
	require.ErrorIs(t, err, graph.ErrNoPendingInterrupt)
	_, err = app.Continue(bg)
	require.ErrorIs(t, err, graph.ErrNoThread)
}

func TestHistoryTakesThreadOption(t *testing.T) {
	g := newG().AddNode("a", logNode("a")).AddEdge(graph.Start, "a")
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	_, err = app.Invoke(bg, S{}, graph.Thread("t"))
	require.NoError(t, err)
	hist, err := app.History(bg, graph.ListOptions{}, graph.Thread("t"))
	require.NoError(t, err)
	require.Len(t, hist, 2, "input and one step")
	assert.Equal(t, []string{"a"}, hist[0].Values.Log)
	_, err = app.History(bg, graph.ListOptions{})
	require.ErrorIs(t, err, graph.ErrNoThread)
}

func TestOverwriteFromPlainNode(t *testing.T) {
	count := func(s *S) *int { return &s.Count }
	attempts := 0
	tests := []struct {
		name string
		node graph.NodeFunc[S]
		opts []graph.NodeOption
		want S
		err  string
	}{
		{"zero past no reducer", func(ctx context.Context, s S) (S, error) {
			return S{Note: "reset"}, graph.Overwrite(ctx, graph.Set(count, 0))
		}, nil, S{Note: "reset", Log: []string{"in"}}, ""},
		{"replace past a reducer", func(ctx context.Context, s S) (S, error) {
			return S{}, graph.Overwrite(ctx, graph.Set(func(s *S) *[]string { return &s.Log }, []string{"only"}))
		}, nil, S{Count: 5, Log: []string{"only"}}, ""},
		{"a failed attempt's overwrites are dropped", func(ctx context.Context, s S) (S, error) {
			attempts++
			if attempts == 1 {
				_ = graph.Overwrite(ctx, graph.Set(count, 0))
				return S{}, errors.New("transient")
			}
			return S{Note: "second"}, nil
		}, []graph.NodeOption{graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: 1})}, S{Count: 5, Note: "second", Log: []string{"in"}}, ""},
		{"another state type", func(ctx context.Context, s S) (S, error) {
			type other struct{ N int }
			return S{}, graph.Overwrite(ctx, graph.Set(func(o *other) *int { return &o.N }, 1))
		}, nil, S{}, "does not write the graph state"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newG().AddNode("a", tc.node, tc.opts...).AddEdge(graph.Start, "a")
			app, err := g.Compile()
			require.NoError(t, err)
			out, err := app.Invoke(bg, S{Count: 5, Log: []string{"in"}})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, out)
		})
	}
	require.Error(t, graph.Overwrite(bg, graph.Set(count, 0)), "outside a node")
}

func TestEmptyUpdateWarnsInDebugMode(t *testing.T) {
	tests := []struct {
		name  string
		level slog.Level
		node  graph.NodeFunc[S]
		warn  bool
	}{
		{"all-zero update, debug logger", slog.LevelDebug, func(ctx context.Context, s S) (S, error) { return S{Count: 0}, nil }, true},
		{"all-zero update, info logger", slog.LevelInfo, func(ctx context.Context, s S) (S, error) { return S{}, nil }, false},
		{"an update that writes", slog.LevelDebug, func(ctx context.Context, s S) (S, error) { return S{Count: 1}, nil }, false},
		{"an overwrite", slog.LevelDebug, func(ctx context.Context, s S) (S, error) {
			return S{}, graph.Overwrite(ctx, graph.Set(func(s *S) *int { return &s.Count }, 0))
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tc.level}))
			app, err := newG().AddNode("resetter", tc.node).AddEdge(graph.Start, "resetter").Compile(graph.WithLogger(logger))
			require.NoError(t, err)
			_, err = app.Invoke(bg, S{Count: 3})
			require.NoError(t, err)
			if tc.warn {
				assert.Contains(t, buf.String(), "level=WARN")
				assert.Contains(t, buf.String(), "node=resetter")
				assert.Contains(t, buf.String(), "graph.Overwrite")
			} else {
				assert.NotContains(t, buf.String(), "writes nothing")
			}
		})
	}
}

func TestFilterConditions(t *testing.T) {
	assert.Equal(t, graph.Condition{Field: "page.path", Op: graph.OpEq, Value: json.RawMessage(`"/login"`)}, graph.Eq("page.path", "/login"))
	assert.Equal(t, graph.Condition{Field: "age", Op: graph.OpGte, Value: json.RawMessage(`18`)}, graph.Gte("age", 18))
	assert.Equal(t, graph.Condition{Field: "tags", Op: graph.OpNe, Value: json.RawMessage(`["x"]`)}, graph.Ne("tags", []string{"x"}))
	for _, c := range []graph.Condition{graph.Gt("n", 1.5), graph.Lt("s", "b"), graph.Lte("n", 0)} {
		assert.NoError(t, c.Err())
	}
	bad := graph.Eq("a", make(chan int))
	assert.ErrorContains(t, bad.Err(), "value is not JSON")
	assert.Nil(t, bad.Value)
}

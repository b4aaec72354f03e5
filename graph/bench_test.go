package graph_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// BenchState is the state of the benchmark shapes: a counter (last value)
// and a list with an append reducer. internal/bench mirrors these shapes.
type BenchState struct {
	Count int
	Items []string
}

func benchGraph() *graph.StateGraph[BenchState] {
	return graph.New[BenchState](graph.Reducer(func(s *BenchState) *[]string { return &s.Items }, state.Append))
}

// chain10: Start -> n0 -> ... -> n9 -> End; each node adds 1 and appends its name.
func chain10(opts ...graph.CompileOption) (*graph.CompiledGraph[BenchState], error) {
	g := benchGraph()
	prev := graph.Start
	for i := 0; i < 10; i++ {
		name := "n" + strconv.Itoa(i)
		item := []string{name}
		g.AddNode(name, func(ctx context.Context, s BenchState) (BenchState, error) {
			return BenchState{Count: s.Count + 1, Items: item}, nil
		})
		g.AddEdge(prev, name)
		prev = name
	}
	g.AddEdge(prev, graph.End)
	return g.Compile(opts...)
}

// fanout8: Start -> src -> w0..w7 (one parallel step) -> join -> End. src
// sets Count to 1 and appends "src"; each worker appends its name; join
// adds 1 and appends "join". Result: Count 2, 10 items.
func fanout8(opts ...graph.CompileOption) (*graph.CompiledGraph[BenchState], error) {
	g := benchGraph()
	g.AddNode("src", func(ctx context.Context, s BenchState) (BenchState, error) {
		return BenchState{Count: 1, Items: []string{"src"}}, nil
	})
	g.AddNode("join", func(ctx context.Context, s BenchState) (BenchState, error) {
		return BenchState{Count: s.Count + 1, Items: []string{"join"}}, nil
	})
	g.AddEdge(graph.Start, "src")
	for i := 0; i < 8; i++ {
		name := "w" + strconv.Itoa(i)
		item := []string{name}
		g.AddNode(name, func(ctx context.Context, s BenchState) (BenchState, error) {
			return BenchState{Items: item}, nil
		})
		g.AddEdge("src", name)
		g.AddEdge(name, "join")
	}
	g.AddEdge("join", graph.End)
	return g.Compile(opts...)
}

// loop100: Start -> inc, then a router sends inc back to itself until
// Count reaches 100; each step adds 1 and appends "i".
func loop100(opts ...graph.CompileOption) (*graph.CompiledGraph[BenchState], error) {
	g := benchGraph()
	item := []string{"i"}
	g.AddNode("inc", func(ctx context.Context, s BenchState) (BenchState, error) {
		return BenchState{Count: s.Count + 1, Items: item}, nil
	})
	g.AddEdge(graph.Start, "inc")
	g.AddConditionalEdges("inc", graph.Branch(func(ctx context.Context, s BenchState) (string, error) {
		if s.Count < 100 {
			return "inc", nil
		}
		return graph.End, nil
	}), "inc", graph.End)
	return g.Compile(opts...)
}

func benchShape(b *testing.B, build func(...graph.CompileOption) (*graph.CompiledGraph[BenchState], error), withCP bool, wantCount, wantItems int) {
	var opts []graph.CompileOption
	if withCP {
		opts = append(opts, graph.WithCheckpointer(checkpoint.NewMemory()))
	}
	app, err := build(opts...)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var runOpts []graph.RunOption
		if withCP {
			runOpts = []graph.RunOption{graph.Thread(strconv.Itoa(i))}
		}
		out, err := app.Invoke(ctx, BenchState{}, runOpts...)
		if err != nil {
			b.Fatal(err)
		}
		if out.Count != wantCount || len(out.Items) != wantItems {
			b.Fatalf("got count %d, %d items", out.Count, len(out.Items))
		}
	}
}

func BenchmarkChain10(b *testing.B)           { benchShape(b, chain10, false, 10, 10) }
func BenchmarkChain10Checkpoint(b *testing.B) { benchShape(b, chain10, true, 10, 10) }
func BenchmarkFanout8(b *testing.B)           { benchShape(b, fanout8, false, 2, 10) }
func BenchmarkFanout8Checkpoint(b *testing.B) { benchShape(b, fanout8, true, 2, 10) }
func BenchmarkLoop100(b *testing.B)           { benchShape(b, loop100, false, 100, 100) }
func BenchmarkLoop100Checkpoint(b *testing.B) { benchShape(b, loop100, true, 100, 100) }

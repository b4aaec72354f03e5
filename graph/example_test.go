package graph_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// Doc is the state of the examples: Steps keeps the last value, Log appends.
type Doc struct {
	Text  string
	Steps int
	Log   []string
}

func docGraph() *graph.StateGraph[Doc] {
	return graph.New[Doc](graph.Reducer(func(d *Doc) *[]string { return &d.Log }, state.Append))
}

// A chain: each node returns only what it changes.
func Example_chain() {
	g := docGraph()
	g.AddNode("draft", func(ctx context.Context, d Doc) (Doc, error) {
		return Doc{Text: "hello", Log: []string{"drafted"}}, nil
	})
	g.AddNode("shout", func(ctx context.Context, d Doc) (Doc, error) {
		return Doc{Text: strings.ToUpper(d.Text) + "!", Log: []string{"shouted"}}, nil
	})
	g.AddEdge(graph.Start, "draft").AddEdge("draft", "shout").AddEdge("shout", graph.End)
	app, err := g.Compile()
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := app.Invoke(context.Background(), Doc{})
	fmt.Println(out.Text, out.Log, err)
	// Output: HELLO! [drafted shouted] <nil>
}

// A branch: a router picks the next node from the state.
func Example_branch() {
	g := docGraph()
	g.AddNode("classify", func(ctx context.Context, d Doc) (Doc, error) { return Doc{Log: []string{"classified"}}, nil })
	g.AddNode("short", func(ctx context.Context, d Doc) (Doc, error) { return Doc{Log: []string{"short path"}}, nil })
	g.AddNode("long", func(ctx context.Context, d Doc) (Doc, error) { return Doc{Log: []string{"long path"}}, nil })
	g.AddEdge(graph.Start, "classify")
	g.AddConditionalEdges("classify", graph.Branch(func(ctx context.Context, d Doc) (string, error) {
		if len(d.Text) > 10 {
			return "long", nil
		}
		return "short", nil
	}), "short", "long")
	app, _ := g.Compile()
	for _, text := range []string{"hi", "a much longer text"} {
		out, _ := app.Invoke(context.Background(), Doc{Text: text})
		fmt.Println(out.Log)
	}
	// Output:
	// [classified short path]
	// [classified long path]
}

// A loop: a node runs again until its router ends the run.
func Example_loop() {
	g := docGraph()
	g.AddNode("revise", func(ctx context.Context, d Doc) (Doc, error) {
		return Doc{Steps: d.Steps + 1, Log: []string{fmt.Sprintf("revision %d", d.Steps+1)}}, nil
	})
	g.AddEdge(graph.Start, "revise")
	g.AddConditionalEdges("revise", graph.Branch(func(ctx context.Context, d Doc) (string, error) {
		if d.Steps < 3 {
			return "revise", nil
		}
		return graph.End, nil
	}), "revise", graph.End)
	app, _ := g.Compile()
	out, err := app.Invoke(context.Background(), Doc{})
	fmt.Println(out.Steps, out.Log, err)

	// The recursion limit stops runaway loops.
	_, err = app.Invoke(context.Background(), Doc{}, graph.RecursionLimit(2))
	fmt.Println(errors.Is(err, graph.ErrRecursionLimit))
	// Output:
	// 3 [revision 1 revision 2 revision 3] <nil>
	// true
}

// Map-reduce: a router fans out Send tasks, each with its own input; their
// writes are reduced in Send order, then a single node summarises.
func Example_mapReduce() {
	g := docGraph()
	g.AddNode("split", func(ctx context.Context, d Doc) (Doc, error) { return Doc{}, nil })
	g.AddNode("count", func(ctx context.Context, d Doc) (Doc, error) {
		return Doc{Log: []string{fmt.Sprintf("%s=%d", d.Text, len(d.Text))}}, nil
	})
	g.AddNode("summary", func(ctx context.Context, d Doc) (Doc, error) {
		return Doc{Text: strings.Join(d.Log, ", ")}, nil
	})
	g.AddEdge(graph.Start, "split")
	g.AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, d Doc) ([]graph.Send[Doc], error) {
		var sends []graph.Send[Doc]
		for _, w := range strings.Fields(d.Text) {
			sends = append(sends, graph.Send[Doc]{Node: "count", Arg: Doc{Text: w}})
		}
		return sends, nil
	}), "count")
	g.AddEdge("count", "summary")
	app, _ := g.Compile()
	out, _ := app.Invoke(context.Background(), Doc{Text: "map reduce in go"})
	fmt.Println(out.Text)
	// Output: map=3, reduce=6, in=2, go=2
}

// Human in the loop: Interrupt pauses the thread; Resume answers it.
func Example_humanInTheLoop() {
	g := docGraph()
	g.AddNode("draft", func(ctx context.Context, d Doc) (Doc, error) { return Doc{Text: "launch at noon"}, nil })
	g.AddNode("approve", func(ctx context.Context, d Doc) (Doc, error) {
		ok, err := graph.InterruptAs[bool](ctx, "approve: "+d.Text+"?")
		if err != nil {
			return Doc{}, err // pauses the run
		}
		if !ok {
			return Doc{Log: []string{"rejected"}}, nil
		}
		return Doc{Log: []string{"approved"}}, nil
	})
	g.AddEdge(graph.Start, "draft").AddEdge("draft", "approve")
	app, _ := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	ctx := context.Background()

	_, err := app.Invoke(ctx, Doc{}, graph.Thread("plan-7"))
	var ie *graph.InterruptError
	if errors.As(err, &ie) {
		fmt.Println("paused:", ie.Interrupts[0].Value)
	}
	snap, _ := app.GetState(ctx, graph.Thread("plan-7"))
	fmt.Println("next:", snap.Next)

	out, err := app.Invoke(ctx, Doc{}, graph.Thread("plan-7"), graph.Resume(true))
	fmt.Println(out.Text, out.Log, err)
	// Output:
	// paused: approve: launch at noon?
	// next: [approve]
	// launch at noon [approved] <nil>
}

// Streaming updates as the graph runs.
func ExampleCompiledGraph_Stream() {
	g := docGraph()
	g.AddNode("a", func(ctx context.Context, d Doc) (Doc, error) { return Doc{Log: []string{"a"}}, nil })
	g.AddNode("b", func(ctx context.Context, d Doc) (Doc, error) {
		graph.Emit(ctx, "working on b")
		return Doc{Log: []string{"b"}}, nil
	})
	g.AddEdge(graph.Start, "a").AddEdge("a", "b")
	app, _ := g.Compile()
	for ev, err := range app.Stream(context.Background(), Doc{}, graph.Modes(graph.Updates, graph.Custom)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		switch ev.Mode {
		case graph.Updates:
			fmt.Println("update from", ev.Node, ev.State.Log)
		case graph.Custom:
			fmt.Println("custom from", ev.Node, ev.Custom)
		}
	}
	// Output:
	// update from a [a]
	// custom from b working on b
	// update from b [b]
}

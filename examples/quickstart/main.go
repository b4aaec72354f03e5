// Command quickstart is the README's quick start for package graph: a
// map-reduce graph with a reducer, Send fan-out and a conditional edge,
// checkpointed in memory. Run it with `go run ./examples/quickstart`.
package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// State is the graph's state: each exported field is a channel.
type State struct {
	Topics  []string // no reducer: the last value written wins
	Topic   string   // the per-task input of a Send
	Jokes   []string // reducer: append
	Verdict string
}

func main() {
	g := graph.New[State](graph.Reducer(func(s *State) *[]string { return &s.Jokes }, state.Append))
	g.AddNode("plan", func(ctx context.Context, s State) (State, error) {
		return State{Topics: strings.Fields("cats dogs birds")}, nil
	})
	g.AddNode("joke", func(ctx context.Context, s State) (State, error) { // runs once per Send, in parallel
		return State{Jokes: []string{"a joke about " + s.Topic}}, nil
	})
	g.AddNode("judge", func(ctx context.Context, s State) (State, error) {
		return State{Verdict: fmt.Sprintf("%d jokes, all good", len(s.Jokes))}, nil
	})
	g.AddEdge(graph.Start, "plan")
	g.AddConditionalEdges("plan", graph.FanOut(func(ctx context.Context, s State) ([]graph.Send[State], error) {
		var sends []graph.Send[State]
		for _, t := range s.Topics {
			sends = append(sends, graph.Send[State]{Node: "joke", Arg: State{Topic: t}})
		}
		return sends, nil
	}), "joke")
	g.AddEdge("joke", "judge") // the judge runs once, after every joke of the step
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	if err != nil {
		log.Fatal(err)
	}
	out, err := app.Invoke(context.Background(), State{}, graph.Thread("demo"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Join(out.Jokes, "; "))
	fmt.Println(out.Verdict)
}

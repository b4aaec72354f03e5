package checkpoint_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/state"
)

type exampleState struct {
	Count int
	Log   []string
}

func exampleGraph() *graph.StateGraph[exampleState] {
	g := graph.New[exampleState](graph.Reducer(func(s *exampleState) *[]string { return &s.Log }, state.Append[string]))
	g.AddNode("count", func(ctx context.Context, s exampleState) (exampleState, error) {
		return exampleState{Count: s.Count + 1, Log: []string{fmt.Sprint("step ", s.Count+1)}}, nil
	})
	g.AddEdge(graph.Start, "count")
	g.AddConditionalEdges("count", graph.Branch(func(ctx context.Context, s exampleState) (string, error) {
		if s.Count >= 3 {
			return graph.End, nil
		}
		return "count", nil
	}), "count", graph.End)
	return g
}

func ExampleNewMemory() {
	app, err := exampleGraph().Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	if err != nil {
		log.Fatal(err)
	}
	out, err := app.Invoke(context.Background(), exampleState{}, graph.Thread("t1"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Count, out.Log)
	// Output: 3 [step 1 step 2 step 3]
}

// One bbolt file holds the checkpoints and the long-term store.
func ExampleNewBolt() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "agentgraph-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	db, err := checkpoint.OpenBoltDB(filepath.Join(dir, "agent.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	cp, err := checkpoint.NewBolt(db, checkpoint.WithRetention(100))
	if err != nil {
		log.Fatal(err)
	}
	st, err := memory.NewBoltStore(db)
	if err != nil {
		log.Fatal(err)
	}
	app, err := exampleGraph().Compile(graph.WithCheckpointer(cp), graph.WithStore(st))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := app.Invoke(ctx, exampleState{}, graph.Thread("mission-1")); err != nil {
		log.Fatal(err)
	}
	history, err := cp.List(ctx, "mission-1", "", graph.ListOptions{Limit: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range history {
		fmt.Printf("step %d: Count=%s\n", c.Step, c.Values["Count"])
	}
	// Output:
	// step 2: Count=3
	// step 1: Count=2
}

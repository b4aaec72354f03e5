package graph_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// scaleCheckpointers are the back-ends of the scaling benchmarks: the
// in-memory one and bbolt without fsync (the disk's sync time would hide
// the engine's and the encoder's costs on a shared machine).
var scaleCheckpointers = []struct {
	name string
	make func(b *testing.B) graph.Checkpointer
}{
	{"memory", func(*testing.B) graph.Checkpointer { return checkpoint.NewMemory() }},
	{"bolt", func(b *testing.B) graph.Checkpointer {
		db, err := checkpoint.OpenBoltDB(filepath.Join(b.TempDir(), "bench.db"), &bolt.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		cp, err := checkpoint.NewBolt(db)
		if err != nil {
			b.Fatal(err)
		}
		return cp
	}},
}

// BenchmarkSendFanout runs one step of n parallel Send tasks, each
// appending one item, with a checkpointer. ns/task is the time per task:
// it should stay flat as n grows.
func BenchmarkSendFanout(b *testing.B) {
	for _, c := range scaleCheckpointers {
		for _, n := range []int{1, 10, 100, 1000} {
			b.Run(fmt.Sprintf("cp=%s/n=%d", c.name, n), func(b *testing.B) {
				g := benchGraph()
				g.AddNode("fan", func(ctx context.Context, s BenchState) (BenchState, error) { return BenchState{}, nil })
				g.AddNode("work", func(ctx context.Context, s BenchState) (BenchState, error) {
					return BenchState{Items: []string{strconv.Itoa(s.Count)}}, nil
				})
				g.AddEdge(graph.Start, "fan")
				g.AddConditionalEdges("fan", graph.FanOut(func(ctx context.Context, s BenchState) ([]graph.Send[BenchState], error) {
					sends := make([]graph.Send[BenchState], n)
					for i := range sends {
						sends[i] = graph.Send[BenchState]{Node: "work", Arg: BenchState{Count: i}}
					}
					return sends, nil
				}), "work")
				app, err := g.Compile(graph.WithCheckpointer(c.make(b)))
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					out, err := app.Invoke(ctx, BenchState{}, graph.Thread(strconv.Itoa(i)))
					if err != nil {
						b.Fatal(err)
					}
					if len(out.Items) != n {
						b.Fatalf("got %d items, want %d", len(out.Items), n)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i*n), "ns/task")
			})
		}
	}
}

// MsgState is the state of BenchmarkMessageStep: a message list and a
// step counter.
type MsgState struct {
	Count    int
	Target   int
	Messages []state.Message
}

// BenchmarkMessageStep measures one super-step that appends one message to
// a thread holding size messages, with a checkpointer, through Append and
// through AddMessages. Each run of steps starts on a new thread seeded with
// size messages; the seeding is not timed.
func BenchmarkMessageStep(b *testing.B) {
	reducers := []struct {
		name   string
		reduce func(cur, upd []state.Message) []state.Message
	}{{"append", state.Append[state.Message]}, {"addmessages", state.AddMessages}}
	const chunk = 16
	for _, red := range reducers {
		for _, c := range scaleCheckpointers {
			for _, size := range []int{10, 1000, 100000} {
				b.Run(fmt.Sprintf("reducer=%s/cp=%s/msgs=%d", red.name, c.name, size), func(b *testing.B) {
					g := graph.New[MsgState](graph.Reducer(func(s *MsgState) *[]state.Message { return &s.Messages }, red.reduce))
					g.AddNode("step", func(ctx context.Context, s MsgState) (MsgState, error) {
						return MsgState{Count: s.Count + 1, Messages: []state.Message{{
							ID: "m" + strconv.Itoa(len(s.Messages)), Role: state.RoleAI, Content: "step " + strconv.Itoa(s.Count),
						}}}, nil
					})
					g.AddEdge(graph.Start, "step")
					g.AddConditionalEdges("step", graph.Branch(func(ctx context.Context, s MsgState) (string, error) {
						if s.Count < s.Target {
							return "step", nil
						}
						return graph.End, nil
					}), "step", graph.End)
					cp := c.make(b)
					app, err := g.Compile(graph.WithCheckpointer(cp))
					if err != nil {
						b.Fatal(err)
					}
					seed := make([]state.Message, size)
					for i := range seed {
						seed[i] = state.Message{ID: "s" + strconv.Itoa(i), Role: state.RoleHuman, Content: "seed message " + strconv.Itoa(i)}
					}
					ctx := context.Background()
					b.ReportAllocs()
					b.ResetTimer()
					thread := 0
					for done := 0; done < b.N; done += chunk {
						b.StopTimer()
						steps := min(chunk, b.N-done)
						thread++
						id := strconv.Itoa(thread)
						// The timer starts once the input (the seed) is
						// checkpointed, and after a collection: the seeding's
						// garbage is not the steps' cost.
						start := graph.Observe(func(ev graph.Event[MsgState]) {
							if ev.Mode == graph.Values && ev.Step == -1 {
								runtime.GC()
								b.StartTimer()
							}
						})
						out, err := app.Invoke(ctx, MsgState{Target: steps, Messages: seed}, graph.Thread(id), start)
						b.StopTimer()
						if err != nil {
							b.Fatal(err)
						}
						if len(out.Messages) != size+steps {
							b.Fatalf("got %d messages, want %d", len(out.Messages), size+steps)
						}
						if err := cp.DeleteThread(ctx, id); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
				})
			}
		}
	}
}

package checkpoint_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

type stateKind struct {
	name string
	// next returns the channels of step i (1 MiB states change each step).
	next func(i int) map[string][]byte
}

func stateKinds() []stateKind {
	r := rand.New(rand.NewPCG(3, 4))
	mib := []byte(`"` + randomText(r, 1<<20-2) + `"`)
	msg := randomText(r, 1024)
	var appended []byte
	return []stateKind{
		{"small", func(i int) map[string][]byte {
			return map[string][]byte{"Count": []byte(fmt.Sprint(i)), "Next": []byte(`"agent"`), "Note": []byte(fmt.Sprintf(`"step %d done"`, i))}
		}},
		{"1MiB-rewritten", func(i int) map[string][]byte {
			v := append([]byte(nil), mib...)
			copy(v[1:], fmt.Sprintf("%012d", i)) // a new value with no shared prefix
			return map[string][]byte{"Blob": v, "Count": []byte(fmt.Sprint(i))}
		}},
		{"1MiB-appended", func(i int) map[string][]byte {
			if appended == nil {
				parts := make([]string, 1024)
				for j := range parts {
					parts[j] = `"` + msg[:1020] + `"`
				}
				appended = []byte("[" + strings.Join(parts, ",") + "]")
			}
			appended = append(appended[:len(appended)-1], []byte(`,"`+msg[:1020]+`"]`)...)
			return map[string][]byte{"Messages": append([]byte(nil), appended...), "Count": []byte(fmt.Sprint(i))}
		}},
	}
}

// benchModes are the durability set-ups compared: bbolt's own sync, no
// sync at all, the write-ahead log (strict: one fdatasync per operation),
// and the log with lazy pending writes (the graph step only).
var benchModes = []struct {
	name   string
	noSync bool
	wal    *checkpoint.WALOptions
}{
	{"sync", false, nil},
	{"nosync", true, nil},
	{"wal", false, &checkpoint.WALOptions{}},
	{"wal-lazy", false, &checkpoint.WALOptions{LazyWrites: true}},
}

func openBench(b *testing.B, noSync bool, wal *checkpoint.WALOptions) *checkpoint.Bolt {
	db, err := checkpoint.OpenBoltDB(filepath.Join(b.TempDir(), "bench.db"), &bolt.Options{NoSync: noSync})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var opts []checkpoint.Option
	if wal != nil {
		opts = append(opts, checkpoint.WithWAL(*wal))
	}
	cp, err := checkpoint.NewBolt(db, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return cp
}

// BenchmarkBoltPut: checkpoint writes per second, each a child of the
// previous one. The time includes the log's batched applies to bbolt and
// the final Close, which applies the rest.
func BenchmarkBoltPut(b *testing.B) {
	ctx := context.Background()
	for _, sk := range stateKinds() {
		for _, m := range benchModes {
			if m.name == "wal-lazy" {
				continue // Put is synced either way
			}
			b.Run(sk.name+"/"+m.name, func(b *testing.B) {
				cp := openBench(b, m.noSync, m.wal)
				parent := ""
				b.ResetTimer()
				for i := range b.N {
					c := &graph.Checkpoint{ThreadID: "bench", ID: checkpointtest.ID(i), ParentID: parent, Step: i,
						Values: sk.next(i), Versions: map[string]int64{"Count": int64(i)}, Format: "json"}
					if err := cp.Put(ctx, c); err != nil {
						b.Fatal(err)
					}
					parent = c.ID
				}
				if err := cp.Close(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
			})
		}
	}
}

type benchState struct {
	Count int
	Log   []string
}

// BenchmarkGraphStep: one super-step of a one-node loop with the bbolt
// checkpointer: the node's work is trivial, so the step costs the engine
// plus its checkpointer calls (PutWrites of the finished task, then Put).
func BenchmarkGraphStep(b *testing.B) {
	for _, m := range benchModes {
		if m.noSync {
			continue
		}
		b.Run(m.name, func(b *testing.B) { benchGraphStep(b, openBench(b, false, m.wal)) })
	}
}

func benchGraphStep(b *testing.B, cp *checkpoint.Bolt) {
	ctx := context.Background()
	steps := 0
	g := graph.New[benchState](graph.Reducer(func(s *benchState) *[]string { return &s.Log }, state.Append[string]))
	g.AddNode("work", func(ctx context.Context, s benchState) (benchState, error) {
		return benchState{Count: s.Count + 1, Log: []string{"step"}}, nil
	})
	g.AddEdge(graph.Start, "work")
	g.AddConditionalEdges("work", graph.Branch(func(ctx context.Context, s benchState) (string, error) {
		if s.Count >= steps {
			return graph.End, nil
		}
		return "work", nil
	}), "work", graph.End)
	b.ResetTimer()
	steps = b.N
	app, err := g.Compile(graph.WithCheckpointer(cp), graph.WithRecursionLimit(b.N+10))
	if err != nil {
		b.Fatal(err)
	}
	out, err := app.Invoke(ctx, benchState{}, graph.Thread("bench"))
	if err != nil {
		b.Fatal(err)
	}
	if out.Count != b.N {
		b.Fatalf("ran %d steps, want %d", out.Count, b.N)
	}
	if err := cp.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

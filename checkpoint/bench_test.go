package checkpoint_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// BenchmarkFsync4KiB is the floor: one 4 KiB write and one fsync of a file
// on the same disk (the benchmark's temp dir) as the bbolt files below.
func BenchmarkFsync4KiB(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "fsync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	b.SetBytes(int64(len(buf)))
	for i := 0; b.Loop(); i++ {
		buf[0] = byte(i)
		if _, err := f.WriteAt(buf, 0); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "fsyncs/s")
}

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

// BenchmarkBoltPut: checkpoint writes per second, each a child of the
// previous one, with bbolt's default sync and with NoSync.
func BenchmarkBoltPut(b *testing.B) {
	ctx := context.Background()
	for _, sk := range stateKinds() {
		for _, noSync := range []bool{false, true} {
			name := sk.name + "/sync"
			if noSync {
				name = sk.name + "/nosync"
			}
			b.Run(name, func(b *testing.B) {
				db, err := checkpoint.OpenBoltDB(filepath.Join(b.TempDir(), "bench.db"), &bolt.Options{NoSync: noSync})
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				cp, err := checkpoint.NewBolt(db)
				if err != nil {
					b.Fatal(err)
				}
				parent := ""
				for i := 0; b.Loop(); i++ {
					c := &graph.Checkpoint{ThreadID: "bench", ID: checkpointtest.ID(i), ParentID: parent, Step: i,
						Values: sk.next(i), Versions: map[string]int64{"Count": int64(i)}, Format: "json"}
					if err := cp.Put(ctx, c); err != nil {
						b.Fatal(err)
					}
					parent = c.ID
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
// checkpointer (default sync): the node's work is trivial, so the step
// costs the engine plus one checkpoint write.
func BenchmarkGraphStep(b *testing.B) {
	ctx := context.Background()
	db, err := checkpoint.OpenBoltDB(filepath.Join(b.TempDir(), "graph.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	cp, err := checkpoint.NewBolt(db)
	if err != nil {
		b.Fatal(err)
	}
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
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

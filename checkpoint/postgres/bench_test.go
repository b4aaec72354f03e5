package postgres_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// BenchmarkGraphStep: one super-step of a one-node loop (trivial node
// work), so a step costs the engine plus its checkpointer calls: the
// finished task's PutWrites, then the step's Put. Sub-benchmarks, in one
// run: the Postgres checkpointer (a local cluster, fsync on, synchronous
// commit), the bbolt checkpointer with bbolt's sync, and the floor of one
// durable 4 KiB write (write + fdatasync) on the same disk.
func BenchmarkGraphStep(b *testing.B) {
	b.Run("postgres", func(b *testing.B) { benchGraphStep(b, newCP(b, newPool(b))) })
	b.Run("bbolt-sync", func(b *testing.B) {
		db, err := checkpoint.OpenBoltDB(filepath.Join(b.TempDir(), "bench.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		cp, err := checkpoint.NewBolt(db)
		if err != nil {
			b.Fatal(err)
		}
		benchGraphStep(b, cp)
	})
	b.Run("fsync-floor", benchFsyncFloor)
}

type benchState struct {
	Count int
	Log   []string
}

func benchGraphStep(b *testing.B, cp graph.Checkpointer) {
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
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

func benchFsyncFloor(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "floor"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	b.ResetTimer()
	for i := range b.N {
		if _, err := f.WriteAt(buf, int64(i%256)*4096); err != nil {
			b.Fatal(err)
		}
		if err := fdatasync(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPutConcurrent: checkpoint writes per second on one server with
// 1, 4 and 16 threads written at once (one goroutine and Checkpointer
// call stream per thread, each Put a child of the thread's previous one).
func BenchmarkPutConcurrent(b *testing.B) {
	for _, threads := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("threads-%d", threads), func(b *testing.B) {
			cp := newCP(b, newPool(b))
			ctx := context.Background()
			var next atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, threads)
			b.ResetTimer()
			for th := range threads {
				wg.Add(1)
				go func() {
					defer wg.Done()
					thread := fmt.Sprintf("t%d", th)
					parent := ""
					for i := 0; next.Add(1) <= int64(b.N); i++ {
						c := checkpointtest.Sample(thread, "", i, false)
						c.ParentID = parent
						if err := cp.Put(ctx, c); err != nil {
							errs <- err
							return
						}
						parent = c.ID
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checkpoints/s")
		})
	}
}

// stepApp compiles the one-node loop of BenchmarkGraphStep running k steps
// per Invoke.
func stepApp(b *testing.B, cp graph.Checkpointer, k int) *graph.CompiledGraph[benchState] {
	g := graph.New[benchState](graph.Reducer(func(s *benchState) *[]string { return &s.Log }, state.Append[string]))
	g.AddNode("work", func(ctx context.Context, s benchState) (benchState, error) {
		return benchState{Count: s.Count + 1, Log: []string{"step"}}, nil
	})
	g.AddEdge(graph.Start, "work")
	g.AddConditionalEdges("work", graph.Branch(func(ctx context.Context, s benchState) (string, error) {
		if s.Count >= k {
			return graph.End, nil
		}
		return "work", nil
	}), "work", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(cp))
	if err != nil {
		b.Fatal(err)
	}
	return app
}

// BenchmarkStepRatio pairs the back-ends under the same load: each
// iteration runs 20 graph steps on a new thread with the Postgres
// checkpointer, 20 with bbolt's sync, and 20 durable 4 KiB writes (the
// fdatasync floor), back to back, and reports the ratios of their times.
// One iteration (ns/op) is the three together.
func BenchmarkStepRatio(b *testing.B) {
	const k = 20
	ctx := context.Background()
	pg := stepApp(b, newCP(b, newPool(b)), k)
	db, err := checkpoint.OpenBoltDB(filepath.Join(b.TempDir(), "ratio.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	bcp, err := checkpoint.NewBolt(db)
	if err != nil {
		b.Fatal(err)
	}
	bb := stepApp(b, bcp, k)
	f, err := os.Create(filepath.Join(b.TempDir(), "floor"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	var tPG, tBolt, tFloor time.Duration
	b.ResetTimer()
	for i := range b.N {
		thread := fmt.Sprintf("r%d", i)
		t0 := time.Now()
		if _, err := pg.Invoke(ctx, benchState{}, graph.Thread(thread)); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := bb.Invoke(ctx, benchState{}, graph.Thread(thread)); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		for j := range k {
			if _, err := f.WriteAt(buf, int64(j)*4096); err != nil {
				b.Fatal(err)
			}
			if err := fdatasync(f); err != nil {
				b.Fatal(err)
			}
		}
		t3 := time.Now()
		tPG, tBolt, tFloor = tPG+t1.Sub(t0), tBolt+t2.Sub(t1), tFloor+t3.Sub(t2)
	}
	b.ReportMetric(float64(tPG)/float64(tBolt), "pg/bbolt")
	b.ReportMetric(float64(tPG)/float64(tFloor), "pg/floor")
	b.ReportMetric(float64(tBolt)/float64(tFloor), "bbolt/floor")
	b.ReportMetric(float64(tPG)/float64(b.N*k)/1e3, "pg-µs/step")
	b.ReportMetric(float64(tBolt)/float64(b.N*k)/1e3, "bbolt-µs/step")
}

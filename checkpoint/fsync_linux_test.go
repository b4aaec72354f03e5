package checkpoint_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// BenchmarkFsync4KiB is the floor: one durable 4 KiB write to a file on the
// same disk (the benchmark's temp dir) as the bbolt files, four ways. The
// cheapest is the floor the checkpointer is held to:
//
//   - overwrite-fsync: the same 4 KiB rewritten, then fsync;
//   - overwrite-fdatasync: the same, with fdatasync;
//   - append-fdatasync: each write extends the file, then fdatasync (which
//     must then also flush the new size and block allocation);
//   - prezeroed-fdatasync: sequential 4 KiB blocks of a file zero-filled
//     beforehand (what the log does), then fdatasync.
func BenchmarkFsync4KiB(b *testing.B) {
	const prezeroed = 16 << 20
	for _, tc := range []struct {
		name string
		next func(i int) int64 // offset of write i
		sync func(*os.File) error
		zero bool
	}{
		{"overwrite-fsync", func(int) int64 { return 0 }, (*os.File).Sync, false},
		{"overwrite-fdatasync", func(int) int64 { return 0 }, fdatasync, false},
		{"append-fdatasync", func(i int) int64 { return int64(i) * 4096 }, fdatasync, false},
		{"prezeroed-fdatasync", func(i int) int64 { return int64(i) * 4096 % prezeroed }, fdatasync, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "fsync"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			if tc.zero {
				if _, err := f.Write(make([]byte, prezeroed)); err != nil {
					b.Fatal(err)
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
			}
			buf := make([]byte, 4096)
			b.SetBytes(int64(len(buf)))
			b.ResetTimer()
			for i := range b.N {
				buf[0] = byte(i)
				if _, err := f.WriteAt(buf, tc.next(i)); err != nil {
					b.Fatal(err)
				}
				if err := tc.sync(f); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "fsyncs/s")
		})
	}
}

func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }

// floorFile is a pre-zeroed 4 KiB file whose block is rewritten and
// fdatasynced: one durable 4 KiB write (the overwrite-fdatasync floor).
type floorFile struct {
	f   *os.File
	buf []byte
	n   int
	dur time.Duration // total time spent in write
	// last is the duration of each write, start when each began.
	last  []time.Duration
	start []time.Time
}

func newFloorFile(b *testing.B) *floorFile {
	f, err := os.Create(filepath.Join(b.TempDir(), "floor"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	fl := &floorFile{f: f, buf: make([]byte, 4096)}
	if _, err := f.Write(fl.buf); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	return fl
}

func (fl *floorFile) write() error {
	start := time.Now()
	defer func() {
		fl.last = append(fl.last, time.Since(start))
		fl.start = append(fl.start, start)
	}()
	fl.n++
	fl.buf[0] = byte(fl.n)
	if _, err := fl.f.WriteAt(fl.buf, 0); err != nil {
		return err
	}
	err := fdatasync(fl.f)
	fl.dur += time.Since(start)
	return err
}

// BenchmarkSyncRatio measures the checkpointer against the floor in pairs:
// every iteration does one floor write (4 KiB + fdatasync) and then one
// checkpointer operation, timed apart, so both see the same load on a
// shared machine. "ratio" is the operation's time over the floor's.
//   - put-small/<mode>: a small checkpoint Put, child of the previous one;
//   - step/<mode>: one graph super-step of a one-node loop (PutWrites of
//     the task, then Put); the node does the floor write, and the step's
//     time is the run's time minus the floor writes.
func BenchmarkSyncRatio(b *testing.B) {
	ctx := context.Background()
	small := stateKinds()[0]
	for _, m := range benchModes {
		if m.noSync {
			continue
		}
		if m.name != "wal-lazy" {
			b.Run("put-small/"+m.name, func(b *testing.B) {
				cp := openBench(b, false, m.wal)
				fl := newFloorFile(b)
				var ops time.Duration
				parent := ""
				b.ResetTimer()
				for i := range b.N {
					if err := fl.write(); err != nil {
						b.Fatal(err)
					}
					c := &graph.Checkpoint{ThreadID: "bench", ID: checkpointtest.ID(i), ParentID: parent, Step: i,
						Values: small.next(i), Versions: map[string]int64{"Count": int64(i)}, Format: "json"}
					start := time.Now()
					if err := cp.Put(ctx, c); err != nil {
						b.Fatal(err)
					}
					ops += time.Since(start)
					parent = c.ID
				}
				start := time.Now()
				if err := cp.Close(); err != nil {
					b.Fatal(err)
				}
				ops += time.Since(start)
				reportRatio(b, ops, fl)
			})
		}
		b.Run("step/"+m.name, func(b *testing.B) {
			cp := openBench(b, false, m.wal)
			fl := newFloorFile(b)
			steps := 0
			g := graph.New[benchState](graph.Reducer(func(s *benchState) *[]string { return &s.Log }, state.Append[string]))
			g.AddNode("work", func(ctx context.Context, s benchState) (benchState, error) {
				return benchState{Count: s.Count + 1, Log: []string{"step"}}, fl.write()
			})
			g.AddEdge(graph.Start, "work")
			g.AddConditionalEdges("work", graph.Branch(func(ctx context.Context, s benchState) (string, error) {
				if s.Count >= steps {
					return graph.End, nil
				}
				return "work", nil
			}), "work", graph.End)
			steps = b.N
			app, err := g.Compile(graph.WithCheckpointer(cp), graph.WithRecursionLimit(b.N+10))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			if _, err := app.Invoke(ctx, benchState{}, graph.Thread("bench")); err != nil {
				b.Fatal(err)
			}
			if err := cp.Close(); err != nil {
				b.Fatal(err)
			}
			reportRatio(b, time.Since(start)-fl.dur, fl)
			reportStepP99(b, fl)
		})
	}
}

// reportStepP99 reports the 99th percentile of a step's time (from one
// node's floor write to the next's, less the floor write) over the mean
// floor: "p99-ratio".
func reportStepP99(b *testing.B, fl *floorFile) {
	if len(fl.start) < 2 {
		return
	}
	steps := make([]time.Duration, 0, len(fl.start)-1)
	for i := 1; i < len(fl.start); i++ {
		steps = append(steps, fl.start[i].Sub(fl.start[i-1])-fl.last[i-1])
	}
	slices.Sort(steps)
	p99 := steps[min(len(steps)-1, len(steps)*99/100)]
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs/op")
	b.ReportMetric(float64(p99)/(float64(fl.dur)/float64(fl.n)), "p99-ratio")
}

func reportRatio(b *testing.B, ops time.Duration, fl *floorFile) {
	b.ReportMetric(float64(fl.dur.Microseconds())/float64(fl.n), "floor-µs/op")
	b.ReportMetric(float64(ops.Microseconds())/float64(b.N), "op-µs/op")
	b.ReportMetric(float64(ops)/float64(fl.dur)*float64(fl.n)/float64(b.N), "ratio")
}

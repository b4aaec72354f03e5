package postgres_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint/postgres"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/pgtest"
	"github.com/agentgraph/agentgraph/state"
)

const crashLogEnv = "AGENTGRAPH_PG_CHILD_RUNLOG" // the file the child's nodes note their runs in

type crashState struct {
	Log []string
}

// crashGraph: step 0 runs "fast" and "slow" in parallel, step 1 runs
// "after". Every node run is noted in runlog (one line per run, appended).
func crashGraph(runlog string, slowDelay time.Duration) *graph.StateGraph[crashState] {
	note := func(what string) error {
		f, err := os.OpenFile(runlog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(f, what)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	g := graph.New[crashState](graph.Reducer(func(s *crashState) *[]string { return &s.Log }, state.Append[string]))
	g.AddNode("fast", func(ctx context.Context, s crashState) (crashState, error) {
		return crashState{Log: []string{"fast"}}, note("fast")
	})
	g.AddNode("slow", func(ctx context.Context, s crashState) (crashState, error) {
		if err := note("slow"); err != nil {
			return crashState{}, err
		}
		select {
		case <-time.After(slowDelay):
		case <-ctx.Done():
			return crashState{}, ctx.Err()
		}
		return crashState{Log: []string{"slow"}}, nil
	})
	g.AddNode("after", func(ctx context.Context, s crashState) (crashState, error) {
		return crashState{Log: []string{fmt.Sprintf("after(%d)", len(s.Log))}}, note("after")
	})
	g.AddEdge(graph.Start, "fast")
	g.AddEdge(graph.Start, "slow")
	g.AddEdge("fast", "after")
	g.AddEdge("slow", "after")
	g.AddEdge("after", graph.End)
	return g
}

// runCrashChild runs the crash thread with a "slow" node that never ends:
// its parent kills it.
func runCrashChild(ctx context.Context) int {
	cp, pool, err := postgres.Open(ctx, os.Getenv(childDSNEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	defer pool.Close()
	app, err := crashGraph(os.Getenv(crashLogEnv), time.Hour).Compile(graph.WithCheckpointer(cp))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	_, err = app.Invoke(ctx, crashState{Log: []string{"in"}}, graph.Thread("crash"))
	fmt.Fprintln(os.Stderr, "child: the run ended, it should have been killed:", err)
	return 1
}

func runs(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		out[l]++
	}
	return out
}

// TestSIGKILLMidStep: a graph process is killed (SIGKILL) in the middle of
// a parallel step, after one task finished and while the other runs. A new
// process continues the thread (graph.Continue): it ends with the same
// state as an uninterrupted run, and the finished task does not run again.
func TestSIGKILLMidStep(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	crashLog := filepath.Join(dir, "crash.log")
	cp, pool, err := postgres.Open(ctx, dsn)
	require.NoError(t, err)
	defer pool.Close()

	runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(runCtx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=crash-run", childDSNEnv+"="+dsn, crashLogEnv+"="+crashLog)
	var out lockedOutput
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Wait until "fast" has stored its writes against the step's start
	// checkpoint (the engine stores a finished task's writes at once).
	deadline := time.Now().Add(time.Minute)
	for {
		_, ws, err := cp.Get(ctx, "crash", "", "")
		if err == nil && hasRoute(ws, "fast") {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the child ended before it was killed: %v\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "fast's pending writes never appeared\n%s", out.String())
	}
	require.NoError(t, cmd.Process.Kill()) // SIGKILL
	<-exited
	assert.Equal(t, map[string]int{"fast": 1, "slow": 1}, runs(t, crashLog), "killed mid-step")

	// A new process (this one) continues the thread.
	cp2, err := postgres.New(ctx, pool)
	require.NoError(t, err)
	resumed, err := crashGraph(crashLog, 0).Compile(graph.WithCheckpointer(cp2))
	require.NoError(t, err)
	got, err := resumed.Invoke(ctx, crashState{}, graph.Thread("crash"), graph.Continue())
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"fast": 1, "slow": 2, "after": 1}, runs(t, crashLog), "the finished task did not run again")

	// The same graph, uninterrupted, on another thread.
	cleanLog := filepath.Join(dir, "clean.log")
	clean, err := crashGraph(cleanLog, 0).Compile(graph.WithCheckpointer(cp2))
	require.NoError(t, err)
	want, err := clean.Invoke(ctx, crashState{Log: []string{"in"}}, graph.Thread("clean"))
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, map[string]int{"fast": 1, "slow": 1, "after": 1}, runs(t, cleanLog))
	assertLinear(t, cp2, "crash", 3)
}

func hasRoute(ws []graph.PendingWrite, node string) bool {
	for _, w := range ws {
		if w.Node == node && w.Channel == "__route__" {
			return true
		}
	}
	return false
}

// lockedOutput collects a child's output.
type lockedOutput struct {
	mu sync.Mutex
	b  []byte
}

func (l *lockedOutput) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *lockedOutput) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

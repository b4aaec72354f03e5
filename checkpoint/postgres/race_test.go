package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/checkpoint/postgres"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/pgtest"
	"github.com/agentgraph/agentgraph/state"
)

const (
	childEnv      = "AGENTGRAPH_PG_CHILD"       // the role of a child process
	childDSNEnv   = "AGENTGRAPH_PG_CHILD_DSN"   // its database
	childStartEnv = "AGENTGRAPH_PG_CHILD_START" // Unix nanoseconds at which it starts its run
	childWhoEnv   = "AGENTGRAPH_PG_CHILD_WHO"   // its name, written into the state

	exitConflict = 3 // a child that got the conflict error
)

// TestConflictTwoWriters: two Checkpointers (two processes' worth) read
// the same newest checkpoint; the first to write a child wins, the second
// gets a *ConflictError and writes nothing; after reading again it goes on
// from the winner's checkpoint.
func TestConflictTwoWriters(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	a, b := newCP(t, pool), newCP(t, pool)
	require.NoError(t, a.Put(ctx, checkpointtest.Sample("t", "", 0, false)))
	for _, cp := range []*postgres.Checkpointer{a, b} {
		got, _, err := cp.Get(ctx, "t", "", "")
		require.NoError(t, err)
		require.Equal(t, checkpointtest.ID(0), got.ID)
	}
	require.NoError(t, a.PutWrites(ctx, "t", "", checkpointtest.ID(0), []graph.PendingWrite{{TaskID: "x", Channel: "c", Value: []byte("1")}}))
	require.NoError(t, a.Put(ctx, checkpointtest.Sample("t", "", 1, true)))

	err := b.PutWrites(ctx, "t", "", checkpointtest.ID(0), []graph.PendingWrite{{TaskID: "x", Channel: "c", Value: []byte("2")}})
	require.ErrorIs(t, err, postgres.ErrConflict)
	loser := checkpointtest.Sample("t", "", 2, false)
	loser.ParentID = checkpointtest.ID(0)
	err = b.Put(ctx, loser)
	var ce *postgres.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, postgres.ConflictError{ThreadID: "t", CheckpointID: checkpointtest.ID(2), ParentID: checkpointtest.ID(0),
		Expected: checkpointtest.ID(0), Head: checkpointtest.ID(1)}, *ce)
	_, _, err = b.Get(ctx, "t", "", checkpointtest.ID(2))
	require.ErrorIs(t, err, graph.ErrCheckpointNotFound, "the loser wrote nothing")
	_, ws, err := a.Get(ctx, "t", "", checkpointtest.ID(0))
	require.NoError(t, err)
	assert.Equal(t, []graph.PendingWrite{{TaskID: "x", Channel: "c", Value: []byte("1")}}, ws, "the loser's pending writes were refused")

	// Having read the thread again, b continues from a's checkpoint.
	got, _, err := b.Get(ctx, "t", "", "")
	require.NoError(t, err)
	require.Equal(t, checkpointtest.ID(1), got.ID)
	require.NoError(t, b.Put(ctx, checkpointtest.Sample("t", "", 2, true)))
	// Now a is behind.
	require.ErrorIs(t, a.Put(ctx, checkpointtest.Sample("t", "", 3, true)), postgres.ErrConflict)
	assertLinear(t, a, "t", 3)
}

// TestConflictNewThread: two writers both find a thread empty and both
// start it: the second gets the conflict.
func TestConflictNewThread(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	a, b := newCP(t, pool), newCP(t, pool)
	for _, cp := range []*postgres.Checkpointer{a, b} {
		_, _, err := cp.Get(ctx, "new", "", "")
		require.ErrorIs(t, err, graph.ErrCheckpointNotFound)
	}
	require.NoError(t, a.Put(ctx, checkpointtest.Sample("new", "", 0, false)))
	first := checkpointtest.Sample("new", "", 1, false)
	require.ErrorIs(t, b.Put(ctx, first), postgres.ErrConflict)
}

// TestDeleteThreadWhileAnotherWrites: a thread deleted by one writer is
// a conflict for another that had read it.
func TestDeleteThreadWhileAnotherWrites(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	a, b := newCP(t, pool), newCP(t, pool)
	require.NoError(t, a.Put(ctx, checkpointtest.Sample("d", "", 0, false)))
	_, _, err := b.Get(ctx, "d", "", "")
	require.NoError(t, err)
	require.NoError(t, a.DeleteThread(ctx, "d"))
	require.ErrorIs(t, b.Put(ctx, checkpointtest.Sample("d", "", 1, true)), postgres.ErrConflict)
	require.NoError(t, a.Put(ctx, checkpointtest.Sample("d", "", 0, false)), "the deleting writer starts the thread afresh")
}

// assertLinear checks that the thread's history is one chain of n
// checkpoints: each one's parent is the next older one.
func assertLinear(t *testing.T, cp graph.Checkpointer, thread string, n int) []*graph.Checkpoint {
	t.Helper()
	list, err := cp.List(context.Background(), thread, "", graph.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list, n)
	for i := 0; i+1 < len(list); i++ {
		require.Equal(t, list[i+1].ID, list[i].ParentID, "checkpoint %s is not a child of %s: the history forked", list[i].ID, list[i+1].ID)
	}
	return list
}

type raceState struct {
	Count int
	Log   []string
}

// raceGraph: one slow node that appends the process's name.
func raceGraph(who string, delay time.Duration) *graph.StateGraph[raceState] {
	g := graph.New[raceState](graph.Reducer(func(s *raceState) *[]string { return &s.Log }, state.Append[string]))
	g.AddNode("step", func(ctx context.Context, s raceState) (raceState, error) {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return raceState{}, ctx.Err()
		}
		return raceState{Count: s.Count + 1, Log: []string{who}}, nil
	})
	g.AddEdge(graph.Start, "step")
	g.AddEdge("step", graph.End)
	return g
}

const raceDelay = time.Second

// runChild is the body of a child process: it continues the race thread.
func runChild(role string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if role == "crash-run" {
		return runCrashChild(ctx)
	}
	if role != "continue" {
		fmt.Fprintf(os.Stderr, "child: unknown role %q\n", role)
		return 1
	}
	cp, pool, err := postgres.Open(ctx, os.Getenv(childDSNEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	defer pool.Close()
	app, err := raceGraph(os.Getenv(childWhoEnv), raceDelay).Compile(graph.WithCheckpointer(cp))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	at, _ := strconv.ParseInt(os.Getenv(childStartEnv), 10, 64)
	time.Sleep(time.Until(time.Unix(0, at)))
	_, err = app.Invoke(ctx, raceState{}, graph.Thread("race"), graph.Continue())
	switch {
	case err == nil:
		fmt.Println("won")
		return 0
	case errors.Is(err, postgres.ErrConflict):
		fmt.Println("conflict:", err)
		return exitConflict
	default:
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
}

// TestRaceTwoProcesses: two OS processes (this test binary, started
// again) continue one thread at the same moment; each runs the pending
// step (a 1s node) and writes its checkpoint. One wins; the other gets the
// conflict error; the history stays one chain with the winner's step.
func TestRaceTwoProcesses(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	cp, pool, err := postgres.Open(ctx, dsn)
	require.NoError(t, err)
	defer pool.Close()
	// The thread waits before its step (a static interrupt).
	app, err := raceGraph("parent", 0).Compile(graph.WithCheckpointer(cp), graph.InterruptBefore("step"))
	require.NoError(t, err)
	_, err = app.Invoke(ctx, raceState{Log: []string{"start"}}, graph.Thread("race"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	before := assertLinear(t, cp, "race", 1)

	runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	start := time.Now().Add(2 * time.Second).UnixNano()
	type result struct {
		who  string
		code int
		out  string
	}
	results := make([]result, 2)
	var wg sync.WaitGroup
	for i := range results {
		who := fmt.Sprintf("child-%d", i)
		cmd := exec.CommandContext(runCtx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=continue", childDSNEnv+"="+dsn, childWhoEnv+"="+who,
			childStartEnv+"="+strconv.FormatInt(start, 10))
		cmd.WaitDelay = 5 * time.Second
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				code = -1
			}
			results[i] = result{who, code, string(out)}
		}()
	}
	wg.Wait()
	var winner string
	codes := map[int]int{}
	for _, r := range results {
		codes[r.code]++
		if r.code == 0 {
			winner = r.who
		}
		t.Logf("%s: exit %d: %s", r.who, r.code, strings.TrimSpace(r.out))
	}
	require.Equal(t, map[int]int{0: 1, exitConflict: 1}, codes, "one process wins, the other gets the conflict")

	list := assertLinear(t, cp, "race", 2)
	assert.Equal(t, before[0].ID, list[1].ID)
	var got raceState
	final, err := app.GetState(ctx, graph.Thread("race"))
	require.NoError(t, err)
	got = final.Values
	assert.Equal(t, raceState{Count: 1, Log: []string{"start", winner}}, got)
}

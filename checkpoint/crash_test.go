package checkpoint_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// The crash test re-executes this test binary as a child process (see
// TestMain): the child runs a multi-step graph on a bbolt file; one node,
// at the chosen kill point, waits until the other tasks of its step have
// finished, signals readiness through a file and blocks; the parent kills
// the child with SIGKILL and starts a new child that resumes the thread.

const (
	envCrashMode  = "AGENTGRAPH_CRASH_MODE" // "start" or "resume"
	envCrashDB    = "AGENTGRAPH_CRASH_DB"
	envCrashLog   = "AGENTGRAPH_CRASH_LOG"   // one line per finished task execution
	envCrashKill  = "AGENTGRAPH_CRASH_KILL"  // "node@count", or empty
	envCrashReady = "AGENTGRAPH_CRASH_READY" // created when the kill point is reached
	envCrashOut   = "AGENTGRAPH_CRASH_OUT"   // the final state, as JSON
	envCrashWAL   = "AGENTGRAPH_CRASH_WAL"   // "", "strict", "lazy", "apply-tx" or "apply-committed": the checkpointer's log
)

// crashOptions are the checkpointer options of a crash child: no log, a
// strict log applied to bbolt every 3 records (so the kills also hit runs
// whose log was applied and reset), or a log with lazy pending writes.
//
// "apply-tx" and "apply-committed" are the strict log whose second
// background apply blocks (start only) inside its bbolt transaction, or
// after its commit: the child writes the ready file there, every node
// that starts afterwards blocks too, and the parent kills the child.
func crashOptions(mode, process string) []checkpoint.Option {
	switch mode {
	case "apply-tx", "apply-committed":
		opts := []checkpoint.Option{checkpoint.WithWAL(checkpoint.WALOptions{ApplyEvery: 3})}
		if process == "start" {
			var applies atomic.Int32
			stage := strings.TrimPrefix(mode, "apply-")
			opts = append(opts, checkpoint.WALApplyHook(func(s string) {
				if s == stage && applies.Add(1) == 2 {
					_ = os.WriteFile(os.Getenv(envCrashReady), []byte(mode), 0o600)
					select {} // killed here
				}
			}))
		}
		return opts
	case "strict":
		return []checkpoint.Option{checkpoint.WithWAL(checkpoint.WALOptions{ApplyEvery: 3})}
	case "lazy":
		return []checkpoint.Option{checkpoint.WithWAL(checkpoint.WALOptions{LazyWrites: true})}
	}
	return nil
}

const crashRounds = 5 // plan runs 6 times, a, b and c 5 times each

type crashState struct {
	Count int
	Log   []string
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(envCrashMode); mode != "" {
		if err := crashChild(mode); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func logExec(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func readExecs(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}

// crashGraph: plan -> {a, b, c} in parallel -> plan ... for crashRounds.
func crashGraph(logPath, kill, ready string) (*graph.StateGraph[crashState], error) {
	g := graph.New[crashState](graph.Reducer(func(s *crashState) *[]string { return &s.Log }, state.Append[string]))
	siblings := map[string][]string{"a": {"b", "c"}, "b": {"a", "c"}, "c": {"a", "b"}, "plan": nil}
	node := func(name string, update func(s crashState) crashState) graph.NodeFunc[crashState] {
		return func(ctx context.Context, s crashState) (crashState, error) {
			at := fmt.Sprintf("%s@%d", name, s.Count)
			if kill == "apply" {
				if _, err := os.Stat(ready); err == nil {
					select {} // an apply kill point was reached: killed here
				}
			}
			if at == kill {
				// Wait for the step's other tasks to finish, then block.
				deadline := time.Now().Add(20 * time.Second)
				for {
					execs, err := readExecs(logPath)
					if err != nil {
						return s, err
					}
					all := true
					for _, sib := range siblings[name] {
						// The sibling ran, and the engine stored its writes
						// (one "saved:" line per round, see savingCheckpointer).
						all = all && slices.Contains(execs, fmt.Sprintf("%s@%d", sib, s.Count)) &&
							countOf(execs, "saved:"+sib) >= s.Count
					}
					if all {
						break
					}
					if time.Now().After(deadline) {
						return s, fmt.Errorf("kill point %s: siblings did not finish", at)
					}
					time.Sleep(5 * time.Millisecond)
				}
				if err := os.WriteFile(ready, []byte(at), 0o600); err != nil {
					return s, err
				}
				select {} // killed here
			}
			out := update(s)
			return out, logExec(logPath, at)
		}
	}
	g.AddNode("plan", node("plan", func(s crashState) crashState {
		return crashState{Count: s.Count + 1, Log: []string{fmt.Sprintf("plan@%d", s.Count)}}
	}))
	for _, name := range []string{"a", "b", "c"} {
		g.AddNode(name, node(name, func(s crashState) crashState {
			return crashState{Log: []string{fmt.Sprintf("%s@%d", name, s.Count)}}
		}))
		g.AddEdge(name, "plan")
	}
	g.AddEdge(graph.Start, "plan")
	g.AddConditionalEdges("plan", graph.Branches(func(ctx context.Context, s crashState) ([]string, error) {
		if s.Count > crashRounds {
			return []string{graph.End}, nil
		}
		return []string{"a", "b", "c"}, nil
	}), "a", "b", "c", graph.End)
	return g, nil
}

func countOf(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if l == s {
			n++
		}
	}
	return n
}

// savingCheckpointer logs "saved:<node>" after each stored pending write of
// a node, so a kill point can wait until its siblings' writes are durable.
type savingCheckpointer struct {
	graph.Checkpointer
	log string
}

func (c savingCheckpointer) PutWrites(ctx context.Context, threadID, ns, checkpointID string, writes []graph.PendingWrite) error {
	if err := c.Checkpointer.PutWrites(ctx, threadID, ns, checkpointID, writes); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, w := range writes {
		if !seen[w.Node] {
			seen[w.Node] = true
			if err := logExec(c.log, "saved:"+w.Node); err != nil {
				return err
			}
		}
	}
	return nil
}

func crashChild(mode string) error {
	ctx := context.Background()
	db, err := checkpoint.OpenBoltDB(os.Getenv(envCrashDB), nil)
	if err != nil {
		return err
	}
	defer db.Close()
	cp, err := checkpoint.NewBolt(db, crashOptions(os.Getenv(envCrashWAL), mode)...)
	if err != nil {
		return err
	}
	defer cp.Close()
	if mode == "resume" && cp.Replayed().Path != "" {
		r := cp.Replayed()
		line := fmt.Sprintf("replayed:%d:%d:%s", r.Records, r.Skipped, r.Tail)
		if err := logExec(os.Getenv(envCrashLog), line); err != nil {
			return err
		}
	}
	kill := os.Getenv(envCrashKill)
	if mode == "start" && strings.HasPrefix(os.Getenv(envCrashWAL), "apply-") {
		kill = "apply" // every node blocks once the apply kill point is reached
	}
	g, err := crashGraph(os.Getenv(envCrashLog), kill, os.Getenv(envCrashReady))
	if err != nil {
		return err
	}
	app, err := g.Compile(graph.WithCheckpointer(savingCheckpointer{Checkpointer: cp, log: os.Getenv(envCrashLog)}))
	if err != nil {
		return err
	}
	opts := []graph.RunOption{graph.Thread("crash")}
	if mode == "resume" {
		opts = append(opts, graph.Continue())
	}
	out, err := app.Invoke(ctx, crashState{}, opts...)
	if err != nil {
		return err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(os.Getenv(envCrashOut), b, 0o600)
}

type crashRun struct {
	dir, db, log, ready, out, wal string
}

func newCrashRun(t *testing.T, name string) crashRun {
	dir := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	return crashRun{dir: dir, db: filepath.Join(dir, "graph.db"), log: filepath.Join(dir, "exec.log"),
		ready: filepath.Join(dir, "ready"), out: filepath.Join(dir, "out.json")}
}

func (r crashRun) command(mode, kill string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envCrashMode+"="+mode, envCrashDB+"="+r.db, envCrashLog+"="+r.log,
		envCrashKill+"="+kill, envCrashReady+"="+r.ready, envCrashOut+"="+r.out, envCrashWAL+"="+r.wal)
	return cmd
}

func (r crashRun) finish(t *testing.T, mode string) crashState {
	t.Helper()
	out, err := r.command(mode, "").CombinedOutput()
	require.NoError(t, err, "child (%s): %s", mode, out)
	b, err := os.ReadFile(r.out)
	require.NoError(t, err)
	var s crashState
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

func countExecs(t *testing.T, path string) map[string]int {
	execs, err := readExecs(path)
	require.NoError(t, err)
	n := map[string]int{}
	for _, e := range execs {
		if !strings.HasPrefix(e, "saved:") && !strings.HasPrefix(e, "replayed:") {
			n[e]++
		}
	}
	return n
}

func TestCrashResume(t *testing.T) {
	ref := newCrashRun(t, "reference")
	want := ref.finish(t, "start")
	require.Equal(t, crashRounds+1, want.Count)
	refExecs := countExecs(t, ref.log)
	require.Len(t, refExecs, 4*crashRounds+1)
	for k, n := range refExecs {
		require.Equal(t, 1, n, k)
	}

	for _, mode := range []string{"bbolt", "strict", "lazy"} {
		t.Run(mode, func(t *testing.T) { testCrashResume(t, mode, want, refExecs) })
	}
}

// testCrashResume kills a run at 5 points and resumes it, with the
// checkpointer's log off ("bbolt") or on ("strict", "lazy").
func testCrashResume(t *testing.T, mode string, want crashState, refExecs map[string]int) {
	for _, kill := range []string{"plan@0", "b@1", "plan@3", "a@4", "c@5"} {
		t.Run(kill, func(t *testing.T) {
			r := newCrashRun(t, strings.ReplaceAll(kill, "@", "-"))
			if mode != "bbolt" {
				r.wal = mode
			}
			cmd := r.command("start", kill)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			deadline := time.Now().Add(60 * time.Second)
			for {
				if _, err := os.Stat(r.ready); err == nil {
					break
				}
				require.True(t, time.Now().Before(deadline), "kill point %s never reached: %s", kill, stderr.String())
				time.Sleep(5 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			err := cmd.Wait()
			var exitErr *exec.ExitError
			require.ErrorAs(t, err, &exitErr)
			assert.Equal(t, syscall.SIGKILL, exitErr.Sys().(syscall.WaitStatus).Signal())
			before := countExecs(t, r.log)
			_, err = os.Stat(r.out)
			require.ErrorIs(t, err, os.ErrNotExist, "the killed run did not finish")

			got := r.finish(t, "resume")
			assert.Equal(t, want, got, "the resumed run ends in the uninterrupted run's state")
			if mode != "bbolt" {
				// The resumed process replayed the killed one's log.
				execs, err := readExecs(r.log)
				require.NoError(t, err)
				i := slices.IndexFunc(execs, func(e string) bool { return strings.HasPrefix(e, "replayed:") })
				require.GreaterOrEqual(t, i, 0, "the resumed child reports its replay")
				var n, skipped int
				var tail string
				_, err = fmt.Sscanf(execs[i], "replayed:%d:%d:%s", &n, &skipped, &tail)
				require.ErrorContains(t, err, "EOF", "no tail: %s", execs[i])
				if mode == "lazy" {
					// Nothing was applied to bbolt before the kill (128 records
					// per apply): the log held the input checkpoint and at least
					// one checkpoint per step that ran plan.
					plans := 0
					for _, e := range execs[:i] {
						if strings.HasPrefix(e, "plan@") {
							plans++
						}
					}
					assert.GreaterOrEqual(t, n, max(1, plans), execs[i])
				}
			}

			after := countExecs(t, r.log)
			node, count, _ := strings.Cut(kill, "@")
			var rerun []string
			for k, n := range after {
				require.LessOrEqual(t, n, 2, k)
				if n == 1 {
					continue
				}
				// Only tasks of the broken step may have run twice.
				kn, kc, _ := strings.Cut(k, "@")
				require.Equal(t, count, kc, "%s ran again although its step had committed", k)
				require.NotEqual(t, node, kn)
				rerun = append(rerun, k)
			}
			for k := range refExecs {
				assert.Positive(t, after[k], "%s never ran", k)
			}
			assert.Zero(t, before[kill], "the killed task did not finish before the kill")
			assert.Equal(t, 1, after[kill], "the killed task ran once, after the resume")
			slices.Sort(rerun)
			assert.Empty(t, rerun, "finished tasks of the broken step ran again after the resume")
		})
	}
}

// TestCrashDuringApply kills a run while the write-ahead log's background
// apply is inside its bbolt transaction, or just after its commit (before
// the process learnt of it), and resumes: the replay applies the records
// bbolt lacks, skips those the commit holds, and the run ends as the
// uninterrupted one, no finished task of a committed step running again.
func TestCrashDuringApply(t *testing.T) {
	ref := newCrashRun(t, "reference")
	want := ref.finish(t, "start")
	for _, mode := range []string{"apply-tx", "apply-committed"} {
		t.Run(mode, func(t *testing.T) {
			r := newCrashRun(t, mode)
			r.wal = mode
			cmd := r.command("start", "")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			deadline := time.Now().Add(60 * time.Second)
			for {
				if _, err := os.Stat(r.ready); err == nil {
					break
				}
				require.True(t, time.Now().Before(deadline), "apply kill point never reached: %s", stderr.String())
				time.Sleep(5 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			var exitErr *exec.ExitError
			require.ErrorAs(t, cmd.Wait(), &exitErr)
			_, err := os.Stat(r.out)
			require.ErrorIs(t, err, os.ErrNotExist, "the killed run did not finish")
			before := countExecs(t, r.log)

			got := r.finish(t, "resume")
			assert.Equal(t, want, got, "the resumed run ends in the uninterrupted run's state")
			execs, err := readExecs(r.log)
			require.NoError(t, err)
			i := slices.IndexFunc(execs, func(e string) bool { return strings.HasPrefix(e, "replayed:") })
			require.GreaterOrEqual(t, i, 0, "the resumed child reports its replay")
			var n, skipped int
			var tail string
			_, err = fmt.Sscanf(execs[i], "replayed:%d:%d:%s", &n, &skipped, &tail)
			require.ErrorContains(t, err, "EOF", "no tail: %s", execs[i])
			t.Log(execs[i], "; killed run:", len(before), "task runs")
			if mode == "apply-tx" {
				// The first batch (3 records or more) was committed with
				// its mark; the second's transaction never was.
				assert.GreaterOrEqual(t, skipped, 3, execs[i])
				assert.GreaterOrEqual(t, n, 3, execs[i])
			} else {
				assert.GreaterOrEqual(t, skipped, 6, "both batches were committed: %s", execs[i])
			}

			after := countExecs(t, r.log)
			var rerun []string
			for k, c := range after {
				require.LessOrEqual(t, c, 2, k)
				if c == 2 {
					rerun = append(rerun, k)
				}
			}
			// A task may run again only if it finished in the broken step
			// (its writes not yet logged): all of one step.
			steps := map[string]bool{}
			for _, k := range rerun {
				_, c, _ := strings.Cut(k, "@")
				steps[c] = true
				assert.Equal(t, 1, before[k], k)
			}
			assert.LessOrEqual(t, len(steps), 1, "reruns: %v", rerun)
			for k := range want.Log {
				assert.Positive(t, after[want.Log[k]], "%s never ran", want.Log[k])
			}
		})
	}
}

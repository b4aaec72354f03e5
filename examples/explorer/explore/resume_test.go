package explore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/memory"
)

// TestResumeKilledMission cancels a mission mid-way (what a kill leaves:
// the last step's checkpoint in the bbolt file) and resumes it: it finishes,
// the tape continues without a gap, and memory holds each bug once.
func TestResumeKilledMission(t *testing.T) {
	app := fixtureApp(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "explorer.db")
	cfg := Config{Target: app.URL, Budget: 30, TurnSteps: 4, ReportDir: dir, DB: db, Browser: testBrowser, MinimizeReplays: -1,
		Missions: []mission.Mission{{ThreadID: "notes", Prompt: "Explore the notes app"}}}

	// Killed at its 12th step, whatever the machine's speed.
	ctx, cancel := context.WithCancelCause(context.Background())
	killed := errors.New("killed at step 12")
	cfg.Observer = observe.Func(func(ev observe.Event) {
		if ev.Kind == observe.Step && ev.Step >= 12 {
			cancel(killed)
		}
	})
	first, err := Run(ctx, cfg)
	cancel(nil)
	require.ErrorIs(t, err, context.Canceled)
	cfg.Observer = nil
	require.Len(t, first.Missions, 1)
	require.NotEmpty(t, first.Missions[0].Err, "killed mid-mission")

	cfg.Resume = "notes"
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel2()
	res, err := Run(ctx2, cfg)
	require.NoError(t, err)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	assert.Positive(t, m.Steps)
	t.Logf("killed after %d tape entries; resumed to %d steps, %d bugs", len(first.Missions[0].Timeline), m.Steps, len(m.Bugs))

	entries, rep, err := browser.ReadTapeFile(filepath.Join(dir, "notes", "action_tape.jsonl"))
	require.NoError(t, err)
	assert.Zero(t, rep.Skipped)
	require.NotEmpty(t, first.Missions[0].Timeline, "the first run acted before it was killed")
	assert.Greater(t, len(entries), len(first.Missions[0].Timeline), "the resumed run went on")
	for i, e := range entries {
		assert.Equal(t, int64(i+1), e.Seq, "no gap in the tape")
	}

	bdb, err := checkpoint.OpenBoltDB(db, nil)
	require.NoError(t, err)
	defer bdb.Close()
	st, err := memory.NewBoltStore(bdb)
	require.NoError(t, err)
	qa, err := memory.NewQA(st, app.URL)
	require.NoError(t, err)
	bugs, err := qa.Bugs(context.Background(), "")
	require.NoError(t, err)
	require.NotEmpty(t, bugs)
	seen := map[string]bool{}
	for _, b := range bugs {
		key := b.Kind + " " + b.Page
		assert.False(t, seen[b.Fingerprint], "one entry per fingerprint: %s", key)
		seen[b.Fingerprint] = true
	}
}

// TestMissionRetryTransient fails a persona's node mid-mission, the way a
// model call does after its own retries (an overloaded provider), and
// checks the mission loop: a transient error continues the mission from
// its last checkpoint on the same graph thread (steps go on from there, the
// tape has no gap or duplicate, bugs reach memory once); a permanent error
// fails it at once; a transient error that persists fails it after
// MissionRetries continuations.
func TestMissionRetryTransient(t *testing.T) {
	overloaded := &llm.CallError{Provider: "anthropic", Status: 529, Transient: true, Attempts: 4, Err: errors.New("overloaded")}
	denied := &llm.CallError{Provider: "anthropic", Status: 401, Attempts: 1, Err: errors.New("invalid x-api-key")}
	tests := []struct {
		name        string
		failures    int // how many persona steps fail, from the 6th step on
		err         error
		wantRetries int
		wantErr     string
	}{
		{"transient once: continued", 1, overloaded, 1, ""},
		{"permanent: fails at once", 1, denied, 0, "invalid x-api-key"},
		{"transient every time: gives up", 100, overloaded, 2, "overloaded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := fixtureApp(t)
			dir := t.TempDir()
			var (
				mu    sync.Mutex
				calls []int // mission steps at each persona step
				fails []int // steps at each injected failure
			)
			cfg := Config{Target: app.URL, Budget: 24, TurnSteps: 4, ReportDir: dir, DB: filepath.Join(dir, "explorer.db"), Browser: testBrowser,
				MissionRetries: 2, RetryBackoff: 20 * time.Millisecond,
				Missions: []mission.Mission{{ThreadID: "notes", Prompt: "Explore the notes app"}},
				faultHook: func(_ context.Context, thread, _ string, steps int) error {
					mu.Lock()
					defer mu.Unlock()
					assert.Equal(t, "notes", thread)
					calls = append(calls, steps)
					if steps >= 6 && len(fails) < tc.failures {
						fails = append(fails, steps)
						return fmt.Errorf("persona model: %w", tc.err)
					}
					return nil
				}}
			var progress strings.Builder
			cfg.Progress = &progress
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			res, err := Run(ctx, cfg)
			require.NoError(t, err)
			require.Len(t, res.Missions, 1)
			m := res.Missions[0]
			assert.Equal(t, tc.wantRetries, m.Retries)
			require.NotEmpty(t, fails)
			if tc.wantErr != "" {
				assert.Contains(t, m.Err, tc.wantErr)
				assert.Equal(t, ExitSetup, ExitCode(res, nil, FailOnNone), "a failed mission exits 2")
				assert.Len(t, fails, 1+tc.wantRetries, "one attempt plus the retries")
			} else {
				require.Empty(t, m.Err)
				// Continued, not restarted: the first persona step after
				// the failure starts from the checkpoint's step count (a
				// restart would begin at 1), and the mission went further.
				mu.Lock()
				at := slices.Index(calls, fails[0])
				after := calls[at+1:]
				mu.Unlock()
				require.NotEmpty(t, after, "the mission went on after the failure")
				assert.Greater(t, after[0], 1, "resumed from the checkpoint, not from the start")
				assert.LessOrEqual(t, after[0], fails[0], "the failed turn's steps are not in the checkpoint")
				assert.Greater(t, m.Steps, fails[0], "the steps continue")
				assert.Contains(t, progress.String(), "transient error at step")
			}

			entries, rep, err := browser.ReadTapeFile(filepath.Join(dir, "notes", "action_tape.jsonl"))
			require.NoError(t, err)
			assert.Zero(t, rep.Skipped)
			require.NotEmpty(t, entries)
			for i, e := range entries {
				require.Equal(t, int64(i+1), e.Seq, "no gap or duplicate in the tape")
			}
			assert.Len(t, m.Timeline, len(entries))
			mem := memoryBugs(t, filepath.Join(dir, "explorer.db"), app.URL)
			ids, listed := map[string]bool{}, map[string]bool{}
			for _, b := range m.Bugs {
				assert.False(t, ids[b.ID], "bug ids unique: %s", b.ID)
				ids[b.ID], listed[b.Fingerprint] = true, true
				assert.True(t, b.New, "a fresh memory: every bug is new, even if first seen before the retry")
			}
			if tc.wantErr == "" {
				// A bug the failed turn found (memory has it; the
				// checkpoint does not) is in the report all the same.
				for _, b := range mem {
					assert.True(t, listed[b.Fingerprint], "memory's bug %s %s (tape %d) is in the report", b.Kind, b.Page, b.TapeIndex)
				}
			}
		})
	}
}

// TestResumeAfterSIGKILL builds the explorer program and runs it on the
// demo app (offline, with a bbolt file): once uninterrupted, as the
// reference, then three times SIGKILLed at an early, a middle and a late
// step — each kill right after a step that found a bug, where one was
// found, so bugs recorded after the last checkpoint are in play — and
// resumed with --resume. Each resumed mission finishes (exit 0 with
// --fail-on none) at the reference's step count (±5%); its summary.json,
// JUnit and specs list every bug memory holds for the mission, each once,
// each new (the memory was fresh) with its spec file; the action tape
// counts 1, 2, 3, … with no gap or duplicate across the kill; memory holds
// one entry per fingerprint. The killed process's browser (the Playwright
// driver and Chromium) must not outlive it: the test lists the killed
// process's descendants, waits for them to go, reports what it saw and
// kills any that stay (then fails). Every demo app runs on its own, as a
// deployment would: it outlives the killed explorer, and so do its
// sessions and records.
func TestResumeAfterSIGKILL(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatalf("this test reads /proc: linux only (GOOS=%s)", runtime.GOOS)
	}
	began := time.Now()
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "explorer")
	build := exec.Command("go", append(append([]string{"build"}, raceFlags...), "-o", bin, "github.com/agentgraph/agentgraph/examples/explorer")...)
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	const budget = 24
	run := func(t *testing.T, name string) (args []string, reports, db, origin string) {
		app, err := demoapp.Listen("", demoapp.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = app.Close(context.Background()) })
		dir := filepath.Join(tmp, name)
		reports, db = filepath.Join(dir, "reports"), filepath.Join(dir, "explorer.db")
		args = []string{"--target", app.URL, "--db", db, "--reports", reports, "--budget", strconv.Itoa(budget), "--turn-steps", "3",
			"--plain", "--fail-on", "none", "--offline", "--minimize-replays", "-1"}
		return args, reports, db, app.URL
	}

	// The reference: the same seed, uninterrupted, next to the first kill
	// (a run spends most of its time waiting for pages to settle).
	refArgs, refReports, _, _ := run(t, "reference")
	refDone := make(chan error, 1)
	var refErr strings.Builder
	go func() {
		cmd := exec.CommandContext(ctx, bin, refArgs...)
		cmd.Stderr = &refErr
		refDone <- cmd.Run()
	}()
	reference := sync.OnceValues(func() (missionSummaryFile, error) {
		if err := <-refDone; err != nil {
			return missionSummaryFile{}, fmt.Errorf("reference run: %w: %s", err, refErr.String())
		}
		var sum missionSummaryFile
		raw, err := os.ReadFile(filepath.Join(refReports, "explore", "summary.json"))
		if err == nil {
			err = json.Unmarshal(raw, &sum)
		}
		if err == nil && sum.Err != "" {
			err = errors.New("reference run: " + sum.Err)
		}
		t.Logf("reference: %d steps, %d bugs (%s)", sum.Steps, len(sum.Bugs), time.Since(began).Round(time.Second))
		return sum, err
	})
	defer func() { cancel(); _, _ = reference() }() // the reference ends before the test

	putBack := 0
	for _, at := range []int{4, 10, 16} {
		t.Run(fmt.Sprintf("kill_at_%d", at), func(t *testing.T) {
			args, reports, db, origin := run(t, fmt.Sprintf("kill%d", at))
			steps, bugs := killExplorer(ctx, t, bin, args, at, min(at+6, budget-2))
			killedTape, rep, err := browser.ReadTapeFile(filepath.Join(reports, "explore", "action_tape.jsonl"))
			require.NoError(t, err)
			assert.Zero(t, rep.Skipped, "a SIGKILL leaves no torn line")
			require.NotEmpty(t, killedTape)

			resumed := exec.CommandContext(ctx, bin, append(args, "--resume", "explore")...)
			var out2, stderr2 strings.Builder
			resumed.Stdout, resumed.Stderr = &out2, &stderr2
			err = resumed.Run()
			traces, _ := os.ReadFile(filepath.Join(reports, "explore", "traces.log"))
			t.Cleanup(func() {
				if t.Failed() {
					for _, l := range strings.Split(string(traces), "\n") {
						if !strings.Contains(l, "level=DEBUG") {
							t.Log(clip.String(l, 300))
						}
					}
					t.Logf("resume stdout: %s", out2.String())
				}
			})
			require.NoError(t, err, "resume: stderr: %s\nstdout: %s", stderr2.String(), out2.String())

			sum := readMissionSummary(t, reports)
			ref, err := reference()
			require.NoError(t, err)
			assert.Equal(t, "explore", sum.ThreadID)
			assert.Empty(t, sum.Err)
			assert.InDelta(t, ref.Steps, sum.Steps, 0.05*float64(ref.Steps), "the resumed mission ends where an uninterrupted one does")
			assert.NotEmpty(t, sum.Bugs)

			// Every bug memory holds for the mission is in its reports,
			// once, new, with a spec.
			junit, err := os.ReadFile(filepath.Join(reports, "junit.xml"))
			require.NoError(t, err)
			listed, ids := map[string]bool{}, map[string]bool{}
			for _, b := range sum.Bugs {
				assert.False(t, listed[b.Fingerprint], "one report per cause: %s", b.ID)
				assert.False(t, ids[b.ID], "bug ids unique: %s", b.ID)
				listed[b.Fingerprint], ids[b.ID] = true, true
				assert.True(t, b.New, "a fresh memory: %s is new, even when the killed run found it", b.ID)
				assert.Contains(t, string(junit), b.ID+": ")
				if assert.NotEmpty(t, b.Spec, b.ID) {
					assert.FileExists(t, filepath.Join(reports, "explore", b.Spec))
				}
			}
			mem := memoryBugs(t, db, origin)
			require.NotEmpty(t, mem)
			for _, b := range mem {
				assert.True(t, listed[b.Fingerprint], "memory's bug %s %s (tape %d) is in the report", b.Kind, b.Page, b.TapeIndex)
			}

			tape, rep, err := browser.ReadTapeFile(filepath.Join(reports, "explore", "action_tape.jsonl"))
			require.NoError(t, err)
			assert.Zero(t, rep.Skipped)
			assert.Greater(t, len(tape), len(killedTape), "the resumed run appended to the tape")
			for i, e := range tape {
				require.Equal(t, int64(i+1), e.Seq, "no gap or duplicate in the tape")
			}
			m := reResumeLine.FindStringSubmatch(string(traces))
			require.NotNil(t, m, "the resume says where it continues")
			n, _ := strconv.Atoi(m[2])
			putBack += n
			// The checkpoint brought the app model and the frontier back.
			assert.NotEqual(t, "0", m[3], "states of the app model after the resume")
			assert.NotEqual(t, "0", m[4], "links of the frontier after the resume")
			t.Logf("killed at step %d (%d bugs shown, %d tape entries); resumed %s; to %d steps, %d bugs (%d in memory)",
				steps, bugs, len(killedTape), m[0], sum.Steps, len(sum.Bugs), len(mem))
		})
	}
	assert.Positive(t, putBack, "a kill right after a bug leaves one to put back")
	t.Logf("the whole test: %s", time.Since(began).Round(time.Second))
}

// reResumeLine is the trace line of a resume: the checkpoint's steps, the
// bugs put back, the app model's states and the frontier's links.
var reResumeLine = regexp.MustCompile(`resume: continuing from the checkpoint.* steps=(\d+) .*bugs_put_back=(\d+) states=(\d+) .*frontier=(\d+).*`)

// killExplorer starts the explorer with args and SIGKILLs it at the first
// step from step at on whose progress line shows a bug more than the line
// before of the same persona (a bug found within the turn under way, so
// after the last checkpoint), or at step last; then checks that none of its
// descendants outlives it. It returns the step and bug count of the line it killed at.
func killExplorer(ctx context.Context, t *testing.T, bin string, args []string, at, last int) (steps, bugs int) {
	t.Helper()
	first := exec.CommandContext(ctx, bin, args...)
	var stderr lockedBuffer
	first.Stderr = &stderr
	stdout, err := first.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, first.Start())
	reStep := regexp.MustCompile(`\] step (\d+)/\d+ (\S+)\s+bugs (\d+)`)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	prevPersona, prev := "", -1
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the explorer ended before step %d; stderr: %s", at, stderr.String())
			}
			m := reStep.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			steps, _ = strconv.Atoi(m[1])
			bugs, _ = strconv.Atoi(m[3])
			// The same persona as the line before: one turn, so the bug
			// the line counts more is not in a checkpoint yet.
			if steps >= at && (m[2] == prevPersona && bugs > prev || steps >= last) {
				goto kill
			}
			prevPersona, prev = m[2], bugs
		case <-ctx.Done():
			t.Fatalf("no progress: %v", ctx.Err())
		}
	}
kill:
	procs := descendants(t, first.Process.Pid)
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	werr := first.Wait()
	var exitErr *exec.ExitError
	require.ErrorAs(t, werr, &exitErr)
	assert.Equal(t, syscall.SIGKILL, exitErr.Sys().(syscall.WaitStatus).Signal())
	go func() {
		for range lines { // drain
		}
	}()
	killedAt := time.Now()
	left := waitGone(procs, 15*time.Second)
	t.Logf("killed at step %d; %d of %d descendants still running %s after the kill", steps, len(left), len(procs), time.Since(killedAt).Round(100*time.Millisecond))
	for _, p := range left {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
	assert.Empty(t, left, "the killed explorer's browser processes outlived it (killed now)")
	return steps, bugs
}

// missionSummaryFile is what the SIGKILL test reads of a mission's
// summary.json.
type missionSummaryFile struct {
	ThreadID string         `json:"thread_id"`
	Steps    int            `json:"steps"`
	Bugs     []findings.Bug `json:"bugs"`
	Err      string         `json:"error"`
}

func readMissionSummary(t *testing.T, reports string) missionSummaryFile {
	t.Helper()
	var sum missionSummaryFile
	raw, err := os.ReadFile(filepath.Join(reports, "explore", "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))
	return sum
}

// memoryBugs lists the bug catalog of origin in the bbolt file db, checking
// that it holds each fingerprint once.
func memoryBugs(t *testing.T, db, origin string) []memory.BugEntry {
	t.Helper()
	bdb, err := checkpoint.OpenBoltDB(db, nil)
	require.NoError(t, err)
	defer bdb.Close()
	st, err := memory.NewBoltStore(bdb)
	require.NoError(t, err)
	qa, err := memory.NewQA(st, origin)
	require.NoError(t, err)
	bugs, err := qa.Bugs(context.Background(), "")
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, b := range bugs {
		assert.False(t, seen[b.Fingerprint], "one memory entry per fingerprint: %s %s", b.Kind, b.Page)
		seen[b.Fingerprint] = true
	}
	return bugs
}

// proc is a process seen under the killed explorer.
type proc struct {
	pid   int
	start string // start time in clock ticks (/proc/pid/stat field 22): guards against pid reuse
	comm  string
}

func (p proc) String() string { return fmt.Sprintf("%d(%s)", p.pid, p.comm) }

// procStat reads a process's parent, start time and name.
func procStat(pid int) (ppid int, start, comm string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", "", false
	}
	s := string(b)
	i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || j < i {
		return 0, "", "", false
	}
	f := strings.Fields(s[j+1:]) // state ppid … (field 3 onwards)
	if len(f) < 20 {
		return 0, "", "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[19], s[i+1 : j], true
}

// descendants lists the live processes under pid.
func descendants(t *testing.T, pid int) []proc {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	children := map[int][]proc{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, start, comm, ok := procStat(p); ok {
			children[ppid] = append(children[ppid], proc{pid: p, start: start, comm: comm})
		}
	}
	var out []proc
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// waitGone waits until none of ps runs (zombies count as gone) and returns
// those still running at the deadline.
func waitGone(ps []proc, d time.Duration) []proc {
	deadline := time.Now().Add(d)
	for {
		var left []proc
		for _, p := range ps {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
			if err != nil {
				continue
			}
			_, start, _, ok := procStat(p.pid)
			if !ok || start != p.start {
				continue
			}
			if s := string(b); strings.Contains(s[strings.LastIndexByte(s, ')'):], ") Z ") {
				continue
			}
			left = append(left, p)
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// BenchmarkSaveBrowserState measures what keeping the browser state for
// --resume costs per step (with Config.DB), next to a page snapshot, which
// every step takes, as the yardstick within the same run.
func BenchmarkSaveBrowserState(b *testing.B) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s1", Path: "/"})
		fmt.Fprint(w, `<!doctype html><title>Notes</title><h1>Notes</h1><a href="/new">New note</a><script>localStorage.setItem("k", "v")</script>`)
	}))
	defer app.Close()
	e, err := testBrowser.NewEngine(browser.Config{Origins: []string{app.URL}})
	require.NoError(b, err)
	defer e.Close()
	ctx := context.Background()
	sess, err := e.User(ctx, "bench")
	require.NoError(b, err)
	require.True(b, sess.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: app.URL + "/"}).OK)
	mr := &missionRun{sess: sess, dir: b.TempDir(), trace: slog.New(slog.DiscardHandler)}
	b.Run("save_state", func(b *testing.B) {
		for b.Loop() {
			mr.saveBrowserState()
		}
		_, err := os.Stat(filepath.Join(mr.dir, browserStateFile))
		require.NoError(b, err)
	})
	b.Run("snapshot", func(b *testing.B) {
		for b.Loop() {
			_, err := sess.Snapshot(ctx)
			require.NoError(b, err)
		}
	})
}

// lockedBuffer collects a child's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

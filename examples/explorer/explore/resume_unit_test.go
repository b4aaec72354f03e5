package explore

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/state"
)

// TestBugJournal writes bugs to a mission's journal the way a run does
// (a bug, then the same bug with more symptoms) and reads it back: the
// latest line of each fingerprint in first-found order, secrets redacted,
// torn and foreign lines left out and counted, no file no journal.
func TestBugJournal(t *testing.T) {
	dir := t.TempDir()
	mr := &missionRun{dir: dir, trace: slog.New(slog.DiscardHandler), secrets: browser.NewSecrets("hunter<22>")}
	a := findings.Bug{ID: "bug-01-server-error", Fingerprint: "fa", Kind: "server_error", TapeSeq: 7, Evidence: "500 for password hunter<22>", New: true}
	b := findings.Bug{ID: "bug-02-console-error", Fingerprint: "fb", Kind: "console_error", TapeSeq: 9, New: true}
	mr.journalBug(a)
	mr.journalBug(b)
	a.Symptoms = []string{"error_banner: Internal error"}
	mr.journalBug(a)
	path := filepath.Join(dir, bugJournalFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString("[1,2]\n{\"id\":\"\"}\n{\"id\":\"bug-03\",\"fingerprint\":\"fc\",\"kind\":\"x") // torn by a kill
	require.NoError(t, err)
	require.NoError(t, f.Close())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	got, bad, err := readBugJournal(path)
	require.NoError(t, err)
	assert.Equal(t, 3, bad)
	require.Len(t, got, 2)
	assert.Equal(t, "bug-01-server-error", got[0].ID)
	assert.Equal(t, []string{"error_banner: Internal error"}, got[0].Symptoms, "the latest line of a fingerprint wins")
	assert.Equal(t, "500 for password ${SECRET_1}", got[0].Evidence)
	assert.Equal(t, "bug-02-console-error", got[1].ID)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "hunter")

	got, bad, err = readBugJournal(filepath.Join(dir, "none"))
	require.NoError(t, err)
	assert.Zero(t, bad)
	assert.Empty(t, got)
}

// TestProgressRoundTrip snapshots a mission's Go-side progress (what
// State.Progress carries) and restores it in a fresh mission run, as a
// resumed process does: pages, frontier, forms, sign-in, the dropped
// session, each persona's tried tricks, idleness, the sweep's counters
// and the marks that tell a deleted record from a broken link come back.
// A progress that does not decode is left out.
func TestProgressRoundTrip(t *testing.T) {
	fresh := func() *missionRun {
		mr := &missionRun{cov: newCoverage(), sw: newSweep(), idle: map[string]int{}, trace: slog.New(slog.DiscardHandler)}
		for _, p := range mission.StandardTeam() {
			mr.team = append(mr.team, newMember(p, session.Credentials{}, nil))
		}
		return mr
	}
	mr := fresh()
	mr.cov.visit("/")
	mr.cov.visit("/items?page=2")
	mr.cov.see("/items/new", "/")
	mr.cov.see("/about", "/")
	mr.cov.forms = []string{"/items/new"}
	mr.cov.formSig["/items/new"] = "title|qty"
	mr.cov.signin, mr.cov.gen, mr.cov.dropped = "/login", 1, true
	mr.team[0].tried["valid_form:title|qty"] = true
	mr.team[2].tried["xss:title|qty"] = true
	mr.idle[mr.team[1].p.Name] = 2
	mr.sw.done["/items|click:button:Save"] = 3
	mr.sw.hereN["/items"] = 2
	mr.sw.revisit = []string{"/items"}
	mr.cov.seenAt["/items/7/edit"] = 4
	mr.cov.seenAt["/items/9"] = 12
	mr.cov.destroyedAt = 9
	mr.cov.lose("/items/3/edit")
	// The progress rides in the graph state, which the checkpointer
	// serializes as JSON.
	b, err := json.Marshal(State{Progress: mr.progressSnapshot()})
	require.NoError(t, err)
	var back State
	require.NoError(t, json.Unmarshal(b, &back))
	require.NotNil(t, back.Progress)

	got := fresh()
	got.restoreProgress(back.Progress)
	assert.Equal(t, []string{"/", "/items?page=2"}, got.cov.visitedOrder)
	assert.True(t, got.cov.explored("/items?page=2"))
	l, ok := got.cov.nextUnvisited()
	assert.True(t, ok)
	assert.Equal(t, "/items/new", l, "the frontier comes back in discovery order")
	assert.Equal(t, mr.cov.forms, got.cov.forms)
	assert.Equal(t, mr.cov.formSig, got.cov.formSig)
	assert.Equal(t, "/login", got.cov.signin)
	assert.Equal(t, 1, got.cov.gen)
	assert.True(t, got.cov.dropped)
	assert.Equal(t, mr.team[0].tried, got.team[0].tried)
	assert.Equal(t, mr.team[2].tried, got.team[2].tried)
	assert.Empty(t, got.team[1].tried)
	assert.Equal(t, mr.idle, got.idle)
	assert.Equal(t, mr.sw.done, got.sw.done)
	assert.Equal(t, mr.sw.hereN, got.sw.hereN)
	assert.Equal(t, mr.sw.revisit, got.sw.revisit)
	assert.True(t, got.cov.gone("/items/7/edit"), "seen before the delete: a 404 there is the team's own doing")
	assert.False(t, got.cov.gone("/items/9"), "seen after the delete: a 404 there is a broken link")
	assert.True(t, got.cov.gone("/items/3/edit"), "a page found gone stays gone after the resume")
	assert.False(t, got.cov.gone("/items/1"))

	// The snapshot is a copy: the team goes on without changing it.
	snap := mr.progressSnapshot()
	mr.idle["power_user"] = 9
	mr.cov.visit("/later")
	assert.NotEqual(t, 9, snap.Idle["power_user"])
	assert.NotContains(t, snap.Visited, "/later")

	none := fresh()
	none.restoreProgress(nil)
	assert.Empty(t, none.cov.visitedOrder)
}

// TestReconcileBugsAfterCheckpoint stops a thread the way a kill does: a
// step found bug 1 (in the checkpoint); the next step found bug 2 (memory
// and the journal have it) and then died, so its writes never reached a
// checkpoint. reconcile puts bug 2 back into the state without changing
// what runs next: the continued run ends with both bugs, in tape order,
// the failed node runs again, and the Go-side counters follow the state.
func TestReconcileBugsAfterCheckpoint(t *testing.T) {
	ctx := context.Background()
	g := graph.New[State](
		graph.Reducer(func(s *State) *[]findings.Bug { return &s.Bugs }, state.Append[findings.Bug]),
		graph.Reducer(func(s *State) *[]string { return &s.Explored }, state.Append[string]),
	)
	b1 := findings.Bug{ID: "bug-01-page-error", Fingerprint: "f1", TapeSeq: 3, New: true}
	b2 := findings.Bug{ID: "bug-02-server-error", Fingerprint: "f2", TapeSeq: 8, New: true, Screenshot: "screenshots/bug-02-server-error.png"}
	fail, second := true, 0
	g.AddNode("first", func(context.Context, State) (State, error) {
		return State{Bugs: []findings.Bug{b1}, Steps: 4, Explored: []string{"/"}}, nil
	})
	g.AddNode("second", func(_ context.Context, s State) (State, error) {
		second++
		if fail {
			return State{}, errors.New("killed")
		}
		return State{Steps: s.Steps + 4}, nil
	})
	g.AddEdge(graph.Start, "first")
	g.AddEdge("first", "second")
	g.AddEdge("second", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(checkpoint.NewMemory()))
	require.NoError(t, err)
	_, err = app.Invoke(ctx, State{}, graph.Thread("t"))
	require.Error(t, err)

	mr := &missionRun{cov: newCoverage(), sw: newSweep(), bugSeen: map[string]bool{}, trace: slog.New(slog.DiscardHandler),
		recorded: map[string]findings.Bug{"f1": b1, "f2": b2}}
	n, err := mr.reconcile(ctx, app, "t")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.True(t, mr.bugSeen["f2"], "a bug put back is not reported again")
	assert.Equal(t, 2, mr.bugs, "new bug ids go on after the ones put back")
	assert.Equal(t, 4, mr.steps, "the steps are the checkpoint's")
	n, err = mr.reconcile(ctx, app, "t")
	require.NoError(t, err)
	assert.Zero(t, n, "nothing twice")

	fail = false
	out, err := app.Invoke(ctx, State{}, graph.Thread("t"), graph.Continue())
	require.NoError(t, err)
	assert.Equal(t, 2, second, "the failed node ran again")
	assert.Equal(t, 8, out.Steps)
	assert.Equal(t, []findings.Bug{b1, b2}, out.Bugs)
}

// TestResumedBugKeepsItsNewMark follows one bug through a kill: the killed
// run finds it (memory: new, seen once; the journal has it), the resumed
// run reads the journal and meets the cause again before anything else
// marks it seen: it keeps its new mark and memory does not count the
// sighting twice; a later run of the mission finds it in memory and
// does not call it new.
func TestResumedBugKeepsItsNewMark(t *testing.T) {
	ctx := context.Background()
	qa, err := memory.NewQA(memory.NewInMemoryStore(), "http://app.test")
	require.NoError(t, err)
	dir := t.TempDir()
	newRun := func() *missionRun {
		return &missionRun{cfg: Config{}, m: mission.Mission{ThreadID: "t"}, qa: qa, colURL: "http://127.0.0.1:4100", target: "http://app.test", dir: dir,
			trace: slog.New(slog.DiscardHandler), secrets: browser.NewSecrets(), bugSeen: map[string]bool{}, recorded: map[string]findings.Bug{}, sw: newSweep()}
	}
	m := &member{p: leaning(Persona{Name: "adversarial"})}
	boom := []browser.Finding{{Kind: browser.FindServerError, URL: "http://app.test/items", Message: "server error 500 on POST /items",
		Evidence: "POST /items → 500; body: database is locked"}}
	find := func(mr *missionRun, seq int64) []findings.Bug {
		mr.steps++
		return mr.report(ctx, m, browser.Entry{Seq: seq, Action: browser.ActClick, URL: "http://127.0.0.1:4100/items"}, boom, &State{})
	}

	killed := newRun()
	got := find(killed, 5)
	require.Len(t, got, 1)
	require.True(t, got[0].New)
	first := got[0]

	resumed := newRun()
	resumed.loadBugJournal()
	require.Contains(t, resumed.recorded, first.Fingerprint)
	resumed.bugs = 0 // the checkpoint held no bug: the numbering starts again
	got = find(resumed, 9)
	require.Len(t, got, 1)
	assert.True(t, got[0].New, "new in this mission: the killed run found it first")
	entry, err := qa.Bug(ctx, first.Fingerprint)
	require.NoError(t, err)
	assert.Equal(t, 1, entry.SeenCount, "memory counts the killed run's sighting once")

	later := newRun()
	_ = os.Remove(filepath.Join(dir, bugJournalFile)) // a fresh run starts a new journal
	got = find(later, 1)
	require.Len(t, got, 1)
	assert.False(t, got[0].New, "a later run knows it from memory")
	entry, err = qa.Bug(ctx, first.Fingerprint)
	require.NoError(t, err)
	assert.Equal(t, 2, entry.SeenCount)
}

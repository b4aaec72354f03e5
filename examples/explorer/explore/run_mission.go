package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/discover"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/state"
)

// missionRun is one mission at work.
type missionRun struct {
	cfg       Config
	m         mission.Mission
	browser   *browser.Browser
	engineCfg browser.Config
	engine    *browser.Engine
	sess      *browser.Session
	col       *collector.Collector
	qa        *memory.QA
	cp        graph.Checkpointer
	store     graph.Store
	log       *slog.Logger
	trace     *slog.Logger
	colURL    string
	target    string
	addrOnce  sync.Once
	addrs     *collector.Addresser // colURL → target
	secrets   *browser.Secrets     // shared by the mission's engines
	extra     *extraTools          // model personas' MCP and skills tools (nil: none)
	// accounts are Config.Users (with their storage states); sessions
	// holds one browser context per user when there are two or more,
	// cur is the user whose context mr.sess is (users.go, crossuser.go).
	accounts     []*userRun
	sessions     map[string]*userSession
	js           jsTally // the app's JavaScript coverage (jscov.go)
	cur          *userRun
	xu           *crossUser
	start        string
	dir          string
	budget       int
	index, total int

	team         []*member
	cov          *coverage
	sw           *sweep // the app model and the coverage objective
	stopWhy      string // why the supervisor ended the mission
	lastView     *view  // the latest look
	idle         map[string]int
	loops        map[string]int
	bugSeen      map[string]bool
	recorded     map[string]findings.Bug // bugs given to memory by this run, by fingerprint
	selUse       map[selKey]*selTally    // the locators used, for memory (memlog.go)
	resetPending bool
	freshPage    bool // the latest look found a page never visited before
	rand         *rand.Rand
	steps        int
	tape         *browser.Tape
	full         []report.TimelineEntry
	seq          int64
	bugs         int

	// prevActor and prevEntry are the latest action (for findings that
	// arrive after it); late holds findings drained by screenshots and
	// snapshots before they are reported.
	prevActor *member
	prevEntry browser.Entry
	late      []browser.Finding
}

func (mr *missionRun) run(ctx context.Context) report.MissionResult {
	t0 := time.Now()
	r := report.MissionResult{Mission: mr.m, Team: mr.cfg.teamLabel(mr.m), Target: mr.target}
	mr.emitGoalStart()
	defer func() { mr.emitGoalComplete(r) }()
	mr.dir = filepath.Join(mr.cfg.ReportDir, mr.m.ThreadID)
	r.Dir = mr.dir
	fail := func(err error) report.MissionResult {
		r.Err = mr.secrets.Redact(err.Error())
		r.Timeline = mr.full
		r.Duration = time.Since(t0)
		r.Steps = mr.steps // the steps taken, as the tape holds them
		if ctx.Err() != nil {
			// Interrupted (SIGINT/SIGTERM): the report keeps what was found.
			r.Err = "interrupted: " + r.Err
			r.Bugs = mr.bugsSoFar()
		}
		return r
	}
	if err := safefile.MkdirUnder(mr.cfg.ReportDir, filepath.Join(mr.m.ThreadID, "screenshots"), 0o700); err != nil {
		return fail(err)
	}
	_ = os.Chmod(mr.dir, 0o700)
	traceFile, err := safefile.OpenAppend(filepath.Join(mr.dir, "traces.log"), 0o600, mr.cfg.Resume == "")
	if err != nil {
		return fail(err)
	}
	defer traceFile.Close()
	mr.trace = slog.New(slog.NewTextHandler(mr.addr().Writer(traceFile), &slog.HandlerOptions{Level: slog.LevelDebug})).With("thread", mr.m.ThreadID)
	tapePath := filepath.Join(mr.dir, "action_tape.jsonl")
	if mr.cfg.Resume == "" {
		_ = os.Remove(tapePath)
	} else if es, rep, err := browser.ReadTapeFileWith(tapePath, browser.TapeOptions{Sequential: true}); err == nil || rep.InvalidCount > 0 {
		// Lines that are not JSON and entries not trusted (a tampered or
		// damaged tape, a forged seq) are left out and said; the valid ones
		// carry the mission on.
		if p := rep.Problems(); p != "" {
			mr.trace.Warn("resume: tape lines left out", "problems", p)
			if mr.log != nil {
				mr.log.Warn("resume: tape lines left out", "thread", mr.m.ThreadID, "problems", p)
			}
			if mr.cfg.Progress != nil {
				fmt.Fprintf(mr.cfg.Progress, "resume %s: tape lines left out: %s\n", mr.m.ThreadID, p)
			}
		}
		for _, e := range es {
			mr.full = append(mr.full, report.TimelineEntry{Persona: e.User, Entry: e})
			mr.seq = max(mr.seq, e.Seq)
		}
	}
	if mr.tape, err = browser.OpenTape(tapePath); err != nil {
		return fail(err)
	}
	defer mr.tape.Close()

	personas := mr.cfg.teamOf(mr.m)
	mr.cov = newCoverage()
	mr.sw = newSweep()
	mr.idle, mr.loops, mr.bugSeen, mr.recorded = map[string]int{}, map[string]int{}, map[string]bool{}, map[string]findings.Bug{}
	// A resumed mission draws other values than the killed run did (its
	// records stay apart from the killed run's) and knows what that typed.
	mr.rand = rand.New(rand.NewPCG(mr.cfg.Seed, uint64(len(mr.m.ThreadID))^uint64(mr.seq)<<32))
	mr.retype(mr.full)
	journal := filepath.Join(mr.dir, bugJournalFile)
	if mr.cfg.Resume == mr.m.ThreadID {
		mr.loadBugJournal()
	} else {
		_ = os.Remove(journal)
	}
	for i, p := range personas {
		m := newMember(p, mr.cfg.Credentials, func() { mr.col.HoldNextPost(doubleHold) })
		if len(mr.accounts) > 0 {
			// Round robin in team order: each persona acts as one user.
			m.acct = mr.accounts[i%len(mr.accounts)]
			m.creds = session.Credentials{Email: m.acct.Email, Password: m.acct.Password}
		}
		mr.team = append(mr.team, m)
	}
	mr.budget = mr.m.Budget
	mr.start = "/"
	if mr.m.StartURL != "" {
		mr.start = mr.m.StartURL
	}
	if risks, err := mr.qa.HighRiskPages(ctx, 5); warnCorrupt(ctx, mr.log, mr.cfg.Progress, mr.qa, err) == nil {
		for _, p := range risks {
			if p.URL != "" {
				mr.cov.priority = append(mr.cov.priority, urlx.PathQuery(p.URL))
			}
		}
	}
	memCtx, _ := mr.qa.SupervisorContext(ctx, 2000)
	mr.trace.Info("mission start", "prompt", mr.m.Prompt, "team", mr.m.Team, "budget", mr.budget, "target", mr.target, "memory", memCtx)

	// A resumed mission gets the killed run's cookies and storage back.
	statePath := filepath.Join(mr.dir, browserStateFile)
	seed := ""
	if mr.cfg.Resume != mr.m.ThreadID {
		_ = os.Remove(statePath)
	} else if _, err := os.Stat(statePath); err == nil {
		seed = statePath
	}
	defer mr.closeSessions()
	if !mr.cfg.NoDiscovery {
		found := discover.DiscoverEntries(ctx, mr.target, mr.start, mr.cfg.EntryPaths)
		for _, n := range found.Notes {
			mr.trace.Info(n)
		}
		for _, e := range found.Entries {
			// With Config.Users every session comes signed in from the
			// set-up: a sign-in page would only switch a context's account.
			if len(mr.accounts) > 0 && found.SignIn[e] {
				mr.trace.Info("discovery: left out (a sign-in page; the users' sessions come from the set-up)", "page", e)
				continue
			}
			mr.cov.entries = append(mr.cov.entries, e)
		}
	}
	if err := mr.openSession(ctx, seed); err != nil {
		return fail(err)
	}
	g, _ := newTeamGraph(mr)
	app, err := g.Compile(graph.WithCheckpointer(mr.cp), graph.WithStore(mr.store), graph.WithRecursionLimit(4*mr.budget+50))
	if err != nil {
		return fail(fmt.Errorf("compile the team graph: %w", err))
	}
	// Every fresh run of a mission is its own graph thread (memory, not the
	// checkpoint, carries knowledge across runs); the report directory
	// remembers it for --resume.
	threadFile := filepath.Join(mr.dir, ".graph_thread")
	var (
		out     State
		gthread string
		what    = "mission " + mr.m.ThreadID
	)
	if mr.cfg.Resume == mr.m.ThreadID {
		what = "resume " + mr.m.ThreadID
		b, err := os.ReadFile(threadFile)
		if err != nil {
			return fail(fmt.Errorf("%s: no run of it in %s: %w", what, mr.dir, err))
		}
		gthread = strings.TrimSpace(string(b))
		if err := mr.resync(ctx, app, gthread); err != nil {
			return fail(fmt.Errorf("%s: %w", what, err))
		}
		// The bugs found after the checkpoint go back into the state, and
		// the team's progress comes back with the app model.
		putBack, err := mr.reconcile(ctx, app, gthread)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", what, err))
		}
		snap, err := app.GetState(ctx, graph.Thread(gthread))
		if err != nil {
			return fail(fmt.Errorf("%s: read the checkpoint of %s: %w", what, gthread, err))
		}
		mr.restoreProgress(snap.Values.Progress)
		c := mr.sw.model.Stats()
		mr.trace.Info("resume: continuing from the checkpoint", "steps", snap.Values.Steps, "budget", mr.budget, "bugs", len(snap.Values.Bugs),
			"bugs_put_back", putBack, "states", c.States, "targets", c.Targets, "tried", c.Tried+c.Failed, "visited", len(mr.cov.visitedOrder),
			"frontier", len(mr.cov.frontier), "tape", mr.seq)
		// Start the resumed browser where the mission started (on the tape:
		// the run goes on from there).
		mr.sess.Do(ctx, browser.Navigate(mr.start))
		if e, ok := mr.lastEntry(); ok {
			mr.record(e, "explorer")
		}
		out, err = app.Invoke(ctx, State{}, graph.Thread(gthread), graph.Continue())
		if out, err = mr.retry(ctx, app, gthread, out, err, &r); err != nil {
			return fail(fmt.Errorf("%s: %w", what, err))
		}
	} else {
		first := state.Message{ID: state.NewID(), Role: state.RoleHuman, Content: mr.m.Prompt + "\n\nMemory:\n" + memCtx}
		// Open the start URL first, so every persona begins on the app.
		var pre State
		mr.act(ctx, mr.team[0], step{in: browser.Navigate(mr.start), why: "open the start URL"}, &pre)
		in := State{Messages: []state.Message{first}, Tape: pre.Tape, Bugs: pre.Bugs, Steps: 1}
		gthread = fmt.Sprintf("%s@%d", mr.m.ThreadID, time.Now().UnixNano())
		if err := safefile.WriteFile(threadFile, []byte(gthread+"\n"), 0o600); err != nil {
			return fail(err)
		}
		out, err = app.Invoke(ctx, in, graph.Thread(gthread))
		if out, err = mr.retry(ctx, app, gthread, out, err, &r); err != nil {
			return fail(fmt.Errorf("%s: %w", what, err))
		}
	}
	// Late reports of the in-page recorder.
	mr.col.WaitQuiet(ctx, 800*time.Millisecond)
	var late State
	if e, ok := mr.lastEntry(); ok {
		for _, f := range mr.col.Take() {
			if b, ok := mr.bug(ctx, mr.team[0], f, e); ok {
				late.Bugs = append(late.Bugs, b)
			}
		}
	}
	r.Steps = out.Steps
	r.Coverage = mr.sw.coverage(mr.stopWhy)
	if r.Coverage != nil {
		r.Coverage.Entries = mr.cov.entries
		mr.takeJS(ctx)
		r.Coverage.JS = mr.jsReport()
	}
	if c := r.Coverage; c != nil && mr.cfg.Progress != nil {
		prefix := ""
		if mr.cfg.TTY {
			prefix = "\r\033[K"
		}
		js := ""
		if c.JS != nil {
			js = "; JavaScript " + c.JS.String()
		}
		fmt.Fprintf(mr.cfg.Progress, "%s[%d/%d %s] ended after %d steps: %s; %d states, %d of %d targets tried%s\n", prefix, mr.index+1, mr.total,
			mr.m.ThreadID, out.Steps, c.Stopped, c.States, c.Tried+c.Failed, c.Targets, js)
	}
	r.Bugs = mr.laterCopies(append(out.Bugs, late.Bugs...))
	r.Explored = out.Explored
	r.Timeline = mr.full
	mr.modelReport(ctx, &r)
	mr.trace.Info("mission end", "steps", r.Steps, "bugs", len(r.Bugs), "explored", len(r.Explored))
	mr.saveSession(ctx, &r, t0)
	r.Duration = time.Since(t0)
	return r
}

// retry continues a mission that failed on a transient model error
// (llm.TransientError) from its last checkpoint, on the same graph thread,
// after a backoff, up to Config.MissionRetries times. Any other error, or
// the caller's cancellation, ends it at once. The tape goes on where the
// failed attempt stopped.
func (mr *missionRun) retry(ctx context.Context, app *graph.CompiledGraph[State], gthread string, out State, err error, r *report.MissionResult) (State, error) {
	policy := llm.RetryPolicy{BaseDelay: mr.cfg.RetryBackoff, MaxDelay: 16 * mr.cfg.RetryBackoff}
	for n := 0; err != nil && n < mr.cfg.MissionRetries && ctx.Err() == nil && llm.TransientError(err); n++ {
		delay := policy.Backoff(n)
		r.Retries++
		mr.trace.Warn("mission failed on a transient error: continuing from its checkpoint", "retry", n+1, "of", mr.cfg.MissionRetries, "delay", delay, "err", err)
		mr.log.Warn("explore: transient error, retrying the mission", "thread", mr.m.ThreadID, "retry", n+1, "delay", delay, "err", err)
		if mr.cfg.Progress != nil {
			prefix := ""
			if mr.cfg.TTY {
				prefix = "\r\033[K"
			}
			fmt.Fprintf(mr.cfg.Progress, "%s[%d/%d %s] transient error at step %d, retry %d/%d in %s: %s\n", prefix, mr.index+1, mr.total, mr.m.ThreadID,
				mr.steps, n+1, mr.cfg.MissionRetries, delay.Round(time.Millisecond), clip.String(err.Error(), 120))
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return out, errors.Join(err, ctx.Err())
		case <-t.C:
		}
		if rerr := mr.resync(ctx, app, gthread); rerr != nil {
			return out, errors.Join(err, rerr)
		}
		if _, rerr := mr.reconcile(ctx, app, gthread); rerr != nil {
			return out, errors.Join(err, rerr)
		}
		out, err = app.Invoke(ctx, State{}, graph.Thread(gthread), graph.Continue())
	}
	return out, err
}

// resync aligns the Go-side mission state with the thread's last
// checkpoint before it continues: what a failed or killed attempt did after
// that checkpoint is on the tape and in memory, but not in the state.
func (mr *missionRun) resync(ctx context.Context, app *graph.CompiledGraph[State], gthread string) error {
	snap, err := app.GetState(ctx, graph.Thread(gthread))
	if err != nil {
		return fmt.Errorf("read the checkpoint of %s: %w", gthread, err)
	}
	mr.bugSeen = map[string]bool{}
	mr.steps = 0
	mr.restore(snap.Values)
	mr.bugs = len(snap.Values.Bugs)
	return nil
}

// injectedFault runs the test hook Config.faultHook, if any.
func (mr *missionRun) injectedFault(ctx context.Context, persona string) error {
	if mr.cfg.faultHook == nil {
		return nil
	}
	return mr.cfg.faultHook(ctx, mr.m.ThreadID, persona, mr.steps)
}

// record renumbers a window entry into the mission's tape and keeps it.
func (mr *missionRun) record(e browser.Entry, persona string) browser.Entry {
	e.Params = mr.secrets.RedactIntent(e.Params)
	mr.seq++
	e.Seq = mr.seq
	e.User = persona
	if mr.cur != nil {
		e.Account = mr.cur.Name
	}
	pub := mr.addr().Entry(e) // the tape and the timeline keep the app's addresses
	mr.tallySelector(pub)
	if err := mr.tape.Append(pub); err != nil {
		mr.trace.Warn("tape append failed", "err", err)
	}
	if mr.cfg.persistent() {
		mr.saveBrowserState()
	}
	mr.full = append(mr.full, report.TimelineEntry{Persona: persona, Entry: pub})
	return e
}

// browserStateFile, in the mission's report directory, keeps the browser's
// cookies and storage as of the latest step, for --resume.
const browserStateFile = ".browser_state.json"

// saveBrowserState writes the session's cookies and storage next to the
// tape (through a rename, so a kill never leaves half a file).
func (mr *missionRun) saveBrowserState() {
	if mr.multi() {
		return // each user's context starts from its own storage state again
	}
	path := filepath.Join(mr.dir, browserStateFile)
	_ = os.Remove(path + ".tmp") // Playwright writes through a link planted there
	if err := mr.sess.SaveStorageState(path + ".tmp"); err != nil {
		mr.trace.Debug("save browser state", "err", err)
		return
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		mr.trace.Debug("save browser state", "err", err)
	}
}

func (mr *missionRun) progress(persona string, st step, res browser.Result) {
	status := "ok"
	if !res.OK {
		status = "error: " + clip.String(res.Error, 100)
	}
	mr.trace.Info("step", "n", mr.steps, "persona", persona, "intent", mr.secrets.Redact(st.in.JSON()), "why", mr.secrets.Redact(st.why), "url", urlx.PathQuery(res.URL), "status", mr.secrets.Redact(status), "findings", len(res.Findings))
	// The progress line is the console observer's rendering of this event.
	mr.emit(observe.Event{Kind: observe.Step, Step: mr.steps, Budget: mr.budget, Persona: persona, Bugs: mr.bugs,
		Action: string(st.in.Action), URL: urlx.PathQuery(res.URL), OK: res.OK, Error: res.Error})
}

var _ io.Writer = (*os.File)(nil)

// SettleTimeout bounds the engine's wait for a quiet page after an action.
const SettleTimeout = 2 * time.Second

// doubleHold is how long the collector holds the first answer of a double
// submit (a slow network), so that the second click lands while the first
// is in flight. It is well within SettleTimeout: the double click's own
// settle waits for the held answer, and the team looks at the page the
// answers made. A hold past the settle let the held answer arrive after
// the look, and the page changed under the steps planned from it (a
// wizard's next step, filled with the refs of a page that was gone).
const doubleHold = 1200 * time.Millisecond

// openSession starts a browser context for the mission, seeded from the
// storage state at statePath when set, else from its one user's. With
// two or more users it starts one context per user, each from that
// user's storage state (an engine each: an engine seeds all its
// contexts from one state); the first user's is current.
func (mr *missionRun) openSession(ctx context.Context, statePath string) error {
	mr.sessions = map[string]*userSession{}
	open := func(state, name string) (*userSession, error) {
		cfg := mr.engineCfg
		cfg.StorageStatePath = state
		if mr.trace != nil {
			// The engine's own diagnostics (an action's time by phase, a
			// page replaced) go to the mission's traces.log.
			cfg.Logger = mr.trace
		}
		e, err := mr.browser.NewEngine(cfg)
		if err != nil {
			return nil, fmt.Errorf("browser engine: %w", err)
		}
		s, err := e.User(ctx, name)
		if err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("browser context: %w", err)
		}
		mr.startJS(ctx, s)
		return &userSession{engine: e, sess: s}, nil
	}
	switch {
	case len(mr.accounts) > 1:
		mr.xu = newCrossUser()
		for _, a := range mr.accounts {
			us, err := open(a.state, "explorer-"+mr.m.ThreadID+"-"+a.Name)
			if err != nil {
				return fmt.Errorf("user %q: %w", a.Name, err)
			}
			mr.sessions[a.Name] = us
		}
	default:
		name, state := "explorer-"+mr.m.ThreadID, statePath
		if len(mr.accounts) == 1 {
			name = DefaultUser
			if state == "" {
				state = mr.accounts[0].state
			}
		}
		us, err := open(state, "explorer-"+mr.m.ThreadID)
		if err != nil {
			return err
		}
		mr.sessions[name] = us
	}
	if len(mr.accounts) > 0 {
		a := mr.accounts[0]
		us := mr.sessions[a.Name]
		if us == nil {
			us = mr.sessions[DefaultUser]
		}
		mr.cur, mr.engine, mr.sess = a, us.engine, us.sess
		return nil
	}
	us := mr.sessions["explorer-"+mr.m.ThreadID]
	mr.engine, mr.sess = us.engine, us.sess
	return nil
}

// closeSessions closes the mission's browser contexts.
func (mr *missionRun) closeSessions() {
	for _, us := range mr.sessions {
		_ = us.engine.Close()
	}
}

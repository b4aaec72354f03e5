package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/internal/clip"
	"github.com/agentgraph/agentgraph/examples/explorer/internal/urlx"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/demoapp"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/state"
)

// Result is the outcome of a batch of missions.
type Result struct {
	// RunID names the run in memory (the run that marked a bug fixed or
	// reopened it): "run-" and its start time in UTC.
	RunID    string          `json:"run_id"`
	Missions []MissionResult `json:"missions"`
	// Verified are the verdicts of a --regression run's replays of the
	// reproductions memory keeps, made before its missions.
	Verified []Verification `json:"verified,omitempty"`
	Duration time.Duration  `json:"duration"`
	// JUnit is the path of the batch's JUnit XML.
	JUnit string `json:"junit"`
	// Shard is the batch's share ("i/n", Config.Shard; "" for all).
	Shard string `json:"shard,omitempty"`
	// Demo scores the batch against the demo app's seeded bugs (nil for
	// other targets): found is matched from the findings' evidence alone.
	Demo *DemoScore `json:"demo,omitempty"`
	// Usage is the batch's model usage (nil offline).
	Usage *Usage `json:"usage,omitempty"`
	// SecretEnv is the environment the reproduction specs need to replay
	// a sign-in: SECRET_n=value for each secret the run typed (specs read
	// process.env.SECRET_n; artifacts hold only the references). Never
	// written to a file.
	SecretEnv []string `json:"-"`
}

// Bugs counts the bugs of all missions.
func (r Result) Bugs() int {
	n := 0
	for _, m := range r.Missions {
		n += len(m.Bugs)
	}
	return n
}

// NewBugs counts the bugs memory had not seen before, and the fixed bugs
// whose reproduction showed them again (regressions).
func (r Result) NewBugs() int {
	n := 0
	for _, v := range r.Verified {
		if v.Verdict == string(memory.VerdictReopened) {
			n++
		}
	}
	for _, m := range r.Missions {
		for _, b := range m.Bugs {
			if b.New {
				n++
			}
		}
	}
	return n
}

// MissionResult is the outcome of one mission.
type MissionResult struct {
	Mission  Mission       `json:"mission"`
	Team     string        `json:"team"`
	Target   string        `json:"target"`
	Steps    int           `json:"steps"`
	Bugs     []Bug         `json:"bugs"`
	Explored []string      `json:"explored"`
	Dir      string        `json:"dir"`
	Duration time.Duration `json:"duration_ns"`
	Demo     *DemoScore    `json:"demo,omitempty"`
	Err      string        `json:"error,omitempty"`
	// Retries counts the continuations after transient errors.
	Retries int `json:"retries,omitempty"`
	// Timeline is the mission's full action tape.
	Timeline []TimelineEntry `json:"-"`
	// Analysis is the reporter model's write-up ("" offline).
	Analysis string `json:"-"`
	// Usage is the mission's model usage (nil offline).
	Usage *Usage `json:"usage,omitempty"`
	// Coverage is what the mission's app model saw and tried, and why the
	// mission ended.
	Coverage *Coverage `json:"coverage,omitempty"`
}

// TimelineEntry is one action of the mission with the persona that took it.
type TimelineEntry struct {
	Persona string
	Entry   browser.Entry
}

// DemoScore lists the demo app's seeded bug ids and those found.
type DemoScore struct {
	Seeded []string `json:"seeded"`
	Found  []string `json:"found"`
}

// Run explores the target with each mission in turn and writes the reports.
// Set-up problems (no Chromium, a bad DB) are *SetupError; bad
// configuration wraps ErrUsage.
func Run(ctx context.Context, cfg Config) (Result, error) {
	start := time.Now()
	cfg.defaults()
	log := cfg.Logger
	res := Result{RunID: "run-" + start.UTC().Format("20060102T150405Z")}

	if err := cfg.checkScale(); err != nil {
		return res, err
	}
	// The app under test.
	target := strings.TrimRight(cfg.Target, "/")
	var demo *demoapp.Server
	var seeded []string
	if target == "" {
		disabled, err := demoapp.ParseBugList(strings.Join(cfg.DemoDisabled, ","))
		if err != nil {
			return res, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		demo, err = demoapp.Listen("", demoapp.Options{Disabled: disabled})
		if err != nil {
			return res, &SetupError{Err: fmt.Errorf("serve the demo app: %w", err)}
		}
		defer func() { _ = demo.Close(context.Background()) }()
		target = demo.URL
		if cfg.ReplayTarget == nil {
			// Replays of a reproduction start from a fresh demo app.
			cfg.ReplayTarget = func(context.Context) (string, func(), error) {
				s, err := demoapp.Listen("", demoapp.Options{Disabled: disabled})
				if err != nil {
					return "", nil, err
				}
				return s.URL, func() { _ = s.Close(context.Background()) }, nil
			}
		}
		for _, id := range demo.App.EnabledBugs() {
			seeded = append(seeded, string(id))
		}
	} else if err := checkTarget(ctx, target, cfg.TargetTimeout); err != nil {
		// Unreachable, not http(s), or answering nothing: a set-up error
		// (exit 2), before any browser or report.
		return res, err
	}
	// Secret values (the password, configured tokens, whatever is typed
	// into a password field) are recorded as ${SECRET_n} everywhere.
	// Every user's password and email is one (SECRET_1 the first
	// user's password, after the Credentials password of earlier
	// versions; then the other passwords, then the emails).
	if err := ValidateUsers(cfg.Users); err != nil {
		return res, err
	}
	users := cfg.users()
	known := []string{cfg.Credentials.Password}
	for _, u := range users {
		known = append(known, u.Password)
	}
	for _, u := range users {
		// The users' emails too: specs read them from SECRET_n.
		known = append(known, u.Email)
	}
	secrets := browser.NewSecrets(append(known, cfg.Secrets...)...)

	// Persistence: checkpoints and memory in one bbolt file, a PostgreSQL
	// database shared with other shards, or memory only.
	cp, store, closeDB, err := openDB(ctx, cfg.DB)
	if err != nil {
		return res, err
	}
	defer closeDB()
	// Memory is keyed by the app's real origin, not the collector's port.
	qa, err := memory.NewQA(store, memoryOrigin(target, demo != nil), memory.WithQALogger(log))
	if err != nil {
		return res, fmt.Errorf("%w: target %q: %v", ErrUsage, target, err)
	}

	if cfg.PRURL != "" {
		if cfg.Missions, err = cfg.prMissions(ctx, target); err != nil {
			return res, err
		}
	}
	// A regression run's missions are the open bugs' pages once every
	// remembered reproduction was replayed (below).
	var missions []Mission
	if cfg.Shard.Count > 0 {
		res.Shard = cfg.Shard.String()
	}
	if !cfg.Regression {
		if missions, err = cfg.resolvedMissions(ctx, qa, target); err != nil {
			return res, err
		}
		if cfg.Shard.Count > 0 && len(missions) == 0 {
			// Nothing falls to this shard: an empty batch report, so that
			// merge-reports finds every shard's directory.
			return res, cfg.emptyBatch(&res, start)
		}
	}

	// The page-health collector in front of the app.
	col, err := collector.New(target, cfg.SlowThreshold, log)
	if err != nil {
		return res, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return res, &SetupError{Err: fmt.Errorf("listen: %w", err)}
	}
	hs := &http.Server{Handler: col, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer func() { _ = hs.Close() }()
	colURL := "http://" + ln.Addr().String()

	b := cfg.Browser
	if b == nil {
		b, err = browser.Launch(ctx, browser.LaunchOptions{Headed: cfg.Headed, Logger: log, Endpoint: cfg.BrowserWS})
		if err != nil {
			if errors.Is(err, browser.ErrSetup) {
				return res, &SetupError{Err: err}
			}
			return res, &SetupError{Err: fmt.Errorf("launch the browser: %w", err)}
		}
		defer b.Close()
	}
	// Model personas' tools beyond the browser's: the MCP servers' and the
	// skills', opened once for the whole run.
	var extra *extraTools
	if cfg.Models.persona() != nil {
		if extra, err = openExtraTools(ctx, cfg, log, cfg.Progress); err != nil {
			return res, err
		}
		defer func() { _ = extra.Close() }()
	}
	engineCfg := browser.Config{Origins: []string{colURL}, Aliases: map[string]string{strings.TrimRight(target, "/"): colURL}, Logger: log,
		ActionTimeout: 3 * time.Second, SettleTimeout: settleTimeout, SpinnerTimeout: 3 * time.Second,
		Secrets: secrets, SecretFields: cfg.SecretFields}

	// The set-up mission: every user with a password and no storage
	// state signs in once; its contexts start from the state it saved.
	if err := signInUsers(ctx, cfg, b, engineCfg, users, collector.NewAddresser(colURL, target), func(line string) {
		log.Info("explore: " + line)
		if cfg.Progress != nil {
			fmt.Fprintln(cfg.Progress, line)
		}
	}); err != nil {
		return res, err
	}
	if len(users) > 0 {
		// What the collector saw of the sign-ins is no mission's finding.
		col.WaitQuiet(ctx, 300*time.Millisecond)
		_ = col.Take()
	}
	if cfg.Regression {
		// Sharded, the first shard replays them (the others share its
		// memory and explore their share of the pages).
		if cfg.Shard.Count <= 1 || cfg.Shard.Index == 1 {
			vr := &missionRun{cfg: cfg, browser: b, engineCfg: engineCfg, target: target, qa: qa, log: log, trace: log, secrets: secrets}
			if res.Verified, err = verifyBugs(ctx, vr, res.RunID); err != nil {
				return res, err
			}
		}
		missions, err = cfg.resolvedMissions(ctx, qa, target)
		if errors.Is(err, errNoOpenBugs) && (len(res.Verified) > 0 || cfg.Shard.Count > 1) {
			missions, err = nil, nil // every remembered bug verified fixed
		}
		if err != nil {
			return res, err
		}
	}
	for i, m := range missions {
		mr := &missionRun{cfg: cfg, m: m, browser: b, engineCfg: engineCfg, col: col, qa: qa, colURL: colURL, target: target, cp: cp, store: store,
			log: log, index: i, total: len(missions), secrets: secrets, extra: extra, accounts: users}
		before := cfg.Models.usageSnapshot()
		r := mr.run(ctx)
		if demo != nil {
			r.Demo = score(seeded, r.Bugs)
		}
		r.Usage = cfg.Models.usageSince(before)
		if err := writeMissionReports(ctx, mr, &r); err != nil {
			r.Err = strings.TrimSpace(r.Err + "; reports: " + err.Error())
		}
		res.Missions = append(res.Missions, r)
		if ctx.Err() != nil {
			break
		}
	}
	// Procedural reflection after the batch: each persona's learned prompt
	// supplement and the supervisor's routing rules, by rules offline or by
	// cfg.Reflector (e.g. ModelReflector).
	if ctx.Err() == nil {
		if _, err := qa.Reflect(ctx, memory.ReflectOptions{Reflector: cfg.Reflector}); err != nil {
			log.Warn("explore: reflection after the batch failed", "err", err)
		}
	}
	if demo != nil {
		var all []Bug
		for _, m := range res.Missions {
			all = append(all, m.Bugs...)
		}
		res.Demo = score(seeded, all)
	}
	res.Usage = cfg.Models.usageSnapshot()
	res.Duration = time.Since(start)
	res.SecretEnv = secrets.Env()
	res.JUnit = filepath.Join(cfg.ReportDir, "junit.xml")
	if err := writeJUnit(res.JUnit, res); err != nil {
		return res, fmt.Errorf("explore: junit: %w", err)
	}
	if err := writeBatchSummary(filepath.Join(cfg.ReportDir, "summary.json"), res); err != nil {
		return res, fmt.Errorf("explore: summary: %w", err)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}

func memoryOrigin(target string, demo bool) string {
	if demo {
		return "http://demoapp.local"
	}
	return target
}

// score matches the findings' evidence to the seeded bug ids.
func score(seeded []string, bugs []Bug) *DemoScore { return scoreWith(seeded, bugs, demoFindIDs) }

// scoreWith matches the findings' evidence, title and URL to the seeded
// bug ids with find.
func scoreWith(seeded []string, bugs []Bug, find func(string) []string) *DemoScore {
	found := map[string]bool{}
	for _, b := range bugs {
		for _, id := range find(b.Evidence + "\n" + b.Title + "\n" + b.URL + "\n" + strings.Join(b.Symptoms, "\n")) {
			found[id] = true
		}
	}
	out := &DemoScore{Seeded: slices.Clone(seeded), Found: []string{}}
	for _, id := range seeded {
		if found[id] {
			out.Found = append(out.Found, id)
		}
	}
	return out
}

// errNoOpenBugs: a --regression run found no open bug in memory.
var errNoOpenBugs = errors.New("--regression: memory has no open bugs for this app")

// resolvedMissions are the batch's missions with their start URLs on the
// target: a path, or a URL of the target's origin (made a path, so the
// browser goes through the collector).
func (cfg *Config) resolvedMissions(ctx context.Context, qa *memory.QA, target string) ([]Mission, error) {
	missions, err := cfg.missions(ctx, qa)
	if err != nil {
		return nil, err
	}
	for i := range missions {
		if missions[i].StartURL, err = ResolveStartURL(missions[i].StartURL, target); err != nil {
			return nil, fmt.Errorf("mission %s: %w", missions[i].ThreadID, err)
		}
	}
	return missions, nil
}

func (cfg *Config) missions(ctx context.Context, qa *memory.QA) ([]Mission, error) {
	ms := slices.Clone(cfg.Missions)
	if cfg.Regression {
		rms, err := qa.RegressionMissions(ctx)
		if err = warnCorrupt(ctx, cfg.Logger, cfg.Progress, qa, err); err != nil {
			return nil, fmt.Errorf("explore: regression missions: %w", err)
		}
		ms = nil
		for _, r := range rms {
			ms = append(ms, Mission{ThreadID: r.ThreadID, Prompt: r.Prompt, Team: r.Team, StartURL: urlx.PathQuery(r.StartURL)})
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("%w: %w", ErrUsage, errNoOpenBugs)
		}
	}
	if cfg.Resume != "" {
		found := false
		for _, m := range ms {
			if m.ThreadID == cfg.Resume {
				ms, found = []Mission{m}, true
				break
			}
		}
		if !found {
			m := DefaultMission()
			m.ThreadID = cfg.Resume
			ms = []Mission{m}
		}
	}
	if len(ms) == 0 {
		ms = []Mission{DefaultMission()}
	}
	for i := range ms {
		if ms[i].Budget <= 0 {
			ms[i].Budget = cfg.Budget
		}
		if cfg.Team != "" {
			ms[i].Team = cfg.Team
		}
		if ms[i].Team == "" {
			ms[i].Team = RouteTeam(ms[i].Prompt)
		}
		if _, err := Team(ms[i].Team); err != nil {
			return nil, fmt.Errorf("%w: mission %q: %v", ErrUsage, ms[i].ThreadID, err)
		}
		if err := validThread(ms[i].ThreadID); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	return cfg.shardMissions(ms)
}

var reThread = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$`)

func validThread(id string) error {
	if !reThread.MatchString(id) {
		return fmt.Errorf("thread_id %q: use 1-80 letters, digits, '.', '_' or '-' (it names the report directory)", id)
	}
	return nil
}

// missionRun is one mission at work.
type missionRun struct {
	cfg       Config
	m         Mission
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
	recorded     map[string]Bug       // bugs given to memory by this run, by fingerprint
	selUse       map[selKey]*selTally // the locators used, for memory (memlog.go)
	resetPending bool
	freshPage    bool // the latest look found a page never visited before
	rand         *rand.Rand
	steps        int
	tape         *browser.Tape
	full         []TimelineEntry
	seq          int64
	bugs         int

	// prevActor and prevEntry are the latest action (for findings that
	// arrive after it); late holds findings drained by screenshots and
	// snapshots before they are reported.
	prevActor *member
	prevEntry browser.Entry
	late      []browser.Finding
}

func (mr *missionRun) run(ctx context.Context) MissionResult {
	t0 := time.Now()
	r := MissionResult{Mission: mr.m, Team: mr.m.Team, Target: mr.target}
	mr.emitGoalStart()
	defer func() { mr.emitGoalComplete(r) }()
	mr.dir = filepath.Join(mr.cfg.ReportDir, mr.m.ThreadID)
	r.Dir = mr.dir
	fail := func(err error) MissionResult {
		r.Err = mr.secrets.Redact(err.Error())
		r.Timeline = mr.full
		r.Duration = time.Since(t0)
		if ctx.Err() != nil {
			// Interrupted (SIGINT/SIGTERM): the report keeps what was found.
			r.Err = "interrupted: " + r.Err
			r.Steps = mr.steps
			r.Bugs = mr.bugsSoFar()
		}
		return r
	}
	if err := os.MkdirAll(filepath.Join(mr.dir, "screenshots"), 0o700); err != nil {
		return fail(err)
	}
	_ = os.Chmod(mr.dir, 0o700)
	traceFile, err := os.OpenFile(filepath.Join(mr.dir, "traces.log"), traceFlags(mr.cfg.Resume != ""), 0o600)
	if err != nil {
		return fail(err)
	}
	defer traceFile.Close()
	mr.trace = slog.New(slog.NewTextHandler(mr.addr().Writer(traceFile), &slog.HandlerOptions{Level: slog.LevelDebug})).With("thread", mr.m.ThreadID)
	tapePath := filepath.Join(mr.dir, "action_tape.jsonl")
	if mr.cfg.Resume == "" {
		_ = os.Remove(tapePath)
	} else if es, rep, err := browser.ReadTapeFile(tapePath); err == nil || len(rep.Invalid) > 0 {
		// Entries that fail validation (a tampered or damaged tape) are
		// left out and said; the valid ones carry the mission on.
		if err != nil {
			mr.trace.Warn("resume: tape entries left out", "err", err)
			if mr.log != nil {
				mr.log.Warn("resume: tape entries left out", "thread", mr.m.ThreadID, "err", err)
			}
		}
		for _, e := range es {
			mr.full = append(mr.full, TimelineEntry{Persona: e.User, Entry: e})
			mr.seq = max(mr.seq, e.Seq)
		}
	}
	if mr.tape, err = browser.OpenTape(tapePath); err != nil {
		return fail(err)
	}
	defer mr.tape.Close()

	personas, _ := Team(mr.m.Team)
	mr.cov = newCoverage()
	mr.sw = newSweep()
	mr.idle, mr.loops, mr.bugSeen, mr.recorded = map[string]int{}, map[string]int{}, map[string]bool{}, map[string]Bug{}
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
			m.creds = Credentials{Email: m.acct.Email, Password: m.acct.Password}
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
		found := discoverEntries(ctx, mr.target, mr.start, mr.cfg.EntryPaths)
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
		mr.sess.Do(ctx, nav(mr.start))
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
		mr.act(ctx, mr.team[0], step{in: nav(mr.start), why: "open the start URL"}, &pre)
		in := State{Messages: []state.Message{first}, Tape: pre.Tape, Bugs: pre.Bugs, Steps: 1}
		gthread = fmt.Sprintf("%s@%d", mr.m.ThreadID, time.Now().UnixNano())
		if err := os.WriteFile(threadFile, []byte(gthread+"\n"), 0o600); err != nil {
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
func (mr *missionRun) retry(ctx context.Context, app *graph.CompiledGraph[State], gthread string, out State, err error, r *MissionResult) (State, error) {
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
	if mr.cfg.DB != "" {
		mr.saveBrowserState()
	}
	mr.full = append(mr.full, TimelineEntry{Persona: persona, Entry: pub})
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

var bugKinds = map[browser.FindingKind]string{
	browser.FindPageError: "Uncaught exception", browser.FindConsoleError: "Console error", browser.FindRequestFailed: "Request failed",
	browser.FindServerError: "Server error", browser.FindNotFound: "Broken link (404)", browser.FindErrorBanner: "Error banner",
	browser.FindStackTrace: "Stack trace on the page", browser.FindSpinner: "Spinner never settles", collector.FindXSS: "Cross-site scripting",
	collector.FindA11y: "Accessibility violation", collector.FindDeadControl: "Dead control", collector.FindSlow: "Slow response", collector.FindDuplicate: "Duplicate submission accepted",
	collector.FindDuplicateRow: "Duplicate record", browser.FindUnresponsive: "Page unresponsive", FindCrossUser: "Cross-user data leak",
}

// leaveHostile marks as explored the pages that stopped responding during
// an action (the engine replaced the page by a fresh one; the finding
// becomes a bug) and a navigation's path that led off the app's origin (a
// redirect or refresh the origin guard refused), so that no persona goes
// back to them.
func (mr *missionRun) leaveHostile(in browser.Intent, res browser.Result) {
	if in.Action == browser.ActNavigate && !res.OK && strings.Contains(res.Error, "outside the allowed origins") {
		if p := urlx.PathQuery(in.URL); strings.HasPrefix(p, "/") {
			mr.cov.visit(p)
		}
	}
	for _, f := range res.Findings {
		if f.Kind != browser.FindUnresponsive || f.URL == "" || strings.HasPrefix(f.URL, "about:") {
			continue
		}
		mr.cov.visit(urlx.PathQuery(f.URL))
		mr.trace.Warn("page unresponsive: replaced by a fresh page, not visited again", "url", urlx.PathQuery(f.URL))
	}
}

// bug turns a finding into a Bug when it is a new one for this mission.
func (mr *missionRun) bug(ctx context.Context, m *member, f browser.Finding, e browser.Entry) (Bug, bool) {
	b, ok := findingBug(f, e.URL)
	if !ok || mr.bugSeen[b.Fingerprint] {
		return Bug{}, false
	}
	if f.Kind == browser.FindErrorBanner && validationMessage(firstNonEmpty(f.Evidence, f.Message)) {
		// The app answering input with a validation message: no bug.
		mr.trace.Info("observation: validation message", "text", clip.String(firstNonEmpty(f.Evidence, f.Message), 200))
		return Bug{}, false
	}
	if mr.brokeAfterApp(f) {
		// The app's whole answer left the collector: what broke it was
		// between the collector and the browser (a loaded machine), not
		// the app.
		mr.trace.Info("observation: request broke after the app answered it whole", "message", clip.String(f.Message, 200), "url", urlx.PathQuery(mr.public(f.URL)))
		return Bug{}, false
	}
	if f.Kind == browser.FindNotFound && mr.othersLoaded(firstNonEmpty(f.URL, e.URL)) {
		// Another user's page, which this one may not open: the app
		// keeping records apart, no broken link.
		mr.trace.Info("observation: another user's page answers 404 to this user", "url", urlx.PathQuery(mr.public(firstNonEmpty(f.URL, e.URL))), "user", mr.cur.Name)
		return Bug{}, false
	}
	if u := urlx.PathQuery(mr.public(firstNonEmpty(f.URL, e.URL))); f.Kind == browser.FindNotFound && e.Action == browser.ActNavigate && mr.cov.gone(u) {
		// The team opened by its address a page it had seen, after it
		// deleted something: the record is gone, no link is broken.
		mr.trace.Info("observation: a page seen before answers 404 after a delete", "url", u)
		return Bug{}, false
	}
	if f.Kind == collector.FindDuplicateRow && mr.sw != nil && mr.sw.typed.ownRepeat(f.Evidence) {
		// Two records the explorer made with the same values: no bug.
		mr.trace.Info("duplicate row of the explorer's own values", "evidence", clip.String(f.Evidence, 200))
		return Bug{}, false
	}
	// A page (or a 5xx body) that echoes a secret does not put it in a
	// report or in memory.
	b.Title, b.Evidence, b.URL = mr.secrets.Redact(mr.public(b.Title)), mr.secrets.Redact(mr.public(b.Evidence)), mr.secrets.Redact(mr.public(b.URL))
	fp, page, evidence := b.Fingerprint, b.URL, b.Evidence
	mr.bugSeen[fp] = true
	mr.bugs++
	b.ID = fmt.Sprintf("bug-%02d-%s", mr.bugs, strings.ReplaceAll(string(f.Kind), "_", "-"))
	b.Persona, b.Step, b.TapeSeq = m.p.Name, mr.steps, e.Seq
	if f.Kind == FindCrossUser && mr.xu != nil {
		if l, ok := mr.xu.leaks[f.Message]; ok {
			b.Owner, b.Viewer = l.Owner, l.Viewer
			mr.xu.byBug[b.ID] = l
		}
	}
	// Memory fingerprints the evidence: give it the run-independent part
	// (numbers such as record ids, ports and timings removed).
	// A bug this run already gave to memory (before a retry went back to
	// the checkpoint) is not recorded twice.
	if prev, ok := mr.recorded[fp]; ok {
		b.New, b.SeenCount, b.Fingerprint = prev.New, prev.SeenCount, prev.Fingerprint
	} else if rec, err := mr.qa.RecordBug(ctx, memory.BugReport{Kind: b.Kind, Severity: memorySeverity(b.Severity), Cause: b.Cause, URL: memURL(urlx.PathQuery(page), "", mr.qa.Origin()), Title: reNum.ReplaceAllString(b.Title, "#"), Evidence: clip.String(reNum.ReplaceAllString(evidence, "#"), 600), Persona: m.p.Name, ThreadID: mr.m.ThreadID, TapeIndex: int(e.Seq)}); err == nil {
		b.New = rec.New || rec.Reopened
		b.SeenCount = rec.Entry.SeenCount
		if !rec.New && rec.Entry.Fingerprint != "" {
			b.Fingerprint = rec.Entry.Fingerprint
		}
		mr.recorded[fp] = b
		mr.journalBug(b) // at once: a kill from here on loses no bug
	} else {
		mr.trace.Warn("record bug in memory", "err", err)
	}
	if mr.sess == nil {
		mr.emitBug(b)
		return b, true // no browser (a unit test of the reporting)
	}
	// Screenshot of the page as it is now, the finding's element outlined.
	outlined := f.Selector != "" && mr.outline(ctx, f.Selector, true)
	shot := mr.sess.Do(ctx, browser.Intent{Action: browser.ActScreenshot})
	if outlined {
		mr.outline(ctx, f.Selector, false)
	}
	mr.late = append(mr.late, shot.Findings...)
	if len(shot.Screenshot) > 0 {
		rel := filepath.Join("screenshots", b.ID+".png")
		if err := os.WriteFile(filepath.Join(mr.dir, rel), shot.Screenshot, 0o600); err == nil {
			b.Screenshot = rel
			if prev, ok := mr.recorded[fp]; ok && prev.ID == b.ID {
				prev.Screenshot = rel
				mr.recorded[fp] = prev
			}
		}
	}
	mr.trace.Warn("bug", "id", b.ID, "kind", b.Kind, "url", urlx.PathQuery(page), "evidence", clip.String(evidence, 300), "new", b.New)
	mr.emitBug(b)
	return b, true
}

// reTransportFailure is a request failure of the connection itself (not a
// refusal, not an abort by the page).
var reTransportFailure = regexp.MustCompile(`net::ERR_(CONTENT_LENGTH_MISMATCH|INCOMPLETE_CHUNKED_ENCODING|INVALID_CHUNKED_ENCODING|EMPTY_RESPONSE|CONNECTION_RESET|CONNECTION_CLOSED)\b`)

// brokeAfterApp reports a request failure at the connection level of a
// request whose whole answer the collector relayed from the app moments
// before.
func (mr *missionRun) brokeAfterApp(f browser.Finding) bool {
	if f.Kind != browser.FindRequestFailed || mr.col == nil || !reTransportFailure.MatchString(f.Message) {
		return false
	}
	method, _, ok := strings.Cut(f.Message, " request failed")
	return ok && mr.col.RelayedWhole(method, urlx.Path(f.URL), 30*time.Second)
}

// outlineColor marks a bug's element in its screenshot.
const outlineColor = "#ff00ff"

// outline draws (on) or removes an outline around the element sel names,
// scrolled into view, and reports whether it found the element. The
// element's own inline outline is put back afterwards.
func (mr *missionRun) outline(ctx context.Context, sel string, on bool) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	v, err := mr.sess.Evaluate(ctx, `([sel, on, colour]) => {
  let el = null;
  try { el = document.querySelector(sel); } catch (e) { return false; }
  if (!el || !el.style) return false;
  // The element's style attribute as it was (JSON: null for none), put
  // back afterwards so that its markup (evidence of later findings) is
  // unchanged.
  if (on) {
    if (!el.hasAttribute('data-agx-style')) el.setAttribute('data-agx-style', JSON.stringify(el.getAttribute('style')));
    el.style.outline = '4px solid ' + colour;
    el.style.outlineOffset = '2px';
    el.scrollIntoView({block: 'center', inline: 'nearest'});
  } else if (el.hasAttribute('data-agx-style')) {
    let was = null;
    try { was = JSON.parse(el.getAttribute('data-agx-style')); } catch (e) {}
    if (typeof was === 'string') el.setAttribute('style', was); else el.removeAttribute('style');
    el.removeAttribute('data-agx-style');
  }
  return true;
}`, []any{sel, on, outlineColor})
	if err != nil {
		mr.trace.Debug("outline", "selector", sel, "err", err)
		return false
	}
	found, _ := v.(bool)
	return found
}

// bugsSoFar are the bugs this run found, in the order found, for the report
// of an interrupted mission.
func (mr *missionRun) bugsSoFar() []Bug {
	var out []Bug
	for _, b := range mr.recorded {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b Bug) int { return int(a.TapeSeq - b.TapeSeq) })
	return out
}

// bugEvidence is a finding's evidence as a bug reports it: the message
// first, then the evidence.
func bugEvidence(f browser.Finding) string {
	switch {
	case f.Evidence == "":
		return f.Message
	case !strings.Contains(f.Evidence, f.Message):
		return f.Message + " — " + f.Evidence
	}
	return f.Evidence
}

// addr is the mission's addresser: the collector's addresses to the
// target's.
func (mr *missionRun) addr() *collector.Addresser {
	mr.addrOnce.Do(func() { mr.addrs = collector.NewAddresser(mr.colURL, mr.target) })
	return mr.addrs
}

// public is s with the target's addresses in place of the collector's.
func (mr *missionRun) public(s string) string { return mr.addr().Text(s) }

// memURL maps a URL on the collector to the same path on the app's origin
// for memory.
func memURL(raw, colURL, origin string) string {
	if colURL == "" && strings.HasPrefix(raw, "/") {
		return strings.TrimRight(origin, "/") + raw
	}
	if strings.HasPrefix(raw, colURL) {
		return strings.TrimRight(origin, "/") + strings.TrimPrefix(raw, colURL)
	}
	return raw
}

var _ io.Writer = (*os.File)(nil)

func traceFlags(resume bool) int {
	if resume {
		return os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	return os.O_CREATE | os.O_WRONLY | os.O_TRUNC
}

// settleTimeout bounds the engine's wait for a quiet page after an action.
const settleTimeout = 2 * time.Second

// doubleHold is how long the collector holds the first answer of a double
// submit (a slow network), so that the second click lands while the first
// is in flight. It is well within settleTimeout: the double click's own
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

package explore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/discover"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/memory"
)

// Run explores the target with each mission in turn and writes the reports.
// Set-up problems (no Chromium, a bad DB) are *SetupError; bad
// configuration wraps ErrUsage.
func Run(ctx context.Context, cfg Config) (report.Result, error) {
	start := time.Now()
	cfg.defaults()
	log := cfg.Logger
	res := report.Result{RunID: "run-" + start.UTC().Format("20060102T150405Z")}

	if err := cfg.checkScale(); err != nil {
		return res, err
	}
	if err := cfg.checkEmbed(); err != nil {
		return res, err
	}
	// The app under test.
	target := strings.TrimRight(cfg.Target, "/")
	if target == "" {
		return res, fmt.Errorf("%w: no target: set Config.Target to the app's origin", ErrUsage)
	}
	if err := checkTarget(ctx, target, cfg.TargetTimeout); err != nil {
		// Unreachable, not http(s), or answering nothing: a set-up error
		// (exit 2), before any browser or report.
		return res, err
	}
	if err := report.CheckWritable(cfg.ReportDir); err != nil {
		return res, &SetupError{Err: err} // before any mission: its reports could not be written
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
	cp, store, closeDB, err := cfg.openStores(ctx)
	if err != nil {
		return res, err
	}
	defer closeDB()
	// Memory is keyed by the app's real origin, not the collector's port.
	qa, err := memory.NewQA(store, cmp.Or(cfg.MemoryOrigin, target), memory.WithQALogger(log))
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
	var missions []mission.Mission
	if cfg.Shard.Count > 0 {
		res.Shard = cfg.Shard.String()
	}
	if !cfg.Regression {
		if missions, err = cfg.resolvedMissions(ctx, qa, target); err != nil {
			return res, err
		}
		if err := discover.CheckStarts(ctx, target, mission.StartURLs(missions), cfg.TargetTimeout); err != nil {
			return res, &SetupError{Err: err} // a start page that leaves the origin: nothing to test
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
		ActionTimeout: 3 * time.Second, SettleTimeout: SettleTimeout, SpinnerTimeout: 3 * time.Second,
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
		if cfg.Seeded != nil {
			r.Demo = cfg.Seeded.Score(r.Bugs)
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
	if cfg.Seeded != nil {
		var all []findings.Bug
		for _, m := range res.Missions {
			all = append(all, m.Bugs...)
		}
		res.Demo = cfg.Seeded.Score(all)
	}
	res.Usage = cfg.Models.usageSnapshot()
	res.Duration = time.Since(start)
	res.SecretEnv = secrets.Env()
	if err := report.WriteJUnit(filepath.Join(cfg.ReportDir, "junit.xml"), res); err != nil {
		return res, fmt.Errorf("explore: junit: %w", err)
	}
	res.JUnit = filepath.Join(cfg.ReportDir, "junit.xml") // once written: the table prints it
	if err := report.WriteBatchSummary(filepath.Join(cfg.ReportDir, "summary.json"), res); err != nil {
		return res, fmt.Errorf("explore: summary: %w", err)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}

// errNoOpenBugs: a --regression run found no open bug in memory.
var errNoOpenBugs = errors.New("--regression: memory has no open bugs for this app")

// resolvedMissions are the batch's missions with their start URLs on the
// target: a path, or a URL of the target's origin (made a path, so the
// browser goes through the collector).
func (cfg *Config) resolvedMissions(ctx context.Context, qa *memory.QA, target string) ([]mission.Mission, error) {
	missions, err := cfg.missions(ctx, qa)
	if err != nil {
		return nil, err
	}
	for i := range missions {
		if missions[i].StartURL, err = mission.ResolveStartURL(missions[i].StartURL, target); err != nil {
			return nil, fmt.Errorf("mission %s: %w", missions[i].ThreadID, err)
		}
	}
	return missions, nil
}

func (cfg *Config) missions(ctx context.Context, qa *memory.QA) ([]mission.Mission, error) {
	ms := slices.Clone(cfg.Missions)
	if cfg.Regression {
		rms, err := qa.RegressionMissions(ctx)
		if err = warnCorrupt(ctx, cfg.Logger, cfg.Progress, qa, err); err != nil {
			return nil, fmt.Errorf("explore: regression missions: %w", err)
		}
		ms = nil
		for _, r := range rms {
			ms = append(ms, mission.Mission{ThreadID: r.ThreadID, Prompt: r.Prompt, Team: r.Team, StartURL: urlx.PathQuery(r.StartURL)})
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("%w: %w", ErrUsage, errNoOpenBugs)
		}
	}
	if cfg.Resume != "" {
		found := false
		for _, m := range ms {
			if m.ThreadID == cfg.Resume {
				ms, found = []mission.Mission{m}, true
				break
			}
		}
		if !found {
			m := mission.DefaultMission()
			m.ThreadID = cfg.Resume
			ms = []mission.Mission{m}
		}
	}
	if len(ms) == 0 {
		ms = []mission.Mission{mission.DefaultMission()}
	}
	for i := range ms {
		if ms[i].Budget <= 0 {
			ms[i].Budget = cfg.Budget
		}
		if cfg.Team != "" {
			ms[i].Team = cfg.Team
		}
		if ms[i].Team == "" {
			ms[i].Team = mission.RouteTeam(ms[i].Prompt)
		}
		if _, err := mission.Team(ms[i].Team); err != nil {
			return nil, fmt.Errorf("%w: mission %q: %v", ErrUsage, ms[i].ThreadID, err)
		}
		if err := mission.ValidThread(ms[i].ThreadID); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	return cfg.shardMissions(ms)
}

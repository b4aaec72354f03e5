package gremlins

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
)

// GremlinsVersion is the gremlins.js release the comparison is pinned to
// (scripts/setup.sh installs it into .tools/node).
const GremlinsVersion = "2.2.0"

// GremlinsScriptRelPath is where scripts/setup.sh puts gremlins.min.js,
// relative to the checkout root.
const GremlinsScriptRelPath = ".tools/node/node_modules/gremlins.js/dist/gremlins.min.js"

// Config configures Compare. The zero value compares the
// two on the demo app with N = 200.
type Config struct {
	// Budget is N: the explorer's step budget and the number of gremlin
	// actions (200, the explorer's default budget).
	Budget int
	// Seed seeds the explorer's personas and the gremlins' randomizer (1).
	Seed uint64
	// Delay is the pause between two gremlin actions (10ms, the default of
	// gremlins.js's distribution strategy).
	Delay time.Duration
	// ReportDir receives explorer/ (the explorer's own reports),
	// gremlins.json and gremlins.md ("reports/gremlins").
	ReportDir string
	// Script is gremlins.min.js (default: $AGENTGRAPH_GREMLINS_JS, else
	// GremlinsScriptRelPath in the working directory or a parent).
	Script string
	// StartURL is the path both start from ("/").
	StartURL string
	// NoSignIn leaves the gremlins signed out. By default the harness signs
	// them in the way the explorer does (the account shown on the sign-in
	// page) before the horde starts and whenever a page asks for a password
	// again; those steps are the harness's, not gremlin actions.
	NoSignIn bool
	// SlowThreshold of the collector (3s, as the explorer's).
	SlowThreshold time.Duration
	// DemoDisabled turns demo-app bugs off, on both sides.
	DemoDisabled []string
	// Minimize shortens the explorer side's reproductions as a normal run
	// does. Off by default: the comparison counts the bugs each side
	// triggers, and shortening the explorer's specs would cost minutes
	// that gremlins.js's side does not spend.
	Minimize bool
	// Target, for Run, is the origin of the app the gremlins run
	// on ("": a fresh demo app). Compare always uses the demo app.
	Target string
	// Credentials are used on sign-in forms instead of an account shown
	// on the page (the explorer's Config.Credentials).
	Credentials session.Credentials
	// Seeded and FindIDs score a Target's run: the seeded bug ids, and the
	// function that finds them in a bug's evidence, title and URL (nil: no
	// scoring; Side.Found stays empty). The demo app's are used
	// when Target is empty.
	Seeded  []string
	FindIDs func(text string) []string
	// Browser, when set, is used for both runs (and left open).
	Browser *browser.Browser
	// Progress receives a line per phase and per gremlins page (nil: none).
	Progress io.Writer
	// Logger for diagnostics (default: discard).
	Logger *slog.Logger
}

func (c *Config) defaults() {
	if c.Budget <= 0 {
		c.Budget = 200
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Delay <= 0 {
		c.Delay = 10 * time.Millisecond
	}
	if c.ReportDir == "" {
		c.ReportDir = filepath.Join("reports", "gremlins")
	}
	if c.StartURL == "" {
		c.StartURL = "/"
	}
	if c.SlowThreshold <= 0 {
		c.SlowThreshold = 3 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

// Comparison is the outcome of Compare: which seeded bugs
// of the demo app each side triggered, matched from the evidence alone.
type Comparison struct {
	Budget   int           `json:"budget"`
	Seed     uint64        `json:"seed"`
	Seeded   []string      `json:"seeded"`
	Explorer ExplorerSide  `json:"explorer"`
	Gremlins Side          `json:"gremlins"`
	Rows     []Row         `json:"rows"`
	Duration time.Duration `json:"duration_ns"`
	Notes    []string      `json:"notes"`
}

// ExplorerSide is the explorer's half of a comparison.
type ExplorerSide struct {
	Steps    int           `json:"steps"`
	Bugs     int           `json:"bugs"`
	Found    []string      `json:"found"`
	Report   string        `json:"report"`
	Duration time.Duration `json:"duration_ns"`
}

// Side is the gremlins' half of a comparison.
type Side struct {
	Version string `json:"version"`
	// Actions is the number of gremlin actions, counted by the species'
	// logger; Species splits it by species.
	Actions int            `json:"actions"`
	Species map[string]int `json:"species"`
	// Hordes is the number of hordes unleashed (one or more per page).
	Hordes int `json:"hordes"`
	// Pages lists the pages the gremlins reached, in order of first visit.
	Pages []string `json:"pages"`
	// GizmoStops counts hordes that gremlins' gizmo mogwai stopped after
	// 10 JS errors (the next horde goes on).
	GizmoStops int `json:"gizmo_stops"`
	// SignIns and HarnessSteps are the harness's own help: sign-ins and
	// the browser steps they, the start page and way backs from dead ends took.
	SignIns      int `json:"sign_ins"`
	HarnessSteps int `json:"harness_steps"`
	// Bugs are the collector's and the engine's findings, as the explorer
	// turns them into bugs.
	Bugs  []findings.Bug `json:"bugs"`
	Found []string       `json:"found"`
	// OwnOracles are the seeded bugs that gremlins' own oracles could have
	// seen: the JS errors (uncaught exceptions and console errors) alone.
	OwnOracles []string      `json:"own_oracles"`
	Duration   time.Duration `json:"duration_ns"`
}

// Row is one seeded bug of the comparison table.
type Row struct {
	ID       string `json:"id"`
	Class    string `json:"class"`
	Explorer bool   `json:"explorer"`
	Gremlins bool   `json:"gremlins"`
}

// Compare runs the offline explorer on the demo app with a step
// budget of N, then unleashes gremlins.js on a fresh demo app with the same
// seeded bugs for exactly N gremlin actions, both behind the same
// page-health collector (the explorer's reverse proxy and its in-page
// recorder, plus the browser engine's health), and matches each side's
// evidence to the seeded bugs with demoapp.FindIDs as the explorer's
// summary does. It writes gremlins.json and gremlins.md to cfg.ReportDir.
// A missing gremlins.min.js or browser is a *explore.SetupError.
func Compare(ctx context.Context, cfg Config) (Comparison, error) {
	start := time.Now()
	cfg.defaults()
	out := Comparison{Budget: cfg.Budget, Seed: cfg.Seed}
	script, err := loadGremlins(cfg.Script)
	if err != nil {
		return out, err
	}
	if _, err := demoapp.ParseBugList(strings.Join(cfg.DemoDisabled, ",")); err != nil {
		return out, fmt.Errorf("%w: %v", explore.ErrUsage, err)
	}
	if cfg.Target != "" {
		return out, fmt.Errorf("%w: Compare runs on the demo app; use Run for another target", explore.ErrUsage)
	}
	b := cfg.Browser
	if b == nil {
		b, err = browser.Launch(ctx, browser.LaunchOptions{Logger: cfg.Logger})
		if err != nil {
			return out, &explore.SetupError{Err: fmt.Errorf("launch the browser: %w", err)}
		}
		defer b.Close()
	}

	// The explorer, offline, with a step budget of N.
	fmt.Fprintf(cfg.Progress, "explorer: %d steps on the demo app\n", cfg.Budget)
	t0 := time.Now()
	m := mission.DefaultMission()
	m.StartURL = cfg.StartURL
	minimize := -1
	if cfg.Minimize {
		minimize = 0 // the default
	}
	app, err := demoapp.StartFixture(cfg.DemoDisabled)
	if err != nil {
		return out, &explore.SetupError{Err: err}
	}
	defer func() { _ = app.Close() }()
	res, err := explore.Run(ctx, explore.Config{Target: app.URL, MemoryOrigin: demoapp.MemoryOrigin, Seeded: &report.Seeded{IDs: app.Seeded, Find: app.Find},
		ReplayTarget: app.Fresh, Budget: cfg.Budget, Seed: cfg.Seed, ReportDir: filepath.Join(cfg.ReportDir, "explorer"),
		Missions: []mission.Mission{m}, Browser: b, SlowThreshold: cfg.SlowThreshold, Logger: cfg.Logger, MinimizeReplays: minimize})
	if err != nil {
		return out, fmt.Errorf("explore: gremlins comparison: explorer run: %w", err)
	}
	if len(res.Missions) != 1 || res.Missions[0].Err != "" || res.Demo == nil {
		return out, fmt.Errorf("explore: gremlins comparison: the explorer's mission failed: %+v", res.Missions)
	}
	out.Seeded = res.Demo.Seeded
	out.Explorer = ExplorerSide{Steps: res.Missions[0].Steps, Bugs: res.Bugs(), Found: res.Demo.Found,
		Report: res.Missions[0].Dir, Duration: time.Since(t0)}
	fmt.Fprintf(cfg.Progress, "explorer: %d/%d seeded bugs in %d steps (%s)\n", len(out.Explorer.Found), len(out.Seeded), out.Explorer.Steps, out.Explorer.Duration.Round(100*time.Millisecond))

	// gremlins.js, N actions, on a fresh demo app behind the same collector.
	fmt.Fprintf(cfg.Progress, "gremlins.js@%s: %d actions on a fresh demo app\n", GremlinsVersion, cfg.Budget)
	g, err := runGremlins(ctx, cfg, b, script)
	if err != nil {
		return out, err
	}
	out.Gremlins = g
	fmt.Fprintf(cfg.Progress, "gremlins.js: %d/%d seeded bugs in %d actions (%s)\n", len(g.Found), len(out.Seeded), g.Actions, g.Duration.Round(100*time.Millisecond))

	for _, id := range out.Seeded {
		row := Row{ID: id, Explorer: slices.Contains(out.Explorer.Found, id), Gremlins: slices.Contains(g.Found, id)}
		if bug, ok := demoapp.Lookup(demoapp.BugID(id)); ok {
			row.Class = string(bug.Class)
		}
		out.Rows = append(out.Rows, row)
	}
	out.Notes = comparisonNotes(cfg)
	out.Duration = time.Since(start)
	if err := os.MkdirAll(cfg.ReportDir, 0o700); err != nil {
		return out, fmt.Errorf("explore: gremlins comparison: %w", err)
	}
	if err := report.WriteJSON(filepath.Join(cfg.ReportDir, "gremlins.json"), out); err != nil {
		return out, fmt.Errorf("explore: gremlins comparison: %w", err)
	}
	if err := safefile.WriteFile(filepath.Join(cfg.ReportDir, "gremlins.md"), []byte(out.Markdown()), 0o600); err != nil {
		return out, fmt.Errorf("explore: gremlins comparison: %w", err)
	}
	return out, nil
}

func comparisonNotes(cfg Config) []string {
	notes := []string{
		fmt.Sprintf("Both sides: a fresh demo app with the same seeded bugs, started at %s, watched by the explorer's page-health collector (reverse proxy: 5xx bodies, X-Demoapp-Bug headers, slow responses over %s, duplicate posts; in-page recorder: executed XSS probes, unnamed controls, dead controls, duplicate rows) and the browser engine's health (page errors, console errors, 404s, 5xx, error banners); bugs matched from the evidence with demoapp.FindIDs.", cfg.StartURL, cfg.SlowThreshold),
		fmt.Sprintf("Explorer: offline, seed %d, budget %d browser steps (its sign-in counts).", cfg.Seed, cfg.Budget),
		fmt.Sprintf("gremlins.js@%s injected by an init script: default species and mogwais, distribution strategy with a %s delay, randomizer new gremlins.Chance(seed) per horde, a new horde on every new page until %d actions (counted by the species' logger) are spent; actions not drawn on the page.", GremlinsVersion, cfg.Delay, cfg.Budget),
	}
	if cfg.NoSignIn {
		notes = append(notes, "gremlins were not signed in.")
	} else {
		notes = append(notes, "The harness signed the gremlins in (the account shown on the sign-in page, as the explorer does) before the first horde and whenever a page asked for a password; these steps are not gremlin actions.")
	}
	return notes
}

// Markdown renders the comparison table and both counts.
func (c Comparison) Markdown() string {
	yn := func(b bool) string {
		if b {
			return "y"
		}
		return "n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Explorer vs gremlins.js@%s on the demo app (N = %d)\n\n", GremlinsVersion, c.Budget)
	fmt.Fprintf(&b, "- Explorer: **%d/%d** seeded bugs in %d steps (%s).\n", len(c.Explorer.Found), len(c.Seeded), c.Explorer.Steps, c.Explorer.Duration.Round(100*time.Millisecond))
	fmt.Fprintf(&b, "- gremlins.js: **%d/%d** seeded bugs in %d gremlin actions (%s) over %d pages and %d hordes; %d harness steps (%d sign-ins).\n",
		len(c.Gremlins.Found), len(c.Seeded), c.Gremlins.Actions, speciesLine(c.Gremlins.Species), len(c.Gremlins.Pages), c.Gremlins.Hordes, c.Gremlins.HarnessSteps, c.Gremlins.SignIns)
	fmt.Fprintf(&b, "- gremlins' own oracles (JS errors only) would have seen %d/%d: %s.\n\n", len(c.Gremlins.OwnOracles), len(c.Seeded), orNone(c.Gremlins.OwnOracles))
	b.WriteString("| bug | class | explorer | gremlins |\n|---|---|---|---|\n")
	for _, r := range c.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.ID, r.Class, yn(r.Explorer), yn(r.Gremlins))
	}
	fmt.Fprintf(&b, "| **total** | | **%d** | **%d** |\n\n", len(c.Explorer.Found), len(c.Gremlins.Found))
	for _, n := range c.Notes {
		b.WriteString("- " + n + "\n")
	}
	return b.String()
}

func speciesLine(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func orNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// loadGremlins reads gremlins.min.js and checks that it is the pinned
// release.
func loadGremlins(path string) (string, error) {
	if path == "" {
		path = os.Getenv("AGENTGRAPH_GREMLINS_JS")
	}
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", &explore.SetupError{Err: err}
		}
		p, ok := browser.FindUp(wd, GremlinsScriptRelPath)
		if !ok {
			return "", &explore.SetupError{Err: fmt.Errorf("gremlins.js (%s) not found in %s or a parent: run scripts/setup.sh, or set AGENTGRAPH_GREMLINS_JS", GremlinsScriptRelPath, wd)}
		}
		path = p
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return "", &explore.SetupError{Err: fmt.Errorf("gremlins.js: %w", err)}
	}
	pkg, err := os.ReadFile(filepath.Join(filepath.Dir(path), "..", "package.json"))
	if err == nil {
		var meta struct{ Name, Version string }
		if json.Unmarshal(pkg, &meta) == nil && meta.Name == "gremlins.js" && meta.Version != GremlinsVersion {
			return "", &explore.SetupError{Err: fmt.Errorf("gremlins.js at %s is %s, want %s: run scripts/setup.sh", path, meta.Version, GremlinsVersion)}
		}
	}
	if !strings.Contains(string(src), "createHorde") {
		return "", &explore.SetupError{Err: fmt.Errorf("%s is not gremlins.js (no createHorde)", path)}
	}
	return string(src), nil
}

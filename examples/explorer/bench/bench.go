package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/gremlins"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm/drive"
)

// Options configure a benchmark run.
type Options struct {
	Seeds []int64
	// Budget is the explorer's step budget per app (and gremlins.js's
	// action budget).
	Budget int
	// Gremlins also runs gremlins.js on each buggy app.
	Gremlins bool
	// Parallel is how many apps are explored at once.
	Parallel int
	// Out receives <seed>/buggy, <seed>/fixed (the explorer's reports),
	// bench.json and bench.md.
	Out string
	// Browser is shared by every run.
	Browser *browser.Browser
	// Progress receives a line per app run.
	Progress io.Writer
	// Logger for the explorer's diagnostics (default: discard).
	Logger *slog.Logger
}

// Report is the benchmark's outcome: bench.json.
type Report struct {
	Budget   int           `json:"budget"`
	Seeds    []int64       `json:"seeds"`
	Gremlins bool          `json:"gremlins"`
	Parallel int           `json:"parallel"`
	Rows     []Row         `json:"rows"`
	Total    Row           `json:"total"`
	Classes  []ClassRow    `json:"classes"`
	Wall     time.Duration `json:"wall_ns"`
}

// build names one run of an app.
type build string

const (
	buildBuggy    build = "buggy"
	buildFixed    build = "fixed"
	buildGremlins build = "gremlins"
)

// outcome is one app run.
type outcome struct {
	seed  int64
	build build
	bugs  []findings.Bug
	steps int // gremlins: actions
	wall  time.Duration
	found []string // gremlins only
	err   error
}

// Run benchmarks the explorer on the generated apps of opts.Seeds and
// writes bench.json and bench.md to opts.Out.
func Run(ctx context.Context, opts Options) (Report, error) {
	t0 := time.Now()
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	// Apps run in parallel and each writes its progress line; one lock
	// keeps the lines whole and the writer unshared.
	opts.Progress = &lockedWriter{w: opts.Progress}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Parallel < 1 {
		opts.Parallel = 1
	}
	rep := Report{Budget: opts.Budget, Seeds: opts.Seeds, Gremlins: opts.Gremlins, Parallel: opts.Parallel}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}
	type job struct {
		seed  int64
		build build
	}
	var jobs []job
	for _, s := range opts.Seeds {
		jobs = append(jobs, job{s, buildBuggy}, job{s, buildFixed})
		if opts.Gremlins {
			jobs = append(jobs, job{s, buildGremlins})
		}
	}
	outs := make(map[job]outcome, len(jobs))
	var mu sync.Mutex
	ch := make(chan job)
	var wg sync.WaitGroup
	for range min(opts.Parallel, len(jobs)) {
		wg.Go(func() {
			for j := range ch {
				o := runApp(ctx, opts, j.seed, j.build)
				mu.Lock()
				outs[j] = o
				mu.Unlock()
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case ch <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}

	for _, s := range opts.Seeds {
		seeded := bugfarm.Generate(s, bugfarm.Options{}).Bugs
		b, f := outs[job{s, buildBuggy}], outs[job{s, buildFixed}]
		row := newRow(s, seeded, b.bugs, f.bugs)
		row.Steps, row.Wall = b.steps, b.wall
		row.FixedSteps, row.FixedWall = f.steps, f.wall
		for _, o := range []outcome{b, f} {
			if o.err != nil {
				row.Errors = append(row.Errors, fmt.Sprintf("seed %d %s: %v", s, o.build, o.err))
			}
		}
		if opts.Gremlins {
			g := outs[job{s, buildGremlins}]
			row.Gremlins = &GremlinsRow{Found: len(g.found), FoundIDs: g.found, Actions: g.steps, Reports: len(g.bugs), Wall: g.wall}
			if g.err != nil {
				row.Gremlins.Err = g.err.Error()
				row.Errors = append(row.Errors, fmt.Sprintf("seed %d gremlins: %v", s, g.err))
			}
		}
		row.ratios()
		rep.Rows = append(rep.Rows, row)
	}
	rep.Total = total(rep.Rows)
	rep.Classes = byClass(rep.Total)
	rep.Wall = time.Since(t0)
	if err := write(opts.Out, rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// runApp serves a fresh app of seed and runs the explorer (or gremlins.js)
// on it. The explorer is told the app's origin, its budget and seed, and
// the sign-in account when the app has one; nothing about its bugs.
func runApp(ctx context.Context, opts Options, seed int64, b build) outcome {
	t0 := time.Now()
	o := outcome{seed: seed, build: b}
	app := bugfarm.Generate(seed, bugfarm.Options{Fixed: b == buildFixed})
	url, stop, err := drive.Serve(app)
	if err != nil {
		o.err = err
		return o
	}
	defer stop()
	var creds session.Credentials
	if app.SignIn != nil {
		creds = session.Credentials{Email: app.SignIn.User, Password: app.SignIn.Password}
	}
	seeded := bugfarm.Generate(seed, bugfarm.Options{}).Bugs
	switch b {
	case buildGremlins:
		ids := make([]string, 0, len(seeded))
		for _, bug := range seeded {
			ids = append(ids, bug.ID)
		}
		side, err := gremlins.Run(ctx, gremlins.Config{Budget: opts.Budget, Seed: uint64(max(seed, 1)), Target: url,
			Credentials: creds, Seeded: ids, FindIDs: bugfarm.FindIDs, Browser: opts.Browser, Logger: opts.Logger})
		o.bugs, o.steps, o.found, o.err = side.Bugs, side.Actions, side.Found, err
		o.wall = time.Since(t0)
		fmt.Fprintf(opts.Progress, "seed %d %-8s found %d/%d, reports %d, actions %d, wall %s%s\n", seed, b, len(o.found), len(seeded),
			len(o.bugs), o.steps, o.wall.Round(time.Second), errNote(o.err))
		return o
	}
	res, err := explore.Run(ctx, explore.Config{Target: url, Budget: opts.Budget, Seed: uint64(max(seed, 1)),
		ReportDir: filepath.Join(opts.Out, strconv.FormatInt(seed, 10), string(b)), MinimizeReplays: -1,
		Credentials: creds, Browser: opts.Browser, Logger: opts.Logger})
	o.wall = time.Since(t0)
	o.err = err
	for _, m := range res.Missions {
		o.bugs = append(o.bugs, m.Bugs...)
		o.steps += m.Steps
		if m.Err != "" && o.err == nil {
			o.err = fmt.Errorf("mission %s: %s", m.Mission.ThreadID, m.Err)
		}
	}
	note := fmt.Sprintf("reports %d", len(o.bugs))
	if b == buildBuggy {
		note = fmt.Sprintf("found %d/%d, reports %d", len(score(seeded, o.bugs).Found), len(seeded), len(o.bugs))
	}
	fmt.Fprintf(opts.Progress, "seed %d %-8s %s, steps %d, wall %s%s\n", seed, b, note, o.steps, o.wall.Round(time.Second), errNote(o.err))
	return o
}

func errNote(err error) string {
	if err == nil {
		return ""
	}
	return " (error: " + err.Error() + ")"
}

// write puts bench.json and bench.md in dir.
func write(dir string, rep Report) error {
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := safefile.WriteFile(filepath.Join(dir, "bench.json"), append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := safefile.WriteFile(filepath.Join(dir, "bench.md"), []byte(rep.Markdown()), 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// Markdown renders the report: the per-seed table with its total, the
// by-class table (weakest first) and the missed bugs.
func (rep Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmark: bugfarm (budget %d, %d seeds, %d apps at once, %s)\n\n", rep.Budget, len(rep.Seeds), rep.Parallel, rep.Wall.Round(time.Second))
	b.WriteString("| seed | seeded | found | recall | fixed-build reports | reports/found | unattributed | steps | wall | fixed steps | fixed wall |")
	if rep.Gremlins {
		b.WriteString(" gremlins found | gremlins recall |")
	}
	b.WriteString("\n|---|---|---|---|---|---|---|---|---|---|---|")
	if rep.Gremlins {
		b.WriteString("---|---|")
	}
	b.WriteString("\n")
	line := func(label string, r Row) {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %d | %s | %d | %d | %s | %d | %s |", label, r.Seeded, r.Found, pct(r.Recall), r.FixedReports,
			perFound(r), r.Unattributed, r.Steps, r.Wall.Round(time.Second), r.FixedSteps, r.FixedWall.Round(time.Second))
		if rep.Gremlins {
			if g := r.Gremlins; g != nil {
				fmt.Fprintf(&b, " %d | %s |", g.Found, pct(g.Recall))
			} else {
				b.WriteString(" – | – |")
			}
		}
		b.WriteString("\n")
	}
	for _, r := range rep.Rows {
		line(strconv.FormatInt(r.Seed, 10), r)
	}
	line("**total**", rep.Total)

	b.WriteString("\n## Found by class (weakest first)\n\n| class | found/seeded | recall |\n|---|---|---|\n")
	for _, c := range rep.Classes {
		fmt.Fprintf(&b, "| %s | %d/%d | %s |\n", c.Class, c.Found, c.Seeded, pct(c.Recall))
	}
	var missed []string
	for _, r := range rep.Rows {
		for _, m := range r.Missed {
			missed = append(missed, fmt.Sprintf("- %s (%s): %s", m.ID, m.Class, m.What))
		}
	}
	if len(missed) > 0 {
		b.WriteString("\n## Missed\n\n" + strings.Join(missed, "\n") + "\n")
	}
	var fps []string
	for _, r := range rep.Rows {
		for _, t := range r.FixedTitles {
			fps = append(fps, fmt.Sprintf("- seed %d: %s", r.Seed, t))
		}
	}
	if len(fps) > 0 {
		b.WriteString("\n## Reports on the fixed builds (false positives)\n\n" + strings.Join(fps, "\n") + "\n")
	}
	if len(rep.Total.Errors) > 0 {
		b.WriteString("\n## Errors\n\n- " + strings.Join(rep.Total.Errors, "\n- ") + "\n")
	}
	b.WriteString("\nA bug counts as found when its id (bugfarm.FindIDs) shows in the evidence, title or URL of a bug the explorer reported on the buggy build. " +
		"Every report on the fixed build (same app, every bug off) is a false positive. reports/found = all buggy-build reports / found bugs; " +
		"unattributed = buggy-build reports naming no seeded id.\n")
	return b.String()
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

func perFound(r Row) string {
	if r.Found == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", r.ReportsPerFound)
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

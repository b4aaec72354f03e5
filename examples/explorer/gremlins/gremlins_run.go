package gremlins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// gremlinsRun is the gremlins' side at work.
type gremlinsRun struct {
	cfg    Config
	sess   *browser.Session
	col    *collector.Collector
	colURL string
	side   Side
	seen   map[string]bool // bug fingerprints
	pages  map[string]bool
	signIn bool // sign-ins still make sense
}

// gremlinsState is what the driver reports about the current document.
type gremlinsState struct {
	Actions  int            `json:"actions"`
	Species  map[string]int `json:"species"`
	Gizmo    int            `json:"gizmo"`
	Doc      string         `json:"doc"`
	Leaving  bool           `json:"leaving"`
	Ready    string         `json:"ready"`
	URL      string         `json:"url"`
	Loaded   bool           `json:"loaded"`
	Password bool           `json:"password"`
}

// Run unleashes gremlins.js for exactly cfg.Budget gremlin actions
// on cfg.Target (a fresh demo app when empty), behind the explorer's
// page-health collector, and turns what it triggers into bugs the way the
// explorer does; cfg.Credentials sign it in where a page asks for a
// password (unless cfg.NoSignIn). Found and OwnOracles are scored with
// cfg.FindIDs over cfg.Seeded (the demo app's own for the demo app). A
// missing gremlins.min.js or browser is a *explore.SetupError.
func Run(ctx context.Context, cfg Config) (Side, error) {
	cfg.defaults()
	if cfg.Target != "" && !strings.HasPrefix(cfg.Target, "http://") && !strings.HasPrefix(cfg.Target, "https://") {
		return Side{}, fmt.Errorf("%w: gremlins target %q: want an http(s) origin", explore.ErrUsage, cfg.Target)
	}
	if _, err := demoapp.ParseBugList(strings.Join(cfg.DemoDisabled, ",")); err != nil {
		return Side{}, fmt.Errorf("%w: %v", explore.ErrUsage, err)
	}
	script, err := loadGremlins(cfg.Script)
	if err != nil {
		return Side{}, err
	}
	b := cfg.Browser
	if b == nil {
		b, err = browser.Launch(ctx, browser.LaunchOptions{Logger: cfg.Logger})
		if err != nil {
			return Side{}, &explore.SetupError{Err: fmt.Errorf("launch the browser: %w", err)}
		}
		defer b.Close()
	}
	return runGremlins(ctx, cfg, b, script)
}

func runGremlins(ctx context.Context, cfg Config, b *browser.Browser, script string) (Side, error) {
	target, seeded, find := strings.TrimRight(cfg.Target, "/"), cfg.Seeded, cfg.FindIDs
	if target == "" {
		disabled, _ := demoapp.ParseBugList(strings.Join(cfg.DemoDisabled, ","))
		demo, err := demoapp.Listen("", demoapp.Options{Disabled: disabled})
		if err != nil {
			return Side{}, &explore.SetupError{Err: fmt.Errorf("serve the demo app: %w", err)}
		}
		defer func() { _ = demo.Close(context.Background()) }()
		target, seeded, find = demo.URL, nil, seededIDs
		for _, id := range demo.App.EnabledBugs() {
			seeded = append(seeded, string(id))
		}
	}
	return gremlinsOn(ctx, cfg, b, script, target, seeded, find)
}

// gremlinsOn is the gremlins' side on target, scored with find over seeded
// (nil find: not scored).
func gremlinsOn(ctx context.Context, cfg Config, b *browser.Browser, script, target string, seeded []string, find func(string) []string) (Side, error) {
	t0 := time.Now()
	col, err := collector.New(target, cfg.SlowThreshold, cfg.Logger)
	if err != nil {
		return Side{}, fmt.Errorf("%w: %v", explore.ErrUsage, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Side{}, &explore.SetupError{Err: fmt.Errorf("listen: %w", err)}
	}
	hs := &http.Server{Handler: col, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer func() { _ = hs.Close() }()
	colURL := "http://" + ln.Addr().String()

	eng, err := b.NewEngine(browser.Config{Origins: []string{colURL}, Logger: cfg.Logger, InitScripts: []string{script, gremlinsDriverJS},
		ActionTimeout: 3 * time.Second, SettleTimeout: explore.SettleTimeout, SpinnerTimeout: 3 * time.Second})
	if err != nil {
		return Side{}, fmt.Errorf("explore: gremlins: browser engine: %w", err)
	}
	defer func() { _ = eng.Close() }()
	sess, err := eng.User(ctx, "gremlins")
	if err != nil {
		return Side{}, fmt.Errorf("explore: gremlins: browser context: %w", err)
	}
	g := &gremlinsRun{cfg: cfg, sess: sess, col: col, colURL: colURL, seen: map[string]bool{}, pages: map[string]bool{}, signIn: !cfg.NoSignIn,
		side: Side{Version: GremlinsVersion, Species: map[string]int{}, Bugs: []findings.Bug{}}}
	if err := g.unleash(ctx); err != nil {
		return g.side, err
	}
	// Late reports of the in-page recorder, then a last health check.
	col.WaitQuiet(ctx, 800*time.Millisecond)
	g.do(ctx, browser.Intent{Action: browser.ActCheckHealth}, false)

	own := make([]findings.Bug, 0, len(g.side.Bugs))
	for _, bug := range g.side.Bugs {
		if bug.Kind == string(browser.FindPageError) || bug.Kind == string(browser.FindConsoleError) {
			own = append(own, bug)
		}
	}
	g.side.Found, g.side.OwnOracles = []string{}, []string{}
	if find != nil {
		g.side.Found = report.ScoreWith(seeded, g.side.Bugs, find).Found
		g.side.OwnOracles = report.ScoreWith(seeded, own, find).Found
	}
	g.side.Duration = time.Since(t0)
	return g.side, nil
}

// unleash spends the action budget: a horde per page (and another on the
// same page when one ends early), until the species' logger counted N.
func (g *gremlinsRun) unleash(ctx context.Context) error {
	n := g.cfg.Budget
	g.do(ctx, browser.Navigate(g.cfg.StartURL), true)
	if g.signIn {
		g.signInFirst(ctx)
	}
	stuck := 0
	for hordes := 0; ; hordes++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := g.state(ctx)
		switch {
		case err != nil || !st.Loaded:
			// No gremlins in this document (not HTML, or gone): back.
			stuck++
			if stuck > 5 {
				return fmt.Errorf("explore: gremlins: no gremlins.js in %s after %d tries: %v", g.sess.URL(), stuck, err)
			}
			g.do(ctx, browser.Intent{Action: browser.ActGoBack}, true)
			continue
		}
		stuck = 0
		g.note(st)
		if st.Actions >= n {
			return nil
		}
		if hordes > 20*n+20 {
			return fmt.Errorf("explore: gremlins: %d of %d actions after %d hordes", st.Actions, n, hordes)
		}
		if st.Password && g.signIn {
			g.signInHere(ctx)
			continue
		}
		g.side.Hordes++
		seed := int64((g.cfg.Seed*1000 + uint64(hordes)) % (1 << 31))
		_, err = g.sess.Evaluate(ctx, `(o) => window.__agentgraphGremlins.unleash(o)`,
			map[string]any{"total": n, "seed": seed, "delay": g.cfg.Delay.Milliseconds()})
		if err != nil && !errors.Is(err, browser.ErrPageGone) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			g.cfg.Logger.Warn("explore: gremlins: unleash", "err", err)
		}
		g.arrive(ctx, st.Doc)
	}
}

// arrive waits until a navigation the gremlins started has a new document
// (or gave up), then lets the engine settle and collect the page's health.
func (g *gremlinsRun) arrive(ctx context.Context, doc string) {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		st, err := g.state(ctx)
		if err == nil && st.Doc != doc && st.Ready != "loading" {
			break
		}
		if err == nil && st.Doc == doc && !st.Leaving {
			break // the horde ended on this page
		}
		if err != nil && !errors.Is(err, browser.ErrPageGone) && !strings.Contains(err.Error(), "__agentgraphGremlins") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st, err := g.state(ctx); err == nil && st.Doc == doc && st.Leaving {
		// The navigation never committed (a download, a refused origin).
		_, _ = g.sess.Evaluate(ctx, `() => window.__agentgraphGremlins.reset()`, nil)
	}
	g.do(ctx, browser.Intent{Action: browser.ActWaitFor, Target: "body", State: "attached"}, false)
}

func (g *gremlinsRun) state(ctx context.Context) (gremlinsState, error) {
	var st gremlinsState
	v, err := g.sess.Evaluate(ctx, `() => window.__agentgraphGremlins ? window.__agentgraphGremlins.state() : null`, nil)
	if err != nil {
		return st, err
	}
	if v == nil {
		return st, errors.New("no __agentgraphGremlins in this document")
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("explore: gremlins: state: %w", err)
	}
	return st, nil
}

// note records the counters and the page.
func (g *gremlinsRun) note(st gremlinsState) {
	g.side.Actions = st.Actions
	g.side.GizmoStops = st.Gizmo
	if st.Species != nil {
		g.side.Species = st.Species
	}
	p := urlx.PathQuery(st.URL)
	if p != "" && !g.pages[p] {
		g.pages[p] = true
		g.side.Pages = append(g.side.Pages, p)
		fmt.Fprintf(g.cfg.Progress, "gremlins: %d/%d actions, bugs %d, page %s\n", st.Actions, g.cfg.Budget, len(g.side.Bugs), p)
	}
}

// do runs one step of the harness's own (harness counts it) or a health
// collection, and turns the findings into bugs.
func (g *gremlinsRun) do(ctx context.Context, in browser.Intent, harness bool) browser.Result {
	res := g.sess.Do(ctx, in)
	if harness {
		g.side.HarnessSteps++
	}
	if in.Action == browser.ActClick {
		g.col.WaitQuiet(ctx, 150*time.Millisecond)
	}
	g.collect(res)
	return res
}

// snapshot looks at the page (not a step), keeping the findings it drains.
func (g *gremlinsRun) snapshot(ctx context.Context) (browser.Snapshot, error) {
	res := g.do(ctx, browser.Intent{Action: browser.ActSnapshot}, false)
	if !res.OK || res.Snapshot == nil {
		return browser.Snapshot{}, fmt.Errorf("explore: gremlins: snapshot: %s", res.Error)
	}
	return *res.Snapshot, nil
}

// collect turns the engine's and the collector's findings into bugs the
// way the explorer does.
func (g *gremlinsRun) collect(res browser.Result) {
	var fs []browser.Finding
	for _, f := range res.Findings {
		if cf, ok := collector.FromConsole(f); ok {
			if cf.Kind != browser.FindConsoleError {
				fs = append(fs, cf)
			}
			continue
		}
		fs = append(fs, f)
	}
	fs = append(fs, g.col.Take()...)
	for _, f := range fs {
		bug, ok := findings.FindingBug(f, res.URL)
		if !ok || g.seen[bug.Fingerprint] {
			continue
		}
		g.seen[bug.Fingerprint] = true
		bug.ID = fmt.Sprintf("bug-%02d-%s", len(g.side.Bugs)+1, strings.ReplaceAll(bug.Kind, "_", "-"))
		bug.Persona = "gremlins"
		bug.Step = g.side.Actions
		g.side.Bugs = append(g.side.Bugs, bug)
	}
}

var reSignInLink = regexp.MustCompile(`(?i)\b(sign|log) ?in\b`)

// signInFirst opens the sign-in form from the start page when it has none
// (a link named "sign in" or "log in"), then signs in.
func (g *gremlinsRun) signInFirst(ctx context.Context) {
	if st, err := g.state(ctx); err == nil && st.Password {
		g.signInHere(ctx)
		return
	}
	snap, err := g.snapshot(ctx)
	if err != nil {
		return
	}
	for _, e := range personas.ParseElements(snap) {
		if e.Role == "link" && reSignInLink.MatchString(e.Name) {
			g.do(ctx, browser.Click(e.Ref), true)
			g.signInHere(ctx)
			return
		}
	}
}

// signInHere fills the page's sign-in form the way the explorer's personas
// do: the account shown on the page, email or user fields before the
// password, then the best submit button.
func (g *gremlinsRun) signInHere(ctx context.Context) {
	snap, err := g.snapshot(ctx)
	if err != nil {
		g.signIn = false
		return
	}
	els := personas.ParseElements(snap)
	for i, e := range els {
		if !e.Fillable() || !strings.Contains(strings.ToLower(e.Name), "password") {
			continue
		}
		creds := session.GuessCredentials(snap.Text, g.cfg.Credentials)
		for _, f := range els[:i] {
			name := strings.ToLower(f.Name)
			if f.Fillable() && f.InMain && (strings.Contains(name, "mail") || strings.Contains(name, "user")) {
				g.do(ctx, browser.Fill(f.Ref, creds.Email), true)
			}
		}
		g.do(ctx, browser.Fill(e.Ref, creds.Password), true)
		if b, ok := personas.SubmitAfter(els, i+1); ok {
			g.do(ctx, browser.Click(b.Ref), true)
		}
		g.side.SignIns++
		if st, err := g.state(ctx); err == nil && st.Password {
			// Still asked for a password: the account does not work; let
			// the gremlins be.
			g.signIn = false
		}
		return
	}
	g.signIn = false
}

// seededIDs are the demo app's seeded bug ids named in text.
func seededIDs(text string) []string {
	var out []string
	for _, id := range demoapp.FindIDs(text) {
		out = append(out, string(id))
	}
	return out
}

package personas

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
)

// Page is what the driver needs of a browser user; *browser.Session is one.
// A page that also has collector.Evaluator's Evaluate method (as
// *browser.Session does) lets the driver read the collector's
// accessibility violations from it.
type Page interface {
	Do(ctx context.Context, in browser.Intent) browser.Result
	User() string
}

// Collector is what Run takes from the page-health collector the browser
// reaches the app through; *collector.Collector is one.
type Collector interface {
	// Mark and RequestsSince give the requests relayed during an action.
	Mark() int
	RequestsSince(mark int) []collector.Request
	// Violations waits for the page's accessibility scan and returns the
	// violations not returned before.
	Violations(ctx context.Context, page collector.Evaluator, wait time.Duration) ([]collector.Violation, error)
}

var _ Collector = (*collector.Collector)(nil)

// RunOptions configures Run.
type RunOptions struct {
	// Start is the URL (or path) the run begins at; required.
	Start string
	// Steps is the number of strategy actions (default 20).
	Steps int
	// Seed seeds the strategy's RNG; the same seed gives the same run.
	Seed uint64
	// Oracles judge every action (default DefaultOracles(OracleConfig{})).
	Oracles []Oracle
	// Collector, when the engine browses through one (the engine's
	// allowed origin is the collector's, not the app's), feeds the
	// requests each action set off and the accessibility violations of
	// its page (axe-core's and the focus check's) to the oracles.
	Collector Collector
	// AuditTimeout bounds the wait for the page's accessibility scan
	// after each action (default 3s).
	AuditTimeout time.Duration
	// ScreenshotDir, when set, receives a PNG per action with findings.
	ScreenshotDir string
	// Window, usually the engine's, fills in the engine sequence numbers
	// of the run's entries.
	Window *browser.Window
	// Grace is how long the driver waits after an action before judging it,
	// so that requests and errors the action set off are seen (default
	// 150ms; negative: no wait).
	Grace time.Duration
	// TapeWindow is how many recent entries a strategy sees (default 20).
	TapeWindow int
	// Logger (default slog.Default()).
	Logger *slog.Logger
}

// Report is what one run produced.
type Report struct {
	Persona string
	Seed    uint64
	Steps   int
	// Findings are unique by Finding.Key within the run (first sighting).
	Findings []Finding
	// Tape holds the run's actions in order (snapshots and screenshots the
	// driver takes are not on it); Finding.TapeIndex points here.
	Tape []browser.Entry
	// States is the number of distinct page states seen (StateHash).
	States int
}

// Run drives the persona's offline strategy against a browser user for
// opts.Steps actions, judging each with the oracles. It stops early when
// the strategy returns ErrDone or ctx ends (returning what it has and
// ctx's error).
func Run(ctx context.Context, page Page, p Persona, opts RunOptions) (Report, error) {
	if err := p.Validate(); err != nil {
		return Report{}, err
	}
	if opts.Start == "" {
		return Report{}, errors.New("personas: run: no start URL")
	}
	if opts.Steps <= 0 {
		opts.Steps = 20
	}
	if opts.Oracles == nil {
		opts.Oracles = DefaultOracles(OracleConfig{})
	}
	if opts.AuditTimeout <= 0 {
		opts.AuditTimeout = 3 * time.Second
	}
	if opts.Grace == 0 {
		opts.Grace = 150 * time.Millisecond
	}
	if opts.TapeWindow <= 0 {
		opts.TapeWindow = 20
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if c, ok := opts.Collector.(*collector.Collector); ok && c == nil {
		opts.Collector = nil // a nil *collector.Collector is no collector
	}
	d := &driver{page: page, p: p, opts: opts, seen: map[string]bool{}, keys: map[string]bool{}, rep: Report{Persona: p.Name, Seed: opts.Seed}}
	if opts.Collector != nil {
		if ev, ok := page.(collector.Evaluator); ok {
			d.eval = ev
		} else {
			opts.Logger.Warn("personas: the page cannot evaluate scripts; no accessibility violations will be read from it", "persona", p.Name)
		}
	}
	return d.run(ctx)
}

type driver struct {
	page Page
	p    Persona
	opts RunOptions
	rep  Report
	seen map[string]bool
	keys map[string]bool // finding keys already reported
	eval collector.Evaluator
}

func (d *driver) run(ctx context.Context) (Report, error) {
	strat := d.p.Strategy()
	if strat == nil {
		return d.rep, fmt.Errorf("personas: persona %q: NewStrategy returned nil", d.p.Name)
	}
	rng := newRand(d.opts.Seed)
	var hold func()
	if h, ok := d.opts.Collector.(interface{ HoldNextPost(time.Duration) }); ok {
		hold = func() { h.HoldNextPost(doubleHold) }
	}
	before, _, _ := d.snapshot(ctx) // about:blank at first
	if err := d.act(ctx, -1, browser.Intent{Action: browser.ActNavigate, URL: d.opts.Start}, &before); err != nil {
		return d.rep, err
	}
	for n := range d.opts.Steps {
		if err := ctx.Err(); err != nil {
			return d.rep, err
		}
		tape := d.rep.Tape[max(0, len(d.rep.Tape)-d.opts.TapeWindow):]
		in, err := strat.Next(Step{N: n, Start: d.opts.Start, Snapshot: before, Elements: ParseElements(before),
			Tape: tape, Rand: rng, Hold: hold, Instrumented: d.opts.Collector != nil})
		if errors.Is(err, ErrDone) {
			break
		}
		if err != nil {
			return d.rep, fmt.Errorf("personas: %s step %d: %w", d.p.Name, n, err)
		}
		if err := d.act(ctx, n, in, &before); err != nil {
			return d.rep, err
		}
		d.rep.Steps = n + 1
	}
	d.rep.States = len(d.seen)
	return d.rep, nil
}

// act runs one intent, snapshots the result into *snap and applies the oracles.
func (d *driver) act(ctx context.Context, step int, in browser.Intent, snap *browser.Snapshot) error {
	mark := 0
	if d.opts.Collector != nil {
		mark = d.opts.Collector.Mark()
	}
	res := d.page.Do(ctx, in)
	if err := ctx.Err(); err != nil {
		return err
	}
	res.Findings = pageFindings(res.Findings)
	switch in.Action {
	case browser.ActSnapshot, browser.ActExtractText, browser.ActScreenshot, browser.ActCheckHealth:
	default:
		// requests a click starts may reach the page's listeners only after
		// the engine found the network idle: give them a moment
		if err := sleep(ctx, d.opts.Grace); err != nil {
			return err
		}
	}
	obs := Observation{Step: step, Intent: in, Before: *snap, Collector: d.opts.Collector, RequestMark: mark}
	if c := d.opts.Collector; c != nil {
		obs.Requests = c.RequestsSince(mark)
		if obs.Requests == nil {
			obs.Requests = []collector.Request{}
		}
		if d.eval != nil {
			v, err := c.Violations(ctx, d.eval, d.opts.AuditTimeout)
			if err != nil {
				d.opts.Logger.Debug("accessibility violations not read", "persona", d.p.Name, "err", err)
			}
			obs.Violations = v
		}
	}
	after, late, err := d.snapshot(ctx)
	if err != nil {
		d.opts.Logger.Debug("snapshot after action failed", "persona", d.p.Name, "err", err)
	}
	res.Findings = append(res.Findings, late...) // health signals that arrived after the action returned
	idx := len(d.rep.Tape)
	d.rep.Tape = append(d.rep.Tape, d.entry(in, res))
	obs.TapeIndex, obs.Result, obs.After, obs.Tape = idx, res, after, d.rep.Tape
	var later []browser.Finding
	obs.Recheck = func(ctx context.Context, wait time.Duration) (browser.Snapshot, []browser.Finding, error) {
		if err := sleep(ctx, wait); err != nil {
			return browser.Snapshot{}, nil, err
		}
		s, f, err := d.snapshot(ctx)
		later = append(later, f...)
		return s, f, err
	}
	found := d.judge(ctx, obs)
	if len(later) > 0 {
		d.rep.Tape[idx].Findings = append(d.rep.Tape[idx].Findings, later...)
		found = append(found, d.judge(ctx, Observation{Step: step, TapeIndex: idx, Intent: in,
			Result: browser.Result{OK: res.OK, Action: in.Action, URL: res.URL, Title: res.Title, Findings: later},
			Before: after, After: after, Tape: d.rep.Tape})...)
	}
	if len(found) > 0 {
		shot := d.screenshot(ctx, idx)
		for i := range found {
			f := &found[i]
			f.Persona, f.TapeIndex, f.Seq, f.Screenshot = d.p.Name, idx, d.rep.Tape[idx].Seq, shot
			if f.Payload == "" {
				f.Payload = lastInput(d.rep.Tape)
			}
		}
		d.rep.Findings = append(d.rep.Findings, found...)
	}
	*snap = after
	if after.URL != "" {
		d.seen[StateHash(after)] = true
	}
	return nil
}

// judge applies the oracles and keeps the findings not reported before.
func (d *driver) judge(ctx context.Context, obs Observation) []Finding {
	var found []Finding
	for _, o := range d.opts.Oracles {
		for _, f := range o.Check(ctx, obs) {
			if f.URL == "" {
				f.URL = obs.Result.URL
			}
			if f.Oracle == "" {
				f.Oracle = o.Name()
			}
			if k := f.Key(); !d.keys[k] {
				d.keys[k] = true
				found = append(found, f)
			}
		}
	}
	return found
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// snapshot takes a snapshot and returns the health findings that were
// pending (they belong to the action before it).
func (d *driver) snapshot(ctx context.Context) (browser.Snapshot, []browser.Finding, error) {
	r := d.page.Do(ctx, browser.Intent{Action: browser.ActSnapshot})
	r.Findings = pageFindings(r.Findings)
	if !r.OK || r.Snapshot == nil {
		return browser.Snapshot{URL: r.URL, Title: r.Title}, r.Findings, fmt.Errorf("snapshot: %s", r.Error)
	}
	return *r.Snapshot, r.Findings, nil
}

// entry is the tape entry of one action, with the engine's sequence
// number when a window is given.
func (d *driver) entry(in browser.Intent, r browser.Result) browser.Entry {
	e := browser.Entry{Time: time.Now().UTC().Add(-r.Duration), User: d.page.User(), Action: in.Action, Params: in,
		Locator: r.Locator, HoverLocator: r.HoverLocator, OK: r.OK, DurationMS: r.Duration.Milliseconds(),
		Result: r.Output, Error: r.Error, URL: r.URL, Title: r.Title, Findings: r.Findings}
	if len(e.Result) > 1000 {
		e.Result = e.Result[:1000]
	}
	if d.opts.Window != nil {
		ents := d.opts.Window.Entries()
		for i := len(ents) - 1; i >= 0; i-- {
			if w := ents[i]; w.User == e.User && w.Action == in.Action && w.Params.JSON() == in.JSON() {
				e.Seq, e.Time = w.Seq, w.Time
				break
			}
		}
	}
	return e
}

func (d *driver) screenshot(ctx context.Context, idx int) string {
	if d.opts.ScreenshotDir == "" {
		return ""
	}
	r := d.page.Do(ctx, browser.Intent{Action: browser.ActScreenshot})
	if !r.OK || len(r.Screenshot) == 0 {
		d.opts.Logger.Warn("screenshot for a finding failed", "persona", d.p.Name, "err", r.Error)
		return ""
	}
	if err := os.MkdirAll(d.opts.ScreenshotDir, 0o755); err != nil {
		d.opts.Logger.Warn("screenshot dir", "err", err)
		return ""
	}
	path := filepath.Join(d.opts.ScreenshotDir, fmt.Sprintf("%s-seed%d-%03d.png", d.p.Name, d.opts.Seed, idx))
	if err := os.WriteFile(path, r.Screenshot, 0o644); err != nil {
		d.opts.Logger.Warn("screenshot write", "err", err)
		return ""
	}
	return path
}

// lastInput is the value of the latest fill since the latest navigation:
// the input an action most likely submitted.
func lastInput(tape []browser.Entry) string {
	for i := len(tape) - 1; i >= 0; i-- {
		switch tape[i].Action {
		case browser.ActFill, browser.ActFillForm:
			if typed := tape[i].Params.Typed(); len(typed) > 0 {
				return typed[len(typed)-1]
			}
		case browser.ActNavigate, browser.ActReload, browser.ActGoBack:
			return ""
		}
	}
	return ""
}

// doubleHold is how long Step.Hold holds an answer back (a collector
// that can: collector.Collector.HoldNextPost).
const doubleHold = 1200 * time.Millisecond

// newRand is the run's deterministic source for a seed.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// pageFindings reads the findings of a page served through the collector
// as collector.PageFindings does: the in-page recorder's console reports
// become their findings. An executed script (collector.FindXSS) is kept
// for the xss oracle. The recorder's accessibility reports are left out,
// since the axe oracle gets them structured (Collector.Violations), and so
// are its dead controls and duplicate rows: the dead-control oracle judges
// clicks itself, and neither was a finding of the personas before.
func pageFindings(fs []browser.Finding) []browser.Finding {
	if len(fs) == 0 {
		return fs
	}
	var out []browser.Finding
	for _, f := range collector.PageFindings(fs) {
		switch f.Kind {
		case collector.FindA11y, collector.FindDeadControl, collector.FindDuplicateRow:
			continue
		}
		out = append(out, f)
	}
	return out
}

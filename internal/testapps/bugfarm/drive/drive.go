package drive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

// Options tune a Driver. The zero value gives the defaults.
type Options struct {
	// StepTimeout bounds every step of a trigger (10 s).
	StepTimeout time.Duration
	// SlowThreshold is how slow a response must be for SignalSlow (3 s).
	SlowThreshold time.Duration
	// Settle is how long a signal may take to show once the network is
	// quiet after the last step (1 s).
	Settle time.Duration
	// QuietTimeout bounds the wait for the network to go quiet after the
	// last step (SlowThreshold + 4 s).
	QuietTimeout time.Duration
	// DeadWait is how long a clicked control must stay without effect for
	// SignalDead (1 s).
	DeadWait time.Duration
	// DoubleHold is how long the answer to a form post is held back during
	// a double click (400 ms; see OpDblClick).
	DoubleHold time.Duration
	// AxePath is axe.min.js (default: collector.FindAxe, i.e.
	// $AGENTGRAPH_AXE_PATH or the project-local install). Only SignalAxe
	// needs it.
	AxePath string
	// Retries is how often Verify plays a reproduction again whose trigger
	// step failed (1; negative: never), so that a click that timed out on
	// a loaded machine does not fail the bug. A bug whose steps fail every
	// time still fails.
	Retries int
	// Progress receives a line per verified bug (nil: none).
	Progress io.Writer
	// Logger for diagnostics (default: discard).
	Logger *slog.Logger
}

func (o *Options) defaults() {
	if o.StepTimeout <= 0 {
		o.StepTimeout = 10 * time.Second
	}
	if o.SlowThreshold <= 0 {
		o.SlowThreshold = 3 * time.Second
	}
	if o.Settle <= 0 {
		o.Settle = time.Second
	}
	if o.QuietTimeout <= 0 {
		o.QuietTimeout = o.SlowThreshold + 4*time.Second
	}
	if o.DeadWait <= 0 {
		o.DeadWait = time.Second
	}
	if o.DoubleHold <= 0 {
		o.DoubleHold = 400 * time.Millisecond
	}
	switch {
	case o.Retries == 0:
		o.Retries = 1
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// maxWait caps an OpWait step.
const maxWait = 30 * time.Second

// Driver plays triggers. Safe for concurrent use: every Reproduce has its
// own browser context.
type Driver struct {
	opts Options

	axeOnce sync.Once
	axeSrc  string
	axeErr  error
}

// New returns a Driver with opts (zero values: defaults).
func New(opts Options) *Driver {
	opts.defaults()
	return &Driver{opts: opts}
}

// Observation is what one reproduction saw.
type Observation struct {
	ID     string         `json:"id"`
	Signal bugfarm.Signal `json:"signal"`
	// Fired says whether the expected signal showed, with the matching
	// evidence.
	Fired    bool   `json:"fired"`
	Evidence string `json:"evidence,omitempty"`
	// Steps is the number of trigger steps played.
	Steps int `json:"steps"`
	// PageErrors, ConsoleErrors and ServerErrors are everything of the
	// kind the page showed, whichever bug it names (Chromium's own "Failed
	// to load resource" console lines are left out: ServerErrors has the
	// 5xx).
	PageErrors    []string      `json:"page_errors,omitempty"`
	ConsoleErrors []string      `json:"console_errors,omitempty"`
	ServerErrors  []string      `json:"server_errors,omitempty"`
	Duration      time.Duration `json:"duration_ns"`
}

// Clean reports whether the page showed no page error, console error or
// 5xx at all.
func (o Observation) Clean() bool {
	return len(o.PageErrors)+len(o.ConsoleErrors)+len(o.ServerErrors) == 0
}

// Problems lists the page errors, console errors and 5xx, each prefixed
// with its kind.
func (o Observation) Problems() []string {
	var out []string
	for _, s := range o.PageErrors {
		out = append(out, "page error: "+s)
	}
	for _, s := range o.ConsoleErrors {
		out = append(out, "console error: "+s)
	}
	for _, s := range o.ServerErrors {
		out = append(out, "5xx: "+s)
	}
	return out
}

// StepError is a trigger step that could not be played.
type StepError struct {
	Index int // 0-based
	Step  bugfarm.Step
	Err   error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("step %d (%s): %v", e.Index+1, describeStep(e.Step), e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

func describeStep(s bugfarm.Step) string {
	parts := []string{string(s.Op)}
	for _, kv := range [][2]string{{"path", s.Path}, {"frame", s.Frame}, {"selector", s.Selector}, {"value", s.Value}, {"key", s.Key}} {
		if kv[1] != "" {
			parts = append(parts, fmt.Sprintf("%s=%q", kv[0], kv[1]))
		}
	}
	return strings.Join(parts, " ")
}

// Reproduce plays bug's trigger against baseURL with default Options.
func Reproduce(ctx context.Context, b *browser.Browser, baseURL string, bug bugfarm.Bug) (Observation, error) {
	return New(Options{}).Reproduce(ctx, b, baseURL, bug)
}

// Reproduce plays bug's trigger in a fresh browser context of b against
// baseURL (the app's origin) and checks bug.Expect. A step that cannot be
// played is a *StepError; the Observation then holds what was seen up to
// it. A bad bug (no trigger, an unknown op or signal) is an error before
// anything is played.
func (d *Driver) Reproduce(ctx context.Context, b *browser.Browser, baseURL string, bug bugfarm.Bug) (Observation, error) {
	t0 := time.Now()
	obs := Observation{ID: bug.ID, Signal: bug.Expect.Signal}
	if err := checkBug(bug); err != nil {
		return obs, err
	}
	if b == nil {
		return obs, errors.New("drive: no browser")
	}
	base := strings.TrimRight(baseURL, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return obs, fmt.Errorf("drive: base URL %q: want http(s)://host:port", baseURL)
	}
	if err := ctx.Err(); err != nil {
		return obs, fmt.Errorf("drive: %s: %w", bug.ID, err)
	}
	var axeSrc string
	if bug.Expect.Signal == bugfarm.SignalAxe {
		src, err := d.axe()
		if err != nil {
			return obs, err
		}
		axeSrc = src
	}

	// The reproduction runs on its own; a cancelled ctx returns at once and
	// leaves it to end at its next step (every Playwright call is bounded).
	// Closing the browser context under a call in flight instead can leave
	// that call waiting forever (playwright-go v0.6401.0, NewPage).
	type outcome struct {
		obs Observation
		err error
	}
	done := make(chan outcome, 1)
	go func(obs Observation) {
		o, err := d.reproduce(ctx, b, base, bug, axeSrc, obs)
		done <- outcome{o, err}
	}(obs)
	select {
	case o := <-done:
		o.obs.Duration = time.Since(t0)
		return o.obs, o.err
	case <-ctx.Done():
		obs.Duration = time.Since(t0)
		return obs, fmt.Errorf("drive: %s: %w", bug.ID, ctx.Err())
	}
}

// reproduce is Reproduce at work.
func (d *Driver) reproduce(ctx context.Context, b *browser.Browser, base string, bug bugfarm.Bug, axeSrc string, obs Observation) (Observation, error) {
	bctx, err := b.Playwright().NewContext(playwright.BrowserNewContextOptions{
		BypassCSP:         playwright.Bool(true), // axe-core goes in as a script tag
		AcceptDownloads:   playwright.Bool(false),
		Viewport:          &playwright.Size{Width: 1280, Height: 800},
		IgnoreHttpsErrors: playwright.Bool(true),
	})
	if err != nil {
		return obs, fmt.Errorf("drive: %s: new browser context: %w", bug.ID, err)
	}
	defer func() { _ = bctx.Close() }()
	ms := float64(d.opts.StepTimeout.Milliseconds())
	bctx.SetDefaultTimeout(ms)
	bctx.SetDefaultNavigationTimeout(ms)

	rec := newRecorder(bug.ID)
	if err := bctx.ExposeFunction(xssBinding, func(args ...any) any {
		if len(args) > 0 {
			rec.addScript(fmt.Sprint(args[0]))
		}
		return nil
	}); err != nil {
		return obs, fmt.Errorf("drive: %s: expose %s: %w", bug.ID, xssBinding, err)
	}
	if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(xssInitJS)}); err != nil {
		return obs, fmt.Errorf("drive: %s: init script: %w", bug.ID, err)
	}
	page, err := bctx.NewPage()
	if err != nil {
		return obs, fmt.Errorf("drive: %s: new page: %w", bug.ID, err)
	}
	rec.listen(page)

	r := &run{d: d, bug: bug, base: base, bctx: bctx, page: page, rec: rec, axeSrc: axeSrc}
	steps := bug.Trigger
	if bug.Expect.Signal == bugfarm.SignalDead {
		if _, last := deadAction(bug); last {
			steps = steps[:len(steps)-1] // the dead check performs it, watching
		}
	}
	var stepErr error
	for i, st := range steps {
		if err := ctx.Err(); err != nil {
			stepErr = fmt.Errorf("drive: %s: %w", bug.ID, err)
			break
		}
		ts := time.Now()
		err := r.step(ctx, st)
		d.opts.Logger.Debug("drive: step", "bug", bug.ID, "step", i+1, "op", st.Op, "took", time.Since(ts), "err", err)
		if err != nil {
			stepErr = &StepError{Index: i, Step: st, Err: err}
			if ctx.Err() != nil {
				stepErr = fmt.Errorf("drive: %s: %w", bug.ID, ctx.Err())
			}
			break
		}
		obs.Steps++
	}
	if stepErr == nil {
		ts := time.Now()
		obs.Fired, obs.Evidence, stepErr = r.expect(ctx)
		if bug.Expect.Signal == bugfarm.SignalDead && len(steps) < len(bug.Trigger) && stepErr == nil {
			obs.Steps++
		}
		d.opts.Logger.Debug("drive: expect", "bug", bug.ID, "signal", bug.Expect.Signal, "fired", obs.Fired, "took", time.Since(ts), "err", stepErr)
		if stepErr != nil && ctx.Err() != nil {
			stepErr = fmt.Errorf("drive: %s: %w", bug.ID, ctx.Err())
		}
	}
	obs.PageErrors, obs.ConsoleErrors, obs.ServerErrors = rec.problems()
	return obs, stepErr
}

func (d *Driver) axe() (string, error) {
	d.axeOnce.Do(func() {
		path := d.opts.AxePath
		if path == "" {
			p, err := collector.FindAxe()
			if err != nil {
				d.axeErr = fmt.Errorf("drive: %w", err)
				return
			}
			path = p
		}
		src, err := os.ReadFile(path)
		if err != nil {
			d.axeErr = fmt.Errorf("drive: axe-core: %w", err)
			return
		}
		d.axeSrc = string(src)
	})
	return d.axeSrc, d.axeErr
}

var reBugID = regexp.MustCompile(`^(?i)bf\d+-\d+$`)

// checkBug rejects what cannot be played or checked.
func checkBug(bug bugfarm.Bug) error {
	if !reBugID.MatchString(bug.ID) {
		return fmt.Errorf("drive: bug id %q: want bf<seed>-<nn>", bug.ID)
	}
	if len(bug.Trigger) == 0 {
		return fmt.Errorf("drive: %s: empty trigger", bug.ID)
	}
	for i, st := range bug.Trigger {
		if err := checkStep(st); err != nil {
			return fmt.Errorf("drive: %s: step %d: %w", bug.ID, i+1, err)
		}
	}
	e := bug.Expect
	switch e.Signal {
	case bugfarm.SignalPageError, bugfarm.SignalConsole, bugfarm.SignalScript, bugfarm.SignalSlow, bugfarm.SignalAxe:
	case bugfarm.SignalResponse:
		if e.Status < 100 || e.Status > 599 {
			return fmt.Errorf("drive: %s: signal response needs a status (got %d)", bug.ID, e.Status)
		}
	case bugfarm.SignalDOM, bugfarm.SignalDead:
		if e.Selector == "" {
			return fmt.Errorf("drive: %s: signal %s needs a selector", bug.ID, e.Signal)
		}
	default:
		return fmt.Errorf("drive: %s: unknown signal %q", bug.ID, e.Signal)
	}
	return nil
}

func checkStep(st bugfarm.Step) error {
	needSel := func() error {
		if st.Selector == "" {
			return fmt.Errorf("%s needs a selector", st.Op)
		}
		return nil
	}
	switch st.Op {
	case bugfarm.OpGoto:
		if st.Path == "" {
			return errors.New("goto needs a path")
		}
	case bugfarm.OpClick, bugfarm.OpDblClick, bugfarm.OpHover, bugfarm.OpFocus, bugfarm.OpCheck, bugfarm.OpUncheck,
		bugfarm.OpFill, bugfarm.OpSelect, bugfarm.OpSetFile:
		return needSel()
	case bugfarm.OpPress:
		if st.Key == "" {
			return errors.New("press needs a key")
		}
	case bugfarm.OpClearCookies, bugfarm.OpReload:
	case bugfarm.OpWait:
		if _, err := waitDuration(st.Value); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown op %q", st.Op)
	}
	return nil
}

func waitDuration(v string) (time.Duration, error) {
	var ms int
	if _, err := fmt.Sscanf(v, "%d", &ms); err != nil || fmt.Sprint(ms) != strings.TrimSpace(v) || ms < 0 {
		return 0, fmt.Errorf("wait %q: want milliseconds (0..%d)", v, maxWait.Milliseconds())
	}
	d := time.Duration(ms) * time.Millisecond
	if d > maxWait {
		return 0, fmt.Errorf("wait %q: over %s", v, maxWait)
	}
	return d, nil
}

// idPattern matches id as a whole id: not inside a longer one.
func idPattern(id string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + idSource(id)) }

// idSource is idPattern without flags, valid in Go and JavaScript alike.
func idSource(id string) string {
	return `(?:^|[^0-9a-z])` + regexp.QuoteMeta(id) + `(?:$|[^0-9])`
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

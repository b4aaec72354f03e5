package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"

	"github.com/mxschmitt/playwright-go"
)

// JSCoverage is how much of the app's JavaScript a session executed.
// Sizes count source characters as V8 does (UTF-16 code units: bytes for
// an ASCII source).
type JSCoverage struct {
	// Scripts has one entry per script URL, sorted by URL. The inline
	// scripts of a document (<script> elements and handler attributes)
	// share one entry keyed by the document's URL + "#inline".
	Scripts []ScriptCoverage `json:"scripts"`
	// Bytes is the total source size of those scripts.
	Bytes int `json:"bytes"`
	// Executed is how much of it lies in ranges that ran at least once.
	Executed int `json:"executed"`
}

// ScriptCoverage is the coverage of one script (or of one document's
// inline scripts).
type ScriptCoverage struct {
	URL      string `json:"url"`
	Bytes    int    `json:"bytes"`
	Executed int    `json:"executed"`
}

// Percent is the executed share of the source in percent, 0 when there is
// no source.
func (c JSCoverage) Percent() float64 { return percent(c.Executed, c.Bytes) }

// Percent is the executed share of the script in percent, 0 when it is
// empty.
func (c ScriptCoverage) Percent() float64 { return percent(c.Executed, c.Bytes) }

func percent(part, whole int) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// JSCoverageOptions tune StartJSCoverage.
type JSCoverageOptions struct {
	// ExcludePaths leaves scripts out of the coverage: an entry that
	// starts with "/" is a URL path prefix ("/__collector/" leaves out
	// every script whose path starts so, on any origin); any other entry
	// is a prefix of the whole URL ("http://127.0.0.1:4100/vendor/").
	ExcludePaths []string
}

// ErrJSCoverageNotStarted is the error of TakeJSCoverage on a session
// whose JavaScript coverage was never started.
var ErrJSCoverageNotStarted = errors.New("browser: js coverage: not started (call StartJSCoverage first)")

// StartJSCoverage starts collecting the block coverage of the JavaScript
// the session's page runs, through the Chrome DevTools Protocol (a CDP
// session on the page: the Profiler's precise coverage, and the Debugger
// for the scripts' URLs and sizes; the page never pauses on a debugger
// statement). It needs Chromium; another browser, a CDP failure or a
// coverage already running is an error. Every CDP call is bounded by the
// engine's ActionTimeout.
//
// What counts: scripts with an http(s) URL that opts.ExcludePaths does not
// exclude, in the page's main world (its frames served by the same
// renderer included; workers and out-of-process frames not). Scripts
// without a URL — code the engine or Playwright evaluates, init scripts,
// the page's own eval — and every other scheme (data:, about:,
// chrome-extension:, Playwright's __playwright… scripts) are left out.
// Scripts that loaded before StartJSCoverage are counted only for what
// runs again, at function granularity; start before navigating.
//
// Coverage accumulates across navigations, within limits: V8 forgets a
// document's coverage once the page left it, and while a main-frame
// navigation is under way the page's CDP session gets no answer until the
// new document commits (Chromium 156), so nothing can be merged on the
// way out. Each TakeJSCoverage merges V8's report into what earlier
// ones saw, and Do makes the same merge before every action that may
// leave the document (flushJSCoverage); a document the page left counts
// as of the last merge before it left (what a click's own handler ran
// just before its navigation is lost). When the session's page is replaced (an unresponsive page; see
// ErrUnresponsive) the next take keeps what was merged and attaches to
// the new page, whose coverage starts then. Popups are not covered.
func (s *Session) StartJSCoverage(ctx context.Context, opts ...JSCoverageOptions) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("browser: js coverage: start: %w", err)
	}
	if name := s.browserName(); name != "chromium" {
		return fmt.Errorf("browser: js coverage: needs Chromium (the Chrome DevTools Protocol); this browser is %q", name)
	}
	var o JSCoverageOptions
	for _, x := range opts {
		o.ExcludePaths = append(o.ExcludePaths, x.ExcludePaths...)
	}
	c := s.jsCoverage(true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return errors.New("browser: js coverage: already started (StopJSCoverage first)")
	}
	page := s.currentPage()
	if page == nil {
		return errors.New("browser: js coverage: start: the session has no page")
	}
	att, err := attachCoverage(ctx, s, page)
	if err != nil {
		return fmt.Errorf("browser: js coverage: start: %w", err)
	}
	c.att, c.running, c.started = att, true, true
	c.opts = o
	c.acc = map[string]*covScript{}
	return nil
}

// TakeJSCoverage returns the coverage accumulated since StartJSCoverage,
// across navigations, after merging V8's latest report. After
// StopJSCoverage it returns what was collected until then. Before any
// StartJSCoverage it returns ErrJSCoverageNotStarted. A page that closed
// or was replaced is no error: the result is what was merged. When the
// page answers with an error (or not in time) the result is still what
// was merged, and the error says why it may miss the latest runs.
func (s *Session) TakeJSCoverage(ctx context.Context) (JSCoverage, error) {
	c := s.jsCoverage(false)
	if c == nil {
		return JSCoverage{}, ErrJSCoverageNotStarted
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		return JSCoverage{}, ErrJSCoverageNotStarted
	}
	err := c.flush(ctx, s, true)
	if err != nil {
		err = fmt.Errorf("browser: js coverage: take: %w", err)
	}
	return c.report(), err
}

// StopJSCoverage merges V8's last report, stops the coverage and detaches
// its CDP session. What was collected stays for TakeJSCoverage until the
// next StartJSCoverage. Calling it again, or without a start, does
// nothing. A closed page is no error.
func (s *Session) StopJSCoverage(ctx context.Context) error {
	c := s.jsCoverage(false)
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return nil
	}
	err := c.flush(ctx, s, false)
	c.running = false
	if c.att != nil {
		err = errors.Join(err, c.att.detach(context.WithoutCancel(ctx), s))
		c.att = nil
	}
	if err != nil {
		return fmt.Errorf("browser: js coverage: stop: %w", err)
	}
	return nil
}

// flushJSCoverage merges V8's coverage report into the session's
// accumulated coverage, if it is collecting: the engine's hook before an
// action that may leave the document (a navigation, but also a click, a
// key press or a form submit), since V8 drops a document's coverage once
// the page navigated away and cannot be asked while the navigation runs.
// One CDP round trip when collecting; a map lookup otherwise.
func (s *Session) flushJSCoverage(ctx context.Context) error {
	c := s.jsCoverage(false)
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.flush(ctx, s, true); err != nil {
		return fmt.Errorf("browser: js coverage: flush: %w", err)
	}
	return nil
}

func (s *Session) browserName() (name string) {
	defer func() {
		if recover() != nil {
			name = "unknown"
		}
	}()
	if s.e == nil || s.e.b == nil || s.e.b.browser == nil {
		return "unknown"
	}
	return s.e.b.browser.BrowserType().Name()
}

// jsCoverage is the session's collector; with create, made on first use.
func (s *Session) jsCoverage(create bool) *jsCov {
	s.jsMu.Lock()
	defer s.jsMu.Unlock()
	if s.jsCov == nil && create {
		s.jsCov = &jsCov{}
	}
	return s.jsCov
}

// jsCov is one session's coverage: the CDP attachment collecting it and
// what every take merged so far.
type jsCov struct {
	mu      sync.Mutex // one start, take or stop at a time
	started bool       // a StartJSCoverage succeeded: acc is valid
	running bool       // collecting (between Start and Stop)
	opts    JSCoverageOptions
	att     *covAttachment        // nil while detached (stopped, or a re-attach failed)
	acc     map[string]*covScript // by key (URL, or document URL + "#inline")
}

// covScript is the accumulated coverage of one key: its pieces are the
// separate V8 scripts merged under it (one for a script file; one per
// inline script of a document, by its position in the document).
type covScript struct {
	pieces map[string]*covPiece
}

type covPiece struct {
	length int   // the largest source size seen
	ran    spans // offsets that ran in any take
}

// merge adds one take's result for one V8 script.
func (c *jsCov) merge(key, piece string, length int, ran spans) {
	if c.acc == nil {
		c.acc = map[string]*covScript{}
	}
	cs := c.acc[key]
	if cs == nil {
		cs = &covScript{pieces: map[string]*covPiece{}}
		c.acc[key] = cs
	}
	p := cs.pieces[piece]
	if p == nil {
		p = &covPiece{}
		cs.pieces[piece] = p
	}
	p.length = max(p.length, length)
	p.ran = p.ran.union(ran)
}

// report sums the accumulated pieces per key, sorted by key.
func (c *jsCov) report() JSCoverage {
	out := JSCoverage{Scripts: []ScriptCoverage{}}
	for key, cs := range c.acc {
		sc := ScriptCoverage{URL: key}
		for _, p := range cs.pieces {
			sc.Bytes += p.length
			sc.Executed += p.ran.size(p.length)
		}
		out.Scripts = append(out.Scripts, sc)
		out.Bytes += sc.Bytes
		out.Executed += sc.Executed
	}
	slices.SortFunc(out.Scripts, func(a, b ScriptCoverage) int { return strings.Compare(a.URL, b.URL) })
	return out
}

// flush merges the current page's report. A page that was replaced makes
// it, with reattach, attach to the new page (the old one's latest report
// is lost with it); a page that is gone is no error. The caller holds c.mu.
func (c *jsCov) flush(ctx context.Context, s *Session, reattach bool) error {
	if !c.running {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	cur := s.currentPage()
	if c.att != nil && c.att.page != cur {
		// Replaced: the old page closed with its coverage, or hangs. Its
		// CDP session goes in the background (bounded) so a hung page does
		// not hold the take up.
		old := c.att
		go func() { _ = old.detach(context.WithoutCancel(ctx), s) }()
		c.att = nil
	}
	if c.att == nil {
		if cur == nil || !reattach {
			return nil
		}
		att, err := attachCoverage(ctx, s, cur)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			s.e.cfg.Logger.Warn("browser: js coverage: attaching to the session's new page failed", "user", s.user, "err", err)
			return nil
		}
		c.att = att
		return nil // nothing ran under this attachment yet
	}
	if c.att.closed.Load() {
		return nil // the page closed: what was merged is all there is
	}
	err := c.take(ctx, s, c.att)
	if err != nil && (pageGone(err) || c.att.closed.Load()) {
		return nil
	}
	return err
}

// take asks V8 for the coverage since the previous take and merges it.
func (c *jsCov) take(ctx context.Context, s *Session, att *covAttachment) error {
	d := s.e.cfg.ActionTimeout + callSlack
	cdp := att.cdp
	raw, err := bounded(ctx, d, "take precise coverage", func() (any, error) {
		return cdp.Send("Profiler.takePreciseCoverage", nil)
	})
	if err != nil {
		return cdpErr(err)
	}
	scripts, err := parseCoverage(raw)
	if err != nil {
		return err
	}
	pageURL := stripFragment(att.page.URL())
	for _, sc := range scripts {
		info, known := att.script(sc.ScriptID)
		if !known {
			// Not announced (yet): judge by the coverage's own URL.
			info = parsedScript{url: sc.URL, inline: sc.URL != "" && stripFragment(sc.URL) == pageURL}
			if info.inline {
				info.piece = "id:" + sc.ScriptID
			}
		}
		key := coverageKey(info.url, info.inline, c.opts.ExcludePaths)
		if key == "" || info.skip {
			continue
		}
		length := info.length
		if length <= 0 {
			length = att.sourceLength(ctx, s, sc.ScriptID)
		}
		var ranges []covRange
		for _, f := range sc.Functions {
			ranges = append(ranges, f.Ranges...)
		}
		if length <= 0 {
			for _, r := range ranges {
				length = max(length, r.End)
			}
		}
		c.merge(key, info.piece, length, executedSpans(ranges))
	}
	return nil
}

// cdpErr is err on one line, still wrapping a timeout or the context's end.
func cdpErr(err error) error {
	if errors.Is(err, ErrTimeout) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return errors.New(oneLine(err))
}

// pageGone reports whether a CDP error says the page or the CDP session
// no longer exists.
func pageGone(err error) bool {
	if gone(err) {
		return true
	}
	msg := err.Error()
	for _, m := range []string{"has been closed", "Session closed", "session closed", "Target closed", "No target with given id", "detached"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// covAttachment is a CDP session on one page with coverage running, and
// the scripts its Debugger announced.
type covAttachment struct {
	cdp    playwright.CDPSession
	page   playwright.Page
	closed atomic.Bool // the CDP session closed (its page closed, or detached)

	mu      sync.Mutex // guards scripts (written by Playwright's event goroutine)
	scripts map[string]parsedScript
}

// parsedScript is what Debugger.scriptParsed said of a script.
type parsedScript struct {
	url    string
	inline bool   // part of its document (a <script> element or a handler attribute)
	piece  string // its identity among the scripts of one key
	length int    // source size; 0 when not given
	skip   bool   // not the page's own (an isolated world's)
}

// attachCoverage opens a CDP session on page and starts block coverage
// (binary: whether a range ran, not how often) and the Debugger.
func attachCoverage(ctx context.Context, s *Session, page playwright.Page) (*covAttachment, error) {
	d := s.e.cfg.ActionTimeout + callSlack
	bctx := s.bctx
	cdp, err := bounded(ctx, d, "new CDP session", func() (playwright.CDPSession, error) { return bctx.NewCDPSession(page) })
	if err != nil {
		return nil, cdpErr(err)
	}
	att := &covAttachment{cdp: cdp, page: page, scripts: map[string]parsedScript{}}
	// Event handlers run on Playwright's dispatch goroutine: they only
	// record, or hand a call to a goroutine of its own.
	cdp.OnClose(func(playwright.CDPSession) { att.closed.Store(true) })
	cdp.On("Debugger.scriptParsed", att.onScriptParsed)
	cdp.On("Debugger.paused", func(map[string]any) {
		go func() { _, _ = cdp.Send("Debugger.resume", nil) }()
	})
	steps := []struct {
		method string
		params map[string]any
	}{
		{"Debugger.enable", nil},
		{"Debugger.setSkipAllPauses", map[string]any{"skip": true}},
		{"Profiler.enable", nil},
		{"Profiler.startPreciseCoverage", map[string]any{"callCount": false, "detailed": true}},
	}
	for _, st := range steps {
		if _, err := bounded(ctx, d, st.method, func() (any, error) { return cdp.Send(st.method, st.params) }); err != nil {
			_ = att.detach(context.WithoutCancel(ctx), s)
			return nil, cdpErr(err)
		}
	}
	return att, nil
}

// detach stops the coverage and closes the CDP session; a page or session
// already gone is no error.
func (a *covAttachment) detach(ctx context.Context, s *Session) error {
	if a.closed.Load() {
		return nil
	}
	d := s.e.cfg.ActionTimeout + callSlack
	cdp := a.cdp
	var errs []error
	if _, err := bounded(ctx, d, "stop precise coverage", func() (any, error) {
		return cdp.Send("Profiler.stopPreciseCoverage", nil)
	}); err != nil && !pageGone(err) && !a.closed.Load() {
		errs = append(errs, cdpErr(err))
	}
	if err := bounded0(ctx, d, "detach CDP session", cdp.Detach); err != nil && !pageGone(err) && !a.closed.Load() {
		errs = append(errs, cdpErr(err))
	}
	return errors.Join(errs...)
}

func (a *covAttachment) onScriptParsed(p map[string]any) {
	id, _ := p["scriptId"].(string)
	u, _ := p["url"].(string)
	if id == "" || !httpURL(u) {
		return // never counted: no need to remember it
	}
	if aux, ok := p["executionContextAuxData"].(map[string]any); ok {
		if t, _ := aux["type"].(string); t == "isolated" {
			// An extension's or Playwright's world, not the page's.
			a.mu.Lock()
			a.scripts[id] = parsedScript{url: u, skip: true}
			a.mu.Unlock()
			return
		}
	}
	line, col := intOf(p["startLine"]), intOf(p["startColumn"])
	hasSourceURL, _ := p["hasSourceURL"].(bool)
	// A script file starts at 0:0 of its URL; a script inside a document
	// starts after its tag (or attribute) and carries the document's URL.
	inline := !hasSourceURL && (line > 0 || col > 0)
	ps := parsedScript{url: u, inline: inline, length: intOf(p["length"])}
	if inline {
		ps.piece = fmt.Sprintf("%d:%d", line, col)
	}
	a.mu.Lock()
	a.scripts[id] = ps
	a.mu.Unlock()
}

func (a *covAttachment) script(id string) (parsedScript, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ps, ok := a.scripts[id]
	return ps, ok
}

// sourceLength asks the Debugger for a script's source when scriptParsed
// did not give its length (older Chromium), and remembers it; 0 when the
// source cannot be had.
func (a *covAttachment) sourceLength(ctx context.Context, s *Session, id string) int {
	cdp := a.cdp
	raw, err := bounded(ctx, s.e.cfg.ActionTimeout+callSlack, "get script source", func() (any, error) {
		return cdp.Send("Debugger.getScriptSource", map[string]any{"scriptId": id})
	})
	if err != nil {
		return 0
	}
	m, _ := raw.(map[string]any)
	src, _ := m["scriptSource"].(string)
	n := utf16Len(src)
	a.mu.Lock()
	if ps, ok := a.scripts[id]; ok {
		ps.length = n
		a.scripts[id] = ps
	}
	a.mu.Unlock()
	return n
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1) // an invalid byte decodes to U+FFFD: one unit
	}
	return n
}

func intOf(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case int:
		return x
	case int64:
		return int(x)
	case json.Number:
		n, _ := x.Int64()
		return int(n)
	}
	return 0
}

// covRange is one range of V8's report: offsets into the script's source
// and how often it ran (0 or 1 in binary mode).
type covRange struct {
	Start int `json:"startOffset"`
	End   int `json:"endOffset"`
	Count int `json:"count"`
}

type covFunction struct {
	Ranges []covRange `json:"ranges"`
}

type covScriptReport struct {
	ScriptID  string        `json:"scriptId"`
	URL       string        `json:"url"`
	Functions []covFunction `json:"functions"`
}

// parseCoverage reads Profiler.takePreciseCoverage's answer.
func parseCoverage(raw any) ([]covScriptReport, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("coverage answer: %w", err)
	}
	var ans struct {
		Result []covScriptReport `json:"result"`
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		return nil, fmt.Errorf("coverage answer: %w", err)
	}
	return ans.Result, nil
}

// coverageKey is the key a script's coverage merges under: its URL
// without fragment, + "#inline" for a document's inline scripts; "" for a
// script that is not counted (no http(s) URL, or excluded).
func coverageKey(raw string, inline bool, exclude []string) string {
	u := stripFragment(raw)
	if !httpURL(u) {
		return ""
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	for _, x := range exclude {
		switch {
		case x == "":
		case strings.HasPrefix(x, "/"):
			if strings.HasPrefix(pu.Path, x) {
				return ""
			}
		case strings.HasPrefix(u, x):
			return ""
		}
	}
	if inline {
		return u + "#inline"
	}
	return u
}

func httpURL(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

// span is the half-open offset interval [lo, hi).
type span struct{ lo, hi int }

// spans is a set of offsets: sorted, disjoint, non-adjacent spans.
type spans []span

// add is s ∪ [lo, hi).
func (s spans) add(lo, hi int) spans {
	if lo >= hi {
		return s
	}
	out := make(spans, 0, len(s)+1)
	i := 0
	for ; i < len(s) && s[i].hi < lo; i++ {
		out = append(out, s[i])
	}
	for ; i < len(s) && s[i].lo <= hi; i++ {
		lo, hi = min(lo, s[i].lo), max(hi, s[i].hi)
	}
	out = append(out, span{lo, hi})
	return append(out, s[i:]...)
}

// sub is s ∖ [lo, hi).
func (s spans) sub(lo, hi int) spans {
	if lo >= hi {
		return s
	}
	out := make(spans, 0, len(s)+1)
	for _, x := range s {
		if x.hi <= lo || x.lo >= hi {
			out = append(out, x)
			continue
		}
		if x.lo < lo {
			out = append(out, span{x.lo, lo})
		}
		if hi < x.hi {
			out = append(out, span{hi, x.hi})
		}
	}
	return out
}

// union is s ∪ o.
func (s spans) union(o spans) spans {
	for _, x := range o {
		s = s.add(x.lo, x.hi)
	}
	return s
}

// size is how many offsets of s lie in [0, limit).
func (s spans) size(limit int) int {
	n := 0
	for _, x := range s {
		lo, hi := max(x.lo, 0), min(x.hi, limit)
		if hi > lo {
			n += hi - lo
		}
	}
	return n
}

// executedSpans is the set of offsets that ran according to one report
// of a script: V8's ranges nest (a function in a function, a block in a
// function), and the innermost range containing an offset decides, so a
// branch that never ran inside a function that did is not executed.
// Painting outer ranges before inner ones (by start, then longest first;
// V8's own order among identical ranges) gives every offset its innermost
// range's verdict.
func executedSpans(ranges []covRange) spans {
	rs := slices.Clone(ranges)
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Start != rs[j].Start {
			return rs[i].Start < rs[j].Start
		}
		return rs[i].End > rs[j].End
	})
	var out spans
	for _, r := range rs {
		if r.Count > 0 {
			out = out.add(r.Start, r.End)
		} else {
			out = out.sub(r.Start, r.End)
		}
	}
	return out
}

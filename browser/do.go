package browser

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// Result is the outcome of one intent.
type Result struct {
	OK     bool   `json:"ok"`
	Action Action `json:"action"`
	// Output is the action's text for the model (snapshot, extracted text…).
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
	// Locator is the Playwright Test locator of the target, if any.
	Locator      string `json:"locator,omitempty"`
	HoverLocator string `json:"hover_locator,omitempty"`
	// FocusLocator is the field focused first to reveal a focus-only control.
	FocusLocator string `json:"focus_locator,omitempty"`
	// DropLocator is the Playwright Test locator a drag dropped on.
	DropLocator string `json:"drop_locator,omitempty"`
	// Locators are the Playwright Test locators of the fields a fill_form
	// did, in order (fewer than its fields when one failed).
	Locators []string      `json:"locators,omitempty"`
	URL      string        `json:"url"`
	Title    string        `json:"title"`
	Findings []Finding     `json:"findings,omitempty"`
	Duration time.Duration `json:"duration"`
	// Screenshot holds the PNG of a screenshot action.
	Screenshot []byte `json:"-"`
	// Snapshot is set by the snapshot action.
	Snapshot *Snapshot `json:"-"`
}

// Text renders the result for the model.
func (r Result) Text() string {
	var b strings.Builder
	if r.OK {
		fmt.Fprintf(&b, "ok: %s", r.Action)
	} else {
		fmt.Fprintf(&b, "error: %s", r.Error)
	}
	if r.Locator != "" {
		b.WriteString(" on " + r.Locator)
	}
	fmt.Fprintf(&b, "\npage: %q %s", r.Title, r.URL)
	if len(r.Findings) > 0 {
		b.WriteString("\nhealth findings:")
		for _, f := range r.Findings {
			b.WriteString("\n- " + f.String())
		}
	}
	if r.Output != "" {
		b.WriteString("\n" + r.Output)
	}
	return b.String()
}

// Run parses a JSON intent and executes it (see Do). A malformed intent is
// a failed Result with the validation message, and is recorded too.
func (s *Session) Run(ctx context.Context, raw json.RawMessage) Result {
	in, err := ParseIntent(raw)
	if err != nil {
		var ie *IntentError
		act := Action("")
		if errors.As(err, &ie) {
			act = ie.Action
		}
		start := time.Now()
		// finish reads the page and the values a running fill records:
		// it holds the session's lock, as Do does.
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.finish(Intent{Action: act}, start, Result{Action: act, Error: err.Error()})
	}
	return s.Do(ctx, in)
}

// Do executes a validated intent, waits for the page to settle, collects
// health findings and appends an Entry to the tape and window.
func (s *Session) Do(ctx context.Context, in Intent) Result {
	start := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctx = ctx
	defer func() { s.ctx = nil }()
	if err := ctx.Err(); err != nil {
		return s.finish(in, start, Result{Action: in.Action, Error: "not run: " + err.Error()})
	}
	// A page the previous action left hanging is replaced first.
	var pre Result
	s.checkAlive(ctx, &pre)
	s.navBlocked.Store(nil)
	s.popupBlocked.Store(nil)
	if in.Target != "" {
		if _, err := ParseTarget(in.Target); err != nil {
			return s.finish(in, start, Result{Action: in.Action, Error: err.Error()})
		}
	}
	if _, ok := actionSpecs[in.Action]; !ok {
		return s.finish(in, start, Result{Action: in.Action, Error: (&IntentError{Msg: fmt.Sprintf("unknown action %q; allowed actions: %s", in.Action, actionList())}).Error()})
	}
	if mayLeave(in.Action) {
		// V8 forgets a document's coverage once the page left it, and
		// cannot be asked while the navigation runs: what ran so far is
		// merged first (one CDP call when coverage is on).
		_ = s.flushJSCoverage(ctx)
	}
	t0, gen0 := time.Now(), s.navGen.Load()
	res := s.do(ctx, in)
	res.Action = in.Action
	t1 := time.Now()
	var t2 time.Time
	settled := "none"
	switch {
	case in.Action == ActSnapshot || in.Action == ActExtractText || in.Action == ActScreenshot || in.Action == ActCheckHealth:
		t2 = t1
	case s.suspect:
		// A call of the action timed out (a navigation to a page whose
		// scripts never yield, a server that never answers): the liveness
		// check below decides at once, where a settle and a health probe
		// would first wait out timeouts of their own on a hung page.
		t2 = t1
		settled = "skipped"
	default:
		settled = s.settle(ctx, t0, gen0)
		t2 = time.Now()
		s.probe(ctx)
	}
	s.checkAlive(ctx, &res)
	// Where an action's time went: before it (a hung page's check, the
	// JS coverage merged before leaving), the action, the settle, the
	// health probe and liveness check.
	s.e.cfg.Logger.Debug("browser: action timing", "user", s.user, "action", string(in.Action),
		"before_ms", t0.Sub(start).Milliseconds(), "do_ms", t1.Sub(t0).Milliseconds(),
		"settle_ms", t2.Sub(t1).Milliseconds(), "settled", settled, "probe_ms", time.Since(t2).Milliseconds())
	if u := s.navBlocked.Load(); u != nil {
		// The page left the allowed origins (a redirect, a meta refresh, a
		// link, a popup): the guard refused it, and the action failed.
		msg := fmt.Sprintf("navigation to %s refused: outside the allowed origins %s (no request reached it)", *u, strings.Join(s.e.origins, ", "))
		if res.Error == "" {
			res.Error = msg
		} else if !strings.Contains(res.Error, msg) {
			res.Error = msg + "; " + res.Error
		}
	}
	if u := s.popupBlocked.Load(); u != nil && res.Error == "" {
		res.Error = fmt.Sprintf("popup to %s refused: outside the allowed origins %s (no request reached it)", *u, strings.Join(s.e.origins, ", "))
	}
	if pre.Error != "" {
		res.Findings = append(res.Findings, Finding{Kind: FindUnresponsive, Message: pre.Error, URL: res.URL})
	}
	return s.finish(in, start, res)
}

// mayLeave: the action may take the page to another document.
func mayLeave(a Action) bool {
	switch a {
	case ActNavigate, ActClick, ActDblclick, ActPress, ActSelectOption, ActCheck, ActUncheck, ActGoBack, ActReload, ActDrag:
		return true
	}
	return false
}

// finish records the action: s.mu must be held.
func (s *Session) finish(in Intent, start time.Time, res Result) Result {
	res.OK = res.Error == ""
	res.URL = s.page.URL()
	res.Title = s.title()
	res.Findings = append(res.Findings, s.h.drain()...)
	res.Duration = time.Since(start)
	// Secrets never leave as text: the intent records references, and a
	// page or an error that echoes a secret is redacted too.
	sec := s.e.secrets
	in = sec.RedactIntent(in)
	if s.fillRec != nil {
		in.Value, s.fillRec = s.fillRec, nil
	}
	if s.formRec != nil {
		// in.Fields is the caller's slice, or RedactIntent's copy.
		in.Fields = slices.Clone(in.Fields)
		for i := range in.Fields {
			if in.Fields[i].kind() != FieldFill {
				continue
			}
			if i < len(s.formRec) {
				in.Fields[i].Value = s.formRec[i]
			} else {
				// Never typed (an earlier field failed): its value,
				// perhaps a password no secret names, is not recorded.
				in.Fields[i].Value = ""
			}
		}
		s.formRec = nil
	}
	if sec.Len() > 0 {
		res.Error, res.Output, res.Title, res.URL = sec.Redact(res.Error), sec.Redact(res.Output), sec.Redact(res.Title), sec.Redact(res.URL)
		for i := range res.Findings {
			f := &res.Findings[i]
			f.Message, f.Evidence, f.URL = sec.Redact(f.Message), sec.Redact(f.Evidence), sec.Redact(f.URL)
		}
	}
	e := Entry{
		Seq: s.e.seq.Add(1), Time: start.UTC(), User: s.user, Action: in.Action, Params: in,
		Locator: res.Locator, HoverLocator: res.HoverLocator, FocusLocator: res.FocusLocator, DropLocator: res.DropLocator, Locators: res.Locators, OK: res.OK, DurationMS: res.Duration.Milliseconds(),
		Result: clip(res.Output, 1000), Error: res.Error, URL: res.URL, Title: res.Title, Findings: res.Findings,
	}
	s.e.window.Add(e)
	if t := s.e.cfg.Tape; t != nil {
		if err := t.Append(e); err != nil {
			s.e.cfg.Logger.Error("tape append failed", "err", err)
		}
	}
	return res
}

// resolved is a target ready to act on.
type resolved struct {
	loc      playwright.Locator
	js       string // Playwright Test locator
	hover    playwright.Locator
	hoverJS  string
	focus    playwright.Locator // the field to focus first (focus-revealed control)
	focusJS  string
	ref      string
	multiple int
}

func (s *Session) staleRef(ref string) error {
	return fmt.Errorf("ref %s is not in the latest snapshot (the page changed or no snapshot was taken); take a new snapshot and use its refs", ref)
}

func (s *Session) resolve(target string, needOne bool) (*resolved, error) {
	t, err := ParseTarget(target)
	if err != nil {
		return nil, err
	}
	r := &resolved{}
	switch {
	case t.Kind == TargetRef && !s.refs[t.Ref]:
		return nil, s.staleRef(t.Ref)
	case t.Kind == TargetRef && s.refsGen != s.navGen.Load():
		return nil, fmt.Errorf("ref %s is stale: the page navigated since the last snapshot; take a new snapshot and use its refs", t.Ref)
	case t.Kind == TargetRef && (t.Ref[0] == 'e' || t.Ref[0] == 'f'):
		r.ref = t.Ref
		r.loc = s.page.GetByRef(t.Ref)
	case t.Kind == TargetRef && t.Ref[0] == 'x':
		r.ref = t.Ref
		r.loc = s.actionableLocator(t.Ref)
	case t.Kind == TargetRef:
		r.ref = t.Ref
		r.loc = s.page.Locator(fmt.Sprintf(`[%s=%q]`, refAttr, t.Ref))
		if t.Ref[0] == 'h' {
			r.hover = s.page.Locator(fmt.Sprintf(`[%s=%q]`, hoverAttr, t.Ref))
			if n, err := s.page.Locator(fmt.Sprintf(`[%s=%q]`, focusAttr, t.Ref)).Count(); err == nil && n > 0 {
				r.hover, r.focus = nil, s.page.Locator(fmt.Sprintf(`[%s=%q]`, focusAttr, t.Ref))
			}
		}
	default:
		r.loc = s.page.Locator(t.Selector)
	}
	n, err := bounded(s.actx(), s.e.cfg.ActionTimeout, "count "+target, r.loc.Count)
	if timedOut(err) {
		s.suspect = true
	}
	if err != nil {
		if r.ref != "" {
			return nil, s.staleRef(r.ref)
		}
		return nil, fmt.Errorf("target %q: %s", target, oneLine(err))
	}
	switch {
	case n == 0 && r.ref != "":
		return nil, fmt.Errorf("ref %s no longer matches an element (stale); take a new snapshot", r.ref)
	case n == 0:
		return nil, fmt.Errorf("no element matches %q; take a snapshot and use a ref, or check the name", target)
	case n > 1 && needOne:
		return nil, fmt.Errorf("%q matches %d elements; use a ref from the snapshot or a more specific selector (test id, role and name)", target, n)
	}
	r.multiple = n
	if r.hover != nil {
		if err := s.call(s.actx(), "hover", func() error { return r.hover.First().Hover() }); err != nil {
			return nil, fmt.Errorf("hovering the row of %s: %s", r.ref, oneLine(err))
		}
		r.hoverJS = JSLocator(s.normalize(r.hover.First()))
	}
	if r.focus != nil {
		if err := s.call(s.actx(), "focus", func() error { return r.focus.First().Focus() }); err != nil {
			return nil, fmt.Errorf("focusing the field that reveals %s: %s", r.ref, oneLine(err))
		}
		r.focusJS = JSLocator(s.normalize(r.focus.First()))
	}
	r.js = JSLocator(s.normalize(r.loc))
	if r.multiple > 1 {
		r.loc = r.loc.First()
	}
	return r, nil
}

// normalize returns the selector Playwright itself would generate for the
// element (test id, role+name, placeholder, label, alt, text, title, id).
func (s *Session) normalize(l playwright.Locator) string {
	n, err := bounded(s.actx(), s.e.cfg.ActionTimeout, "normalize", func() (playwright.Locator, error) { return l.Normalize(), nil })
	if err != nil {
		if timedOut(err) {
			s.suspect = true
		}
		return selectorOf(l)
	}
	if sel := selectorOf(n); sel != "" && !strings.HasPrefix(sel, "aria-ref=") && !strings.Contains(sel, refAttr) {
		return sel
	}
	return selectorOf(l)
}

func (s *Session) resolveURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("url %q does not parse: %v", raw, err)
	}
	if !u.IsAbs() {
		if strings.HasPrefix(raw, "//") {
			return "", fmt.Errorf("url %q: scheme-relative URLs are refused; use a path such as /login or a URL within %s", raw, strings.Join(s.e.origins, ", "))
		}
		if u.Scheme != "" || strings.Contains(raw, ":") && !strings.HasPrefix(raw, "/") {
			return "", fmt.Errorf("url %q: only http(s) URLs within %s are allowed", raw, strings.Join(s.e.origins, ", "))
		}
		base := s.page.URL()
		if !s.e.Allowed(base) {
			base = s.e.origins[0] + "/"
		}
		b, _ := url.Parse(base)
		u = b.ResolveReference(u)
	}
	abs := s.e.unalias(u.String())
	if !s.e.Allowed(abs) {
		scheme := u.Scheme
		if scheme != "http" && scheme != "https" {
			return "", fmt.Errorf("url %q: the %s: scheme is refused; only http(s) URLs within %s are allowed", raw, scheme, strings.Join(s.e.origins, ", "))
		}
		return "", fmt.Errorf("url %q is outside the allowed origins %s; stay within the app", raw, strings.Join(s.e.origins, ", "))
	}
	return abs, nil
}

// unalias maps a URL under one of cfg.Aliases to the front that serves it
// (the longest alias that matches at a path boundary).
func (e *Engine) unalias(abs string) string {
	best, to := "", ""
	for from, front := range e.cfg.Aliases {
		f := strings.TrimRight(from, "/")
		if f != "" && len(f) > len(best) && (abs == f || strings.HasPrefix(abs, f) && strings.ContainsAny(abs[len(f):len(f)+1], "/?#")) {
			best, to = f, front
		}
	}
	if best == "" {
		return abs
	}
	return strings.TrimRight(to, "/") + abs[len(best):]
}

func (s *Session) timeout() *float64 {
	return playwright.Float(float64(s.e.cfg.ActionTimeout.Milliseconds()))
}

func (s *Session) do(ctx context.Context, in Intent) Result {
	fail := func(err error) Result { return Result{Error: err.Error()} }
	withTarget := func(needOne bool, act func(r *resolved) (string, error)) Result {
		r, err := s.resolve(in.Target, needOne)
		if err != nil {
			return fail(err)
		}
		out, err := bounded(ctx, s.e.cfg.ActionTimeout+callSlack, string(in.Action), func() (string, error) { return act(r) })
		if timedOut(err) {
			s.suspect = true
		}
		res := Result{Locator: r.js, HoverLocator: r.hoverJS, FocusLocator: r.focusJS, Output: out}
		if err != nil {
			res.Error = fmt.Sprintf("%s on %s failed: %s", in.Action, r.js, oneLine(err))
		}
		return res
	}
	switch in.Action {
	case ActNavigate:
		u, err := s.resolveURL(in.URL)
		if err != nil {
			return fail(err)
		}
		p := s.page
		resp, err := bounded(ctx, s.navTimeout()+callSlack, "navigate", func() (playwright.Response, error) {
			return p.Goto(u, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateDomcontentloaded})
		})
		if timedOut(err) {
			s.suspect = true
		}
		if err != nil {
			return fail(fmt.Errorf("navigate to %s: %s", u, oneLine(err)))
		}
		if resp != nil {
			return Result{Output: fmt.Sprintf("HTTP %d", resp.Status())}
		}
		return Result{}
	case ActClick:
		return withTarget(true, func(r *resolved) (string, error) { return "", r.loc.Click() })
	case ActFill:
		r, err := s.resolve(in.Target, true)
		if err != nil {
			return fail(err)
		}
		// A password (or a value known to be secret) is typed as itself
		// and recorded as its reference.
		typed, rec := s.fillValue(ctx, r.loc, in.ValueOrEmpty())
		s.fillRec = &rec
		res := Result{Locator: r.js, HoverLocator: r.hoverJS, FocusLocator: r.focusJS}
		if err := s.call(ctx, "fill", func() error { return r.loc.Fill(typed) }); err != nil {
			res.Error = fmt.Sprintf("%s on %s failed: %s", in.Action, r.js, oneLine(err))
		}
		return res
	case ActFillForm:
		return s.fillForm(ctx, in)
	case ActPress:
		if in.Target == "" {
			if err := s.call(ctx, "press", func() error { return s.page.Keyboard().Press(in.Key) }); err != nil {
				return fail(fmt.Errorf("press %s: %s", in.Key, oneLine(err)))
			}
			return Result{}
		}
		return withTarget(true, func(r *resolved) (string, error) { return "", r.loc.Press(in.Key) })
	case ActSelectOption:
		return withTarget(true, func(r *resolved) (string, error) {
			v := []string{in.ValueOrEmpty()}
			got, err := r.loc.SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &v})
			return "selected " + strings.Join(got, ", "), err
		})
	case ActHover:
		return withTarget(true, func(r *resolved) (string, error) { return "", r.loc.Hover() })
	case ActDblclick:
		return withTarget(true, func(r *resolved) (string, error) { return "", r.loc.Dblclick() })
	case ActFocus:
		return withTarget(true, func(r *resolved) (string, error) { return "", r.loc.Focus() })
	case ActCheck:
		return withTarget(true, func(r *resolved) (string, error) { return "", r.loc.Check() })
	case ActUncheck:
		return withTarget(true, func(r *resolved) (string, error) { return "", r.loc.Uncheck() })
	case ActDrag:
		src, err := s.resolve(in.Target, true)
		if err != nil {
			return fail(err)
		}
		dst, err := s.resolve(in.To, true)
		if err != nil {
			return Result{Locator: src.js, Error: "drop target: " + err.Error()}
		}
		res := Result{Locator: src.js, HoverLocator: src.hoverJS, FocusLocator: src.focusJS, DropLocator: dst.js}
		if err := s.call(ctx, "drag", func() error { return src.loc.DragTo(dst.loc) }); err != nil {
			res.Error = fmt.Sprintf("drag %s to %s failed: %s", src.js, dst.js, oneLine(err))
		}
		return res
	case ActSetFiles:
		if msg := checkFile(in); msg != "" {
			return fail(&IntentError{Action: in.Action, Msg: msg})
		}
		name, mimeType, content := in.UploadFile()
		return withTarget(true, func(r *resolved) (string, error) {
			err := r.loc.SetInputFiles([]playwright.InputFile{{Name: name, MimeType: mimeType, Buffer: []byte(content)}})
			return fmt.Sprintf("set %s (%s, %d bytes)", name, mimeType, len(content)), err
		})
	case ActWaitFor:
		to := 5000.0
		if in.TimeoutMS > 0 {
			to = float64(in.TimeoutMS)
		}
		if in.Text != "" {
			l := s.page.GetByText(in.Text).First()
			if err := bounded0(ctx, time.Duration(to)*time.Millisecond+callSlack, "wait_for", func() error {
				return l.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: &to})
			}); err != nil {
				return fail(fmt.Errorf("text %q did not appear within %.0fms", in.Text, to))
			}
			return Result{Locator: "getByText(" + jsString(in.Text) + ")", Output: fmt.Sprintf("text %q is visible", in.Text)}
		}
		state := in.State
		if state == "" {
			state = "visible"
		}
		// waiting for hidden/detached must not fail because nothing matches
		t, _ := ParseTarget(in.Target)
		var l playwright.Locator
		js := ""
		if t.Kind == TargetRef {
			r, err := s.resolve(in.Target, false)
			if err != nil {
				return fail(err)
			}
			l, js = r.loc, r.js
		} else {
			l = s.page.Locator(t.Selector).First()
			js = JSLocator(t.Selector)
		}
		st := playwright.WaitForSelectorState(state)
		if err := bounded0(ctx, time.Duration(to)*time.Millisecond+callSlack, "wait_for", func() error {
			return l.WaitFor(playwright.LocatorWaitForOptions{State: &st, Timeout: &to})
		}); err != nil {
			return Result{Locator: js, Error: fmt.Sprintf("%s did not become %s within %.0fms", in.Target, state, to)}
		}
		return Result{Locator: js, Output: in.Target + " is " + state}
	case ActScroll:
		if in.Target != "" {
			return withTarget(false, func(r *resolved) (string, error) { return "", r.loc.ScrollIntoViewIfNeeded() })
		}
		px := in.Pixels
		if px == 0 {
			px = 600
		}
		var js string
		switch in.Direction {
		case "up":
			js = fmt.Sprintf("window.scrollBy(0, -%d)", px)
		case "top":
			js = "window.scrollTo(0, 0)"
		case "bottom":
			js = "window.scrollTo(0, document.documentElement.scrollHeight)"
		default:
			js = fmt.Sprintf("window.scrollBy(0, %d)", px)
		}
		if _, err := s.evalBounded(ctx, js+"; [window.scrollY, document.documentElement.scrollHeight]", nil); err != nil {
			if timedOut(err) || errors.Is(err, context.DeadlineExceeded) {
				s.suspect = true
			}
			return fail(fmt.Errorf("scroll: %s", oneLine(err)))
		}
		y, _ := s.evalBounded(ctx, "Math.round(window.scrollY)", nil)
		return Result{Output: fmt.Sprintf("scrollY=%v", y)}
	case ActExtractText:
		if in.Target == "" {
			body := s.page.Locator("body")
			txt, err := bounded(ctx, s.e.cfg.ActionTimeout+callSlack, "extract_text", func() (string, error) { return body.InnerText() })
			if err != nil {
				return fail(fmt.Errorf("extract_text: %s", oneLine(err)))
			}
			out, _ := capText(strings.TrimSpace(txt), s.e.cfg.TextBudget)
			return Result{Output: out}
		}
		return withTarget(false, func(r *resolved) (string, error) {
			texts, err := r.loc.AllInnerTexts()
			out, _ := capText(strings.TrimSpace(strings.Join(texts, "\n")), s.e.cfg.TextBudget)
			return out, err
		})
	case ActSnapshot:
		snap, err := s.snapshot(ctx)
		if err != nil {
			return fail(err)
		}
		return Result{Output: snap.Text, Snapshot: &snap}
	case ActCheckHealth:
		s.probe(ctx)
		all := s.h.history()
		if len(all) == 0 {
			return Result{Output: "page health: no findings"}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "page health: %d finding(s) in this session", len(all))
		for _, f := range all {
			b.WriteString("\n- " + f.String())
		}
		return Result{Output: b.String()}
	case ActScreenshot:
		p := s.page
		png, err := bounded(ctx, s.e.cfg.ActionTimeout+callSlack, "screenshot", func() ([]byte, error) {
			return p.Screenshot(playwright.PageScreenshotOptions{FullPage: playwright.Bool(in.FullPage)})
		})
		if timedOut(err) {
			s.suspect = true
		}
		if err != nil {
			return fail(fmt.Errorf("screenshot: %s", oneLine(err)))
		}
		out := fmt.Sprintf("screenshot: %d bytes PNG", len(png))
		if p, err := s.writeArtifact(fmt.Sprintf("%s-%d.png", safeName(s.user), time.Now().UnixNano()), png); err == nil && p != "" {
			out += " saved to " + p
		}
		return Result{Output: out, Screenshot: png}
	case ActGoBack:
		p := s.page
		if err := s.navCall(ctx, "go_back", func() error {
			_, err := p.GoBack(playwright.PageGoBackOptions{WaitUntil: playwright.WaitUntilStateDomcontentloaded})
			return err
		}); err != nil {
			return fail(fmt.Errorf("go_back: %s", oneLine(err)))
		}
		return Result{}
	case ActClearSiteData:
		if err := s.call(ctx, "clear cookies", func() error { return s.bctx.ClearCookies() }); err != nil {
			return fail(fmt.Errorf("clear_site_data: %s", oneLine(err)))
		}
		p := s.page
		if err := s.call(ctx, "clear storage", func() error {
			_, err := p.Evaluate(`() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }`)
			return err
		}); err != nil {
			return fail(fmt.Errorf("clear_site_data: %s", oneLine(err)))
		}
		return Result{Output: "cookies and storage cleared"}
	case ActReload:
		p := s.page
		if err := s.navCall(ctx, "reload", func() error {
			_, err := p.Reload(playwright.PageReloadOptions{WaitUntil: playwright.WaitUntilStateDomcontentloaded})
			return err
		}); err != nil {
			return fail(fmt.Errorf("reload: %s", oneLine(err)))
		}
		return Result{}
	}
	return fail(fmt.Errorf("action %q is not implemented", in.Action))
}

// fillForm does fill_form: each field in order is resolved and acted on
// as fill, select_option or check would, each bounded by the action
// timeout. It stops at the first field that fails; the fields before it
// stay done (Result.Locators lists them). Values typed into fields are
// recorded as fill records them (Session.fillValue).
func (s *Session) fillForm(ctx context.Context, in Intent) Result {
	if msg := checkFields(in.Fields); msg != "" {
		return Result{Error: (&IntentError{Action: in.Action, Param: "fields", Msg: msg}).Error()}
	}
	s.formRec = make([]string, 0, len(in.Fields))
	var res Result
	var out []string
	for i, f := range in.Fields {
		kind := f.kind()
		msg, err := s.fillField(ctx, f, &res)
		if err != nil {
			res.Error = fmt.Sprintf("fill_form stopped at fields[%d] (%s %q, field %d of %d): %s", i, kind, clip(f.Target, 100), i+1, len(in.Fields), oneLine(err))
			switch {
			case i == 1:
				res.Error += "; fields[0] before it was done"
			case i > 1:
				res.Error += fmt.Sprintf("; fields[0..%d] before it were done", i-1)
			}
			break
		}
		out = append(out, fmt.Sprintf("- %s %s%s", kind, res.Locators[len(res.Locators)-1], msg))
	}
	if len(out) > 0 {
		res.Output = fmt.Sprintf("%d of %d fields done:\n%s", len(out), len(in.Fields), strings.Join(out, "\n"))
	}
	return res
}

// fillField does one field of a fill_form and appends its locator to
// res.Locators once resolved; msg says what a select chose.
func (s *Session) fillField(ctx context.Context, f FormField, res *Result) (msg string, err error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	r, err := s.resolve(f.Target, true)
	if err != nil {
		return "", err
	}
	switch f.kind() {
	case FieldFill:
		typed, rec := s.fillValue(ctx, r.loc, f.Value)
		s.formRec = append(s.formRec, rec)
		err = s.call(ctx, "fill", func() error { return r.loc.Fill(typed) })
	case FieldSelect:
		s.formRec = append(s.formRec, f.Value)
		v := []string{f.Value}
		var got []string
		got, err = bounded(ctx, s.e.cfg.ActionTimeout+callSlack, "select_option", func() ([]string, error) {
			return r.loc.SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &v})
		})
		if timedOut(err) {
			s.suspect = true
		}
		msg = ": selected " + strings.Join(got, ", ")
	case FieldCheck:
		s.formRec = append(s.formRec, "")
		err = s.call(ctx, "check", func() error { return r.loc.Check() })
	}
	if err != nil {
		return "", fmt.Errorf("%s on %s failed: %s", f.kind(), r.js, oneLine(err))
	}
	res.Locators = append(res.Locators, r.js)
	return msg, nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// Snapshot takes a fresh snapshot (and records it on the tape).
func (s *Session) Snapshot(ctx context.Context) (Snapshot, error) {
	r := s.Do(ctx, Intent{Action: ActSnapshot})
	if !r.OK || r.Snapshot == nil {
		return Snapshot{}, errors.New(r.Error)
	}
	return *r.Snapshot, nil
}

// snapshot builds the model's view; the caller holds s.mu.
func (s *Session) snapshot(ctx context.Context) (Snapshot, error) {
	snap := Snapshot{URL: s.page.URL(), Title: s.title(), Source: "aria"}
	p := s.page
	raw, err := bounded(ctx, s.e.cfg.ActionTimeout+callSlack, "aria snapshot", func() (string, error) {
		return p.AriaSnapshot(playwright.PageAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi, Timeout: s.timeout()})
	})
	if timedOut(err) {
		s.suspect = true
	}
	var body string
	if err != nil || strings.TrimSpace(raw) == "" {
		snap.Source = "dom"
		v, derr := s.evalBounded(ctx, domJS, []any{refAttr, 400})
		if derr != nil {
			if err == nil {
				err = derr
			}
			return Snapshot{}, fmt.Errorf("snapshot failed: %s", oneLine(err))
		}
		body, _ = v.(string)
		raw = body
	} else {
		body = s.annotateFields(ctx, compactAria(raw))
	}
	if v, err := s.evalBounded(ctx, hoverJS, []any{refAttr, hoverAttr, focusAttr, 100}); err == nil {
		if extra, _ := v.(string); extra != "" {
			snap.HoverOnly = strings.Count(extra, "\n") + 1
			body += "\n" + hoverHeading + "\n" + extra
		}
	}
	if lines, frames, err := s.findActionable(ctx, 100); err == nil && len(lines) > 0 {
		snap.Actionable = len(lines)
		body += "\n" + actionableHeading + "\n" + strings.Join(lines, "\n")
		s.xframes = frames
	}
	snap.RawChars = len(raw)
	refs := map[string]bool{}
	for _, r := range refsIn(raw) {
		refs[r] = true
	}
	for _, r := range refsIn(body) {
		refs[r] = true
	}
	header := fmt.Sprintf("page: %q %s\n", snap.Title, snap.URL)
	snap.Text, snap.Truncated = capText(header+body, s.e.cfg.SnapshotBudget)
	s.refs = refs
	s.refsGen = s.navGen.Load()
	for r := range refs {
		snap.Refs = append(snap.Refs, r)
	}
	sortRefs(snap.Refs)
	return snap, nil
}

func sortRefs(r []string) {
	slices.SortFunc(r, func(a, b string) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a), len(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}

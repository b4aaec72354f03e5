package drive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

// run is one reproduction at work.
type run struct {
	d      *Driver
	bug    bugfarm.Bug
	base   string
	bctx   playwright.BrowserContext
	page   playwright.Page
	rec    *recorder
	axeSrc string
}

func (r *run) timeout() *float64 {
	return playwright.Float(float64(r.d.opts.StepTimeout.Milliseconds()))
}

// locate resolves a step's selector, inside its iframe when Frame is set.
// Playwright's CSS engine pierces open shadow roots.
func (r *run) locate(st bugfarm.Step) playwright.Locator {
	if st.Frame != "" {
		return r.page.Locator(st.Frame).First().ContentFrame().Locator(st.Selector).First()
	}
	return r.page.Locator(st.Selector).First()
}

// step plays one step, then waits for a navigation it started to load.
func (r *run) step(ctx context.Context, st bugfarm.Step) error {
	var err error
	switch st.Op {
	case bugfarm.OpGoto:
		u := st.Path
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			if !strings.HasPrefix(u, "/") {
				u = "/" + u
			}
			u = r.base + u
		}
		err = r.gotoURL(ctx, u)
	case bugfarm.OpClick:
		err = r.locate(st).Click(playwright.LocatorClickOptions{Timeout: r.timeout()})
	case bugfarm.OpDblClick:
		err = r.dblclick(ctx, st)
	case bugfarm.OpHover:
		err = r.locate(st).Hover(playwright.LocatorHoverOptions{Timeout: r.timeout()})
	case bugfarm.OpFocus:
		err = r.locate(st).Focus(playwright.LocatorFocusOptions{Timeout: r.timeout()})
	case bugfarm.OpFill:
		err = r.locate(st).Fill(st.Value, playwright.LocatorFillOptions{Timeout: r.timeout()})
	case bugfarm.OpSelect:
		_, err = r.locate(st).SelectOption(playwright.SelectOptionValues{Values: &[]string{st.Value}}, playwright.LocatorSelectOptionOptions{Timeout: r.timeout()})
	case bugfarm.OpCheck:
		err = r.locate(st).Check(playwright.LocatorCheckOptions{Timeout: r.timeout()})
	case bugfarm.OpUncheck:
		err = r.locate(st).Uncheck(playwright.LocatorUncheckOptions{Timeout: r.timeout()})
	case bugfarm.OpPress:
		if st.Selector == "" {
			err = r.page.Keyboard().Press(st.Key)
		} else {
			err = r.locate(st).Press(st.Key, playwright.LocatorPressOptions{Timeout: r.timeout()})
		}
	case bugfarm.OpSetFile:
		name := st.Value
		if name == "" {
			name = "upload.txt"
		}
		err = r.locate(st).SetInputFiles([]playwright.InputFile{{Name: name, MimeType: mimeOf(name), Buffer: fileContent(name)}},
			playwright.LocatorSetInputFilesOptions{Timeout: r.timeout()})
	case bugfarm.OpClearCookies:
		err = r.bctx.ClearCookies()
	case bugfarm.OpReload:
		_, err = r.page.Reload(playwright.PageReloadOptions{Timeout: r.timeout(), WaitUntil: playwright.WaitUntilStateLoad})
	case bugfarm.OpWait:
		d, werr := waitDuration(st.Value)
		if werr != nil {
			return werr
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		return nil
	default:
		return fmt.Errorf("unknown op %q", st.Op)
	}
	if err != nil {
		return oneLine(err)
	}
	r.afterAction(ctx)
	return nil
}

// gotoURL loads u. A navigation the previous step started late (a form's
// POST answered by a redirect, on a loaded machine) can interrupt it; then
// that navigation is let finish and u is loaded again, once.
func (r *run) gotoURL(ctx context.Context, u string) error {
	opts := playwright.PageGotoOptions{Timeout: r.timeout(), WaitUntil: playwright.WaitUntilStateLoad}
	_, err := r.page.Goto(u, opts)
	if err == nil || !strings.Contains(err.Error(), "interrupted by another navigation") {
		return err
	}
	r.afterAction(ctx)
	_, err = r.page.Goto(u, opts)
	return err
}

// armDoubleJS arms the second click of a double click: gap ms after the
// first click reaches el, the page clicks el again and fires dblclick.
// Playwright would wait for the navigation the first click started before
// a second click of its own, so the second one is fired from the page.
const armDoubleJS = `(el, gap) => {
  const h = (ev) => {
    if (!ev.composedPath().includes(el)) return;
    removeEventListener('click', h, true);
    setTimeout(() => {
      try {
        el.click();
        el.dispatchEvent(new MouseEvent('dblclick', {bubbles: true, cancelable: true, composed: true, detail: 2, view: window}));
      } catch (e) {}
    }, gap);
  };
  addEventListener('click', h, true);
  setTimeout(() => removeEventListener('click', h, true), 10000);
  return true;
}`

// doubleGap is the time between the two clicks of a double click.
const doubleGap = 80 * time.Millisecond

// dblclick double-clicks like an impatient user: a real click, a second
// one doubleGap later, then a dblclick event. While it does, the answers
// to POST requests are held back for DoubleHold after the server answered,
// as a remote server's latency would: against a loopback server the first
// post's page would otherwise replace the form before the second click, so
// a double submit would depend on the machine's speed.
func (r *run) dblclick(ctx context.Context, st bugfarm.Step) error {
	var pending atomic.Int32
	hold := func(route playwright.Route) {
		req := route.Request()
		if req.Method() != "POST" {
			_ = route.Continue()
			return
		}
		pending.Add(1)
		defer pending.Add(-1)
		resp, err := route.Fetch(playwright.RouteFetchOptions{MaxRedirects: playwright.Int(0), Timeout: r.timeout()})
		if err != nil {
			_ = route.Abort("failed")
			return
		}
		time.Sleep(r.d.opts.DoubleHold)
		_ = route.Fulfill(playwright.RouteFulfillOptions{Response: resp}) // fails when a later post replaced this one
	}
	if err := r.page.Route("**/*", hold); err != nil {
		return fmt.Errorf("hold posts: %w", err)
	}
	defer func() { _ = r.page.Unroute("**/*", hold) }()
	loc := r.locate(st)
	if _, err := loc.Evaluate(armDoubleJS, doubleGap.Milliseconds(), playwright.LocatorEvaluateOptions{Timeout: r.timeout()}); err != nil {
		return err
	}
	if err := loc.Click(playwright.LocatorClickOptions{Timeout: r.timeout(), NoWaitAfter: playwright.Bool(true)}); err != nil {
		return err
	}
	deadline := time.Now().Add(r.d.opts.StepTimeout)
	sleep(ctx, doubleGap+100*time.Millisecond)
	for pending.Load() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		sleep(ctx, 25*time.Millisecond)
	}
	r.afterAction(ctx)
	return nil
}

// afterAction waits for a navigation the action started (a followed link,
// a submitted form) to load, so the next step acts on the new page. Fetches
// are not waited for: two quick steps stay quick.
func (r *run) afterAction(ctx context.Context) {
	deadline := time.Now().Add(r.d.opts.StepTimeout)
	sleep(ctx, 60*time.Millisecond)
	for r.rec.navigating() && time.Now().Before(deadline) && ctx.Err() == nil {
		sleep(ctx, 25*time.Millisecond)
	}
	_ = r.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad,
		Timeout: playwright.Float(float64(max(time.Until(deadline), time.Millisecond).Milliseconds()))})
}

// waitQuiet waits until no request has been in flight for a moment, at
// most QuietTimeout.
func (r *run) waitQuiet(ctx context.Context) {
	deadline := time.Now().Add(r.d.opts.QuietTimeout)
	for !r.rec.quietFor(300*time.Millisecond) && time.Now().Before(deadline) && ctx.Err() == nil {
		sleep(ctx, 50*time.Millisecond)
	}
}

// expect checks bug.Expect: polled until it fires or Settle has passed
// since the network went quiet.
func (r *run) expect(ctx context.Context) (bool, string, error) {
	if r.bug.Expect.Signal == bugfarm.SignalDead {
		r.waitQuiet(ctx)
		return r.dead(ctx)
	}
	check := r.checker()
	r.waitQuiet(ctx)
	deadline := time.Now().Add(r.d.opts.Settle)
	var lastErr error
	for {
		ok, ev, err := check(ctx)
		if ok {
			return true, ev, nil
		}
		lastErr = err
		if time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		sleep(ctx, 150*time.Millisecond)
	}
	if ctx.Err() != nil {
		return false, "", ctx.Err()
	}
	if lastErr != nil {
		return false, "", fmt.Errorf("check %s: %w", r.bug.Expect.Signal, lastErr)
	}
	return false, "", nil
}

type checkFunc func(ctx context.Context) (bool, string, error)

func (r *run) checker() checkFunc {
	e := r.bug.Expect
	rec := r.rec
	switch e.Signal {
	case bugfarm.SignalPageError:
		return func(context.Context) (bool, string, error) {
			ev, ok := rec.matchText(func(r *recorder) []string { return r.pageErrors })
			return ok, ev, nil
		}
	case bugfarm.SignalConsole:
		return func(context.Context) (bool, string, error) {
			ev, ok := rec.matchText(func(r *recorder) []string { return r.consoleErrors })
			return ok, ev, nil
		}
	case bugfarm.SignalScript:
		return func(context.Context) (bool, string, error) {
			ev, ok := rec.matchText(func(r *recorder) []string { return r.scripts })
			return ok, "__bfxss ran in " + clip(ev, 500), nil
		}
	case bugfarm.SignalResponse:
		return func(context.Context) (bool, string, error) {
			for _, resp := range rec.responsesSnapshot() {
				if resp.status == e.Status && (rec.id.MatchString(resp.url) || rec.id.MatchString(resp.body)) {
					return true, fmt.Sprintf("%s %s → %d: %s", resp.method, resp.url, resp.status, clip(resp.body, 300)), nil
				}
			}
			return false, "", nil
		}
	case bugfarm.SignalSlow:
		return func(ctx context.Context) (bool, string, error) {
			for _, resp := range rec.responsesSnapshot() {
				if resp.dur <= r.d.opts.SlowThreshold {
					continue
				}
				where := ""
				for _, h := range strings.Split(resp.headers, "\n") {
					if rec.id.MatchString(h) {
						where = " (" + h + ")"
						break
					}
				}
				if where != "" || rec.id.MatchString(resp.url) {
					return true, fmt.Sprintf("%s %s → %d in %s%s", resp.method, resp.url, resp.status, resp.dur.Round(10*time.Millisecond), where), nil
				}
			}
			if e.Selector != "" {
				return r.domHolding(e.Selector)
			}
			return false, "", nil
		}
	case bugfarm.SignalDOM:
		return func(context.Context) (bool, string, error) { return r.domHolding(e.Selector) }
	case bugfarm.SignalAxe:
		return r.axeCheck
	}
	return func(context.Context) (bool, string, error) {
		return false, "", fmt.Errorf("unknown signal %q", e.Signal)
	}
}

// holdingJS returns the outerHTML of the first element holding the id in
// its text or attributes (its subtree's), or "".
const holdingJS = `(els, src) => {
  const re = new RegExp(src, 'i');
  for (const e of els) {
    const h = e.outerHTML || '';
    if (re.test(h)) return h.slice(0, 500);
  }
  return '';
}`

// domHolding looks for an element matching sel and holding the id, in
// every frame of the page.
func (r *run) domHolding(sel string) (bool, string, error) {
	var lastErr error
	for _, f := range r.page.Frames() {
		v, err := f.Locator(sel).EvaluateAll(holdingJS, r.rec.idSrc)
		if err != nil {
			lastErr = oneLine(err)
			continue
		}
		if s, _ := v.(string); s != "" {
			return true, fmt.Sprintf("%s: %s", sel, s), nil
		}
	}
	if lastErr != nil && isSelectorError(lastErr) {
		return false, "", lastErr
	}
	return false, "", nil
}

const axeRunJS = `async (rule) => {
  const opts = {resultTypes: ['violations'], iframes: false};
  if (rule) opts.runOnly = {type: 'rule', values: [rule]};
  const res = await window.axe.run(document, opts);
  const out = [];
  for (const v of res.violations) {
    if (!rule && v.impact !== 'serious' && v.impact !== 'critical') continue;
    for (const n of v.nodes) out.push(v.id + ' (' + v.impact + ') on ' + n.html);
  }
  return out;
}`

// axeCheck runs axe-core (Expect.Rule, or every serious or critical rule)
// in each frame and looks for a node holding the id.
func (r *run) axeCheck(ctx context.Context) (bool, string, error) {
	var lastErr error
	for _, f := range r.page.Frames() {
		if u := f.URL(); u == "" || strings.HasPrefix(u, "about:") && f.ParentFrame() != nil {
			continue
		}
		has, err := f.Evaluate(`() => typeof window.axe === 'object' && typeof window.axe.run === 'function'`)
		if err != nil {
			lastErr = oneLine(err)
			continue
		}
		if b, _ := has.(bool); !b {
			if _, err := f.AddScriptTag(playwright.FrameAddScriptTagOptions{Content: playwright.String(r.axeSrc)}); err != nil {
				lastErr = fmt.Errorf("inject axe-core: %w", oneLine(err))
				continue
			}
		}
		v, err := f.Evaluate(axeRunJS, r.bug.Expect.Rule)
		if err != nil {
			lastErr = fmt.Errorf("axe.run: %w", oneLine(err))
			continue
		}
		list, _ := v.([]any)
		for _, item := range list {
			s, _ := item.(string)
			if r.rec.id.MatchString(s) {
				return true, clip(s, 500), nil
			}
		}
	}
	return false, "", lastErr
}

// deadObserveJS counts DOM mutations in the document and its open shadow
// roots from now on.
const deadObserveJS = `() => {
  const st = {n: 0};
  window.__bfdead = st;
  const obs = new MutationObserver((ms) => { st.n += ms.length; });
  const opts = {subtree: true, childList: true, attributes: true, characterData: true};
  const watch = (root) => {
    obs.observe(root, opts);
    const w = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let e = w.currentNode; e; e = w.nextNode()) if (e.shadowRoot) watch(e.shadowRoot);
  };
  watch(document);
  return true;
}`

// deadAction is the click SignalDead watches: the trigger's last step when
// it clicks (or presses a key on) Expect.Selector, else a click on
// Expect.Selector after the whole trigger. ok reports whether it is the
// trigger's last step, which Reproduce then leaves to dead.
func deadAction(bug bugfarm.Bug) (st bugfarm.Step, last bool) {
	if n := len(bug.Trigger); n > 0 {
		st := bug.Trigger[n-1]
		switch st.Op {
		case bugfarm.OpClick, bugfarm.OpDblClick, bugfarm.OpPress:
			if st.Selector == bug.Expect.Selector {
				return st, true
			}
		}
	}
	return bugfarm.Step{Op: bugfarm.OpClick, Selector: bug.Expect.Selector}, false
}

// frameOf is the frame st's selector lives in: its Frame's content frame,
// else the main frame, else the first child frame holding a match.
func (r *run) frameOf(st bugfarm.Step) (playwright.Frame, error) {
	if st.Frame != "" {
		eh, err := r.page.Locator(st.Frame).First().ElementHandle(playwright.LocatorElementHandleOptions{Timeout: r.timeout()})
		if err != nil {
			return nil, fmt.Errorf("frame %q: %w", st.Frame, oneLine(err))
		}
		f, err := eh.ContentFrame()
		if err != nil || f == nil {
			return nil, fmt.Errorf("frame %q: not an iframe (%v)", st.Frame, err)
		}
		return f, nil
	}
	main := r.page.MainFrame()
	for _, f := range r.page.Frames() {
		n, err := f.Locator(st.Selector).Count()
		if err != nil {
			if isSelectorError(oneLine(err)) {
				return nil, oneLine(err)
			}
			continue
		}
		if n > 0 {
			return f, nil
		}
	}
	return main, nil
}

// dead performs deadAction (the element must hold the id) and reports
// whether nothing changed within DeadWait: no DOM mutation in the
// element's document (open shadow roots included), no navigation, no
// request, no dialog or popup.
func (r *run) dead(ctx context.Context) (bool, string, error) {
	st, _ := deadAction(r.bug)
	frame, err := r.frameOf(st)
	if err != nil {
		return false, "", fmt.Errorf("dead: %w", err)
	}
	loc := frame.Locator(st.Selector).First()
	if n, err := frame.Locator(st.Selector).Count(); err != nil || n == 0 {
		return false, "", fmt.Errorf("dead: no element matches %q", st.Selector)
	}
	html, err := loc.Evaluate(`(e) => e.outerHTML.slice(0, 500)`, nil, playwright.LocatorEvaluateOptions{Timeout: r.timeout()})
	if err != nil {
		return false, "", fmt.Errorf("dead: %w", oneLine(err))
	}
	h, _ := html.(string)
	if !r.rec.id.MatchString(h) {
		return false, "", nil // not the element holding the id
	}
	if _, err := frame.Evaluate(deadObserveJS); err != nil {
		return false, "", fmt.Errorf("dead: observe: %w", oneLine(err))
	}
	before, url := r.rec.counters(), r.page.URL()
	switch st.Op {
	case bugfarm.OpPress:
		err = loc.Press(st.Key, playwright.LocatorPressOptions{Timeout: r.timeout()})
	case bugfarm.OpDblClick:
		err = loc.Click(playwright.LocatorClickOptions{Timeout: r.timeout(), ClickCount: playwright.Int(2)})
	default:
		err = loc.Click(playwright.LocatorClickOptions{Timeout: r.timeout()})
	}
	if err != nil {
		return false, "", fmt.Errorf("dead: %s: %w", st.Op, oneLine(err))
	}
	sleep(ctx, r.d.opts.DeadWait)
	if ctx.Err() != nil {
		return false, "", ctx.Err()
	}
	after := r.rec.counters()
	mutations := -1
	if v, err := frame.Evaluate(`() => window.__bfdead ? window.__bfdead.n : -1`); err == nil {
		switch n := v.(type) {
		case int:
			mutations = n
		case float64:
			mutations = int(n)
		}
	}
	if mutations != 0 || after != before || r.page.URL() != url {
		return false, "", nil
	}
	return true, fmt.Sprintf("%s on %s: no DOM mutation, navigation, request or dialog within %s", st.Op, clip(h, 300), r.d.opts.DeadWait), nil
}

func isSelectorError(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "unexpected token") || strings.Contains(s, "is not a valid selector") || strings.Contains(s, "parsing css selector")
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// oneLine keeps the first line of a Playwright error (they carry call logs).
func oneLine(err error) error {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return errors.New(strings.TrimSpace(s[:i]))
	}
	return err
}

func mimeOf(name string) string {
	switch {
	case strings.HasSuffix(name, ".png"):
		return "image/png"
	case strings.HasSuffix(name, ".jpg"), strings.HasSuffix(name, ".jpeg"):
		return "image/jpeg"
	case strings.HasSuffix(name, ".json"):
		return "application/json"
	case strings.HasSuffix(name, ".csv"):
		return "text/csv"
	case strings.HasSuffix(name, ".pdf"):
		return "application/pdf"
	}
	return "text/plain"
}

// fileContent is the generated content of an uploaded file.
func fileContent(name string) []byte {
	if strings.HasSuffix(name, ".png") {
		// A 1×1 transparent PNG.
		return []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
	}
	return []byte("bugfarm upload " + name + "\n")
}

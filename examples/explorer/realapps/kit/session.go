package kit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
)

// XSSFunc is what a trigger's stored-markup payload calls:
// window.__rxss('<id>') records the call (Session.XSS).
const XSSFunc = "__rxss"

// Response is one answer the session's page received.
type Response struct {
	Method string        `json:"method"`
	URL    string        `json:"url"`
	Status int           `json:"status"`
	Body   string        `json:"body,omitempty"` // the first 4 KiB, for status >= 400
	Dur    time.Duration `json:"dur_ns"`         // request sent to response headers
}

// Session is a trigger's browser: a fresh context of the shared Chromium
// on one page, recording what the page does.
type Session struct {
	Base    string // the instance's origin
	Account Account
	Page    playwright.Page

	bctx    playwright.BrowserContext
	bodies  sync.WaitGroup // error bodies being fetched
	mu      sync.Mutex
	started map[playwright.Request]time.Time
	resps   []Response
	errs    []string // page errors
	console []string // console errors
	xss     []string
}

// StepTimeout bounds every Playwright call of a trigger.
const StepTimeout = 20 * time.Second

// OpenSession opens a fresh browser context on b for base.
func OpenSession(b *browser.Browser, base string, acc Account) (*Session, error) {
	bctx, err := b.Playwright().NewContext(playwright.BrowserNewContextOptions{
		BypassCSP:       playwright.Bool(true),
		AcceptDownloads: playwright.Bool(false),
		Viewport:        &playwright.Size{Width: 1280, Height: 800},
	})
	if err != nil {
		return nil, fmt.Errorf("kit: new browser context: %w", err)
	}
	ms := float64(StepTimeout.Milliseconds())
	bctx.SetDefaultTimeout(ms)
	bctx.SetDefaultNavigationTimeout(ms)
	s := &Session{Base: strings.TrimRight(base, "/"), Account: acc, bctx: bctx, started: map[playwright.Request]time.Time{}}
	if err := bctx.ExposeFunction(XSSFunc, func(args ...any) any {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(args) > 0 {
			s.xss = append(s.xss, fmt.Sprint(args[0]))
		} else {
			s.xss = append(s.xss, "")
		}
		return nil
	}); err != nil {
		_ = bctx.Close()
		return nil, fmt.Errorf("kit: expose %s: %w", XSSFunc, err)
	}
	page, err := bctx.NewPage()
	if err != nil {
		_ = bctx.Close()
		return nil, fmt.Errorf("kit: new page: %w", err)
	}
	s.Page = page
	page.OnPageError(func(err error) {
		msg := err.Error()
		var pe *playwright.Error
		if errors.As(err, &pe) {
			msg = pe.Message
		}
		s.mu.Lock()
		s.errs = append(s.errs, msg)
		s.mu.Unlock()
	})
	page.OnConsole(func(m playwright.ConsoleMessage) {
		if m.Type() != "error" || strings.HasPrefix(m.Text(), "Failed to load resource") {
			return
		}
		s.mu.Lock()
		s.console = append(s.console, m.Text())
		s.mu.Unlock()
	})
	page.OnRequest(func(r playwright.Request) {
		s.mu.Lock()
		s.started[r] = time.Now()
		s.mu.Unlock()
	})
	page.OnResponse(func(r playwright.Response) {
		req := r.Request()
		s.mu.Lock()
		t0, ok := s.started[req]
		s.mu.Unlock()
		resp := Response{Method: req.Method(), URL: r.URL(), Status: r.Status()}
		if ok {
			resp.Dur = time.Since(t0)
		}
		s.mu.Lock()
		i := len(s.resps)
		s.resps = append(s.resps, resp)
		s.mu.Unlock()
		if r.Status() < 400 {
			return
		}
		// The body is fetched apart from the event: waiting for it here
		// holds up the driver's other events (a navigation's answer
		// then never shows).
		s.bodies.Add(1)
		go func() {
			defer s.bodies.Done()
			if body, err := r.Body(); err == nil {
				s.mu.Lock()
				s.resps[i].Body = clip(string(body), 4096)
				s.mu.Unlock()
			}
		}()
	})
	return s, nil
}

// Close closes the session's browser context.
func (s *Session) Close() { _ = s.bctx.Close() }

// URL makes an absolute URL of a path.
func (s *Session) URL(path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	return s.Base + "/" + strings.TrimLeft(path, "/")
}

// Goto opens path and returns the main response's status (0 when none).
func (s *Session) Goto(path string) (int, error) {
	r, err := s.Page.Goto(s.URL(path), playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateLoad})
	if err != nil {
		return 0, fmt.Errorf("goto %s: %w", path, err)
	}
	if r == nil {
		return 0, nil
	}
	return r.Status(), nil
}

// Fill fills the field selector with value.
func (s *Session) Fill(selector, value string) error {
	if err := s.Page.Locator(selector).First().Fill(value); err != nil {
		return fmt.Errorf("fill %s: %w", selector, err)
	}
	return nil
}

// Click clicks selector and waits for the page to settle (load state).
func (s *Session) Click(selector string) error {
	if err := s.Page.Locator(selector).First().Click(); err != nil {
		return fmt.Errorf("click %s: %w", selector, err)
	}
	return s.Settle()
}

// Settle waits for the page's load state and the network to go quiet
// (bounded: a slow request is the defect some triggers look for).
func (s *Session) Settle() error {
	if err := s.Page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad}); err != nil {
		return fmt.Errorf("wait for load: %w", err)
	}
	_ = s.Page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateNetworkidle, Timeout: playwright.Float(10000)})
	return nil
}

// Text is the inner text of the first element matching selector.
func (s *Session) Text(selector string) (string, error) {
	t, err := s.Page.Locator(selector).First().InnerText()
	if err != nil {
		return "", fmt.Errorf("text of %s: %w", selector, err)
	}
	return t, nil
}

// Content is the page's HTML.
func (s *Session) Content() (string, error) {
	c, err := s.Page.Content()
	if err != nil {
		return "", fmt.Errorf("page content: %w", err)
	}
	return c, nil
}

// Responses are the answers so far, in order (with the bodies of the
// failed ones, waited for up to 5 s).
func (s *Session) Responses() []Response {
	done := make(chan struct{})
	go func() { s.bodies.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Response(nil), s.resps...)
}

// PageErrors are the uncaught errors so far.
func (s *Session) PageErrors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

// ConsoleErrors are the console errors so far (without Chromium's
// "Failed to load resource" lines).
func (s *Session) ConsoleErrors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.console...)
}

// XSS are the arguments of the window.__rxss calls so far.
func (s *Session) XSS() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.xss...)
}

// Find returns the last response that ok accepts.
func (s *Session) Find(ok func(Response) bool) (Response, bool) {
	rs := s.Responses()
	for i := len(rs) - 1; i >= 0; i-- {
		if ok(rs[i]) {
			return rs[i], true
		}
	}
	return Response{}, false
}

// AxeNode is one node of an axe-core violation.
type AxeNode struct {
	Rule   string `json:"rule"`
	Impact string `json:"impact"`
	HTML   string `json:"html"`
}

// Axe runs axe-core's rules on the page (collector.FindAxe: what
// scripts/setup.sh installs) and returns the violating nodes.
func (s *Session) Axe(rules ...string) ([]AxeNode, error) {
	path, err := collector.FindAxe()
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("kit: axe-core: %w", err)
	}
	if _, err := s.Page.AddScriptTag(playwright.PageAddScriptTagOptions{Content: playwright.String(string(src))}); err != nil {
		return nil, fmt.Errorf("kit: inject axe-core: %w", err)
	}
	v, err := s.Page.Evaluate(`async (rules) => {
		const opts = rules.length ? {runOnly: {type: 'rule', values: rules}} : {};
		const r = await axe.run(document, opts);
		const out = [];
		for (const v of r.violations) for (const n of v.nodes) out.push({rule: v.id, impact: n.impact || v.impact || '', html: n.html});
		return out;
	}`, rules)
	if err != nil {
		return nil, fmt.Errorf("kit: axe.run: %w", err)
	}
	var out []AxeNode
	items, _ := v.([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		out = append(out, AxeNode{Rule: fmt.Sprint(m["rule"]), Impact: fmt.Sprint(m["impact"]), HTML: fmt.Sprint(m["html"])})
	}
	return out, nil
}

// ClickIsDead clicks selector and watches for wait: it is dead when the
// click caused no DOM mutation, no navigation, no request and no dialog.
// The second value says what the click did when it was alive.
func (s *Session) ClickIsDead(selector string, wait time.Duration) (bool, string, error) {
	if _, err := s.Page.Evaluate(`() => {
		window.__rxMut = 0;
		if (window.__rxObs) window.__rxObs.disconnect();
		window.__rxObs = new MutationObserver((ms) => { window.__rxMut += ms.length; });
		window.__rxObs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
	}`); err != nil {
		return false, "", fmt.Errorf("kit: watch DOM: %w", err)
	}
	url := s.Page.URL()
	before := len(s.Responses())
	dialogs := 0
	var dmu sync.Mutex
	onDialog := func(d playwright.Dialog) {
		dmu.Lock()
		dialogs++
		dmu.Unlock()
		_ = d.Dismiss()
	}
	s.Page.OnDialog(onDialog)
	defer s.Page.RemoveListener("dialog", onDialog)
	if err := s.Page.Locator(selector).First().Click(); err != nil {
		return false, "", fmt.Errorf("click %s: %w", selector, err)
	}
	time.Sleep(wait)
	if s.Page.URL() != url {
		return false, "navigated to " + s.Page.URL(), nil
	}
	if n := len(s.Responses()) - before; n > 0 {
		return false, fmt.Sprintf("%d requests", n), nil
	}
	dmu.Lock()
	d := dialogs
	dmu.Unlock()
	if d > 0 {
		return false, "a dialog opened", nil
	}
	v, err := s.Page.Evaluate(`() => window.__rxMut || 0`)
	if err != nil {
		// The document went away: the click did something.
		return false, "the document changed", nil
	}
	if n, _ := v.(int); n > 0 {
		return false, fmt.Sprintf("%d DOM mutations", n), nil
	}
	if f, ok := v.(float64); ok && f > 0 {
		return false, fmt.Sprintf("%.0f DOM mutations", f), nil
	}
	return true, "", nil
}

// Run plays m's trigger in a fresh session, bounded by ctx.
func Run(ctx context.Context, b *browser.Browser, base string, acc Account, m Mutation) (Verdict, error) {
	s, err := OpenSession(b, base, acc)
	if err != nil {
		return Verdict{}, err
	}
	type result struct {
		v   Verdict
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := m.Trigger(ctx, s)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		s.Close()
		return r.v, r.err
	case <-ctx.Done():
		// The trigger ends at its next bounded step; the context is closed then.
		go func() { <-done; s.Close() }()
		return Verdict{}, ctx.Err()
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// AxeViolation runs axe-core's rule on the page and is Visible when a
// violating node's HTML contains marker (the mutated element), Absent
// otherwise; what names that element in the verdict.
func (s *Session) AxeViolation(rule, marker, what string) (Verdict, error) {
	nodes, err := s.Axe(rule)
	if err != nil {
		return Verdict{}, err
	}
	for _, n := range nodes {
		if strings.Contains(n.HTML, marker) {
			return Visible("axe %s (%s): %s", n.Rule, n.Impact, n.HTML), nil
		}
	}
	return Absent("axe %s: %d nodes, none %s", rule, len(nodes), what), nil
}

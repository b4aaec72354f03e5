package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/agentgraph/agentgraph/internal/safefile"
)

// DialogPolicy says what the engine does with alert/confirm/prompt dialogs.
type DialogPolicy string

// Dialog policies. Every dialog is recorded as a FindDialog finding.
const (
	DialogAccept  DialogPolicy = "accept"
	DialogDismiss DialogPolicy = "dismiss"
)

// Viewport is the page size in CSS pixels.
type Viewport struct{ Width, Height int }

// Config scopes an Engine. Origins is required; the rest has defaults.
type Config struct {
	// Origins the agent may visit, e.g. "http://127.0.0.1:8080". Navigation
	// anywhere else (other hosts, file:, data:, javascript:) is refused, in
	// intents, in-page links, redirects, meta refreshes, popups and frames
	// alike; so are sub-resources (images, scripts, fetches) of other
	// origins unless SubresourceOrigins lists them. Every request of a
	// user's browser context passes the engine's origin guard (a loopback
	// proxy of the context), so a refused request never reaches the other
	// origin.
	Origins []string
	// SubresourceOrigins may serve sub-resources (images, scripts, styles,
	// fonts, fetches; a CDN) but never a document: navigations and frames
	// there are refused like any other origin's.
	SubresourceOrigins []string
	// Aliases maps a URL prefix a caller may name (the app's public
	// address, say) to the prefix within Origins that serves it (a local
	// front such as a recording proxy): a navigation to
	// https://shop.example/cart with {"https://shop.example":
	// "http://127.0.0.1:4100"} loads http://127.0.0.1:4100/cart.
	Aliases map[string]string
	// Secrets holds the secret values typed into pages and their
	// references (${SECRET_1}); nil gives the engine its own. Values typed
	// into password fields (and SecretFields) join it, and every value it
	// holds is recorded as its reference: on the tape, in results, errors
	// and findings, and in specs (process.env.SECRET_1). Share one between
	// the engines that replay each other's tapes.
	Secrets *Secrets
	// SecretFields are CSS selectors of further fields whose values are
	// secret (an API key field: `[name="api_key"]`), besides password
	// inputs.
	SecretFields []string
	// Viewport of every page (default 1280×800).
	Viewport Viewport
	// StorageStatePath, when set, seeds every new user context (cookies,
	// localStorage) from a Playwright storage-state JSON file.
	StorageStatePath string
	// Dialogs is the dialog policy (default DialogAccept).
	Dialogs DialogPolicy
	// ActionTimeout bounds each Playwright action (default 5s).
	ActionTimeout time.Duration
	// SettleTimeout bounds the wait for the page to go quiet after an
	// action (default 3s); SettleQuiet is how long the network must stay
	// idle (default 100ms).
	SettleTimeout time.Duration
	SettleQuiet   time.Duration
	// SpinnerTimeout is how long a visible spinner may stay before it is a
	// finding (default 3s).
	SpinnerTimeout time.Duration
	// SnapshotBudget caps snapshot text in characters (default 12000).
	SnapshotBudget int
	// TextBudget caps extract_text output (default 4000).
	TextBudget int
	// Tape, when set, receives every action (durably).
	Tape *Tape
	// WindowSize is the in-memory tape window for the model (default 50).
	WindowSize int
	// ArtifactDir, when set, is where screenshots are written.
	ArtifactDir string
	// Logger (default slog.Default()).
	Logger *slog.Logger
	// InitScripts run in every document of every user context (each page,
	// frame and navigation) before the page's own scripts, in this order,
	// after the engine's popup guard (Playwright's
	// BrowserContext.AddInitScript): instrumentation or a monkey tester
	// such as gremlins.js. They can neither widen the allowed origins nor
	// see the engine's state.
	InitScripts []string
}

func (c *Config) defaults() {
	if c.Viewport.Width <= 0 || c.Viewport.Height <= 0 {
		c.Viewport = Viewport{1280, 800}
	}
	if c.Dialogs == "" {
		c.Dialogs = DialogAccept
	}
	if c.ActionTimeout <= 0 {
		c.ActionTimeout = 5 * time.Second
	}
	if c.SettleTimeout <= 0 {
		c.SettleTimeout = 3 * time.Second
	}
	if c.SettleQuiet <= 0 {
		c.SettleQuiet = 100 * time.Millisecond
	}
	if c.SpinnerTimeout <= 0 {
		c.SpinnerTimeout = 3 * time.Second
	}
	if c.SnapshotBudget <= 0 {
		c.SnapshotBudget = 12000
	}
	if c.TextBudget <= 0 {
		c.TextBudget = 4000
	}
	if c.WindowSize <= 0 {
		c.WindowSize = 50
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Engine is the agents' hands in one app: its allowed origins, its users
// (each an isolated browser context), its tape. Safe for concurrent use;
// actions of one user run one at a time.
type Engine struct {
	b       *Browser
	cfg     Config
	origins []string
	subres  []string
	secrets *Secrets

	mu     sync.Mutex
	users  map[string]*Session
	order  []string
	window *Window
	seq    atomic.Int64
	closed bool
}

// NewEngine scopes b to cfg.Origins. Origins must be http(s) origins.
func (b *Browser) NewEngine(cfg Config) (*Engine, error) {
	cfg.defaults()
	if len(cfg.Origins) == 0 {
		return nil, errors.New("browser: engine: no allowed origins")
	}
	var origins []string
	for _, o := range cfg.Origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("browser: engine: origin %q: want http(s)://host[:port]", o)
		}
		origins = append(origins, u.Scheme+"://"+u.Host)
	}
	subres, err := normOrigins("sub-resource origin", cfg.SubresourceOrigins)
	if err != nil {
		return nil, err
	}
	if cfg.Dialogs != DialogAccept && cfg.Dialogs != DialogDismiss {
		return nil, fmt.Errorf("browser: engine: dialog policy %q: want accept or dismiss", cfg.Dialogs)
	}
	if cfg.StorageStatePath != "" {
		if _, err := os.Stat(cfg.StorageStatePath); err != nil {
			return nil, fmt.Errorf("browser: engine: storage state: %w", err)
		}
	}
	secrets := cfg.Secrets
	if secrets == nil {
		secrets = NewSecrets()
	}
	// What the engine logs (an error's text, a URL) may hold a value
	// typed into a secret field: its lines go out redacted.
	cfg.Logger = slog.New(RedactHandler(cfg.Logger.Handler(), secrets))
	return &Engine{b: b, cfg: cfg, origins: origins, subres: subres, secrets: secrets, users: map[string]*Session{}, window: NewWindow(cfg.WindowSize)}, nil
}

// Origins are the allowed origins, normalised.
func (e *Engine) Origins() []string { return slices.Clone(e.origins) }

// Secrets is the engine's set of secret values and their references.
func (e *Engine) Secrets() *Secrets { return e.secrets }

// Window is the in-memory bounded tape of the latest actions.
func (e *Engine) Window() *Window { return e.window }

// Allowed reports whether raw is an http(s) URL within the allowed origins.
func (e *Engine) Allowed(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return slices.Contains(e.origins, u.Scheme+"://"+u.Host)
}

// Users lists the user names in creation order.
func (e *Engine) Users() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.order)
}

// User returns the named user's session, creating its isolated browser
// context on first use. Switching between existing users costs nothing.
func (e *Engine) User(ctx context.Context, name string) (*Session, error) {
	if name == "" {
		name = "default"
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("browser: engine closed")
	}
	if s, ok := e.users[name]; ok {
		return s, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := e.newSession(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("browser: user %q: %w", name, err)
	}
	e.users[name] = s
	e.order = append(e.order, name)
	return s, nil
}

// Close closes every user's context (the Browser stays open).
func (e *Engine) Close() error {
	e.mu.Lock()
	users := e.users
	e.users = map[string]*Session{}
	e.order = nil
	e.closed = true
	e.mu.Unlock()
	var errs []error
	for _, s := range users {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

// Session is one user's isolated browser context and page.
type Session struct {
	e     *Engine
	user  string
	bctx  playwright.BrowserContext
	page  playwright.Page // written under mu and pageMu (replacePage)
	h     *health
	guard *netGuard

	pageMu       sync.Mutex             // guards page for readers outside mu (URL, Evaluate)
	suspect      bool                   // a call of the current action timed out (under mu)
	ctx          context.Context        // the context of the action in progress (under mu)
	fillRec      *string                // the value a fill records, when it differs from the intent's (under mu)
	formRec      []string               // the values a fill_form records, by field (fill fields: as fillValue says; under mu)
	navBlocked   atomic.Pointer[string] // the latest navigation the origin guard refused
	popupBlocked atomic.Pointer[string] // the latest popup refused or closed for leaving the origins

	mu        sync.Mutex // one action at a time
	refs      map[string]bool
	xframes   map[string][]string // the frames of each xN ref (actionable.go)
	refsGen   int64
	navGen    atomic.Int64 // bumped on every main-frame navigation
	net       inflight
	loadWaits pending      // the page's load-state waits still running (bounded.go)
	lastNet   atomic.Int64 // unix nanos of the last request start/end
	blocked   sync.Map     // URLs the engine aborted (not request failures)

	jsMu  sync.Mutex // guards jsCov
	jsCov *jsCov     // the JavaScript coverage, once started (jscoverage.go)
}

// inflight is the set of the page's requests that have started and not
// finished or failed (event streams and web sockets aside).
type inflight struct {
	mu  sync.Mutex
	req map[playwright.Request]bool // value: a navigation request
}

func (f *inflight) start(r playwright.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.req == nil {
		f.req = map[playwright.Request]bool{}
	}
	f.req[r] = r.IsNavigationRequest()
}

func (f *inflight) done(r playwright.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.req, r)
}

// newDocument forgets the requests of the document the main frame left:
// Chromium reports neither the end nor the failure of some of them (the
// answer of a redirected fetch whose body the page never read before it
// navigated), and they would keep the page from ever looking idle.
func (f *inflight) newDocument() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for r, nav := range f.req {
		if !nav {
			delete(f.req, r)
		}
	}
}

// reset forgets every request (a fresh page).
func (f *inflight) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.req)
}

func (f *inflight) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.req)
}

func (e *Engine) newSession(ctx context.Context, user string) (*Session, error) {
	s := &Session{e: e, user: user, h: newHealth(), refs: map[string]bool{}}
	guard, err := newNetGuard(e.origins, e.subres, e.cfg.Logger, s.guardBlocked)
	if err != nil {
		return nil, err
	}
	opts := playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: e.cfg.Viewport.Width, Height: e.cfg.Viewport.Height},
		Proxy:    &playwright.Proxy{Server: guard.server()},
	}
	if e.cfg.StorageStatePath != "" {
		opts.StorageStatePath = playwright.String(e.cfg.StorageStatePath)
	}
	bctx, err := bounded(ctx, sessionTimeout, "new context", func() (playwright.BrowserContext, error) { return e.b.browser.NewContext(opts) })
	if err != nil {
		_ = guard.close()
		return nil, fmt.Errorf("new context: %w", err)
	}
	s.bctx, s.guard = bctx, guard
	fail := func(err error) (*Session, error) {
		_ = bctx.Close()
		_ = guard.close()
		return nil, err
	}
	bctx.SetDefaultTimeout(float64(e.cfg.ActionTimeout.Milliseconds()))
	bctx.SetDefaultNavigationTimeout(float64(max(e.cfg.ActionTimeout, 10*time.Second).Milliseconds()))
	origins, _ := json.Marshal(e.origins)
	if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(fmt.Sprintf(popupGuardJS, origins, popupMark))}); err != nil {
		return fail(fmt.Errorf("init script: %w", err))
	}
	for _, js := range []string{handlerJS, netIdleJS} {
		if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(js)}); err != nil {
			return fail(fmt.Errorf("init script: %w", err))
		}
	}
	for i, js := range e.cfg.InitScripts {
		if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(js)}); err != nil {
			return fail(fmt.Errorf("init script %d of Config.InitScripts: %w", i, err))
		}
	}
	page, err := bounded(ctx, sessionTimeout, "new page", func() (playwright.Page, error) { return bctx.NewPage() })
	if err != nil {
		return fail(fmt.Errorf("new page: %w", err))
	}
	// No route of the page's own: routing would turn off the browser's
	// HTTP cache (every page would fetch its scripts again through the
	// driver), and the origin guard (guard.go), a proxy of the whole
	// context, already refuses every request outside the origins:
	// navigations, redirects, popups, frames, images. Other schemes
	// (file:, data:) are Chromium's to refuse: a page may not navigate to
	// them, and navigate intents take http(s) URLs of the origins only.
	// Popups are refused by popupGuardJS and, as a backstop, closed in
	// OnPopup.
	s.page = page
	s.listen(page)
	return s, nil
}

// sessionTimeout bounds the creation of a user's context and page.
const sessionTimeout = 30 * time.Second

const popupMark = "agentgraph: popup refused: "

// popupGuardJS makes window.open refuse URLs outside the allowed origins
// before any popup exists; the refusal is reported through the console.
const popupGuardJS = `(() => {
  const allowed = %s, mark = %q, open = window.open;
  window.open = function (u, ...rest) {
    let origin = null;
    try { origin = new URL(u === undefined ? 'about:blank' : String(u), location.href).origin; } catch (e) {}
    if (u !== undefined && u !== '' && !allowed.includes(origin)) { console.warn(mark + String(u)); return null; }
    return open.call(this, u, ...rest);
  };
})();`

// guardBlocked is the origin guard's report of a refused request.
// A document refused (a redirect, a meta refresh, a link, a popup) fails
// the action in progress; a frame or a sub-resource is a finding. Without
// Sec-Fetch-Dest (Chromium sends it to secure and loopback origins only)
// the page's requestfailed event decides.
func (s *Session) guardBlocked(u, dest string) {
	switch dest {
	case "":
		s.blocked.Store(u, "")
	case "document":
		s.blocked.Store(u, dest)
		s.navBlocked.Store(&u)
		s.h.add(Finding{Kind: FindBlockedNav, Message: "navigation or redirect outside the allowed origins refused", URL: u})
	case "iframe", "frame", "embed", "object", "fencedframe":
		s.blocked.Store(u, dest)
		s.h.add(Finding{Kind: FindBlockedNav, Message: dest + " outside the allowed origins refused", URL: u})
	default:
		s.blocked.Store(u, dest)
		s.h.add(Finding{Kind: FindBlockedReq, Message: dest + " request outside the allowed origins refused", URL: u})
	}
}

// actx is the context of the action in progress, for helpers that take
// none (resolve, normalize).
func (s *Session) actx() context.Context {
	if s.ctx != nil {
		return s.ctx
	}
	return context.Background()
}

func (s *Session) touchNet() { s.lastNet.Store(time.Now().UnixNano()) }

func (s *Session) listen(p playwright.Page) {
	p.OnFrameNavigated(func(f playwright.Frame) {
		if f.ParentFrame() == nil {
			s.navGen.Add(1)
			s.net.newDocument()
		}
	})
	p.OnPageError(func(err error) {
		msg, ev := err.Error(), ""
		var pe *playwright.Error
		if errors.As(err, &pe) {
			msg, ev = pe.Message, pe.Stack
		}
		s.h.add(Finding{Kind: FindPageError, Message: msg, URL: p.URL(), Evidence: ev})
	})
	p.OnConsole(func(m playwright.ConsoleMessage) {
		switch {
		case m.Type() == "error" && s.refusedResource(m):
			// Chromium's "Failed to load resource" for a request the
			// origin guard refused: not the app's error.
		case m.Type() == "error":
			s.h.add(Finding{Kind: FindConsoleError, Message: m.Text(), URL: p.URL()})
		case m.Type() == "warning" && strings.HasPrefix(m.Text(), popupMark):
			u := strings.TrimPrefix(m.Text(), popupMark)
			s.popupBlocked.Store(&u)
			s.h.add(Finding{Kind: FindBlockedPopup, Message: "popup outside the allowed origins refused", URL: u})
		}
	})
	p.OnRequest(func(r playwright.Request) {
		if rt := r.ResourceType(); rt != "eventsource" && rt != "websocket" {
			s.net.start(r)
		}
		s.touchNet()
	})
	done := func(r playwright.Request) {
		s.net.done(r)
		s.touchNet()
	}
	p.OnRequestFinished(done)
	p.OnRequestFailed(func(r playwright.Request) {
		done(r)
		if dest, ok := s.blocked.Load(r.URL()); ok {
			if dest == "" { // refused by the guard, kind unknown until now
				s.blocked.Store(r.URL(), "seen")
				u := r.URL()
				if f := r.Frame(); r.IsNavigationRequest() && f != nil && f.ParentFrame() == nil {
					s.navBlocked.Store(&u)
					s.h.add(Finding{Kind: FindBlockedNav, Message: "navigation or redirect outside the allowed origins refused", URL: u})
				} else {
					s.h.add(Finding{Kind: FindBlockedReq, Message: r.ResourceType() + " request outside the allowed origins refused", URL: u})
				}
			}
			return
		}
		reason := "failed"
		if f := r.Failure(); f != nil {
			reason = f.Error()
		}
		if strings.Contains(reason, "ERR_ABORTED") && r.IsNavigationRequest() {
			return // superseded navigation
		}
		s.h.add(Finding{Kind: FindRequestFailed, Message: r.Method() + " request failed: " + reason, URL: r.URL()})
	})
	p.OnResponse(func(r playwright.Response) {
		st := r.Status()
		switch {
		case st >= 500:
			ev := ""
			if body, err := r.Text(); err == nil {
				ev = clip(strings.TrimSpace(body), 500)
			}
			s.h.add(Finding{Kind: FindServerError, Message: fmt.Sprintf("%s %s returned %d", r.Request().Method(), pathOf(r.URL()), st), URL: r.URL(), Status: st, Evidence: ev})
		case st == 404 && r.Request().IsNavigationRequest() && s.e.Allowed(r.URL()):
			s.h.add(Finding{Kind: FindNotFound, Message: "page not found: " + pathOf(r.URL()), URL: r.URL(), Status: st})
		}
	})
	p.OnDialog(func(d playwright.Dialog) {
		own := s.h.dialog()
		action := "accepted"
		var err error
		if s.e.cfg.Dialogs == DialogDismiss || !own {
			// Past the first few of an action (a storm), every dialog is
			// dismissed: a page that loops on confirm() gets "no".
			action = "dismissed"
			err = d.Dismiss()
		} else if d.Type() == "prompt" {
			err = d.Accept(d.DefaultValue())
		} else {
			err = d.Accept()
		}
		if err != nil {
			action += " (failed: " + oneLine(err) + ")"
		}
		if !own {
			return
		}
		s.h.add(Finding{Kind: FindDialog, Message: fmt.Sprintf("%s dialog %s", d.Type(), action), URL: p.URL(), Evidence: d.Message()})
	})
	p.OnPopup(func(pop playwright.Page) {
		if n := len(s.bctx.Pages()); n > maxPages {
			// A popup storm: past a few open pages, popups are closed at once.
			s.h.addOnce(Finding{Kind: FindBlockedPopup, Message: fmt.Sprintf("popup storm: more than %d pages open; further popups closed", maxPages), URL: p.URL()})
			go func() { _ = pop.Close() }()
			return
		}
		end := s.loadWaits.start() // the context's close waits for this wait (pending)
		go func() {
			defer s.loadWaits.end(end)
			_ = pop.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateDomcontentloaded, Timeout: playwright.Float(3000)})
			if u := pop.URL(); !s.e.Allowed(u) {
				s.popupBlocked.Store(&u)
				s.h.add(Finding{Kind: FindBlockedPopup, Message: "popup outside the allowed origins closed", URL: u})
				_ = pop.Close()
			}
		}()
	})
}

// maxPages bounds the pages of one user context (its page and popups).
const maxPages = 4

// refusedResource reports whether a console message is Chromium's report
// of a request the origin guard refused.
func (s *Session) refusedResource(m playwright.ConsoleMessage) bool {
	if !strings.HasPrefix(m.Text(), "Failed to load resource") {
		return false
	}
	loc := m.Location()
	if loc == nil || loc.URL == "" {
		return false
	}
	_, ok := s.blocked.Load(loc.URL)
	return ok
}

func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return raw
	}
	if u.RawQuery != "" {
		return u.Path + "?" + u.RawQuery
	}
	return u.Path
}

// close closes the context (bounded: a hung page cannot keep it open) and
// the origin guard.
func (s *Session) close() error {
	s.loadWaits.wait(s.e.cfg.SettleTimeout + callSlack)
	err := bounded0(context.Background(), 10*time.Second, "close context", func() error { return s.bctx.Close() })
	return errors.Join(err, s.guard.close())
}

// User is the session's user name.
func (s *Session) User() string { return s.user }

// URL is the current page URL.
func (s *Session) URL() string { return s.currentPage().URL() }

// Findings is the bounded health history of this user's session.
func (s *Session) Findings() []Finding { return s.h.history() }

// TakeFindings returns the findings that arrived since the last call to Do
// (or TakeFindings) and clears them, so they are reported once: the late
// ones, such as a page's own timer logging an error after the action that
// caused it had returned. Without it they ride on the next Do's Result.
func (s *Session) TakeFindings() []Finding { return s.h.drain() }

// SaveStorageState writes cookies and localStorage to path (Playwright's
// storage-state JSON), e.g. to seed later engines via Config.StorageStatePath.
func (s *Session) SaveStorageState(path string) error {
	// Bounded: Playwright reads localStorage from the pages themselves.
	if err := bounded0(context.Background(), s.e.cfg.ActionTimeout+callSlack, "storage state", func() error {
		_, err := s.bctx.StorageState(playwright.BrowserContextStorageStateOptions{Path: playwright.String(path)})
		return err
	}); err != nil {
		return fmt.Errorf("browser: storage state: %w", err)
	}
	// Session cookies are credentials: the file is the user's alone.
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("browser: storage state: %w", err)
	}
	return nil
}

// settle waits, bounded by SettleTimeout, for the DOM to load, in-flight
// requests to finish and the network to stay quiet for SettleQuiet. It is
// event-driven where the page allows: once the requests the engine sees
// (a navigation's document among them) have ended, the action is settled
// at once when the page, asked after its next frame, has no fetch or
// XMLHttpRequest in flight and none since the action began; when the
// action loaded a new document, that document must also have finished
// loading and have no timer callback due within SettleQuiet. A document
// that changed while the page was asked is asked again (a link's click
// whose page committed meanwhile). Otherwise the quiet is waited for: a
// page whose scripts start work just after loading (or hang then: the
// health probe that follows catches it, not the next action) gets it.
// The result says which way it ended, for the action's timing log.
func (s *Session) settle(ctx context.Context, actStart time.Time, gen0 int64) string {
	start := time.Now()
	deadline := start.Add(s.e.cfg.SettleTimeout)
	quiet := s.e.cfg.SettleQuiet
	for try := 0; ; try++ {
		s.waitDOM(ctx)
		for s.net.len() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		g := s.navGen.Load()
		if s.net.len() == 0 && s.pageIdle(ctx, min(quiet, time.Since(actStart)), quiet, g != gen0) && s.net.len() == 0 && s.navGen.Load() == g {
			return "idle"
		}
		if try >= 2 || s.navGen.Load() == g || !time.Now().Before(deadline) || ctx.Err() != nil {
			break
		}
	}
	for time.Now().Before(deadline) {
		if ctx.Err() != nil {
			return "cancelled"
		}
		// Events lag behind the action (a fetch started by a click may not
		// be reported yet), so quiet is measured from the settle's start at
		// the earliest: such an action waits at least SettleQuiet.
		last := time.Unix(0, s.lastNet.Load())
		if last.Before(start) {
			last = start
		}
		idleFor := time.Since(last)
		if s.net.len() == 0 && idleFor >= quiet {
			return "quiet"
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "timeout"
}

// waitDOM waits, bounded by SettleTimeout, for the current document's
// DOMContentLoaded; a timeout is noted for the liveness check.
func (s *Session) waitDOM(ctx context.Context) {
	p := s.page
	if err := bounded0On(&s.loadWaits, ctx, s.e.cfg.SettleTimeout+callSlack, "settle", func() error {
		return p.WaitForLoadState(playwright.PageWaitForLoadStateOptions{
			State: playwright.LoadStateDomcontentloaded, Timeout: playwright.Float(float64(s.e.cfg.SettleTimeout.Milliseconds())),
		})
	}); errors.Is(err, ErrTimeout) {
		s.suspect = true
	}
}

// probe runs the DOM health check; a spinner must vanish within
// SpinnerTimeout.
func (s *Session) probe(ctx context.Context) {
	p := s.page
	run := func() (probeResult, bool) {
		v, err := bounded(ctx, s.e.cfg.ActionTimeout, "health probe", func() (any, error) {
			return p.Evaluate(probeJS, []string{BannerSelector, SpinnerSelector})
		})
		if err != nil {
			if timedOut(err) {
				s.suspect = true
			}
			return probeResult{}, false
		}
		return parseProbe(v), true
	}
	r, ok := run()
	if !ok {
		return
	}
	if r.Spinners > 0 {
		deadline := time.Now().Add(s.e.cfg.SpinnerTimeout)
		for r.Spinners > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
			if r, ok = run(); !ok {
				return
			}
		}
		if r.Spinners > 0 {
			s.h.addOnce(Finding{Kind: FindSpinner, Message: fmt.Sprintf("%d loading indicator(s) still visible after %s", r.Spinners, s.e.cfg.SpinnerTimeout), URL: s.page.URL(), Evidence: SpinnerSelector})
		}
	}
	u := s.page.URL()
	for _, b := range r.Banners {
		s.h.addOnce(Finding{Kind: FindErrorBanner, Message: "visible error message: " + clip(b, 120), URL: u, Evidence: b})
	}
	for _, t := range r.Traces {
		s.h.addOnce(Finding{Kind: FindStackTrace, Message: "stack trace visible on the page", URL: u, Evidence: t})
	}
}

// title is the page's title, or "" when the page does not give it within
// a second (a hung page: noted for the liveness check).
func (s *Session) title() string {
	p := s.page
	t, err := bounded(context.Background(), titleTimeout, "title", p.Title)
	if err != nil {
		if timedOut(err) {
			s.suspect = true
		}
		return ""
	}
	return t
}

const titleTimeout = time.Second

func (s *Session) writeArtifact(name string, data []byte) (string, error) {
	if s.e.cfg.ArtifactDir == "" {
		return "", nil
	}
	if err := os.MkdirAll(s.e.cfg.ArtifactDir, 0o700); err != nil {
		return "", err
	}
	p := filepath.Join(s.e.cfg.ArtifactDir, name)
	return p, safefile.WriteFile(p, data, 0o600)
}

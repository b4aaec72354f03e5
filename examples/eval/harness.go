package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/mxschmitt/playwright-go"
)

// Harness is one Chromium shared by the agent under test and the graders.
// The agent acts through the browser package (an Engine per trial); the
// graders reach the very same page through a second Playwright connection
// over the Chrome DevTools Protocol, so what they assert is the page the
// agent left, not a replay of it.
type Harness struct {
	Browser *browser.Browser

	pw   *playwright.Playwright
	cdp  playwright.Browser
	dir  string
	log  *slog.Logger
	mu   sync.Mutex // one session attach at a time
	once sync.Once
}

// Launch starts Chromium (see browser.Launch; the same environment
// variables apply) with a local DevTools port and attaches the graders'
// Playwright connection to it.
func Launch(ctx context.Context, opts browser.LaunchOptions) (*Harness, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("eval: devtools port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	opts.ExtraArgs = append(opts.ExtraArgs, fmt.Sprintf("--remote-debugging-port=%d", port), "--remote-debugging-address=127.0.0.1")
	b, err := browser.Launch(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	h := &Harness{Browser: b, log: log}
	if err := h.attach(ctx, opts, port); err != nil {
		_ = b.Close()
		return nil, err
	}
	return h, nil
}

func (h *Harness) attach(ctx context.Context, opts browser.LaunchOptions, port int) error {
	node := cmpOr(opts.NodePath, os.Getenv("PLAYWRIGHT_NODEJS_PATH"))
	if node == "" {
		p, err := exec.LookPath("node")
		if err != nil {
			return fmt.Errorf("eval: %w: node not found; %s", browser.ErrSetup, browser.SetupHint)
		}
		node = p
	}
	cli := cmpOr(opts.DriverCLI, os.Getenv("PLAYWRIGHT_CLI_PATH"))
	if cli == "" {
		wd, _ := os.Getwd()
		p, ok := browser.FindUp(wd, browser.DriverRelPath)
		if !ok {
			return fmt.Errorf("eval: %w: Playwright driver not found; %s", browser.ErrSetup, browser.SetupHint)
		}
		cli = p
	}
	cli, _ = filepath.Abs(cli)
	dir, err := os.MkdirTemp("", "agentgraph-eval-driver-")
	if err != nil {
		return fmt.Errorf("eval: driver dir: %w", err)
	}
	h.dir = dir
	if err := errors.Join(os.Symlink(filepath.Dir(cli), filepath.Join(dir, "package")), os.Symlink(node, filepath.Join(dir, "node"))); err != nil {
		return fmt.Errorf("eval: driver dir: %w", err)
	}
	pw, err := playwright.Run(&playwright.RunOptions{DriverDirectory: dir, SkipInstallBrowsers: true, Stdout: io.Discard, Stderr: io.Discard, Logger: h.log})
	if err != nil {
		return fmt.Errorf("eval: %w: grader driver: %v", browser.ErrSetup, err)
	}
	h.pw = pw
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	var last error
	for range 50 { // Chromium opens the port shortly after start
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("eval: attach: %w", err)
		}
		c, err := pw.Chromium.ConnectOverCDP(endpoint)
		if err == nil {
			h.cdp = c
			return nil
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("eval: attach to %s: %w", endpoint, last)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Close stops the graders' connection and Chromium. Idempotent.
func (h *Harness) Close() error {
	var errs []error
	h.once.Do(func() {
		if h.cdp != nil {
			errs = append(errs, h.cdp.Close())
		}
		if h.pw != nil {
			errs = append(errs, h.pw.Stop())
		}
		if h.dir != "" {
			_ = os.RemoveAll(h.dir)
		}
		errs = append(errs, h.Browser.Close())
	})
	return errors.Join(errs...)
}

// Stage is what a trial gives the agent: the session to act in, the task
// and its resolved start URL.
type Stage struct {
	Task     Task
	StartURL string
	Session  *browser.Session
	// Page is the graders' handle on the session's page. An agent that
	// drives Playwright itself may use it (or open its own page from its
	// context) and return its final page in Claim.Page.
	Page playwright.Page
}

// PageOptions make screenshots stable.
type PageOptions struct {
	// Frozen, when not zero, is the instant Date and performance report.
	Frozen time.Time
	// Allowed origins; requests to any other host are aborted (fonts,
	// analytics, ads…) so screenshots do not depend on the network.
	Allowed []string
}

// Open creates a fresh engine and session for one trial (viewport vp, the
// start URL's origin allowed), finds the session's page over DevTools and
// applies opts to it. Close the returned engine when done.
func (h *Harness) Open(ctx context.Context, vp Size, startURL string, opts PageOptions) (*browser.Engine, *browser.Session, playwright.Page, error) {
	u, err := url.Parse(startURL)
	if err != nil || u.Host == "" {
		return nil, nil, nil, fmt.Errorf("eval: start URL %q: not absolute", startURL)
	}
	origin := u.Scheme + "://" + u.Host
	if len(opts.Allowed) == 0 {
		opts.Allowed = []string{origin}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	before := map[playwright.Page]bool{}
	for _, p := range h.pages() {
		before[p] = true
	}
	e, err := h.Browser.NewEngine(browser.Config{Origins: opts.Allowed, Viewport: browser.Viewport{Width: vp.Width, Height: vp.Height}})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("eval: engine: %w", err)
	}
	s, err := e.User(ctx, "agent")
	if err != nil {
		_ = e.Close()
		return nil, nil, nil, fmt.Errorf("eval: session: %w", err)
	}
	var page playwright.Page
	deadline := time.Now().Add(5 * time.Second)
	for page == nil && time.Now().Before(deadline) {
		for _, p := range h.pages() {
			if !before[p] && !p.IsClosed() {
				page = p
				break
			}
		}
		if page == nil {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if page == nil {
		_ = e.Close()
		return nil, nil, nil, errors.New("eval: the session's page did not appear over DevTools")
	}
	if err := stabilise(page, opts); err != nil {
		_ = e.Close()
		return nil, nil, nil, err
	}
	return e, s, page, nil
}

func (h *Harness) pages() []playwright.Page {
	var out []playwright.Page
	for _, c := range h.cdp.Contexts() {
		out = append(out, c.Pages()...)
	}
	return out
}

// FreezeScript is the init script that pins Date (and performance.now) to
// ms milliseconds since the epoch.
func FreezeScript(ms int64) string {
	return fmt.Sprintf(`(() => {
  const fixed = %d, RealDate = Date;
  class FrozenDate extends RealDate {
    constructor(...a) { if (a.length === 0) { super(fixed); } else { super(...a); } }
    static now() { return fixed; }
  }
  FrozenDate.UTC = RealDate.UTC; FrozenDate.parse = RealDate.parse;
  globalThis.Date = FrozenDate;
  if (globalThis.performance) { performance.now = () => 0; }
})();`, ms)
}

func stabilise(page playwright.Page, opts PageOptions) error {
	if !opts.Frozen.IsZero() {
		if err := page.AddInitScript(playwright.Script{Content: playwright.String(FreezeScript(opts.Frozen.UnixMilli()))}); err != nil {
			return fmt.Errorf("eval: freeze time: %w", err)
		}
	}
	allowed := opts.Allowed
	err := page.Route("**/*", func(r playwright.Route) {
		u := r.Request().URL()
		if strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") || strings.HasPrefix(u, "about:") {
			_ = r.Continue()
			return
		}
		for _, o := range allowed {
			if u == o || strings.HasPrefix(u, o+"/") {
				_ = r.Fallback()
				return
			}
		}
		_ = r.Abort("blockedbyclient")
	})
	if err != nil {
		return fmt.Errorf("eval: block third-party hosts: %w", err)
	}
	return nil
}

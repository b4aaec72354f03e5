package demoapp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The browser check drives real Chromium through playwright-go with the
// project's set-up (scripts/env.sh: PLAYWRIGHT_CLI_PATH, PLAYWRIGHT_NODEJS_PATH,
// AGENTGRAPH_CHROMIUM). It proves the browser-side evidence of the bugs:
// uncaught errors, console errors, executed XSS probes, axe violations, a
// double click that makes a duplicate, a dead control. Without the
// environment it finds the project-local driver itself (make setup installs
// it); a missing set-up fails the test. Only -short skips it.

func launchBrowser(t *testing.T) playwright.Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("browser check skipped in -short mode")
	}
	cli := os.Getenv("PLAYWRIGHT_CLI_PATH")
	chromium := os.Getenv("AGENTGRAPH_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if cli == "" {
		// Without scripts/env.sh, find the project-local driver the way the
		// browser package does; a missing set-up fails the test, never skips it.
		wd, err := os.Getwd()
		require.NoError(t, err)
		found, ok := browser.FindUp(wd, browser.DriverRelPath)
		require.True(t, ok, "Playwright driver not found: %s", browser.SetupHint)
		node, err := exec.LookPath("node")
		require.NoError(t, err, browser.SetupHint)
		t.Setenv("PLAYWRIGHT_CLI_PATH", found)
		t.Setenv("PLAYWRIGHT_NODEJS_PATH", node)
		cli = found
	}
	pw, err := playwright.Run(&playwright.RunOptions{SkipInstallBrowsers: true, Verbose: false})
	require.NoError(t, err)
	t.Cleanup(func() { _ = pw.Stop() })
	b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(chromium),
		Headless:       playwright.Bool(true),
		Args:           []string{"--no-sandbox"},
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// axePath finds axe.min.js in the project-local tools.
func axePath(t *testing.T) string {
	t.Helper()
	cli := os.Getenv("PLAYWRIGHT_CLI_PATH") // set by launchBrowser
	// cli is …/.tools/node/node_modules/playwright-core/cli.js
	p := filepath.Join(filepath.Dir(filepath.Dir(cli)), "axe-core", "axe.min.js")
	_, err := os.Stat(p)
	require.NoError(t, err, "axe-core is installed by scripts/setup.sh")
	return p
}

func tid(id string) string { return fmt.Sprintf("[data-testid=%q]", id) }

// tab is one browser page on one app, with its error and console logs.
type tab struct {
	t    *testing.T
	base string
	ctx  playwright.BrowserContext
	page playwright.Page

	mu       sync.Mutex
	errors   []string
	consoles []string
	statuses map[string]int // URL path -> last status
}

func openTab(t *testing.T, b playwright.Browser, base string) *tab {
	t.Helper()
	ctx, err := b.NewContext()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ctx.Close() })
	ctx.SetDefaultTimeout(10_000)
	page, err := ctx.NewPage()
	require.NoError(t, err)
	tb := &tab{t: t, base: base, ctx: ctx, page: page, statuses: map[string]int{}}
	page.OnResponse(func(r playwright.Response) {
		tb.mu.Lock()
		tb.statuses[strings.TrimPrefix(r.URL(), base)] = r.Status()
		tb.mu.Unlock()
	})
	page.OnPageError(func(err error) {
		tb.mu.Lock()
		tb.errors = append(tb.errors, err.Error())
		tb.mu.Unlock()
	})
	page.OnConsole(func(m playwright.ConsoleMessage) {
		if m.Type() == "error" {
			tb.mu.Lock()
			tb.consoles = append(tb.consoles, m.Text())
			tb.mu.Unlock()
		}
	})
	return tb
}

func (tb *tab) goto_(path string) {
	tb.t.Helper()
	_, err := tb.page.Goto(tb.base + path)
	require.NoError(tb.t, err)
}

func (tb *tab) click(id string) {
	tb.t.Helper()
	require.NoError(tb.t, tb.page.Locator(tid(id)).Click())
}

func (tb *tab) fill(id, v string) {
	tb.t.Helper()
	require.NoError(tb.t, tb.page.Locator(tid(id)).Fill(v))
}

func (tb *tab) waitPath(path string) {
	tb.t.Helper()
	require.NoError(tb.t, tb.page.WaitForURL("**"+path))
}

func (tb *tab) signIn() {
	tb.t.Helper()
	tb.goto_("/")
	tb.click("home-signin")
	email, err := tb.page.Locator(tid("demo-email")).TextContent()
	require.NoError(tb.t, err)
	pass, err := tb.page.Locator(tid("demo-password")).TextContent()
	require.NoError(tb.t, err)
	tb.fill("signin-email", email)
	tb.fill("signin-password", pass)
	tb.click("signin-submit")
	tb.waitPath("/dashboard")
}

func (tb *tab) status(path string) int {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.statuses[path]
}

func (tb *tab) body() string {
	tb.t.Helper()
	b, err := tb.page.Locator("body").TextContent()
	require.NoError(tb.t, err)
	return b
}

func (tb *tab) eval(js string) any {
	tb.t.Helper()
	v, err := tb.page.Evaluate(js)
	require.NoError(tb.t, err)
	return v
}

func (tb *tab) logs() (errs, consoles string) {
	// Let late events arrive.
	time.Sleep(100 * time.Millisecond)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return strings.Join(tb.errors, "\n"), strings.Join(tb.consoles, "\n")
}

type axeViolation struct {
	ID     string
	Impact string
	HTML   []string
}

// axe runs axe-core on the current page and returns serious and critical
// violations.
func (tb *tab) axe(path string) []axeViolation {
	tb.t.Helper()
	_, err := tb.page.AddScriptTag(playwright.PageAddScriptTagOptions{Path: playwright.String(path)})
	require.NoError(tb.t, err)
	v, err := tb.page.Evaluate(`async () => {
	  const r = await axe.run(document, { resultTypes: ["violations"] });
	  return r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
	    .map(v => ({ id: v.id, impact: v.impact, html: v.nodes.map(n => n.html) }));
	}`)
	require.NoError(tb.t, err)
	var out []axeViolation
	list, _ := v.([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		av := axeViolation{ID: fmt.Sprint(m["id"]), Impact: fmt.Sprint(m["impact"])}
		nodes, _ := m["html"].([]any)
		for _, n := range nodes {
			av.HTML = append(av.HTML, fmt.Sprint(n))
		}
		out = append(out, av)
	}
	return out
}

const browserProbe = `<img src=x onerror="window.__xss=1">`

type browserCase struct {
	id   BugID
	fire func(tb *tab) bool
}

func browserCases(axe string) []browserCase {
	axeFinds := func(tb *tab, id BugID) bool {
		for _, v := range tb.axe(axe) {
			for _, h := range v.HTML {
				if strings.Contains(h, `data-bug="`+string(id)+`"`) {
					return true
				}
			}
		}
		return false
	}
	toStep2 := func(tb *tab) {
		tb.click("nav-checkout")
		tb.waitPath("/checkout/1")
		require.NoError(tb.t, tb.page.Locator(tid("plan-team")).Check())
		tb.click("checkout-next")
		tb.waitPath("/checkout/2")
	}
	return []browserCase{
		{BugPageErrorWizard, func(tb *tab) bool {
			toStep2(tb)
			tb.fill("billing-company", "Acme")
			tb.fill("billing-email", "billing@acme.test")
			tb.click("checkout-next")
			tb.waitPath("/checkout/3")
			errs, _ := tb.logs()
			return strings.Contains(errs, "BUG-PAGEERR-WIZARD: order summary is missing the billing plan")
		}},
		{BugConsoleSettings, func(tb *tab) bool {
			tb.click("nav-settings")
			tb.waitPath("/settings")
			_, c := tb.logs()
			return strings.Contains(c, "BUG-CONSOLE-SETTINGS")
		}},
		{BugConsoleListPage2, func(tb *tab) bool {
			tb.click("nav-projects")
			tb.waitPath("/projects")
			_, c := tb.logs()
			require.NotContains(tb.t, c, "BUG-CONSOLE-LIST-PAGE2", "page 1 is clean")
			tb.click("page-next")
			tb.waitPath("/projects?page=2")
			_, c = tb.logs()
			return strings.Contains(c, "BUG-CONSOLE-LIST-PAGE2")
		}},
		{BugXSSSearch, func(tb *tab) bool {
			tb.click("nav-search")
			tb.fill("search-input", browserProbe)
			tb.click("search-submit")
			tb.waitPath("/search?q=**")
			require.NoError(tb.t, tb.page.Locator(tid("search-summary")).WaitFor())
			return tb.eval(`window.__xss === 1`) == true
		}},
		{BugXSSProjectName, func(tb *tab) bool {
			tb.goto_("/projects/new")
			tb.fill("project-name-input", browserProbe)
			tb.click("project-submit")
			tb.waitPath("?created=1")
			return tb.eval(`window.__xss === 1`) == true
		}},
		{BugA11yIconButton, func(tb *tab) bool {
			tb.click("nav-projects")
			tb.waitPath("/projects")
			return axeFinds(tb, BugA11yIconButton)
		}},
		{BugA11ySettingsLabel, func(tb *tab) bool {
			tb.click("nav-settings")
			tb.waitPath("/settings")
			return axeFinds(tb, BugA11ySettingsLabel)
		}},
		{BugDoubleSubmit, func(tb *tab) bool {
			tb.goto_("/projects/new")
			tb.fill("project-name-input", "Clicked twice")
			// Two clicks in one task, as a quick double click lands them:
			// Playwright's Dblclick sends its clicks as separate protocol
			// calls, and on a loaded machine the first submission's redirect
			// could unload the page before the second click reached it.
			_, err := tb.page.Locator(tid("project-submit")).Evaluate(`b => { b.click(); b.click(); }`, nil)
			require.NoError(tb.t, err)
			// With two submissions in flight the first redirect may be
			// aborted by the second: wait for the page that wins.
			require.NoError(tb.t, tb.page.Locator(tid("flash")+`:has-text("Project created.")`).WaitFor())
			tb.goto_("/projects")
			n, err := tb.page.Locator(`[data-testid="project-row"]:has-text("Clicked twice")`).Count()
			require.NoError(tb.t, err)
			dup, err := tb.page.Locator(`[data-bug="BUG-DOUBLE-SUBMIT"]`).Count()
			require.NoError(tb.t, err)
			assert.Equal(tb.t, n == 2, dup == 1)
			return n == 2
		}},
		{BugSessionExpired, func(tb *tab) bool {
			tb.click("nav-projects")
			tb.waitPath("/projects")
			require.NoError(tb.t, tb.ctx.ClearCookies())
			_, err := tb.page.Reload()
			require.NoError(tb.t, err)
			body, err := tb.page.Locator("body").TextContent()
			require.NoError(tb.t, err)
			if strings.Contains(body, string(BugSessionExpired)) {
				return true
			}
			assert.Contains(tb.t, tb.page.URL(), "/signin?next=")
			return false
		}},
		{Bug5xxSort, func(tb *tab) bool {
			tb.click("nav-projects")
			tb.waitPath("/projects")
			_, err := tb.page.Locator(tid("sort")).SelectOption(playwright.SelectOptionValues{Values: &[]string{"budget"}})
			require.NoError(tb.t, err)
			tb.click("apply-filters")
			tb.waitPath("sort=budget")
			return tb.status("/projects?status=all&owner=&sort=budget") == 500 && strings.Contains(tb.body(), "BUG-5XX-SORT")
		}},
		{Bug404ReleaseNotes, func(tb *tab) bool {
			tb.click("whats-new")
			require.NoError(tb.t, tb.page.WaitForLoadState())
			return tb.status("/release-notes/BUG-404-RELEASE-NOTES") == 404
		}},
		{BugBannerExport, func(tb *tab) bool {
			tb.click("nav-projects")
			tb.waitPath("/projects")
			dl, err := tb.page.ExpectDownload(func() error { return tb.page.Locator(tid("export-csv")).Click() },
				playwright.PageExpectDownloadOptions{Timeout: playwright.Float(3000)})
			if err == nil {
				assert.Equal(tb.t, "projects.csv", dl.SuggestedFilename())
				return false
			}
			banner, err := tb.page.Locator(tid("error-banner")).TextContent()
			require.NoError(tb.t, err)
			return strings.Contains(banner, "Export failed: BUG-BANNER-EXPORT")
		}},
		{BugLongName, func(tb *tab) bool {
			tb.goto_("/projects/new")
			tb.fill("project-name-input", strings.Repeat("L", 300))
			tb.click("project-submit")
			require.NoError(tb.t, tb.page.Locator("h1").WaitFor())
			require.NoError(tb.t, tb.page.WaitForLoadState())
			time.Sleep(300 * time.Millisecond)
			return tb.status("/projects") == 500 && strings.Contains(tb.body(), "BUG-LONG-NAME")
		}},
		{BugSlowReports, func(tb *tab) bool {
			start := time.Now()
			tb.click("nav-reports")
			tb.waitPath("/reports")
			require.NoError(tb.t, tb.page.Locator(tid("report-table")).WaitFor())
			return time.Since(start) >= 3*time.Second
		}},
		{BugDeadSaveDraft, func(tb *tab) bool {
			toStep2(tb)
			tb.fill("billing-company", "Draft Co")
			tb.click("save-draft")
			err := tb.page.Locator(tid("draft-status") + `:has-text("Draft saved.")`).WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(2000)})
			return err != nil
		}},
	}
}

func TestBrowserCasesCoverEveryBug(t *testing.T) {
	var ids []BugID
	for _, c := range browserCases("") {
		ids = append(ids, c.id)
	}
	assert.ElementsMatch(t, BugIDs(), ids)
}

// TestBrowserEvidence checks each browser-side bug in Chromium with only
// that bug on and with it off.
func TestBrowserEvidence(t *testing.T) {
	b := launchBrowser(t)
	axe := axePath(t)
	for _, bc := range browserCases(axe) {
		t.Run(string(bc.id), func(t *testing.T) {
			for _, on := range []bool{true, false} {
				disabled := allOff(bc.id)
				if !on {
					disabled = map[BugID]bool{bc.id: true}
				}
				_, srv := startApp(t, Options{Disabled: disabled})
				tb := openTab(t, b, srv.URL)
				tb.signIn()
				assert.Equalf(t, on, bc.fire(tb), "bug on=%v", on)
			}
		})
	}
}

// TestBrowserFixedAppIsClean visits every page in Chromium with every bug
// off: no JS error, no console error, no serious or critical axe violation.
func TestBrowserFixedAppIsClean(t *testing.T) {
	b := launchBrowser(t)
	axe := axePath(t)
	_, srv := startApp(t, Options{Disabled: allOff()})
	tb := openTab(t, b, srv.URL)
	for _, p := range []string{"/", "/signin", "/release-notes"} {
		tb.goto_(p)
		assert.Empty(t, tb.axe(axe), p)
	}
	tb.signIn()
	pages := []string{"/dashboard", "/projects", "/projects?page=2", "/projects/new", "/projects/1", "/projects/1/edit",
		"/search?q=a", "/settings", "/reports", "/checkout/1"}
	for _, p := range pages {
		tb.goto_(p)
		assert.Empty(t, tb.axe(axe), p)
	}
	tb.goto_("/projects/1")
	tb.click("delete-project")
	open, err := tb.page.Locator(tid("delete-dialog")).IsVisible()
	require.NoError(t, err)
	assert.True(t, open, "the modal opens")
	assert.Empty(t, tb.axe(axe), "modal open")
	tb.click("delete-cancel")
	errs, consoles := tb.logs()
	assert.Empty(t, errs)
	assert.Empty(t, consoles)
}

package browser

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Check is one typed assertion of a reproduction. It states the CORRECT
// behaviour of the app; Translate renders it to TypeScript. In a bug
// reproduction the spec runs under test.fail(), so it passes while the bug
// is there and fails once the check holds (the bug is fixed).
//
// The set of checks is closed: NoPageError, NoConsoleError, NoServerError,
// NoNotFound, NoErrorBanner, NoStackTrace, NoScriptRun, NoA11yViolation,
// FastResponse, ClickChanges, NoDuplicateRows, NoDuplicatePost and NoText.
type Check interface {
	// String says what the check asserts, in words.
	String() string
	// render adds the check's set-up, actions and assertions to t.
	render(t *testSpec) error
}

// NoPageError asserts that no uncaught exception is thrown in the page
// whose text contains Contains ("" matches any).
type NoPageError struct{ Contains string }

// NoConsoleError asserts that no console.error message contains Contains
// ("" matches any).
type NoConsoleError struct{ Contains string }

// NoServerError asserts that no response has a status of 500 or more; when
// Path is set, only responses whose URL path (as the browser encodes it,
// e.g. "/orders") equals Path count, and when Method is set, only
// requests with that method.
type NoServerError struct{ Method, Path string }

// NoNotFound asserts that no navigation within the app's origin (the
// spec's baseURL) is answered 404; Path narrows it to one URL path.
type NoNotFound struct{ Path string }

// NoErrorBanner asserts that no visible error banner (BannerSelector)
// contains Contains (case-insensitive; "" matches any non-empty banner).
type NoErrorBanner struct{ Contains string }

// NoStackTrace asserts that the page's visible text shows no stack trace
// (JavaScript, Python or Go) that contains Contains ("" matches any).
type NoStackTrace struct{ Contains string }

// NoScriptRun asserts that injected markup never executed: an init script
// defines the global function Marker (the name an XSS probe calls, e.g.
// "__agxss" for `<img src=x onerror="__agxss(this)">`) on every page, and
// the spec fails if anything called it. When Within (a CSS selector) is
// set, only calls whose element (the argument) sits inside an element
// matching it count: the reported injection point, not another one.
type NoScriptRun struct{ Marker, Within string }

// NoA11yViolation runs axe-core on the final page and asserts that it finds
// no serious or critical violation of Rule ("" for every rule) on an
// element matching the CSS Selector ("" for any element). The spec loads
// axe-core from AGENTGRAPH_AXE_PATH or require.resolve('axe-core').
type NoA11yViolation struct{ Rule, Selector string }

// FastResponse asserts that every request for URL path Path finishes within
// Within. With Fetch, the spec also GETs Path itself after the replay
// (with the page's cookies, through page.request) and times that, so a
// replay that moved on before the page answered still measures it.
type FastResponse struct {
	Path   string
	Within time.Duration
	Fetch  bool
}

// ClickChanges clicks the first element matching the Playwright selector
// Selector after the recorded steps and asserts that the click changed
// something a user notices (URL, text, elements, an open dialog) or sent a
// request within Wait (600ms when zero). The reproduction's entries should
// stop before the recorded click on that control.
type ClickChanges struct {
	Selector string
	Wait     time.Duration
}

// NoDuplicateRows asserts that no table matching the CSS Selector ("" for
// every table) has two body rows with the same cell texts.
type NoDuplicateRows struct{ Selector string }

// NoDuplicatePost asserts that the app does not accept the same form post
// to Path twice: two accepted POSTs with the same body (form tokens aside)
// must answer the same redirect, and neither a second 201. The spec
// watches POSTs through page.route (see Reproduction.SlowPosts).
type NoDuplicatePost struct{ Path string }

// NoText asserts that the final page's visible text does not contain
// Text: data that must not show there (another user's record).
type NoText struct{ Text string }

func (c NoText) String() string { return "the page does not show " + strconv.Quote(c.Text) }

func (c NoText) render(t *testSpec) error {
	if strings.TrimSpace(c.Text) == "" {
		return errors.New("no text: empty text")
	}
	t.assert = append(t.assert, "await expect(page.locator('body'), "+jsString(c.String())+").not.toContainText("+jsString(c.Text)+", { timeout: 2000 });")
	return nil
}

// DefaultChecks are the assertions of a bug reproduction without Checks:
// no uncaught page error, no HTTP 5xx, no visible error banner.
func DefaultChecks() []Check {
	return []Check{NoPageError{}, NoServerError{}, NoErrorBanner{}}
}

func (c NoPageError) String() string {
	return "no uncaught page error" + containing(c.Contains)
}

func (c NoConsoleError) String() string {
	return "no console error" + containing(c.Contains)
}

func (c NoServerError) String() string {
	if c.Method != "" {
		return "no HTTP 5xx response to " + c.Method + onPath(c.Path)
	}
	return "no HTTP 5xx response" + onPath(c.Path)
}

func (c NoNotFound) String() string { return "no same-origin navigation answered 404" + onPath(c.Path) }

func (c NoErrorBanner) String() string { return "no visible error banner" + containing(c.Contains) }

func (c NoStackTrace) String() string { return "no stack trace on the page" + containing(c.Contains) }

func (c NoScriptRun) String() string {
	if c.Within != "" {
		return "injected script " + c.Marker + "() never runs inside " + c.Within
	}
	return "injected script " + c.Marker + "() never runs"
}

func (c NoA11yViolation) String() string {
	s := "no serious or critical axe-core violation"
	if c.Rule != "" {
		s += " of rule " + c.Rule
	}
	if c.Selector != "" {
		s += " on " + c.Selector
	}
	return s
}

func (c FastResponse) String() string {
	return fmt.Sprintf("every response of %s within %s", c.Path, c.Within)
}

func (c ClickChanges) String() string { return "clicking " + c.Selector + " changes the page" }

func (c NoDuplicateRows) String() string {
	if c.Selector == "" {
		return "no two identical table rows"
	}
	return "no two identical rows in " + c.Selector
}

func (c NoDuplicatePost) String() string {
	return "the same form post to " + c.Path + " is not accepted twice"
}

func containing(s string) string {
	if s == "" {
		return ""
	}
	return " containing " + strconv.Quote(clip(s, 80))
}

func onPath(p string) string {
	if p == "" {
		return ""
	}
	return " on " + p
}

// testSpec collects what the checks of one test need.
type testSpec struct {
	file    *specFile
	watch   map[string]bool     // event collectors to declare
	markers map[string][]string // NoScriptRun markers and their Within selectors
	posts   bool                // POSTs go through page.route
	baseURL bool                // the test reads the baseURL fixture
	act     []string            // after the recorded steps, before the settle
	assert  []string            // after the settle
}

// specFile collects the file-level declarations the checks need.
type specFile struct {
	banner, stackTrace, axe bool
	storageState            bool // a context starts from a storage-state file (stateOf)
}

const (
	watchPageErrors = "pageErrors"
	watchConsole    = "consoleErrors"
	watchResponses  = "responses"
	watchTimings    = "timings"
)

var reIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]{0,63}$`)

func (c NoPageError) render(t *testSpec) error {
	t.watch[watchPageErrors] = true
	t.assert = append(t.assert, "expect(pageErrors"+filterIncludes(c.Contains)+", "+jsString(c.String())+").toEqual([]);")
	return nil
}

func (c NoConsoleError) render(t *testSpec) error {
	t.watch[watchConsole] = true
	t.assert = append(t.assert, "expect(consoleErrors"+filterIncludes(c.Contains)+", "+jsString(c.String())+").toEqual([]);")
	return nil
}

func filterIncludes(s string) string {
	if s == "" {
		return ""
	}
	return ".filter((m) => m.includes(" + jsString(s) + "))"
}

func (c NoServerError) render(t *testSpec) error {
	if err := checkPath(c.Path, false); err != nil {
		return err
	}
	t.watch[watchResponses] = true
	cond := "r.status >= 500"
	if c.Method != "" {
		if !reIdent.MatchString(c.Method) {
			return fmt.Errorf("no server error: method %q", c.Method)
		}
		cond += " && r.method === " + jsString(strings.ToUpper(c.Method))
	}
	if c.Path != "" {
		cond += " && r.path === " + jsString(c.Path)
	}
	t.assert = append(t.assert, "expect(responses.filter((r) => "+cond+").map((r) => r.status + ' ' + r.method + ' ' + r.url), "+jsString(c.String())+").toEqual([]);")
	return nil
}

func (c NoNotFound) render(t *testSpec) error {
	if err := checkPath(c.Path, false); err != nil {
		return err
	}
	t.watch[watchResponses] = true
	t.baseURL = true
	cond := "r.status === 404 && r.navigation && (!baseURL || r.origin === new URL(baseURL).origin)"
	if c.Path != "" {
		cond += " && r.path === " + jsString(c.Path)
	}
	t.assert = append(t.assert, "expect(responses.filter((r) => "+cond+").map((r) => r.status + ' ' + r.method + ' ' + r.url), "+jsString(c.String())+").toEqual([]);")
	return nil
}

func (c NoErrorBanner) render(t *testSpec) error {
	t.file.banner = true
	text := `/\S/`
	if c.Contains != "" {
		text = jsString(c.Contains)
	}
	t.assert = append(t.assert, "await expect(page.locator(ERROR_BANNER).filter({ visible: true, hasText: "+text+" }), "+jsString(c.String())+").toHaveCount(0);")
	return nil
}

func (c NoStackTrace) render(t *testSpec) error {
	t.file.stackTrace = true
	t.assert = append(t.assert, "{",
		"  const trace = ((await page.locator('body').innerText().catch(() => '')).match(STACK_TRACE) || [''])[0];",
		"  expect(trace.includes("+jsString(c.Contains)+") ? trace : '', "+jsString(c.String())+").toBe('');",
		"}")
	return nil
}

func (c NoScriptRun) render(t *testSpec) error {
	if !reIdent.MatchString(c.Marker) {
		return fmt.Errorf("no script run: marker %q is not a JavaScript identifier", c.Marker)
	}
	if t.markers == nil {
		t.markers = map[string][]string{}
	}
	if !slices.Contains(t.markers[c.Marker], c.Within) {
		t.markers[c.Marker] = append(t.markers[c.Marker], c.Within)
	}
	t.assert = append(t.assert, "expect(scriptRuns.filter((r) => r.marker === "+jsString(c.Marker)+" && r.within.includes("+jsString(c.Within)+")).map((r) => r.where), "+jsString(c.String())+").toEqual([]);")
	return nil
}

func (c NoA11yViolation) render(t *testSpec) error {
	t.file.axe = true
	t.assert = append(t.assert, "{",
		"  await page.evaluate(AXE_SOURCE);",
		"  const violations = await page.evaluate(async ([rule, sel]) => {",
		"    const res = await (window as any).axe.run(document, rule ? { runOnly: { type: 'rule', values: [rule] }, resultTypes: ['violations'] } : { resultTypes: ['violations'] });",
		"    const out: string[] = [];",
		"    for (const v of res.violations) {",
		"      for (const n of v.nodes) {",
		"        const impact = n.impact || v.impact;",
		"        if (impact !== 'serious' && impact !== 'critical') continue;",
		"        if (sel) {",
		"          let hit = false;",
		"          try { const el = document.querySelector(String(n.target[n.target.length - 1])); hit = !!el && el.matches(sel); } catch { hit = false; }",
		"          if (!hit) continue;",
		"        }",
		"        out.push(v.id + ' (' + impact + '): ' + n.html);",
		"      }",
		"    }",
		"    return out;",
		"  }, ["+jsString(c.Rule)+", "+jsString(c.Selector)+"]);",
		"  expect(violations, "+jsString(c.String())+").toEqual([]);",
		"}")
	return nil
}

func (c FastResponse) render(t *testSpec) error {
	if err := checkPath(c.Path, true); err != nil {
		return err
	}
	if c.Within <= 0 {
		return errors.New("fast response: Within must be positive")
	}
	t.watch[watchTimings] = true
	if c.Fetch {
		t.act = append(t.act, "{",
			"  const t0 = Date.now();",
			"  const res = await page.request.get("+jsString(c.Path)+");",
			"  timings.push({ method: 'GET', url: res.url(), path: "+jsString(c.Path)+", ms: Date.now() - t0 });",
			"}")
	}
	t.assert = append(t.assert, fmt.Sprintf("expect(timings.filter((r) => r.path === %s && r.ms > %d).map((r) => r.method + ' ' + r.url + ' took ' + r.ms + ' ms'), %s).toEqual([]);",
		jsString(c.Path), c.Within.Milliseconds(), jsString(c.String())))
	return nil
}

func (c ClickChanges) render(t *testSpec) error {
	if strings.TrimSpace(c.Selector) == "" {
		return errors.New("click changes: empty selector")
	}
	wait := c.Wait
	if wait <= 0 {
		wait = 600 * time.Millisecond
	}
	t.act = append(t.act, "{",
		"  // The control must do something a user notices (or at least send a request).",
		"  const look = () => page.evaluate(() => [location.href, document.body ? document.body.innerText : '', document.getElementsByTagName('*').length, document.querySelectorAll('dialog[open]').length].join('\\u0001')).catch(() => 'navigating');",
		"  let calls = 0;",
		"  const onRequest = (r: { resourceType(): string }) => { if (['fetch', 'xhr', 'ping', 'document'].includes(r.resourceType())) calls++; };",
		"  const before = await look();",
		"  page.on('request', onRequest);",
		"  await page.locator("+jsString(c.Selector)+").first().click();",
		fmt.Sprintf("  await page.waitForTimeout(%d);", wait.Milliseconds()),
		"  page.off('request', onRequest);",
		"  const after = await look();",
		"  expect(calls > 0 || after !== before, "+jsString(c.String())+").toBe(true);",
		"}")
	return nil
}

func (c NoDuplicateRows) render(t *testSpec) error {
	sel := c.Selector
	if sel == "" {
		sel = "table"
	}
	t.assert = append(t.assert, "{",
		"  const duplicates = await page.evaluate((sel) => {",
		"    const out: string[] = [];",
		"    for (const table of Array.from(document.querySelectorAll(sel))) {",
		"      const seen = new Set<string>();",
		"      for (const tr of Array.from(table.querySelectorAll('tbody tr')) as HTMLTableRowElement[]) {",
		"        const key = Array.from(tr.cells).map((c) => (c.textContent || '').trim()).join(' | ');",
		"        if (!key.replace(/[\\s|]/g, '')) continue;",
		"        if (seen.has(key)) out.push(key);",
		"        seen.add(key);",
		"      }",
		"    }",
		"    return out;",
		"  }, "+jsString(sel)+");",
		"  expect(duplicates, "+jsString(c.String())+").toEqual([]);",
		"}")
	return nil
}

func (c NoDuplicatePost) render(t *testSpec) error {
	if err := checkPath(c.Path, true); err != nil {
		return err
	}
	t.posts = true
	t.assert = append(t.assert, "{",
		"  const accepted = new Map<string, { status: number; location: string }[]>();",
		"  const twice: string[] = [];",
		"  for (const p of posts) {",
		"    if (p.path !== "+jsString(c.Path)+" || p.status >= 400) continue;",
		"    const prev = accepted.get(p.body) || [];",
		"    if (prev.some((a) => a.location !== p.location || p.status === 201)) twice.push('POST ' + p.path + ' → ' + p.status + ' ' + p.location + ' after ' + prev.map((a) => a.status + ' ' + a.location).join(', '));",
		"    accepted.set(p.body, [...prev, p]);",
		"  }",
		"  expect(twice, "+jsString(c.String())+").toEqual([]);",
		"}")
	return nil
}

func checkPath(p string, required bool) error {
	if p == "" && !required {
		return nil
	}
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("path %q: want a URL path starting with /", p)
	}
	return nil
}

// setup returns the TypeScript that opens a test: collectors, init scripts
// and routes the checks need.
func (t *testSpec) setup(slowPosts time.Duration) []string {
	var out []string
	if t.watch[watchPageErrors] {
		out = append(out, "const pageErrors: string[] = [];",
			"page.on('pageerror', (e) => pageErrors.push(String(e)));")
	}
	if t.watch[watchConsole] {
		out = append(out, "const consoleErrors: string[] = [];",
			"page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });")
	}
	if t.watch[watchResponses] {
		out = append(out, "const responses: { method: string; url: string; origin: string; path: string; status: number; navigation: boolean }[] = [];",
			"page.on('response', (r) => { const u = new URL(r.url()); responses.push({ method: r.request().method(), url: r.url(), origin: u.origin, path: u.pathname, status: r.status(), navigation: r.request().isNavigationRequest() }); });")
	}
	if t.watch[watchTimings] {
		out = append(out, "const started = new Map<object, number>();",
			"const timings: { method: string; url: string; path: string; ms: number }[] = [];",
			"page.on('request', (r) => { started.set(r, Date.now()); });",
			"const timed = (r: { url(): string; method(): string }) => { const t0 = started.get(r); if (t0 !== undefined) timings.push({ method: r.method(), url: r.url(), path: new URL(r.url()).pathname, ms: Date.now() - t0 }); };",
			"page.on('requestfinished', timed);",
			"page.on('requestfailed', timed);")
	}
	if len(t.markers) > 0 {
		out = append(out, "// Injected markup calls a marker function: define it on every page and record each call.",
			"// A call lists the selectors (of the checks' Within, '' for any) its element is inside.",
			"const scriptRuns: { marker: string; where: string; within: string[] }[] = [];",
			"await page.exposeFunction('__agentgraphScriptRan', (marker: string, where: string, within: string[]) => { scriptRuns.push({ marker, where, within }); });")
		for _, m := range slices.Sorted(maps.Keys(t.markers)) {
			var sels []string
			for _, w := range t.markers[m] {
				sels = append(sels, jsString(w))
			}
			out = append(out, "await page.addInitScript(([m, sels]) => { (window as any)[m] = (el?: Element) => (window as any).__agentgraphScriptRan(m, String(el && el.parentElement ? el.parentElement.outerHTML : el).slice(0, 300), sels.filter((s: string) => { try { return s === '' || !!(el && el.closest && el.closest(s)); } catch { return false; } })); }, ["+jsString(m)+", ["+strings.Join(sels, ", ")+"]] as [string, string[]]);")
		}
	}
	if t.posts || slowPosts > 0 {
		out = append(out, "// Every POST goes through here: its answer is recorded"+slowNote(slowPosts)+".",
			"const posts: { path: string; body: string; status: number; location: string }[] = [];",
			"let pendingPosts = 0;",
			"await page.route(() => true, async (route) => {",
			"  const req = route.request();",
			"  if (req.method() !== 'POST') return route.fallback();",
			"  pendingPosts++;",
			"  try {",
			"    const res = await route.fetch({ maxRedirects: 0 }).catch(() => null);",
			"    if (!res) return await route.abort().catch(() => {});",
			"    posts.push({ path: new URL(req.url()).pathname, body: (req.postData() || '').replace(/(^|&)[a-z_]*(token|csrf|nonce)[a-z_]*=[^&]*/g, ''), status: res.status(), location: res.headers()['location'] || '' });",
			fmt.Sprintf("    await new Promise((done) => setTimeout(done, %d));", slowPosts.Milliseconds()),
			"    await route.fulfill({ response: res }).catch(() => {});",
			"  } finally {",
			"    pendingPosts--;",
			"  }",
			"});",
			"// Returns once no POST has been in flight for 300 ms (at most 15 s).",
			"const settlePosts = async () => {",
			"  for (let quiet = 0, i = 0; quiet < 6 && i < 300; i++) {",
			"    await page.waitForTimeout(50);",
			"    quiet = pendingPosts > 0 ? 0 : quiet + 1;",
			"  }",
			"};")
	}
	return out
}

func slowNote(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(" and held %d ms (a slow network)", d.Milliseconds())
}

// fileDecls returns the file-level constants the checks need.
func (f *specFile) decls() []string {
	var out []string
	if f.banner {
		out = append(out, "const ERROR_BANNER = "+jsString(BannerSelector)+";")
	}
	if f.stackTrace {
		out = append(out, "const STACK_TRACE = "+stackTraceRE+";")
	}
	if f.axe {
		out = append(out, "// axe-core: AGENTGRAPH_AXE_PATH, else the axe-core package next to @playwright/test.",
			"const AXE_SOURCE = fs.readFileSync(process.env.AGENTGRAPH_AXE_PATH || require.resolve('axe-core/axe.min.js'), 'utf8');")
	}
	return out
}

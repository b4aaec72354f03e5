package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTranslateShapes(t *testing.T) {
	v := "a'b"
	ents := []Entry{
		{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "http://app.test:8080/login?x=1"}},
		{Action: ActFill, OK: true, Locator: "getByLabel('Email')", Params: Intent{Action: ActFill, Target: "label=Email", Value: &v}},
		{Action: ActClick, OK: false, Locator: "getByTestId('gone')", Error: "no element\nmatches */"},
		{Action: ActClick, OK: true, Locator: "getByRole('button', { name: 'Delete' })", HoverLocator: "getByTestId('row-1')"},
		{Action: ActSnapshot, OK: true},
		{Action: ActPress, OK: true, Params: Intent{Action: ActPress, Key: "Enter"}},
		{Action: ActWaitFor, OK: true, Params: Intent{Action: ActWaitFor, Text: "Done"}},
		{Action: ActScroll, OK: true, Params: Intent{Action: ActScroll, Direction: "bottom"}},
		{Action: ActGoBack, OK: true}, {Action: ActReload, OK: true},
	}
	src, err := Translate([]Reproduction{{Name: "plain", Entries: ents}, {Name: "plain", Entries: ents[:2], Bug: true}}, SpecOptions{BaseURL: "http://app.test:8080"})
	require.NoError(t, err)
	for _, want := range []string{
		"import { test, expect } from '@playwright/test';",
		"test.use({ baseURL: process.env.BASE_URL || process.env.AGENTGRAPH_BASE_URL || 'http://app.test:8080' });",
		"test('plain', async ({ page }) => {",
		"await visit(page, '/login?x=1');",
		`await page.getByLabel('Email').fill('a\'b');`,
		"// failed in the recorded session: click getByTestId('gone') — no element matches */",
		"await page.getByTestId('row-1').hover();\n  await page.getByRole('button', { name: 'Delete' }).click();",
		"await page.keyboard.press('Enter');",
		"await expect(page.getByText('Done').first()).toBeVisible();",
		"await page.goBack();", "await page.reload();",
		"test('plain (2)', async ({ page }) => {",
		"test.fail();",
		"expect(pageErrors, 'no uncaught page error').toEqual([]);",
		"expect(responses.filter((r) => r.status >= 500).map((r) => r.status + ' ' + r.method + ' ' + r.url), 'no HTTP 5xx response').toEqual([]);",
		"toHaveCount(0)",
	} {
		assert.Contains(t, src, want)
	}
	assert.Equal(t, 1, strings.Count(src, "  test.fail();\n"), "only the bug reproduction is expected to fail")
	bug := src[strings.Index(src, "test('plain (2)'"):]
	assert.Less(t, strings.Index(bug, "await visit(page, '/login?x=1');"), strings.Index(bug, "test.fail();"),
		"the app is reached before the expected failure starts")

	// Recorded through a stand-in origin: the spec runs against the app's.
	src, err = Translate([]Reproduction{{Name: "p", Entries: ents[:2]}}, SpecOptions{BaseURL: "http://app.test:8080", DefaultBaseURL: "https://shop.example/x"})
	require.NoError(t, err)
	assert.Contains(t, src, "test.use({ baseURL: process.env.BASE_URL || process.env.AGENTGRAPH_BASE_URL || 'https://shop.example' });")
	assert.Contains(t, src, "await visit(page, '/login?x=1');")
	_, err = Translate([]Reproduction{{Name: "p", Entries: ents[:2]}}, SpecOptions{BaseURL: "http://app.test:8080", DefaultBaseURL: "javascript:alert(1)"})
	assert.Error(t, err)
	_, err = Translate(nil, SpecOptions{})
	assert.Error(t, err)
	_, err = Translate([]Reproduction{{Name: "x"}}, SpecOptions{BaseURL: "::"})
	assert.Error(t, err)
}

func TestTranslateNewActions(t *testing.T) {
	ents := []Entry{
		{Action: ActDblclick, OK: true, Locator: "getByText('Double me')"},
		{Action: ActFocus, OK: true, Locator: "locator('#q')"},
		{Action: ActCheck, OK: true, Locator: "getByRole('checkbox', { name: 'Agree' })"},
		{Action: ActUncheck, OK: true, Locator: "getByLabel('News')", HoverLocator: "getByTestId('row')"},
		{Action: ActPress, OK: true, Locator: "locator('#q')", Params: Intent{Action: ActPress, Target: "#q", Key: "ArrowDown"}},
		{Action: ActDrag, OK: true, Locator: "getByTestId('card')", DropLocator: "getByTestId('done')", Params: Intent{Action: ActDrag, Target: "e1", To: "e2"}},
		{Action: ActSetFiles, OK: true, Locator: "locator('#up')", Params: Intent{Action: ActSetFiles, Target: "#up", FileName: "report 1.csv", FileContent: "a,b\n'1',2\n"}},
		{Action: ActSetFiles, OK: true, Locator: "locator('#up')", Params: Intent{Action: ActSetFiles, Target: "#up"}},
		{Action: ActDrag, OK: false, Locator: "getByTestId('card')", Error: "drop target: no element"},
	}
	src, err := Translate([]Reproduction{{Name: "actions", Entries: ents}}, SpecOptions{})
	require.NoError(t, err)
	for _, want := range []string{
		"await page.getByText('Double me').dblclick();",
		"await page.locator('#q').focus();",
		"await page.getByRole('checkbox', { name: 'Agree' }).check();",
		"await page.getByTestId('row').hover();\n  await page.getByLabel('News').uncheck();",
		"await page.locator('#q').press('ArrowDown');",
		"await page.getByTestId('card').dragTo(page.getByTestId('done'));",
		`await page.locator('#up').setInputFiles({ name: 'report 1.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n\'1\',2\n') });`,
		`await page.locator('#up').setInputFiles({ name: 'agentgraph-upload.txt', mimeType: 'text/plain', buffer: Buffer.from('agentgraph test upload\n') });`,
		"// failed in the recorded session: drag getByTestId('card') — drop target: no element",
	} {
		assert.Contains(t, src, want)
	}
}

// TestTranslateFillForm: a fill_form entry is one line per field, in
// order; a failed one replays the fields it did, then its failure as a
// comment; the expected failure of a bug spec comes before the first.
func TestTranslateFillForm(t *testing.T) {
	fields := []FormField{{Target: "e1", Value: "Ada"}, {Target: "e2", Value: "${SECRET_2}"}, {Target: "e3", Value: "Pro", Kind: FieldSelect}, {Target: "e4", Kind: FieldCheck}, {Target: "label=Bio", Value: "x', y"}}
	locs := []string{"getByLabel('Name')", "getByLabel('Password')", "getByLabel('Plan')", "getByRole('checkbox', { name: 'Agree' })", "getByLabel('Bio')"}
	ents := []Entry{
		{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "/form"}, URL: "http://app.test/form"},
		{Action: ActFillForm, OK: true, Params: Intent{Action: ActFillForm, Fields: fields}, Locators: locs, URL: "http://app.test/form"},
		{Action: ActFillForm, OK: false, Params: Intent{Action: ActFillForm, Fields: fields[:3]}, Locators: locs[:1], Error: `fill_form stopped at fields[1] (fill "e2", field 2 of 3): ref e2 is stale`},
		{Action: ActFillForm, OK: false, Params: Intent{Action: ActFillForm, Fields: []FormField{{Target: "e9", Value: "never"}}}, Error: "fill_form stopped at fields[0]"},
	}
	src, err := Translate([]Reproduction{{Name: "form", Entries: ents, Bug: true}}, SpecOptions{BaseURL: "http://app.test"})
	require.NoError(t, err)
	assert.Contains(t, src, `  await visit(page, '/form');
  // The app answered (an unreachable app fails above, not as the expected failure).
  // test.fail() makes this spec pass while the bug exists; it fails once the bug is fixed.
  test.fail();
  await page.getByLabel('Name').fill('Ada');
  await page.getByLabel('Password').fill(secret('SECRET_2'));
  await page.getByLabel('Plan').selectOption('Pro');
  await page.getByRole('checkbox', { name: 'Agree' }).check();
  await page.getByLabel('Bio').fill('x\', y');
  await page.getByLabel('Name').fill('Ada');
  // failed in the recorded session: fill_form — fill_form stopped at fields[1] (fill "e2", field 2 of 3): ref e2 is stale
  // failed in the recorded session: fill_form — fill_form stopped at fields[0]
`, src)
	assert.Contains(t, src, "function secret(name: string)")
	assert.NotContains(t, src, "never")

	// Only the failed, partial fill_form: its fields still come after the
	// expected failure.
	src, err = Translate([]Reproduction{{Name: "partial", Entries: ents[2:3], Bug: true}}, SpecOptions{})
	require.NoError(t, err)
	assert.Contains(t, src, "  test.fail();\n  await page.getByLabel('Name').fill('Ada');\n  // failed in the recorded session")
	assert.NotContains(t, src, "no replayable actions")

	// A successful entry with more locators than fields is refused.
	bad := ents[1]
	bad.Locators = append(slices.Clone(locs), "getByLabel('extra')")
	_, err = Translate([]Reproduction{{Name: "bad", Entries: []Entry{bad}}}, SpecOptions{})
	assert.ErrorContains(t, err, "6 locators for 5 fields")
}

func TestJSLocator(t *testing.T) {
	tests := map[string]string{
		`internal:testid=[data-testid="save"s]`:                   `getByTestId('save')`,
		`internal:role=button[name="Save"i]`:                      `getByRole('button', { name: 'Save' })`,
		`internal:role=button[name="Save"s]`:                      `getByRole('button', { name: 'Save', exact: true })`,
		`internal:role=heading[level=1]`:                          `getByRole('heading', { level: 1 })`,
		`internal:role=checkbox[checked=true][name="A"i]`:         `getByRole('checkbox', { name: 'A', checked: true })`,
		`internal:label="Email"i`:                                 `getByLabel('Email')`,
		`internal:text="it's"s`:                                   `getByText('it\'s', { exact: true })`,
		`internal:attr=[placeholder="Search"i]`:                   `getByPlaceholder('Search')`,
		`internal:attr=[alt="Logo"i]`:                             `getByAltText('Logo')`,
		`internal:attr=[title="Help"i]`:                           `getByTitle('Help')`,
		`internal:role=listitem >> internal:role=button >> nth=0`: `getByRole('listitem').getByRole('button').first()`,
		`#email`:                  `locator('#email')`,
		`[data-test-subj="x>>y"]`: `locator('[data-test-subj="x>>y"]')`,
	}
	for in, want := range tests {
		assert.Equal(t, want, JSLocator(in), in)
	}
}

// TestGeneratedSpecsRunForReal records a session against the fixture app,
// generates specs and runs them with @playwright/test on Debian Chromium.
func TestGeneratedSpecsRunForReal(t *testing.T) {
	root, found := FindUp(mustWD(t), ".tools/node/node_modules/@playwright/test/cli.js")
	require.True(t, found, "@playwright/test not installed; %s", SetupHint)
	nodeModules := filepath.Dir(filepath.Dir(filepath.Dir(root)))

	app := newFixture(t)
	app.bug.Store(true)
	e := newEngine(t, app, nil)
	s := mustUser(t, e, "qa")
	ctx := context.Background()

	ok1 := func(intent string) Result { t.Helper(); return ok(t, s, intent) }
	ok1(fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/"))
	snap, err := s.Snapshot(ctx)
	require.NoError(t, err)
	ok1(fmt.Sprintf(`{"action":"fill","target":%q,"value":"qa@example.com"}`, refOf(t, snap.Text, `textbox "Email"`)))
	run(t, s, `{"action":"click","target":"testid=does-not-exist"}`) // failed: becomes a comment
	ok1(fmt.Sprintf(`{"action":"click","target":%q}`, refOf(t, snap.Text, `button "Delete" [ref=h`)))
	ok1(`{"action":"select_option","target":"label=Plan","value":"pro"}`)
	ok1(`{"action":"click","target":"text=Second page"}`)
	ok1(`{"action":"go_back"}`)
	plain := e.Window().Entries()

	start := len(plain)
	ok1(`{"action":"reload"}`)
	bugRes := ok1(`{"action":"click","target":"testid=save"}`)
	require.True(t, HasBug(bugRes.Findings), "the fixture's bug is on")
	all := e.Window().Entries()
	bugSteps := append([]Entry{all[0]}, all[start:]...)

	dir := t.TempDir()
	require.NoError(t, os.Symlink(nodeModules, filepath.Join(dir, "node_modules")))
	chromium, err := findChromium("", false)
	require.NoError(t, err)
	config := fmt.Sprintf(`import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.',
  workers: 1,
  retries: 0,
  timeout: 20000,
  reporter: 'line',
  use: { browserName: 'chromium', headless: true, launchOptions: { executablePath: %s, args: %s } },
});
`, jsString(chromium), "["+strings.Join(quoteJS(ChromiumArgs()), ", ")+"]")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "playwright.config.ts"), []byte(config), 0o644))
	plainSrc, err := Translate([]Reproduction{{Name: "delete a row and change plan", Entries: plain}}, SpecOptions{BaseURL: app.URL})
	require.NoError(t, err)
	bugSrc, err := Translate([]Reproduction{{Name: "saving shows a server error", Entries: bugSteps, Bug: true}}, SpecOptions{BaseURL: app.URL})
	require.NoError(t, err)
	require.Contains(t, plainSrc, "// failed in the recorded session")
	require.Contains(t, plainSrc, ".hover();")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain.spec.ts"), []byte(plainSrc), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bug.spec.ts"), []byte(bugSrc), 0o644))

	npx := func(files ...string) (string, error) {
		c, cancel := context.WithTimeout(ctx, 120*time.Second)
		defer cancel()
		cmd := exec.CommandContext(c, "npx", append([]string{"--no-install", "playwright", "test"}, files...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "AGENTGRAPH_BASE_URL="+app.URL, "CI=1", "PLAYWRIGHT_BROWSERS_PATH=0")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := npx()
	require.NoError(t, err, "with the bug on, the plain reproduction and the bug spec pass:\n%s\n--- plain\n%s\n--- bug\n%s", out, plainSrc, bugSrc)
	assert.Contains(t, out, "2 passed")

	app.bug.Store(false)
	out, err = npx("bug.spec.ts")
	require.Error(t, err, "with the bug fixed, the bug spec fails:\n%s", out)
	assert.Contains(t, out, "1 failed")
	out, err = npx("plain.spec.ts")
	require.NoError(t, err, "the plain reproduction still passes:\n%s", out)
}

func quoteJS(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = jsString(s)
	}
	return out
}

func mustWD(t testing.TB) string {
	wd, err := os.Getwd()
	require.NoError(t, err)
	return wd
}

func TestTranslateChecks(t *testing.T) {
	nav := Entry{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "http://app.test/p"}}
	tests := []struct {
		check Check
		want  []string
	}{
		{NoPageError{Contains: "boom"}, []string{"page.on('pageerror', (e) => pageErrors.push(String(e)));", "expect(pageErrors.filter((m) => m.includes('boom')), 'no uncaught page error containing \"boom\"').toEqual([]);"}},
		{NoConsoleError{Contains: "BUG-1: x"}, []string{"if (m.type() === 'error') consoleErrors.push(m.text());", "consoleErrors.filter((m) => m.includes('BUG-1: x'))"}},
		{NoServerError{Path: "/api/save"}, []string{"page.on('response'", "r.status >= 500 && r.path === '/api/save'"}},
		{NoServerError{}, []string{"responses.filter((r) => r.status >= 500)"}},
		{NoServerError{Method: "post", Path: "/p"}, []string{"r.status >= 500 && r.method === 'POST' && r.path === '/p'", "'no HTTP 5xx response to post on /p'"}},
		{NoNotFound{Path: "/gone"}, []string{"async ({ page, baseURL }) =>", "r.status === 404 && r.navigation && (!baseURL || r.origin === new URL(baseURL).origin) && r.path === '/gone'"}},
		{NoErrorBanner{Contains: "Export failed"}, []string{"const ERROR_BANNER = ", "filter({ visible: true, hasText: 'Export failed' })", "toHaveCount(0)"}},
		{NoErrorBanner{}, []string{`hasText: /\S/`}},
		{NoStackTrace{Contains: "TypeError"}, []string{"const STACK_TRACE = /(Traceback", "match(STACK_TRACE)", "trace.includes('TypeError')"}},
		{NoScriptRun{Marker: "__agxss"}, []string{"page.exposeFunction('__agentgraphScriptRan'", "page.addInitScript(([m, sels]) =>", "}, ['__agxss', ['']] as [string, string[]]);", "r.marker === '__agxss' && r.within.includes('')"}},
		{NoScriptRun{Marker: "__agxss", Within: `p[data-testid="summary"]`}, []string{"}, ['__agxss', ['p[data-testid=\"summary\"]']] as [string, string[]]);", "r.within.includes('p[data-testid=\"summary\"]')", "never runs inside p[data-testid="}},
		{NoA11yViolation{Rule: "button-name", Selector: `button[data-testid="x"]`}, []string{"import * as fs from 'fs';", "AGENTGRAPH_AXE_PATH || require.resolve('axe-core/axe.min.js')", "await page.evaluate(AXE_SOURCE);", "impact !== 'serious' && impact !== 'critical'", `}, ['button-name', 'button[data-testid="x"]']);`}},
		{FastResponse{Path: "/reports", Within: 3 * time.Second}, []string{"page.on('requestfinished', timed);", "r.path === '/reports' && r.ms > 3000", "'every response of /reports within 3s'"}},
		{FastResponse{Path: "/reports", Within: time.Second, Fetch: true}, []string{"const res = await page.request.get('/reports');", "r.path === '/reports' && r.ms > 1000"}},
		{ClickChanges{Selector: `button[data-testid="save-draft"]`}, []string{"await page.locator('button[data-testid=\"save-draft\"]').first().click();", "await page.waitForTimeout(600);", "expect(calls > 0 || after !== before"}},
		{NoDuplicateRows{}, []string{"querySelectorAll(sel)", "}, 'table');", "'no two identical table rows'"}},
		{NoDuplicatePost{Path: "/projects"}, []string{"await page.route(() => true,", "route.fetch({ maxRedirects: 0 })", "p.path !== '/projects'", "setTimeout(done, 0)"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%T", tt.check), func(t *testing.T) {
			src, err := Translate([]Reproduction{{Name: "r", Entries: []Entry{nav}, Bug: true, Checks: []Check{tt.check}}}, SpecOptions{BaseURL: "http://app.test"})
			require.NoError(t, err)
			for _, w := range tt.want {
				assert.Contains(t, src, w)
			}
			assert.Contains(t, src, "  test.fail();\n")
			assert.Contains(t, src, "// Asserts: "+tt.check.String())
			// Only this check: none of the defaults.
			if _, ok := tt.check.(NoServerError); !ok {
				assert.NotContains(t, src, "r.status >= 500")
			}
			if _, ok := tt.check.(NoPageError); !ok {
				assert.NotContains(t, src, "pageErrors")
			}
			// The check's action comes after the replay, its assertion after the settle.
			assert.Less(t, strings.Index(src, "await visit(page, '/p');"), strings.Index(src, "await page.waitForLoadState('networkidle');"))
		})
	}
}

func TestTranslateDefaultsAndRegressions(t *testing.T) {
	nav := Entry{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "/"}}
	src, err := Translate([]Reproduction{{Name: "bug", Entries: []Entry{nav}, Bug: true}}, SpecOptions{})
	require.NoError(t, err)
	for _, c := range DefaultChecks() {
		assert.Contains(t, src, "// Asserts: "+c.String())
	}
	assert.Contains(t, src, "expect(pageErrors, 'no uncaught page error').toEqual([]);")

	// Checks without Bug: a plain regression test.
	src, err = Translate([]Reproduction{{Name: "fixed", Entries: []Entry{nav}, Checks: []Check{NoConsoleError{}}}}, SpecOptions{})
	require.NoError(t, err)
	assert.NotContains(t, src, "test.fail()")
	assert.Contains(t, src, "expect(consoleErrors, 'no console error').toEqual([]);")

	// Neither: a replay without assertions.
	src, err = Translate([]Reproduction{{Name: "plain", Entries: []Entry{nav}}}, SpecOptions{})
	require.NoError(t, err)
	assert.NotContains(t, src, "expect(")
	assert.NotContains(t, src, "networkidle")
}

func TestTranslateRejectsBadChecks(t *testing.T) {
	for _, c := range []Check{
		NoScriptRun{Marker: "x-y"}, NoScriptRun{}, NoScriptRun{Marker: "a);alert(1"},
		FastResponse{Path: "/r"}, FastResponse{Within: time.Second},
		NoServerError{Path: "api"}, NoServerError{Method: "GET /"}, NoNotFound{Path: "http://x/y"}, NoDuplicatePost{},
		ClickChanges{}, nil,
	} {
		_, err := Translate([]Reproduction{{Name: "r", Bug: true, Checks: []Check{c}}}, SpecOptions{})
		assert.Error(t, err, "%#v", c)
	}
	_, err := Translate([]Reproduction{{Name: "r", Bug: true, SlowPosts: -time.Second}}, SpecOptions{})
	assert.Error(t, err)
}

func TestTranslateClearSiteDataAndDoubleSubmit(t *testing.T) {
	ents := []Entry{
		{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "/__explorer/clear-site-data"}},
		{Action: ActReload, OK: true},
		{Action: ActClick, OK: true, Locator: "getByRole('button', { name: 'Create' })"},
		{Action: ActClick, OK: false, Error: "gone"},
		{Action: ActClick, OK: true, Locator: "getByRole('button', { name: 'Create' })"},
		{Action: ActClick, OK: true, Locator: "getByText('Next')"},
	}
	src, err := Translate([]Reproduction{{Name: "r", Entries: ents, Bug: true, Checks: []Check{NoDuplicatePost{Path: "/items"}}, SlowPosts: 1500 * time.Millisecond}},
		SpecOptions{ClearSiteData: []string{"/__explorer/clear-site-data"}})
	require.NoError(t, err)
	assert.Contains(t, src, "await page.context().clearCookies();")
	assert.NotContains(t, src, "goto('/__explorer/clear-site-data')")
	assert.Contains(t, src, "setTimeout(done, 1500)")
	assert.Contains(t, src, `  await page.getByRole('button', { name: 'Create' }).evaluate((el) => { const w = window as unknown as { __agChain?: Promise<void>[] }; (w.__agChain ||= []).push(new Promise<void>((done) => setTimeout(() => { (el as HTMLElement).click(); done(); }, 300))); });
  await page.getByRole('button', { name: 'Create' }).click({ noWaitAfter: true });
  await page.evaluate(() => Promise.all((window as unknown as { __agChain?: Promise<void>[] }).__agChain || [])).catch(() => {});
  await settlePosts();
  // failed in the recorded session: click — gone
  // clicked again from the page (armed above): getByRole('button', { name: 'Create' })
  await page.getByText('Next').click();
`, "the second click on the control lands from the page while the first answer is held; another control is clicked as usual")
}

// TestTranslateEscapesPageText feeds text from a hostile page into every
// string a check renders: after removing string literals and comments, none
// of it is left in the code.
func TestTranslateEscapesPageText(t *testing.T) {
	const evil = "x' + alert(1) + '\" `${alert(2)}` </script><script>alert(3)</script>\n}); alert(4); //\u2028alert(5)\\"
	checks := []Check{
		NoPageError{Contains: evil}, NoConsoleError{Contains: evil}, NoServerError{Path: "/" + evil}, NoNotFound{Path: "/" + evil},
		NoErrorBanner{Contains: evil}, NoStackTrace{Contains: evil}, NoA11yViolation{Rule: evil, Selector: evil},
		FastResponse{Path: "/" + evil, Within: time.Second}, ClickChanges{Selector: evil}, NoDuplicateRows{Selector: evil},
		NoDuplicatePost{Path: "/" + evil},
	}
	v := evil
	ents := []Entry{{Action: ActFill, OK: true, Locator: "getByLabel('Name')", Params: Intent{Action: ActFill, Target: "label=Name", Value: &v}},
		{Action: ActClick, OK: false, Error: evil}}
	src, err := Translate([]Reproduction{{Name: evil, Entries: ents, Bug: true, Checks: checks}}, SpecOptions{BaseURL: "http://app.test"})
	require.NoError(t, err)
	assert.Contains(t, src, jsString(evil))
	code := stripLiteralsAndComments(t, src)
	for _, bad := range []string{"alert(", "</script>", "`", "${"} {
		assert.NotContains(t, code, bad, "page text leaked into code")
	}
}

// stripLiteralsAndComments removes '…' and "…" strings, /…/ regular
// expressions after = or ( and // comments from TypeScript source, failing
// on an unterminated string.
func stripLiteralsAndComments(t *testing.T, src string) string {
	t.Helper()
	var out strings.Builder
	prev := byte(' ')
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != c; j++ {
				if src[j] == '\\' {
					j++
				}
				require.NotEqual(t, byte('\n'), src[j], "line break in a string literal at %d: %q", j, src[i:j])
			}
			require.Less(t, j, len(src), "unterminated string")
			i = j
			out.WriteString("S")
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			out.WriteByte('\n')
		case c == '/' && strings.ContainsRune("=(,", rune(prev)):
			j := i + 1
			for ; j < len(src) && src[j] != '/'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			i = j
			out.WriteString("R")
		default:
			out.WriteByte(c)
		}
		if c != ' ' {
			prev = c
		}
	}
	return out.String()
}

func TestTranslateVisitHelper(t *testing.T) {
	ents := []Entry{
		{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "/a"}},
		{Action: ActClick, OK: true, Locator: "getByTestId('submit')"},
		{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "/c"}},
	}
	src, err := Translate([]Reproduction{{Name: "r", Entries: ents}}, SpecOptions{})
	require.NoError(t, err)
	assert.Contains(t, src, "  await visit(page, '/a');\n  await page.getByTestId('submit').click();\n  await visit(page, '/c');\n")
	assert.Equal(t, 1, strings.Count(src, "async function visit("), "the helper once per file")
	assert.Contains(t, src, "interrupted by another navigation|ERR_ABORTED")
	src, err = Translate([]Reproduction{{Name: "r", Entries: ents[1:2]}}, SpecOptions{})
	require.NoError(t, err)
	assert.NotContains(t, src, "function visit(", "no helper without a navigation")
}

// TestTranslateWaitsToLeavePage: a click or key press after which the
// recorded session was on another page waits until the replay has left the
// page as well (a fetch-submitted form navigates after the click returns);
// a click that stayed (or only changed the fragment) does not wait.
func TestTranslateWaitsToLeavePage(t *testing.T) {
	ents := []Entry{
		{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "http://app.test/new"}, URL: "http://app.test/new"},
		{Action: ActClick, OK: true, Locator: "getByTestId('tab')", URL: "http://app.test/new#b"},
		{Action: ActClick, OK: true, Locator: "getByTestId('submit')", URL: "http://app.test/items/3?created=1"},
		{Action: ActClick, OK: true, Locator: "getByTestId('star')", URL: "http://app.test/items/3?created=1"},
		{Action: ActClick, OK: false, Locator: "getByTestId('gone')", URL: "http://app.test/x", Error: "timeout"},
		{Action: ActPress, OK: true, Locator: "getByLabel('Search')", Params: Intent{Action: ActPress, Key: "Enter"}, URL: "http://app.test/search?q=a"},
	}
	src, err := Translate([]Reproduction{{Name: "r", Entries: ents}}, SpecOptions{BaseURL: "http://app.test"})
	require.NoError(t, err)
	assert.Contains(t, src, "async function leaving(page")
	assert.Contains(t, src, "  await page.getByTestId('tab').click();\n")
	assert.Contains(t, src, "  await leaving(page, () => page.getByTestId('submit').click());\n")
	assert.Contains(t, src, "  await page.getByTestId('star').click();\n")
	assert.Contains(t, src, "  await leaving(page, () => page.keyboard.press('Enter'));\n")

	// Without navigations, no helper.
	src, err = Translate([]Reproduction{{Name: "r", Entries: ents[:2]}}, SpecOptions{BaseURL: "http://app.test"})
	require.NoError(t, err)
	assert.NotContains(t, src, "leaving")
}

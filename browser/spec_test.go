package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
		"test.use({ baseURL: process.env.AGENTGRAPH_BASE_URL || 'http://app.test:8080' });",
		"test('plain', async ({ page }) => {",
		"await page.goto('/login?x=1');",
		`await page.getByLabel('Email').fill('a\'b');`,
		"// failed in the recorded session: click getByTestId('gone') — no element matches */",
		"await page.getByTestId('row-1').hover();\n  await page.getByRole('button', { name: 'Delete' }).click();",
		"await page.keyboard.press('Enter');",
		"await expect(page.getByText('Done').first()).toBeVisible();",
		"await page.goBack();", "await page.reload();",
		"test('plain (2)', async ({ page }) => {",
		"test.fail();",
		"expect(pageErrors, 'uncaught page errors').toEqual([]);",
		"expect(serverErrors, 'HTTP 5xx responses').toEqual([]);",
		"toHaveCount(0)",
	} {
		assert.Contains(t, src, want)
	}
	assert.Equal(t, 1, strings.Count(src, "  test.fail();\n"), "only the bug reproduction is expected to fail")
	_, err = Translate(nil, SpecOptions{})
	assert.Error(t, err)
	_, err = Translate([]Reproduction{{Name: "x"}}, SpecOptions{BaseURL: "::"})
	assert.Error(t, err)
}

func TestJSLocator(t *testing.T) {
	tests := map[string]string{
		`internal:testid=[data-testid="save"s]`:                   `getByTestId('save')`,
		`internal:role=button[name="Save"i]`:                      `getByRole('button', { name: 'Save' })`,
		`internal:role=button[name="Save"s]`:                      `getByRole('button', { name: 'Save', exact: true })`,
		`internal:role=heading[level=1]`:                          `getByRole('heading', { level: 1 })`,
		`internal:role=checkbox[checked=true][name="A"i]`:         `getByRole('checkbox', { checked: true, name: 'A' })`,
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
	chromium, err := findChromium("")
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

package explore

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
)

// fixtureApp is a small notes app the explorer was not built for: a list,
// a form, a detail page. Its two bugs: "Archive" throws in the page, and
// the stats link answers 500.
func fixtureApp(t *testing.T) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	notes := []string{"Buy milk", "Call Bob"}
	page := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>%s · Notes</title></head><body>
<nav aria-label="Main"><a href="/">Notes</a> <a href="/new">New note</a> <a href="/stats">Stats</a></nav><main>%s</main></body></html>`, title, body)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var b strings.Builder
		b.WriteString("<h1>Notes</h1><ul>")
		for i, n := range notes {
			fmt.Fprintf(&b, `<li><a href="/notes/%d">%s</a></li>`, i, html.EscapeString(n))
		}
		b.WriteString(`</ul><button type="button" onclick="document.getElementById('out').textContent = undefined.length">Archive</button><p id="out"></p>`)
		page(w, "Notes", b.String())
	})
	mux.HandleFunc("GET /new", func(w http.ResponseWriter, r *http.Request) {
		page(w, "New note", `<h1>New note</h1><form method="post" action="/new"><label for="t">Text</label><input id="t" name="text" required><button type="submit">Save note</button></form>`)
	})
	mux.HandleFunc("POST /new", func(w http.ResponseWriter, r *http.Request) {
		text := r.FormValue("text")
		mu.Lock()
		if text != "" && len(notes) < 50 {
			notes = append(notes, text)
		}
		mu.Unlock()
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /notes/{id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var id int
		if _, err := fmt.Sscan(r.PathValue("id"), &id); err != nil || id < 0 || id >= len(notes) {
			http.NotFound(w, r)
			return
		}
		page(w, "Note", "<h1>Note</h1><p></p>")
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "stats backend unavailable", http.StatusInternalServerError)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// recordTB records what the harness helper reports.
type recordTB struct {
	logs, errs []string
}

func (r *recordTB) Helper() {}
func (r *recordTB) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recordTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestExploreFixtureApp points the explorer, through the harness helper, at
// an app it was not built for: it explores without errors of its own, finds
// both bugs, and its reproduction specs replay with `npx playwright test`
// against the app (passing under test.fail() while the bugs are there).
func TestExploreFixtureApp(t *testing.T) {
	app := fixtureApp(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	rec := &recordTB{}
	res := Check(rec, ctx, Config{Target: app.URL, Budget: 40, ReportDir: dir, Browser: testBrowser, MinimizeTime: 30 * time.Second, Missions: []mission.Mission{{ThreadID: "notes", Prompt: "Explore the notes app"}}}, FailOnNew)
	require.Len(t, res.Missions, 1)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	assert.Nil(t, res.Demo, "not the demo app")
	require.NotEmpty(t, rec.logs)
	assert.Contains(t, rec.logs[0], "MISSION")

	kinds := map[string]bool{}
	for _, b := range m.Bugs {
		kinds[b.Kind] = true
	}
	assert.True(t, kinds[string(browser.FindPageError)], "Archive throws: %v", kinds)
	assert.True(t, kinds[string(browser.FindServerError)], "stats answers 500: %v", kinds)
	assert.Len(t, rec.errs, len(m.Bugs), "the helper reports every new bug")
	assert.Contains(t, strings.Join(rec.errs, "\n"), "stats backend unavailable")
	assert.Contains(t, m.Explored, "/new")

	// Each bug keeps a Playwright trace of its reproduction, which
	// Playwright's own trace viewer opens: the bug's title and the app's
	// page as the replay left it.
	for _, b := range m.Bugs {
		require.NotEmpty(t, b.Trace, "bug %s has no trace", b.ID)
		require.FileExists(t, filepath.Join(dir, "notes", b.Trace))
	}
	viewed := viewTrace(t, filepath.Join(dir, "notes", m.Bugs[0].Trace), m.Bugs[0].ID)
	assert.Contains(t, viewed, "iframe", "the viewer shows the DOM snapshot")

	// Replay every reproduction with @playwright/test against the app.
	cli, found := browser.FindUp(mustWD(t), ".tools/node/node_modules/@playwright/test/cli.js")
	require.True(t, found, "@playwright/test not installed; %s", browser.SetupHint)
	nodeModules := filepath.Dir(filepath.Dir(filepath.Dir(cli)))
	run := t.TempDir()
	require.NoError(t, os.Symlink(nodeModules, filepath.Join(run, "node_modules")))
	specs, err := filepath.Glob(filepath.Join(dir, "notes", "reproduction_*.spec.ts"))
	require.NoError(t, err)
	require.Len(t, specs, len(m.Bugs))
	for _, s := range specs {
		src, err := os.ReadFile(s)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(run, filepath.Base(s)), src, 0o644))
	}
	// The report's own playwright.config.ts: baseURL from BASE_URL.
	cfg, err := os.ReadFile(filepath.Join(dir, "notes", "playwright.config.ts"))
	require.NoError(t, err)
	assert.Contains(t, string(cfg), "process.env.BASE_URL || '"+app.URL+"'")
	require.NoError(t, os.WriteFile(filepath.Join(run, "playwright.config.ts"), cfg, 0o644))
	chromium := os.Getenv("AGENTGRAPH_CHROMIUM")
	if chromium == "" {
		chromium, err = exec.LookPath("chromium")
		require.NoError(t, err, "chromium not found; %s", browser.SetupHint)
	}
	playwright := func(base string) (string, error) {
		// Each spec run has its own bound: the run's 2 minutes above are
		// for the explorer (under the suite's load it may use most of
		// them).
		c, cancel2 := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel2()
		cmd := exec.CommandContext(c, "npx", "--no-install", "playwright", "test")
		cmd.Dir = run
		cmd.Env = append(append(os.Environ(), "BASE_URL="+base, "AGENTGRAPH_BASE_URL=", "AGENTGRAPH_CHROMIUM="+chromium, "CI=1", "PLAYWRIGHT_BROWSERS_PATH=0"), res.SecretEnv...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := playwright(app.URL)
	require.NoError(t, err, "the reproductions pass (as expected failures) while the bugs exist:\n%s", out)
	assert.Contains(t, out, fmt.Sprintf("%d passed", len(specs)))

	// Pointed at an app that does not answer, every spec fails for that,
	// not as its bug's expected failure.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedURL := "http://" + closed.Addr().String()
	require.NoError(t, closed.Close())
	out, err = playwright(closedURL)
	require.Error(t, err, out)
	assert.Contains(t, out, fmt.Sprintf("%d failed", len(specs)), out)
}

func mustWD(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	return wd
}

// playwrightConfig runs specs headless in the same Chromium as the engine.
func playwrightConfig(t *testing.T) string {
	t.Helper()
	chromium := os.Getenv("AGENTGRAPH_CHROMIUM")
	if chromium == "" {
		p, err := exec.LookPath("chromium")
		require.NoError(t, err, "chromium not found; %s", browser.SetupHint)
		chromium = p
	}
	args := make([]string, 0, len(browser.ChromiumArgs()))
	for _, a := range browser.ChromiumArgs() {
		args = append(args, fmt.Sprintf("%q", a))
	}
	return fmt.Sprintf(`import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.',
  workers: 1,
  retries: 0,
  timeout: 60000, // as the generated playwright.config.ts: a long reproduction on a loaded machine needs it
  reporter: 'line',
  use: { browserName: 'chromium', headless: true, launchOptions: { executablePath: %q, args: [%s] } },
});
`, chromium, strings.Join(args, ", "))
}

package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
)

// hostile is text from a web page that must reach the spec unharmed.
const hostile = "it's \"quoted\" `tick` ${alert(1)} </script><b>\nsecond line \u2028 back\\slash"

// checksApp has one page per check; bug switches every seeded defect on or
// off. Some pages carry noise the narrow checks must ignore.
func checksApp(t *testing.T, bug *atomic.Bool) *httptest.Server {
	t.Helper()
	js, err := json.Marshal(hostile) // escapes <, > and & for a script
	require.NoError(t, err)
	var mu sync.Mutex
	items, tokens := 0, map[string]int{}
	page := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Checks</title></head><body><main>%s</main></body></html>`, body)
	}
	on := func(yes, no string) string {
		if bug.Load() {
			return yes
		}
		return no
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>Console</h1><script>console.error('unrelated noise');`+on(`console.error(`+string(js)+`);`, ``)+`</script>`)
	})
	mux.HandleFunc("GET /pageerror", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>Errors</h1>`+on(`<script>setTimeout(() => { throw new Error(`+string(js)+`); }, 0);</script>`, ``))
	})
	mux.HandleFunc("GET /fivexx", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>Data</h1><script>fetch('/api/data'); fetch('/api/noise');</script>`)
	})
	mux.HandleFunc("GET /api/data", func(w http.ResponseWriter, r *http.Request) {
		if bug.Load() {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, `{}`)
	})
	mux.HandleFunc("GET /api/noise", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "noise", http.StatusBadGateway) })
	mux.HandleFunc("GET /links", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>Links</h1><img src="/missing.png" alt="noise"><a href="`+on(`/gone`, `/ok`)+`">What's new</a>`)
	})
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) { page(w, `<h1>OK</h1>`) })
	mux.HandleFunc("GET /banner", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<div class="error">Maintenance tonight</div>`+on(`<div role="alert">Export failed: `+html.EscapeString(hostile)+`</div>`, `<p>Exported.</p>`))
	})
	mux.HandleFunc("GET /trace", func(w http.ResponseWriter, r *http.Request) {
		page(w, on("<pre>TypeError: Cannot read properties of undefined (reading 'id')\n    at render (app.js:10:5)\n    at main (app.js:20:3)\n</pre>", `<p>Rendered.</p>`))
	})
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		// Noise: a payload that always runs, outside the reported element.
		page(w, `<h1>Search</h1><p data-testid="summary">Results for `+on(q, html.EscapeString(q))+`</p><aside><img src="/nope.png" onerror="__agxss(this)" alt="noise"></aside>`)
	})
	mux.HandleFunc("GET /a11y", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>Icons</h1><button data-testid="other"></button>`+on(`<button data-testid="it's &quot;icon&quot;"></button>`, `<button data-testid="it's &quot;icon&quot;" aria-label="Refresh"></button>`))
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		if bug.Load() {
			time.Sleep(3 * time.Second)
		}
		page(w, `<h1>Reports</h1>`)
	})
	mux.HandleFunc("GET /dead", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>Draft</h1><p id="status"></p><button type="button" data-testid="save-draft" `+on(``, `onclick="this.disabled = true; document.getElementById('status').textContent = 'Draft saved'"`)+`>Save draft</button>`)
	})
	mux.HandleFunc("GET /rows", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<table><thead><tr><th>Name</th></tr></thead><tbody><tr><td>Alpha</td></tr><tr><td>Beta</td></tr>`+on(`<tr><td>Alpha</td></tr>`, ``)+`</tbody></table>`)
	})
	mux.HandleFunc("GET /form", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<form method="post" action="/items"><input type="hidden" name="form_token" value="`+fmt.Sprint(time.Now().UnixNano())+`"><label>Name <input name="name" value="A"></label><button type="submit">Create</button></form>`)
	})
	mux.HandleFunc("POST /items", func(w http.ResponseWriter, r *http.Request) {
		tok := r.FormValue("form_token")
		mu.Lock()
		id, seen := tokens[tok]
		if !seen || bug.Load() {
			items++
			id = items
			tokens[tok] = id
		}
		mu.Unlock()
		http.Redirect(w, r, fmt.Sprintf("/items/%d", id), http.StatusSeeOther)
	})
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) { page(w, `<h1>Item `+r.PathValue("id")+`</h1>`) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestChecksRunForReal renders one bug reproduction per check (with page
// text full of quotes, backticks, ${}, newlines and </script>), runs them
// with `npx playwright test` on Debian Chromium against an app whose bugs
// are on, then off: on, every test fails its own assertion as expected
// (the bug reproduces); off, every test passes its assertion, so test.fail()
// reports it (the bug is fixed). Each app page carries noise the narrow
// checks must not trip over.
func TestChecksRunForReal(t *testing.T) {
	var bug atomic.Bool
	app := checksApp(t, &bug)
	nav := func(path string) browser.Entry {
		return browser.Entry{Action: browser.ActNavigate, OK: true, Params: browser.Intent{Action: browser.ActNavigate, URL: app.URL + path}}
	}
	click := func(loc string) browser.Entry {
		return browser.Entry{Action: browser.ActClick, OK: true, Locator: loc}
	}
	payload := url.QueryEscape(`<img src=x onerror="__agxss(this)">`)
	cases := []struct {
		name    string
		entries []browser.Entry
		check   browser.Check
		slow    time.Duration
	}{
		{"console " + hostile, []browser.Entry{nav("/console")}, browser.NoConsoleError{Contains: hostile}, 0},
		{"page error", []browser.Entry{nav("/pageerror")}, browser.NoPageError{Contains: hostile}, 0},
		{"5xx", []browser.Entry{nav("/fivexx")}, browser.NoServerError{Path: "/api/data"}, 0},
		{"404 link", []browser.Entry{nav("/links"), click("getByRole('link', { name: 'What\\'s new' })")}, browser.NoNotFound{Path: "/gone"}, 0},
		{"banner", []browser.Entry{nav("/banner")}, browser.NoErrorBanner{Contains: "Export failed: " + hostile[:12]}, 0},
		{"stack trace", []browser.Entry{nav("/trace")}, browser.NoStackTrace{Contains: "TypeError: Cannot read"}, 0},
		{"xss", []browser.Entry{nav("/search?q=" + payload)}, browser.NoScriptRun{Marker: "__agxss", Within: `p[data-testid="summary"]`}, 0},
		{"a11y", []browser.Entry{nav("/a11y")}, browser.NoA11yViolation{Rule: "button-name", Selector: `button[data-testid="it's \"icon\""]`}, 0},
		{"slow", []browser.Entry{nav("/slow")}, browser.FastResponse{Path: "/slow", Within: 2 * time.Second, Fetch: true}, 0},
		{"dead control", []browser.Entry{nav("/dead")}, browser.ClickChanges{Selector: `button[data-testid="save-draft"]`}, 0},
		{"duplicate rows", []browser.Entry{nav("/rows")}, browser.NoDuplicateRows{}, 0},
		{"duplicate post", []browser.Entry{nav("/form"), click("getByRole('button', { name: 'Create' })"), click("getByRole('button', { name: 'Create' })")}, browser.NoDuplicatePost{Path: "/items"}, time.Second},
	}
	dir := t.TempDir()
	require.NoError(t, browsertest.SpecDir(dir))
	want := map[string]browser.Check{}
	for i, c := range cases {
		src, err := browser.Translate([]browser.Reproduction{{Name: c.name, Entries: c.entries, Bug: true, Checks: []browser.Check{c.check}, SlowPosts: c.slow}}, browser.SpecOptions{BaseURL: app.URL})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("check%02d.spec.ts", i)), []byte(src), 0o644))
		want[c.name] = c.check
	}
	// Generous: the machine may be shared; a run is about 12 short specs.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	env := []string{"AGENTGRAPH_BASE_URL=" + app.URL}

	bug.Store(true)
	outs, log, err := browsertest.RunSpecs(ctx, dir, env)
	require.NoError(t, err, log)
	require.Len(t, outs, len(cases), log)
	for _, o := range outs {
		c, ok := want[o.Title]
		require.True(t, ok, o.Title)
		if assert.Equal(t, "expected", o.Status, "bug on: %s reproduces (%v)", o.Title, o.Errors) {
			// It failed for the right reason: its own assertion.
			assert.Contains(t, strings.Join(o.Errors, "\n"), c.String(), o.Title)
		}
	}

	bug.Store(false)
	outs, log, err = browsertest.RunSpecs(ctx, dir, env)
	require.NoError(t, err, log)
	require.Len(t, outs, len(cases), log)
	for _, o := range outs {
		assert.Equal(t, "unexpected", o.Status, "bug off: %s no longer reproduces, so test.fail() fails (%v)", o.Title, o.Errors)
	}
}

package browser

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testBrowser is the one Chromium shared by every test of this binary.
var testBrowser *Browser

func TestMain(m *testing.M) {
	// A fuzz worker runs only the fuzz target, which needs no browser: a
	// Chromium per worker (started again after each new input it keeps)
	// would leave the fuzzer next to no time.
	flag.Parse()
	if os.Getenv(childEnv) != "" || flag.Lookup("test.fuzzworker").Value.String() == "true" {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	b, err := Launch(ctx, LaunchOptions{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser tests need Chromium and the Playwright driver:", err)
		os.Exit(1)
	}
	testBrowser = b
	code := m.Run()
	_ = b.Close()
	os.Exit(code)
}

// fixtureApp is a small web app with pages for every health signal and a
// switchable bug on its save button.
type fixtureApp struct {
	*httptest.Server
	bug atomic.Bool
}

const homeHTML = `<!doctype html><html><head><title>Fixture Home</title>
<style>.row .del{display:none}.row:hover .del{display:inline}</style></head><body>
<h1>Fixture</h1>
<nav><a href="/second">Second page</a> <a href="http://other.invalid/x" data-testid="external">External</a></nav>
<button data-testid="save">Save</button> <span id="status"></span>
<button aria-label="Close panel">X</button>
<label for="email">Email</label><input id="email" placeholder="you@example.com">
<input id="search" placeholder="Search" onkeydown="if(event.key==='Enter'){document.getElementById('status').textContent='searched '+this.value}">
<select id="plan" aria-label="Plan"><option value="free">Free</option><option value="pro">Pro</option></select>
<div id="hovered" onmouseover="this.textContent='hovered!'">Hover me</div>
<button data-testid="late" onclick="setTimeout(()=>{const p=document.createElement('p');p.textContent='Arrived late';document.body.appendChild(p)},300)">Later</button>
<button data-testid="confirm" onclick="document.getElementById('status').textContent = confirm('Sure?') ? 'confirmed' : 'cancelled'">Confirm</button>
<button data-testid="popup" onclick="window.open('http://other.invalid/pop')">Popup</button>
<ul>
<li class="row" data-testid="row-milk">Milk <button class="del" onclick="this.parentElement.remove()">Delete</button></li>
<li class="row" data-testid="row-eggs">Eggs <button class="del" onclick="this.parentElement.remove()">Delete</button></li>
</ul>
<div style="height:3000px"></div><p>Bottom</p>
<script>
document.querySelector('[data-testid=save]').onclick = async () => {
  const r = await fetch('/api/save', {method: 'POST'});
  if (!r.ok) {
    const b = document.createElement('div'); b.setAttribute('role', 'alert'); b.textContent = 'Could not save: server error';
    document.body.prepend(b);
    throw new Error('save failed with ' + r.status);
  }
  document.getElementById('status').textContent = 'Saved';
};
</script></body></html>`

func newFixture(t testing.TB) *fixtureApp {
	app := &fixtureApp{}
	mux := http.NewServeMux()
	page := func(title, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body>%s</body></html>", title, body)
		}
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, homeHTML)
	})
	mux.HandleFunc("/second", page("Second", `<h1>Second</h1><a href="/">Home</a>`))
	mux.HandleFunc("POST /api/save", func(w http.ResponseWriter, r *http.Request) {
		if app.bug.Load() {
			http.Error(w, "database is locked", http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("/pageerror", page("PE", `<p>x</p><script>setTimeout(()=>{throw new Error('kaput in handler')},0)</script>`))
	mux.HandleFunc("/console", page("Console", `<script>console.error('widget failed to load')</script>`))
	// A request of the app's own origin whose connection drops (another
	// origin's would be refused by the origin guard, not fail).
	mux.HandleFunc("/reqfail", page("ReqFail", `<img src="/drop.png">`))
	mux.HandleFunc("/drop.png", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) })
	mux.HandleFunc("/api/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusBadGateway) })
	mux.HandleFunc("/fivexx", page("5xx", `<script>fetch('/api/broken')</script>`))
	mux.HandleFunc("/banner", page("Banner", `<div class="alert-danger">Something went wrong</div>`))
	mux.HandleFunc("/trace", page("Trace", "<pre>TypeError: Cannot read properties of undefined (reading 'id')\n    at render (app.js:10:5)\n    at main (app.js:20:3)\n</pre>"))
	mux.HandleFunc("/spinner", page("Spinner", `<div class="spinner" aria-label="Loading">…</div>`))
	mux.HandleFunc("/quickspinner", page("Quick", `<div class="spinner" id="sp">…</div><script>setTimeout(()=>document.getElementById('sp').remove(),300)</script>`))
	mux.HandleFunc("/dialog", page("Dialog", `<script>setTimeout(()=>alert('hello there'),0)</script>`))
	mux.HandleFunc("/store", page("Store", `<p id="who"></p><script>
const q = new URLSearchParams(location.search).get('set'); if (q) { localStorage.setItem('who', q); document.cookie = 'who=' + q; }
document.getElementById('who').textContent = 'who=' + (localStorage.getItem('who') || 'nobody') + ' cookie=' + (document.cookie || 'none');
</script>`))
	mux.HandleFunc("/many", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, manyHTML(200))
	})
	app.Server = httptest.NewServer(mux)
	t.Cleanup(app.Close)
	return app
}

// manyHTML is a page with n interactive elements: buttons, links, inputs
// and hover-only delete buttons in rows.
func manyHTML(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Many</title><style>.row .del{display:none}.row:hover .del{display:inline}</style></head><body><h1>Many</h1><div id="count">0</div>`)
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `<div class="card"><button data-testid="b%d" onclick="document.getElementById('count').textContent=%d">Button %d</button></div>`, i, i, i)
		case 1:
			fmt.Fprintf(&b, `<div><a href="#a%d">Link %d</a></div>`, i, i)
		case 2:
			fmt.Fprintf(&b, `<div><label>Field %d <input name="f%d"></label></div>`, i, i)
		default:
			fmt.Fprintf(&b, `<ul><li class="row">Row %d <button class="del">Delete %d</button></li></ul>`, i, i)
		}
	}
	b.WriteString(`</body></html>`)
	return b.String()
}

func newEngine(t testing.TB, app *fixtureApp, mod func(*Config)) *Engine {
	t.Helper()
	cfg := Config{Origins: []string{app.URL}, SettleTimeout: 2 * time.Second, SpinnerTimeout: time.Second, ActionTimeout: 3 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	e, err := testBrowser.NewEngine(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func mustUser(t testing.TB, e *Engine, name string) *Session {
	t.Helper()
	s, err := e.User(context.Background(), name)
	require.NoError(t, err)
	return s
}

func run(t testing.TB, s *Session, intent string) Result {
	t.Helper()
	return s.Run(context.Background(), []byte(intent))
}

func ok(t testing.TB, s *Session, intent string) Result {
	t.Helper()
	r := run(t, s, intent)
	require.True(t, r.OK, "intent %s failed: %s", intent, r.Error)
	return r
}

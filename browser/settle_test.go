package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fetchForm posts in the background, then follows the redirect with
// location.assign, as the demo app's data-fetch-submit forms do.
const fetchForm = `<!doctype html><html><head><title>Form</title></head><body>
<form method="post" action="/items" id="f"><label>Name <input name="name" value="A"></label><button type="submit">Create</button></form>
<script>
document.getElementById('f').addEventListener('submit', (ev) => {
  ev.preventDefault();
  fetch('/items', { method: 'POST', body: new URLSearchParams(new FormData(ev.target)).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })
    .then((res) => { if (res.redirected) window.location.assign(res.url); else ev.target.submit(); });
});
</script></body></html>`

// TestSettleAfterRedirectedFetch: Chromium never reports the end of a
// redirected fetch's answer when the page navigates away before reading
// it. The settle wait must not count it (it used to wait out its whole
// timeout after every such form, and every later action did too).
func TestSettleAfterRedirectedFetch(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /form", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, fetchForm) })
	mux.HandleFunc("POST /items", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/items/1?created=1", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Item</title></head><body><h1>Item</h1></body></html>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	const timeout = 10 * time.Second
	e, err := testBrowser.NewEngine(Config{Origins: []string{srv.URL}, SettleTimeout: timeout})
	require.NoError(t, err)
	defer e.Close()
	ctx := context.Background()
	s, err := e.User(ctx, "u")
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		res := s.Do(ctx, Intent{Action: ActNavigate, URL: srv.URL + "/form"})
		require.True(t, res.OK, res.Error)
		res = s.Do(ctx, Intent{Action: ActClick, Target: `role=button[name="Create"]`})
		require.True(t, res.OK, res.Error)
		assert.Equal(t, srv.URL+"/items/1?created=1", res.URL)
		assert.Zero(t, s.net.len(), "no request of the form page is still counted")
		assert.Less(t, res.Duration, timeout, "the settle saw the page idle before its timeout")
	}
}

// An action that sends nothing is settled at once, not after SettleQuiet;
// one whose handler fetches waits for the answer and the quiet after it,
// and so does an XMLHttpRequest's.
func TestSettleEventDriven(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Page</title></head><body><p id="out"></p>
<button onclick="document.getElementById('out').textContent = 'shown'">Show</button>
<button onclick="fetch('/slow').then((r) => r.text()).then((t) => { document.getElementById('out').textContent = t; })">Load</button>
<button onclick="const x = new XMLHttpRequest(); x.open('GET', '/slow'); x.onload = () => { document.getElementById('out').textContent = 'xhr ' + x.responseText; }; x.send()">Xhr</button>
</body></html>`)
	})
	// A plain page, a page whose script starts work 50 ms after loading,
	// and one that fetches on load.
	mux.HandleFunc("GET /plain", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Plain</title></head><body><p id="out">plain</p><a href="/timer">Timer</a></body></html>`)
	})
	mux.HandleFunc("GET /timer", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Timer</title></head><body><p id="out">wait</p>
<script>setTimeout(() => { document.getElementById('out').textContent = 'later'; }, 50)</script></body></html>`)
	})
	mux.HandleFunc("GET /onload", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Onload</title></head><body><p id="out">wait</p>
<script>fetch('/slow').then((r) => r.text()).then((t) => { document.getElementById('out').textContent = t; })</script></body></html>`)
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		fmt.Fprint(w, "loaded")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	// A quiet long enough that no machine is slow enough to confuse the
	// fast path with the wait.
	const quiet = 3 * time.Second
	e, err := testBrowser.NewEngine(Config{Origins: []string{srv.URL}, SettleTimeout: 20 * time.Second, SettleQuiet: quiet})
	require.NoError(t, err)
	defer e.Close()
	ctx := context.Background()
	s, err := e.User(ctx, "u")
	require.NoError(t, err)
	require.True(t, s.Do(ctx, Intent{Action: ActNavigate, URL: srv.URL + "/"}).OK)
	text := func() string {
		r := s.Do(ctx, Intent{Action: ActExtractText, Target: "#out"})
		require.True(t, r.OK, r.Error)
		return r.Output
	}

	res := s.Do(ctx, Intent{Action: ActClick, Target: `role=button[name="Show"]`})
	require.True(t, res.OK, res.Error)
	assert.Less(t, res.Duration, quiet, "a click that sent nothing does not wait for the quiet")
	assert.Equal(t, "shown", text())

	res = s.Do(ctx, Intent{Action: ActClick, Target: `role=button[name="Load"]`})
	require.True(t, res.OK, res.Error)
	assert.GreaterOrEqual(t, res.Duration, quiet, "a click that fetched waits for the answer and the quiet")
	assert.Equal(t, "loaded", text())

	res = s.Do(ctx, Intent{Action: ActClick, Target: `role=button[name="Xhr"]`})
	require.True(t, res.OK, res.Error)
	assert.GreaterOrEqual(t, res.Duration, quiet)
	assert.Equal(t, "xhr loaded", text())

	// A new document that loaded and has nothing due settles at once,
	// whether a navigation or a link's click loaded it; one with a timer
	// about to run, or a fetch of its own, gets the quiet.
	res = s.Do(ctx, Intent{Action: ActNavigate, URL: srv.URL + "/plain"})
	require.True(t, res.OK, res.Error)
	assert.Less(t, res.Duration, quiet, "a loaded page with nothing due does not wait for the quiet")
	res = s.Do(ctx, Intent{Action: ActClick, Target: `role=link[name="Timer"]`})
	require.True(t, res.OK, res.Error)
	assert.GreaterOrEqual(t, res.Duration, quiet, "a page with a timer due waits for the quiet")
	assert.Equal(t, "later", text())
	res = s.Do(ctx, Intent{Action: ActNavigate, URL: srv.URL + "/onload"})
	require.True(t, res.OK, res.Error)
	assert.GreaterOrEqual(t, res.Duration, quiet, "a page that fetches on load waits for the answer and the quiet")
	assert.Equal(t, "loaded", text())
}

// TestNetIdleTimers: the init script's timer bookkeeping keeps setTimeout
// and clearTimeout working as the page expects (arguments, this, string
// code, cleared timers).
func TestNetIdleTimers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>T</title></head><body></body></html>`)
	}))
	defer srv.Close()
	e, err := testBrowser.NewEngine(Config{Origins: []string{srv.URL}})
	require.NoError(t, err)
	defer e.Close()
	s := mustUser(t, e, "timers")
	ok(t, s, `{"action":"navigate","url":"/"}`)
	ctx := context.Background()
	v, err := s.Evaluate(ctx, `() => new Promise((resolve) => {
  const got = [];
  setTimeout((a, b) => got.push(a + b), 0, 'x', 'y');
  const id = setTimeout(() => got.push('cleared'), 10);
  clearTimeout(id);
  window.__str = 0;
  setTimeout('window.__str = 1', 0);
  setTimeout(() => resolve([got.join(','), window.__str, typeof id]), 40);
})`, nil)
	require.NoError(t, err)
	assert.Equal(t, []any{"xy", 1, "number"}, v)
	idle, err := s.Evaluate(ctx, `() => { setTimeout(() => {}, 200); return window.__agNetIdle(500); }`, nil)
	require.NoError(t, err)
	a, ok := idle.([]any)
	require.True(t, ok)
	require.Len(t, a, 4)
	assert.EqualValues(t, 1, a[2], "one callback due within 500 ms")
	assert.Equal(t, true, a[3])
}

// TestAwaitCalm: after a click, the wait for what it may still do ends
// once the page's timers due within it have run (and says how many ran),
// at once when none is due, and at its end when the page keeps
// scheduling work.
func TestAwaitCalm(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Calm</title></head><body><p id="out">-</p>
<button onclick="document.getElementById('out').textContent = 'now'">Now</button>
<button onclick="setTimeout(() => { document.getElementById('out').textContent = 'later'; console.error('late failure'); }, 300)">Later</button>
<button onclick="setTimeout(() => {}, 5000)">Far</button>
<button onclick="const tick = () => setTimeout(tick, 50); tick()">Busy</button>
</body></html>`)
	}))
	defer srv.Close()
	e, err := testBrowser.NewEngine(Config{Origins: []string{srv.URL}})
	require.NoError(t, err)
	defer e.Close()
	s := mustUser(t, e, "calm")
	ok(t, s, `{"action":"navigate","url":"/"}`)
	ctx := context.Background()
	const wait = 2 * time.Second
	click := func(name string) (bool, int, time.Duration) {
		t.Helper()
		ok(t, s, fmt.Sprintf(`{"action":"click","target":"role=button[name=\"%s\"]"}`, name))
		start := time.Now()
		calm, ran, err := s.AwaitCalm(ctx, wait)
		require.NoError(t, err)
		return calm, ran, time.Since(start)
	}

	calm, ran, took := click("Now")
	assert.True(t, calm)
	assert.Zero(t, ran)
	assert.Less(t, took, wait, "nothing due: no wait")

	calm, ran, took = click("Later")
	assert.True(t, calm)
	assert.Equal(t, 1, ran, "the click's timer ran within the wait")
	assert.Less(t, took, wait)
	r := s.Do(ctx, Intent{Action: ActExtractText, Target: "#out"})
	assert.Equal(t, "later", r.Output)
	assert.True(t, hasKind(append(r.Findings, s.TakeFindings()...), FindConsoleError), "the late error reached the engine")

	calm, ran, took = click("Far")
	assert.True(t, calm, "a timer due after the wait is not waited for")
	assert.Zero(t, ran)
	assert.Less(t, took, wait)

	calm, _, took = click("Busy")
	assert.False(t, calm, "a page that keeps scheduling work is not calm")
	assert.GreaterOrEqual(t, took, wait-50*time.Millisecond, "and the wait runs to its end")
}

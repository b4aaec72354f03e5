package explore

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// otherOrigin is a server on another origin that logs every request: it
// must stay empty whatever the app under test does.
type otherOrigin struct {
	*httptest.Server
	mu  sync.Mutex
	log []string
}

func newOtherOrigin(t *testing.T) *otherOrigin {
	o := &otherOrigin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.log = append(o.log, r.Method+" "+r.URL.RequestURI())
		o.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Elsewhere</title><a href="/deeper">deeper</a>`)
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *otherOrigin) requests() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.log)
}

// hostileApp links every hostile page of issue 16 from its home page.
func hostileApp(t *testing.T, other string) *httptest.Server {
	page := func(title, head, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>%s</title>%s</head><body><main><h1>%s</h1>%s</main></body></html>`, title, head, title, body)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", page("Hostile", "", fmt.Sprintf(`<nav aria-label="Main"><ul>
<li><a href="/loop">Busy page</a></li><li><a href="/alerts">Alerts</a></li><li><a href="/popups">Popups</a></li>
<li><a href="/redirect">Moved</a></li><li><a href="/self">Self redirect</a></li><li><a href="/meta">Refresh</a></li>
<li><a href="/frame">Framed</a></li><li><a href="/img">Picture</a></li><li><a href="%s/away">Elsewhere</a></li></ul></nav>`, other)))
	mux.HandleFunc("GET /loop", page("Busy", "", `<p>busy</p><script>setTimeout(() => { while (true) {} }, 50)</script>`))
	mux.HandleFunc("GET /alerts", page("Alerts", "", `<script>setTimeout(() => { for (;;) alert('storm') }, 50)</script>`))
	mux.HandleFunc("GET /popups", page("Popups", "", fmt.Sprintf(`<a href="/">Home</a><script>setTimeout(() => { for (let i = 0; i < 30; i++) { window.open(%q + '/pop' + i); window.open('/?' + i, '_blank'); } }, 50)</script>`, other)))
	mux.HandleFunc("GET /redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other+"/landed", http.StatusFound) })
	mux.HandleFunc("GET /self", func(w http.ResponseWriter, r *http.Request) {
		// the app's own absolute URL: the collector keeps it on the collector
		http.Redirect(w, r, "http://"+r.Host+"/", http.StatusFound)
	})
	mux.HandleFunc("GET /meta", page("Refresh", fmt.Sprintf(`<meta http-equiv="refresh" content="0;url=%s/meta">`, other), "<p>refreshing</p>"))
	mux.HandleFunc("GET /frame", page("Framed", "", fmt.Sprintf(`<iframe title="other" src="%s/frame"></iframe><a href="/">Home</a>`, other)))
	mux.HandleFunc("GET /img", page("Picture", "", fmt.Sprintf(`<img src="%s/img.png" alt="remote"><a href="/">Home</a>`, other)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestExplorerHostileApp runs the explorer on an app of hostile pages
// (JS infinite loop, alert storm, popup storm, 302 and meta refresh to
// another origin, off-origin iframe, image and link): it finishes within
// its budget's time, never reaches the other origin, records every
// off-origin attempt as a failed step, and exits with a documented code
// (0 or 1, by the bugs it found; never 2).
func TestExplorerHostileApp(t *testing.T) {
	other := newOtherOrigin(t)
	app := hostileApp(t, other.URL)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, Config{Target: app.URL, Budget: 14, TurnSteps: 5, ReportDir: dir, Browser: testBrowser, MinimizeReplays: -1,
		Missions: []mission.Mission{{ThreadID: "hostile", Prompt: "Explore every page"}}})
	took := time.Since(start)
	t.Logf("explorer run: %s", took)
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	assert.Less(t, took, 90*time.Second+30*time.Second, "budget (14 steps, bounded) plus 30s")
	assert.Contains(t, []int{ExitClean, ExitBugs}, ExitCode(res, err, FailOnNew))
	assert.Empty(t, other.requests(), "the other origin was reached")
	refused := 0
	for _, e := range m.Timeline {
		t.Logf("%d %s %s %s ok=%v %s %v", e.Entry.Seq, e.Persona, e.Entry.Action, e.Entry.Params.JSON(), e.Entry.OK, e.Entry.Error, e.Entry.URL)
		assert.NotContains(t, e.Entry.URL, other.URL, "step %d left the app", e.Entry.Seq)
		if strings.Contains(e.Entry.Error, "outside the allowed origins") {
			refused++
			assert.False(t, e.Entry.OK)
		}
	}
	t.Logf("steps %d, refused off-origin steps %d, bugs %d", m.Steps, refused, len(m.Bugs))
}

// TestExplorerSecretsStayOutOfArtifacts: a run that typed a password into a
// sign-in form leaves no trace of it in any artifact (tape, traces.log,
// specs, reports, the db), and its files are private (0600/0700).
func TestExplorerSecretsStayOutOfArtifacts(t *testing.T) {
	const password = "Sekr3t-pw-4417"
	var mu sync.Mutex
	signedIn := false
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>%s</title></head><body><main><h1>%s</h1>%s</main></body></html>`, title, title, body)
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		html(w, "Sign in", `<form method="post" action="/login"><label for="e">Email</label><input id="e" name="email" type="email" required>
<label for="p">Password</label><input id="p" name="password" type="password" required><button type="submit">Sign in</button></form>`)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("password") != password {
			html(w, "Sign in failed", `<p role="alert">Wrong password</p><a href="/">Back</a>`)
			return
		}
		mu.Lock()
		signedIn = true
		mu.Unlock()
		// a careless app that echoes the password in a 500 page
		http.Error(w, "session store down for password="+r.FormValue("password"), http.StatusInternalServerError)
	})
	app := httptest.NewServer(mux)
	t.Cleanup(app.Close)

	dir := t.TempDir()
	reports, db := filepath.Join(dir, "reports"), filepath.Join(dir, "state", "explorer.db")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{Target: app.URL, Budget: 10, ReportDir: reports, DB: db, Browser: testBrowser, MinimizeReplays: -1,
		Credentials: session.Credentials{Email: "qa@example.com", Password: password},
		Missions:    []mission.Mission{{ThreadID: "secret", Prompt: "Sign in and explore"}}})
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	require.Empty(t, res.Missions[0].Err)
	mu.Lock()
	require.True(t, signedIn, "the run typed the password")
	mu.Unlock()

	tape, err := os.ReadFile(filepath.Join(reports, "secret", "action_tape.jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(tape), "${SECRET_1}", "the password is on the tape as a reference")
	files := 0
	for _, root := range []string{reports, filepath.Dir(db)} {
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			require.NoError(t, err)
			info, err := d.Info()
			require.NoError(t, err)
			if d.IsDir() {
				assert.Zero(t, info.Mode().Perm()&0o077, "%s is %v", p, info.Mode().Perm())
				return nil
			}
			files++
			assert.Zero(t, info.Mode().Perm()&0o077, "%s is %v", p, info.Mode().Perm())
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.NotContains(t, string(b), password, "%s holds the password", p)
			return nil
		}))
	}
	assert.Greater(t, files, 5)
}

// TestExplorerInterrupted: cancelling the run (what SIGINT/SIGTERM do in
// the program) on a page that never answers stops it within seconds, with
// the reports of what it found and exit code 130.
func TestExplorerInterrupted(t *testing.T) {
	stop := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Slow</title></head><body><main><h1>Slow</h1><a href="/hang">Report</a> <a href="/broken">Stats</a></main></body></html>`)
	})
	mux.HandleFunc("GET /broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "stats down", http.StatusInternalServerError)
	})
	mux.HandleFunc("GET /hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	})
	app := httptest.NewServer(mux)
	t.Cleanup(func() { close(stop); app.Close() })
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelledAt time.Time
	var mu sync.Mutex
	time.AfterFunc(12*time.Second, func() {
		mu.Lock()
		cancelledAt = time.Now()
		mu.Unlock()
		cancel()
	})
	res, err := Run(ctx, Config{Target: app.URL, Budget: 200, ReportDir: dir, Browser: testBrowser, MinimizeReplays: -1,
		Missions: []mission.Mission{{ThreadID: "slow", Prompt: "Explore"}}})
	mu.Lock()
	at := cancelledAt
	mu.Unlock()
	require.False(t, at.IsZero(), "the run ended before the interrupt: %v", err)
	t.Logf("stopped %s after the interrupt", time.Since(at))
	assert.Less(t, time.Since(at), 10*time.Second, "stopped within seconds")
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, ExitInterrupted, ExitCode(res, err, FailOnNew))
	require.Len(t, res.Missions, 1)
	assert.Contains(t, res.Missions[0].Err, "interrupted")
	for _, f := range []string{"summary.json", "test_report.md", "report.html", "action_tape.jsonl"} {
		assert.FileExists(t, filepath.Join(dir, "slow", f))
	}
	assert.FileExists(t, filepath.Join(dir, "junit.xml"))
}

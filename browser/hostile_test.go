package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requestLog is a server's log of the requests it received.
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r.Method+" "+r.URL.RequestURI())
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

// hostileServers are an app of hostile pages on 127.0.0.1 and another
// origin, whose log must stay empty (nothing may leave the app's origin).
type hostileServers struct {
	app, other *httptest.Server
	otherLog   *requestLog
	stop       chan struct{}
}

func newHostile(t testing.TB) *hostileServers {
	h := &hostileServers{otherLog: &requestLog{}, stop: make(chan struct{})}
	h.other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.otherLog.add(r)
		if strings.HasSuffix(r.URL.Path, ".png") {
			w.Header().Set("Content-Type", "image/png")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>Other origin</title><p>escaped</p>")
	}))
	other := h.other.URL
	page := func(title, head, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title>%s</head><body>%s</body></html>", title, head, body)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", page("OK", "", "<h1>fine</h1>"))
	// Accepts the request and never answers.
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-h.stop:
		}
	})
	mux.HandleFunc("/loop", page("Loop", "", `<p>busy</p><script>setTimeout(() => { while (true) {} }, 50)</script>`))
	mux.HandleFunc("/loop-inline", page("Loop inline", `<script>while (true) {}</script>`, "<p>never</p>"))
	mux.HandleFunc("/alerts", page("Alerts", "", `<script>setTimeout(() => { for (;;) alert('storm') }, 50)</script>`))
	mux.HandleFunc("/popups", page("Popups", "", fmt.Sprintf(`<a id="out" target="_blank" href="%s/tab">out</a>
<script>setTimeout(() => { for (let i = 0; i < 30; i++) { window.open(%q + '/pop' + i); window.open('/ok?'+i, '_blank'); } document.getElementById('out').click(); }, 50)</script>`, other, other)))
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other+"/landed", http.StatusFound) })
	mux.HandleFunc("/self-redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+r.Host+"/ok", http.StatusFound)
	})
	mux.HandleFunc("/meta", page("Meta", fmt.Sprintf(`<meta http-equiv="refresh" content="0;url=%s/meta">`, other), "<p>refreshing</p>"))
	mux.HandleFunc("/frame", page("Frame", "", fmt.Sprintf(`<iframe src="%s/frame"></iframe>`, other)))
	mux.HandleFunc("/img", page("Img", "", fmt.Sprintf(`<img src="%s/img.png" alt="x">`, other)))
	mux.HandleFunc("/link", page("Link", "", fmt.Sprintf(`<a href="%s/clicked">away</a>`, other)))
	mux.HandleFunc("/schemes", page("Schemes", "", `<a href="file:///etc/hostname">file</a> <a href="data:text/html,<title>Data</title>">data</a>
<button onclick="location.href = 'file:///etc/hostname'">script</button>`))
	h.app = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(h.stop)
		h.app.Close()
		h.other.Close()
	})
	return h
}

func hostileEngine(t testing.TB, h *hostileServers, mod func(*Config)) (*Engine, string) {
	t.Helper()
	tapePath := filepath.Join(t.TempDir(), "tape.jsonl")
	tape, err := OpenTape(tapePath)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tape.Close() })
	cfg := Config{Origins: []string{h.app.URL}, ActionTimeout: 2 * time.Second, SettleTimeout: 2 * time.Second, SpinnerTimeout: time.Second, Tape: tape}
	if mod != nil {
		mod(&cfg)
	}
	e, err := testBrowser.NewEngine(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e, tapePath
}

func hasKind(fs []Finding, k FindingKind) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Kind == k })
}

// timed runs an intent and checks it returned within budget.
func timed(t *testing.T, s *Session, in Intent, budget time.Duration) Result {
	t.Helper()
	start := time.Now()
	r := s.Do(context.Background(), in)
	took := time.Since(start)
	assert.Less(t, took, budget, "%s took %s", in.JSON(), took)
	t.Logf("%s: %s ok=%v err=%q findings=%v", in.JSON(), took.Round(time.Millisecond), r.OK, r.Error, kinds(r.Findings))
	return r
}

// TestHostilePages reproduces the hang and escape probes of issue 16 with
// the engine: every action ends within its budget, the page is usable
// afterwards, and the other origin never hears from the browser.
func TestHostilePages(t *testing.T) {
	h := newHostile(t)
	e, tapePath := hostileEngine(t, h, nil)
	s := mustUser(t, e, "hostile")
	// the navigation timeout (10 s) plus settle, probe and liveness check
	navBudget := 10*time.Second + 8*time.Second
	stepBudget := 9 * time.Second
	usable := func(t *testing.T) {
		t.Helper()
		r := timed(t, s, Intent{Action: ActNavigate, URL: "/ok"}, stepBudget)
		require.True(t, r.OK, r.Error)
		assert.Equal(t, "OK", r.Title)
	}

	t.Run("never answering server", func(t *testing.T) {
		r := timed(t, s, Intent{Action: ActNavigate, URL: "/hang"}, navBudget)
		assert.False(t, r.OK)
		assert.Contains(t, strings.ToLower(r.Error), "timeout")
		usable(t)
	})
	t.Run("infinite loop", func(t *testing.T) {
		r := timed(t, s, Intent{Action: ActNavigate, URL: "/loop"}, stepBudget)
		assert.False(t, r.OK)
		assert.Contains(t, r.Error, "page unresponsive")
		assert.True(t, hasKind(r.Findings, FindUnresponsive), kinds(r.Findings))
		usable(t)
	})
	t.Run("infinite loop before load", func(t *testing.T) {
		r := timed(t, s, Intent{Action: ActNavigate, URL: "/loop-inline"}, navBudget)
		assert.False(t, r.OK)
		assert.Contains(t, r.Error, "page unresponsive")
		usable(t)
	})
	t.Run("alert storm", func(t *testing.T) {
		r := timed(t, s, Intent{Action: ActNavigate, URL: "/alerts"}, stepBudget)
		assert.True(t, hasKind(r.Findings, FindDialog), kinds(r.Findings))
		assert.LessOrEqual(t, len(r.Findings), maxPending+2)
		usable(t)
	})
	t.Run("popup storm", func(t *testing.T) {
		timed(t, s, Intent{Action: ActNavigate, URL: "/popups"}, stepBudget)
		time.Sleep(500 * time.Millisecond)
		usable(t)
	})
	t.Run("302 off-origin", func(t *testing.T) {
		r := timed(t, s, Intent{Action: ActNavigate, URL: "/redirect"}, stepBudget)
		assert.False(t, r.OK)
		assert.Contains(t, r.Error, "navigation to "+h.other.URL+"/landed refused: outside the allowed origins")
		assert.True(t, hasKind(r.Findings, FindBlockedNav), kinds(r.Findings))
		usable(t)
	})
	t.Run("302 to the app's own absolute URL", func(t *testing.T) {
		r := timed(t, s, Intent{Action: ActNavigate, URL: "/self-redirect"}, stepBudget)
		require.True(t, r.OK, r.Error)
		assert.Equal(t, "OK", r.Title)
	})
	t.Run("meta refresh off-origin", func(t *testing.T) {
		r := timed(t, s, Intent{Action: ActNavigate, URL: "/meta"}, stepBudget)
		if r.OK { // the refresh came after the action: the next one says so
			time.Sleep(time.Second)
			r = timed(t, s, Intent{Action: ActCheckHealth}, stepBudget)
		}
		assert.False(t, r.OK)
		assert.Contains(t, r.Error, "refused: outside the allowed origins")
		usable(t)
	})
	t.Run("off-origin link", func(t *testing.T) {
		ok(t, s, `{"action":"navigate","url":"/link"}`)
		r := timed(t, s, Intent{Action: ActClick, Target: "text=away"}, stepBudget)
		assert.False(t, r.OK)
		assert.Contains(t, r.Error, "refused: outside the allowed origins")
	})
	t.Run("links to other schemes", func(t *testing.T) {
		ok(t, s, `{"action":"navigate","url":"/schemes"}`)
		for _, target := range []string{"text=file", "text=data", "text=script"} {
			r := timed(t, s, Intent{Action: ActClick, Target: target}, stepBudget)
			assert.Equal(t, "Schemes", r.Title, target)
			assert.True(t, strings.HasPrefix(r.URL, h.app.URL+"/"), "%s: still on the app: %s", target, r.URL)
		}
	})
	t.Run("off-origin iframe and image", func(t *testing.T) {
		r := timed(t, s, Intent{Action: ActNavigate, URL: "/frame"}, stepBudget)
		assert.True(t, r.OK, r.Error) // the page loaded; its frame did not
		assert.True(t, hasKind(r.Findings, FindBlockedNav), kinds(r.Findings))
		r = timed(t, s, Intent{Action: ActNavigate, URL: "/img"}, stepBudget)
		assert.True(t, r.OK, r.Error)
		assert.True(t, hasKind(r.Findings, FindBlockedReq), kinds(r.Findings))
		assert.False(t, hasKind(r.Findings, FindRequestFailed), "a refused request is no app bug: %v", r.Findings)
	})
	assert.Empty(t, h.otherLog.all(), "the other origin was reached")

	// Every off-origin attempt is on the tape as a failed entry, never ok.
	es, _, err := ReadTapeFile(tapePath)
	require.NoError(t, err)
	for _, e := range es {
		if strings.Contains(e.Error, "refused") {
			assert.False(t, e.OK, "entry %d", e.Seq)
		}
		if strings.Contains(e.URL, h.other.URL) {
			t.Errorf("entry %d is on the other origin: %s", e.Seq, e.URL)
		}
	}
}

// TestSubresourceOrigins lets images of an allow-listed origin load while
// its documents (frames) stay refused.
func TestSubresourceOrigins(t *testing.T) {
	h := newHostile(t)
	e, _ := hostileEngine(t, h, func(c *Config) { c.SubresourceOrigins = []string{h.other.URL} })
	s := mustUser(t, e, "cdn")
	r := ok(t, s, `{"action":"navigate","url":"/img"}`)
	assert.False(t, hasKind(r.Findings, FindBlockedReq), kinds(r.Findings))
	r = ok(t, s, `{"action":"navigate","url":"/frame"}`)
	assert.True(t, hasKind(r.Findings, FindBlockedNav), kinds(r.Findings))
	assert.Equal(t, []string{"GET /img.png"}, h.otherLog.all())

	_, err := testBrowser.NewEngine(Config{Origins: []string{h.app.URL}, SubresourceOrigins: []string{"ftp://x"}})
	require.Error(t, err)
}

// TestCancelStopsAHungAction: a cancelled context ends an action on a
// never-answering server at once.
func TestCancelStopsAHungAction(t *testing.T) {
	h := newHostile(t)
	e, _ := hostileEngine(t, h, nil)
	s := mustUser(t, e, "cancel")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	r := s.Do(ctx, Intent{Action: ActNavigate, URL: "/hang"})
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.False(t, r.OK)
	assert.Contains(t, r.Error, "context canceled")
}

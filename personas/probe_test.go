package personas

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProbeRelays(t *testing.T) {
	app := http.NewServeMux()
	app.HandleFunc("/head", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Security-Policy", "script-src 'none'")
		io.WriteString(w, `<html><HEAD><title>t</title></HEAD><body>x</body></html>`)
	})
	app.HandleFunc("/bodyonly", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<body class="a">x</body>`)
	})
	app.HandleFunc("/bare", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `hello`)
	})
	app.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"a":1}`)
	})
	app.HandleFunc("/host", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Host) })
	var upstreamURL string
	app.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, upstreamURL+"/json?x=1", http.StatusFound)
	})
	upstream := httptest.NewServer(app)
	defer upstream.Close()
	upstreamURL = upstream.URL
	p, err := NewProbe(upstream.URL, ProbeOptions{})
	require.NoError(t, err)
	assert.Equal(t, upstream.URL, p.Target())
	front := httptest.NewServer(p)
	defer front.Close()

	get := func(path string) (*http.Response, string) {
		resp, err := http.Get(front.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(b)
	}
	resp, body := get("/head")
	assert.Equal(t, `<html><HEAD>`+injectTags+`<title>t</title></HEAD><body>x</body></html>`, body)
	assert.Equal(t, strconv.Itoa(len(body)), resp.Header.Get("Content-Length"))
	assert.Empty(t, resp.Header.Get("Content-Security-Policy"))
	_, body = get("/bodyonly")
	assert.Equal(t, `<body class="a">`+injectTags+`x</body>`, body)
	_, body = get("/bare")
	assert.Equal(t, injectTags+`hello`, body)
	_, body = get("/json")
	assert.Equal(t, `{"a":1}`, body)
	_, body = get("/host")
	assert.Equal(t, strings.TrimPrefix(upstream.URL, "http://"), body)

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	rresp, err := noFollow.Get(front.URL + "/redirect")
	require.NoError(t, err)
	rresp.Body.Close()
	assert.Equal(t, "/json?x=1", rresp.Header.Get("Location"), "redirects stay on the probe")

	resp, body = get(axeScriptPath)
	assert.Contains(t, body, "axe")
	assert.Equal(t, "application/javascript", resp.Header.Get("Content-Type"))
	_, body = get(probeScriptPath)
	assert.Contains(t, body, reportPath)
	resp, _ = get(ClearSiteDataPath)
	assert.Equal(t, `"cookies", "storage"`, resp.Header.Get("Clear-Site-Data"))

	assert.Equal(t, 6, p.Requests(), "probe paths are not counted")
	reqs := p.RequestsSince(3)
	require.Len(t, reqs, 3)
	assert.Equal(t, "/json", reqs[0].Path)
	assert.Equal(t, http.StatusOK, reqs[0].Status)
	assert.Equal(t, http.StatusFound, reqs[2].Status)
	assert.Empty(t, p.RequestsSince(6))
}

func TestProbeReports(t *testing.T) {
	p, err := NewProbe("http://127.0.0.1:1", ProbeOptions{})
	require.NoError(t, err)
	post := func(body string) int {
		rec := httptest.NewRecorder()
		p.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, reportPath, strings.NewReader(body)))
		return rec.Code
	}
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, reportPath, nil))
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, http.StatusBadRequest, post(`{not json`))
	assert.Equal(t, http.StatusBadRequest, post(`{"kind":"axe"}`), "a report needs its page load")

	// Settle waits for the latest load's axe run
	assert.Equal(t, http.StatusNoContent, post(`{"kind":"dirty","load":"L1","url":"http://x/a"}`))
	done := make(chan struct{})
	go func() { p.Settle(context.Background(), 5*time.Second); close(done) }()
	select {
	case <-done:
		t.Fatal("Settle returned while the axe run was pending")
	case <-time.After(50 * time.Millisecond):
	}
	v := `{"id":"image-alt","impact":"critical","help":"Images must have alternate text","targets":["img"],"html":"<img>"}`
	assert.Equal(t, http.StatusNoContent, post(`{"kind":"axe","load":"L1","url":"http://x/a","violations":[`+v+`]}`))
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Settle did not return after the axe run")
	}
	got := p.TakeViolations()
	require.Len(t, got, 1)
	assert.Equal(t, "image-alt", got[0].Rule)
	assert.Equal(t, "http://x/a", got[0].URL)
	// the same violation again is not new; nothing pending returns at once
	post(`{"kind":"axe","load":"L1","url":"http://x/a","violations":[` + v + `]}`)
	assert.Empty(t, p.TakeViolations())
	start := time.Now()
	p.Settle(context.Background(), 5*time.Second)
	assert.Less(t, time.Since(start), time.Second)

	post(`{"kind":"focus","load":"L1","url":"http://x/a","focus":{"target":"a \"Skip\"","visible":true}}`)
	assert.Empty(t, p.TakeViolations(), "visible focus is fine")
	post(`{"kind":"focus","load":"L1","url":"http://x/a","focus":{"target":"a \"Skip\"","visible":false}}`)
	got = p.TakeViolations()
	require.Len(t, got, 1)
	assert.Equal(t, FocusInvisibleRule, got[0].Rule)
	assert.Equal(t, []string{`a "Skip"`}, got[0].Targets)

	_, err = NewProbe("ftp://x", ProbeOptions{})
	require.ErrorContains(t, err, "want http(s)")
}

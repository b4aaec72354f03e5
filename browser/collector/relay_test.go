package collector

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The collector instruments HTML pages wherever their markup starts, lets
// everything else through as it is, keeps the app's Host and its redirects
// on the collector, serves its own paths and logs every request it relayed
// (its own paths left out).
func TestCollectorRelays(t *testing.T) {
	app := http.NewServeMux()
	app.HandleFunc("/head", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Security-Policy", "script-src 'none'")
		_, _ = io.WriteString(w, `<html><HEAD><title>t</title></HEAD><body>x</body></html>`)
	})
	app.HandleFunc("/bodyonly", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<body class="a">x</body>`)
	})
	app.HandleFunc("/bare", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, `hello`)
	})
	app.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"a":1}`)
	})
	app.HandleFunc("/host", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, r.Host) })
	var upstreamURL string
	app.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, upstreamURL+"/json?x=1", http.StatusFound)
	})
	upstream := httptest.NewServer(app)
	defer upstream.Close()
	upstreamURL = upstream.URL
	c, err := New(upstream.URL, 0, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	front := httptest.NewServer(c)
	defer front.Close()
	assert.Zero(t, c.Mark())
	assert.Empty(t, c.RequestsSince(0))

	get := func(path string) (*http.Response, string) {
		resp, err := http.Get(front.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(b)
	}
	resp, body := get("/head")
	assert.Equal(t, `<html><HEAD>`+injectTag+`<title>t</title></HEAD><body>x</body></html>`, body)
	assert.Equal(t, strconv.Itoa(len(body)), resp.Header.Get("Content-Length"))
	assert.Empty(t, resp.Header.Get("Content-Security-Policy"), "the page's policy would refuse the injected scripts")
	_, body = get("/bodyonly")
	assert.Equal(t, `<body class="a">`+injectTag+`x</body>`, body)
	_, body = get("/bare")
	assert.Equal(t, injectTag+`hello`, body)
	_, body = get("/json")
	assert.Equal(t, `{"a":1}`, body)
	_, body = get("/host")
	assert.Equal(t, strings.TrimPrefix(upstream.URL, "http://"), body, "the app sees its own Host")

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	rresp, err := noFollow.Get(front.URL + "/redirect")
	require.NoError(t, err)
	rresp.Body.Close()
	assert.Equal(t, "/json?x=1", rresp.Header.Get("Location"), "redirects stay on the collector")

	resp, body = get(axeJSPath)
	assert.Contains(t, body, "axe")
	assert.Equal(t, "application/javascript", resp.Header.Get("Content-Type"))
	resp, body = get(collectorJSPath)
	assert.Contains(t, body, "__agAudit")
	assert.Contains(t, body, FocusInvisibleRule)
	assert.Equal(t, "application/javascript", resp.Header.Get("Content-Type"))
	resp, _ = get(ClearSiteDataPath)
	assert.Equal(t, `"cookies", "storage"`, resp.Header.Get("Clear-Site-Data"))

	assert.Equal(t, 6, c.Mark(), "the collector's own paths are not counted")
	reqs := c.RequestsSince(3)
	require.Len(t, reqs, 3)
	assert.Equal(t, Request{Method: http.MethodGet, Path: "/json", Status: http.StatusOK, Duration: reqs[0].Duration}, reqs[0])
	assert.Equal(t, "/host", reqs[1].Path)
	assert.Equal(t, "/redirect", reqs[2].Path)
	assert.Equal(t, http.StatusFound, reqs[2].Status)
	for _, r := range reqs {
		assert.Positive(t, r.Duration)
	}
	assert.Empty(t, c.RequestsSince(6))
	assert.Empty(t, c.RequestsSince(99), "a mark from the future has nothing after it")
	assert.Len(t, c.RequestsSince(-5), 6, "a negative mark is the start")

	_, _ = get("/json?page=2")
	assert.Equal(t, "/json?page=2", c.RequestsSince(6)[0].Path, "the query is part of the path")
}

// The log keeps the latest MaxRequests requests; a mark older than that
// gets what is left.
func TestRequestLogIsBounded(t *testing.T) {
	c := &Collector{}
	for i := range MaxRequests + MaxRequests/2 {
		c.logRequest(Request{Method: http.MethodGet, Path: "/" + strconv.Itoa(i), Status: http.StatusOK, Duration: time.Millisecond})
	}
	assert.Equal(t, MaxRequests+MaxRequests/2, c.Mark())
	assert.LessOrEqual(t, len(c.reqLog), MaxRequests+MaxRequests/10)
	all := c.RequestsSince(0)
	require.GreaterOrEqual(t, len(all), MaxRequests)
	assert.Equal(t, "/"+strconv.Itoa(MaxRequests+MaxRequests/2-1), all[len(all)-1].Path)
	last := c.RequestsSince(c.Mark() - 2)
	require.Len(t, last, 2)
	assert.Equal(t, "/"+strconv.Itoa(MaxRequests+MaxRequests/2-2), last[0].Path)
}

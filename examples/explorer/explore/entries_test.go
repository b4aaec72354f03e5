package explore

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/discover"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func htmlPage(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

// TestDiscoverEntries: a sitemap index (named by robots.txt) and its
// sitemap, robots.txt's literal paths and the conventional paths each add
// a page that answers with its own HTML; another origin's URLs, patterns,
// errors, non-HTML answers, the start page's twin (a nonce apart) and a
// second page behind the same sign-in redirect add nothing.
func TestDiscoverEntries(t *testing.T) {
	var other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("another origin was requested: %s", r.URL)
	}))
	defer other.Close()
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, 200, fmt.Sprintf(`<h1>Home</h1><input type="hidden" value="%d-%x">`, n.Add(1), time.Now().UnixNano()))
	})
	mux.HandleFunc("GET /about", func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, 200, fmt.Sprintf(`<h1>Home</h1><input type="hidden" value="%d-%x">`, n.Add(1), time.Now().UnixNano()))
	})
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "# hi\nUser-agent: *\nDisallow: /staff # people\nDisallow: /*.pdf$\nDisallow: /\nAllow: %s/elsewhere\nDisallow: /gone\nSitemap: /maps/index.xml\nSitemap: %s/map.xml\nnonsense line\n", other.URL, other.URL)
	})
	mux.HandleFunc("GET /maps/index.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://%s/maps/pages.xml</loc></sitemap><sitemap><loc>%s/x.xml</loc></sitemap></sitemapindex>`, r.Host, other.URL)
	})
	mux.HandleFunc("GET /maps/pages.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://%s/catalog?page=2</loc></url><url><loc>%s/off</loc></url><url><loc>http://%s/report.csv</loc></url><url><loc>http://%s/broken</loc></url></urlset>`, r.Host, other.URL, r.Host, r.Host)
	})
	mux.HandleFunc("GET /catalog", func(w http.ResponseWriter, r *http.Request) { htmlPage(w, 200, "<h1>Catalog</h1>") })
	mux.HandleFunc("GET /report.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		fmt.Fprint(w, "a,b\n")
	})
	mux.HandleFunc("GET /broken", func(w http.ResponseWriter, r *http.Request) { htmlPage(w, 500, "<h1>Oops</h1>") })
	mux.HandleFunc("GET /staff", func(w http.ResponseWriter, r *http.Request) { htmlPage(w, 200, "<h1>Staff</h1>") })
	mux.HandleFunc("GET /signin", func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, 200, `<form method="post"><input type="password" name="pw"></form>`)
	})
	for _, p := range []string{"/dashboard", "/settings", "/admin"} {
		mux.HandleFunc("GET "+p, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/signin?next="+p, http.StatusFound) })
	}
	mux.HandleFunc("GET /deep/link", func(w http.ResponseWriter, r *http.Request) { htmlPage(w, 200, "<h1>Deep</h1>") })
	app := httptest.NewServer(mux)
	defer app.Close()

	found := discover.DiscoverEntries(context.Background(), app.URL, "/", []string{"/deep/link", other.URL + "/x", "::bad"})
	t.Log(strings.Join(found.Notes, "\n"))
	assert.Contains(t, found.Notes, "discovery: /deep/link (configured path) answers 200")
	assert.Equal(t, []string{"/catalog?page=2", "/staff", "/signin", "/deep/link"}, found.Entries)
	assert.Equal(t, map[string]bool{"/signin": true}, found.SignIn, "the page with a password field")
}

// TestDiscoverEntriesCatchAll: an app that answers every path with the
// same page (a single-page app's fallback) or sends every unknown path
// home adds no entries.
func TestDiscoverEntriesCatchAll(t *testing.T) {
	spa := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, 200, `<div id="root"></div><script src="/app.js"></script>`)
	}))
	defer spa.Close()
	assert.Empty(t, discover.DiscoverEntries(context.Background(), spa.URL, "/", nil).Entries)

	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.Redirect(w, r, "/", http.StatusFound)
			return
		}
		htmlPage(w, 200, `<h1>Home</h1>`)
	}))
	defer home.Close()
	assert.Empty(t, discover.DiscoverEntries(context.Background(), home.URL, "/", nil).Entries)
}

// TestDiscoverEntriesStartPageFails: when the start page and unknown
// paths fail, the conventional paths that answer are the way in.
func TestDiscoverEntriesStartPageFails(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			htmlPage(w, 200, `<form method="post"><input name="user"><input type="password" name="pw"></form>`)
		case "/signup":
			htmlPage(w, 200, `<form method="post"><input name="email"></form>`)
		case "/":
			htmlPage(w, 500, `<h1>Internal Server Error</h1>`)
		default:
			htmlPage(w, 404, `<h1>Not Found</h1>`)
		}
	}))
	defer app.Close()
	assert.Equal(t, []string{"/login", "/signup"}, discover.DiscoverEntries(context.Background(), app.URL, "/", nil).Entries)
}

// TestDiscoverEntriesBounded: a target that accepts and never answers,
// or garbage, costs discovery its bound and nothing else.
func TestDiscoverEntriesBounded(t *testing.T) {
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(stop)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	found := discover.DiscoverEntries(ctx, hang.URL, "/", nil)
	assert.Empty(t, found.Entries)
	assert.Less(t, time.Since(start), 5*time.Second)

	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("Sitemap: /s.xml\nDisallow: /\x00\xff%zz\n", 5000))
		case "/s.xml":
			fmt.Fprint(w, "<urlset><url><loc>"+strings.Repeat("<", 10000))
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(404)
		}
	}))
	defer garbage.Close()
	assert.Empty(t, discover.DiscoverEntries(context.Background(), garbage.URL, "/", nil).Entries)
	assert.Empty(t, discover.DiscoverEntries(context.Background(), "::not a url", "/", nil).Entries)
}

// TestExploreStartPageFails: the start page answers 500 with nothing to
// use on it. The mission goes on through the pages discovery found (a
// conventional sign-in path) and finds the bug behind them; with
// discovery off it ends at the start page.
func TestExploreStartPageFails(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, 500, `<!doctype html><html lang="en"><title>Error</title><main><h1>Internal Server Error</h1></main></html>`)
	})
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, 200, `<!doctype html><html lang="en"><title>Sign in</title><main><h1>Sign in</h1>
<nav aria-label="Main"><a href="/items">Items</a></nav>
<form method="post" action="/login"><label>Email <input name="email" type="email"></label><button type="submit">Continue</button></form></main></html>`)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/items", http.StatusSeeOther) })
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		htmlPage(w, 200, `<!doctype html><html lang="en"><title>Items</title><main><h1>Items</h1><p id="out">none yet</p>
<button type="button" onclick="fetch('/api/items').then(r => r.text()).then(t => { document.getElementById('out').textContent = t })">Load items</button></main></html>`)
	})
	mux.HandleFunc("GET /api/items", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "items: nil map", http.StatusInternalServerError)
	})
	app := httptest.NewServer(mux)
	defer app.Close()

	run := func(off bool) report.MissionResult {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		res, err := Run(ctx, Config{Target: app.URL, Budget: 20, ReportDir: t.TempDir(), Browser: testBrowser, MinimizeReplays: -1, NoDiscovery: off,
			Missions: []mission.Mission{{ThreadID: "broken-start", Prompt: "Explore the app"}}})
		require.NoError(t, err)
		require.Len(t, res.Missions, 1)
		require.Empty(t, res.Missions[0].Err)
		return res.Missions[0]
	}
	hit := func(m report.MissionResult) bool {
		for _, b := range m.Bugs {
			t.Logf("%s %s %s %s", b.ID, b.Kind, b.URL, b.Title)
			if strings.Contains(b.Title+b.Evidence+b.URL, "/api/items") {
				return true
			}
		}
		return false
	}
	m := run(false)
	require.NotNil(t, m.Coverage)
	assert.Equal(t, []string{"/login"}, m.Coverage.Entries)
	assert.True(t, hit(m), "the bug behind the discovered sign-in page")

	m = run(true)
	assert.Empty(t, m.Coverage.Entries)
	assert.False(t, hit(m), "without discovery nothing leads past the start page")
	assert.Less(t, m.Steps, 10)
}

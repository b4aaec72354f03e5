package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The interval arithmetic, without a browser: the innermost range decides,
// takes merge by union, sizes are clipped to the script.
func TestJSCoverageIntervals(t *testing.T) {
	t.Run("spans", func(t *testing.T) {
		var s spans
		s = s.add(0, 10).add(20, 30).add(40, 40)
		assert.Equal(t, spans{{0, 10}, {20, 30}}, s, "an empty span adds nothing")
		s = s.add(10, 20)
		assert.Equal(t, spans{{0, 30}}, s, "adjacent spans merge")
		s = s.sub(5, 25)
		assert.Equal(t, spans{{0, 5}, {25, 30}}, s)
		assert.Equal(t, 7, s.size(27), "clipped to the limit")
		assert.Equal(t, 10, s.size(100))
		assert.Equal(t, spans{{0, 5}, {8, 9}, {25, 30}}, s.union(spans{{8, 9}, {26, 28}}))
		assert.Equal(t, spans{{0, 30}}, s.union(spans{{3, 27}}))
	})

	t.Run("innermost wins", func(t *testing.T) {
		tests := []struct {
			name   string
			ranges []covRange
			want   spans
		}{
			{"a function that never ran inside a script that did", []covRange{{0, 100, 1}, {40, 80, 0}}, spans{{0, 40}, {80, 100}}},
			{"a branch not taken in a function that ran", []covRange{{0, 100, 1}, {10, 30, 1}, {15, 20, 0}, {40, 80, 0}, {50, 60, 0}},
				spans{{0, 15}, {20, 40}, {80, 100}}},
			{"a function that ran inside a block that did not run in this take", []covRange{{0, 100, 0}, {10, 50, 0}, {20, 30, 1}}, spans{{20, 30}}},
			{"order of the input does not matter", []covRange{{15, 20, 0}, {40, 80, 0}, {10, 30, 1}, {0, 100, 1}}, spans{{0, 15}, {20, 40}, {80, 100}}},
			{"identical ranges: the later (inner) one decides", []covRange{{0, 50, 1}, {0, 50, 0}}, nil},
			{"nothing ran", []covRange{{0, 50, 0}}, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got := executedSpans(tc.ranges)
				if len(tc.want) == 0 {
					assert.Empty(t, got)
					return
				}
				assert.Equal(t, tc.want, got)
			})
		}
	})

	t.Run("takes merge", func(t *testing.T) {
		var c jsCov
		// First take: the script ran, a function in it did not, nor a branch.
		c.merge("http://a/app.js", "", 100, executedSpans([]covRange{{0, 100, 1}, {10, 30, 1}, {15, 20, 0}, {40, 80, 0}}))
		r := c.report()
		require.Len(t, r.Scripts, 1)
		assert.Equal(t, ScriptCoverage{URL: "http://a/app.js", Bytes: 100, Executed: 55}, r.Scripts[0])
		// Second take (binary mode): what ran before reports 0 now; the
		// function runs at last. Nothing is forgotten.
		c.merge("http://a/app.js", "", 100, executedSpans([]covRange{{0, 100, 0}, {40, 80, 1}}))
		r = c.report()
		assert.Equal(t, ScriptCoverage{URL: "http://a/app.js", Bytes: 100, Executed: 95}, r.Scripts[0])
		// A take with nothing new changes nothing; a shorter report of the
		// same URL keeps the largest size; ranges past the end are clipped.
		c.merge("http://a/app.js", "", 90, executedSpans([]covRange{{0, 90, 0}}))
		c.merge("http://a/lib.js", "", 10, executedSpans([]covRange{{0, 12, 1}}))
		// Two inline scripts of one document are two pieces of one entry.
		c.merge("http://a/#inline", "3:8", 50, spans{{0, 50}})
		c.merge("http://a/#inline", "10:8", 30, spans{{0, 10}})
		c.merge("http://a/#inline", "10:8", 30, spans{{20, 30}})
		r = c.report()
		assert.Equal(t, []ScriptCoverage{
			{URL: "http://a/#inline", Bytes: 80, Executed: 70},
			{URL: "http://a/app.js", Bytes: 100, Executed: 95},
			{URL: "http://a/lib.js", Bytes: 10, Executed: 10},
		}, r.Scripts, "sorted by URL")
		assert.Equal(t, 190, r.Bytes)
		assert.Equal(t, 175, r.Executed)
		assert.InDelta(t, 100*175.0/190, r.Percent(), 1e-9)
		assert.InDelta(t, 87.5, r.Scripts[0].Percent(), 1e-9)
		assert.Zero(t, JSCoverage{}.Percent())
		assert.Equal(t, JSCoverage{Scripts: []ScriptCoverage{}}, (&jsCov{}).report())
	})

	t.Run("keys", func(t *testing.T) {
		ex := []string{"/__collector/", "http://app.test/vendor/", ""}
		tests := []struct {
			url    string
			inline bool
			want   string
		}{
			{"http://app.test/app.js", false, "http://app.test/app.js"},
			{"https://app.test/app.js?v=2#frag", false, "https://app.test/app.js?v=2"},
			{"http://app.test/page?x=1#top", true, "http://app.test/page?x=1#inline"},
			{"", false, ""},
			{"", true, ""},
			{"__playwright_evaluation_script__", false, ""},
			{"chrome-extension://abc/content.js", false, ""},
			{"data:text/javascript,1", false, ""},
			{"about:blank", true, ""},
			{"http://app.test/__collector/agent.js", false, ""},
			{"http://other.test/__collector/agent.js", false, ""},
			{"http://app.test/vendor/lib.js", false, ""},
			{"http://app.test/vendored.js", false, "http://app.test/vendored.js"},
		}
		for _, tc := range tests {
			assert.Equal(t, tc.want, coverageKey(tc.url, tc.inline, ex), "%q inline=%v", tc.url, tc.inline)
		}
	})

	t.Run("V8's answer", func(t *testing.T) {
		// As playwright-go hands it over: decoded JSON.
		raw := map[string]any{"timestamp": 12.5, "result": []any{
			map[string]any{"scriptId": "17", "url": "http://app.test/app.js", "functions": []any{
				map[string]any{"functionName": "", "isBlockCoverage": true, "ranges": []any{
					map[string]any{"startOffset": 0.0, "endOffset": 120.0, "count": 1.0},
					map[string]any{"startOffset": 30.0, "endOffset": 60.0, "count": 0.0},
				}},
				map[string]any{"functionName": "f", "isBlockCoverage": true, "ranges": []any{
					map[string]any{"startOffset": 70.0, "endOffset": 90.0, "count": 0.0},
				}},
			}},
		}}
		got, err := parseCoverage(raw)
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, "17", got[0].ScriptID)
		assert.Equal(t, "http://app.test/app.js", got[0].URL)
		require.Len(t, got[0].Functions, 2)
		assert.Equal(t, []covRange{{0, 120, 1}, {30, 60, 0}}, got[0].Functions[0].Ranges)
		_, err = parseCoverage(map[string]any{"result": "nope"})
		assert.Error(t, err)
		assert.Equal(t, 3, utf16Len("a😀"), "sizes count UTF-16 units, as V8's offsets do")
	})
}

// Without a start there is nothing to take; a session whose browser is not
// Chromium cannot start. Neither needs a browser.
func TestJSCoverageNotStarted(t *testing.T) {
	s := &Session{}
	_, err := s.TakeJSCoverage(context.Background())
	require.ErrorIs(t, err, ErrJSCoverageNotStarted)
	require.NoError(t, s.StopJSCoverage(context.Background()), "stop without a start does nothing")
	require.NoError(t, s.flushJSCoverage(context.Background()))
	err = s.StartJSCoverage(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "needs Chromium")
}

// twoJS has two functions; only called runs on load, later runs when the
// button is clicked.
const (
	calledJS = "function called() {\n  // " + "the function the page calls as it loads; " + "padding padding padding padding padding padding padding padding\n  let n = 0;\n  for (let i = 0; i < 3; i++) n += i;\n  return n;\n}"
	laterJS  = "function later() {\n  // " + "the function only a click calls; " + "padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding\n  document.getElementById('out').textContent = 'later ran';\n  return 2;\n}"
	clickJS  = "function () { later(); }"
	twoJS    = calledJS + "\n" + laterJS + "\ndocument.querySelector('[data-testid=go]').addEventListener('click', " + clickJS + ");\nwindow.__n = called();\n"
)

func newCoverageApp(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><html><head><title>cov</title></head><body>%s</body></html>", body)
		}
	}
	js := func(src string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, src)
		}
	}
	mux.HandleFunc("/cov/two.html", html(`<button data-testid="go">Go</button><p id="out"></p><script src="/cov/two.js"></script>`))
	mux.HandleFunc("/cov/two.js", js(twoJS))
	mux.HandleFunc("/cov/a.html", html(`<h1>A</h1><a href="/cov/b.html">to B</a><script src="/cov/a.js"></script>`))
	mux.HandleFunc("/cov/a.js", js("function fa() { return 'a'; }\nfunction unusedA() { return 'never'; }\nwindow.__a = fa();\n"))
	mux.HandleFunc("/cov/b.html", html(`<h1>B</h1><script src="/cov/b.js"></script>`))
	mux.HandleFunc("/cov/b.js", js("function fb() { return 'b'; }\nwindow.__b = fb();\n"))
	mux.HandleFunc("/cov/inline.html", html(`<h1>Inline</h1><script src="/__collector/agent.js"></script>
<script>
function inl() { return 1; }
function never() { return 'this function is never called by anything at all'; }
window.__inl = inl();
</script>`))
	mux.HandleFunc("/__collector/agent.js", js("window.__agent = (function () { return 7; })();\n"))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func coverageSession(t *testing.T, app *httptest.Server) *Session {
	t.Helper()
	e, err := testBrowser.NewEngine(Config{Origins: []string{app.URL}, ActionTimeout: 3 * time.Second, SettleTimeout: 2 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return mustUser(t, e, "cov")
}

func scriptCov(c JSCoverage, u string) (ScriptCoverage, bool) {
	for _, s := range c.Scripts {
		if s.URL == u {
			return s, true
		}
	}
	return ScriptCoverage{}, false
}

func takeCov(t *testing.T, s *Session) JSCoverage {
	t.Helper()
	start := time.Now()
	c, err := s.TakeJSCoverage(context.Background())
	require.NoError(t, err)
	require.Less(t, time.Since(start), 5*time.Second, "a take is quick")
	sum, run := 0, 0
	for _, sc := range c.Scripts {
		sum += sc.Bytes
		run += sc.Executed
		require.LessOrEqual(t, sc.Executed, sc.Bytes, sc.URL)
	}
	require.Equal(t, sum, c.Bytes, "Bytes is the scripts' sum")
	require.Equal(t, run, c.Executed, "Executed is the scripts' sum")
	return c
}

// A script with two functions, one called on load: the other function is
// not executed until a click calls it.
func TestJSCoverageFunctions(t *testing.T) {
	app := newCoverageApp(t)
	s := coverageSession(t, app)
	ctx := context.Background()
	require.NoError(t, s.StartJSCoverage(ctx))
	defer func() { assert.NoError(t, s.StopJSCoverage(ctx)) }()

	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/two.html"))
	c := takeCov(t, s)
	two, found := scriptCov(c, app.URL+"/cov/two.js")
	require.True(t, found, "two.js is covered: %+v", c.Scripts)
	assert.Equal(t, len(twoJS), two.Bytes, "the script's whole source")
	assert.Greater(t, two.Executed, len(calledJS), "called and the top level ran")
	// Everything but the two functions that have not run yet.
	assert.InDelta(t, len(twoJS)-len(laterJS)-len(clickJS), two.Executed, 2, "executed: %d of %d", two.Executed, two.Bytes)
	assert.Less(t, two.Executed, two.Bytes)

	ok(t, s, `{"action":"click","target":"[data-testid=\"go\"]"}`)
	v, err := s.Evaluate(ctx, `() => document.getElementById('out').textContent`, nil)
	require.NoError(t, err)
	require.Equal(t, "later ran", v)
	c = takeCov(t, s)
	after, found := scriptCov(c, app.URL+"/cov/two.js")
	require.True(t, found)
	assert.Greater(t, after.Executed, two.Executed, "the click ran the other function")
	assert.InDelta(t, after.Bytes, after.Executed, 2, "now all of it ran")
	assert.InDelta(t, 100, after.Percent(), 1)
}

// A document's scripts stay in the coverage after the page left it, whether
// the last merge before the navigation was a TakeJSCoverage or the engine's
// flush, and whoever navigated (the engine, a link).
func TestJSCoverageAcrossNavigation(t *testing.T) {
	app := newCoverageApp(t)
	s := coverageSession(t, app)
	ctx := context.Background()
	aURL, bURL := app.URL+"/cov/a.js", app.URL+"/cov/b.js"

	require.NoError(t, s.StartJSCoverage(ctx))
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/a.html"))
	c := takeCov(t, s)
	a1, found := scriptCov(c, aURL)
	require.True(t, found, "%+v", c.Scripts)
	require.Greater(t, a1.Executed, 0)
	require.Less(t, a1.Executed, a1.Bytes, "unusedA did not run")

	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/b.html"))
	c = takeCov(t, s)
	a2, found := scriptCov(c, aURL)
	require.True(t, found, "page A's script is still reported after the page left it: %+v", c.Scripts)
	assert.Equal(t, a1, a2, "and nothing of it is lost")
	b, found := scriptCov(c, bURL)
	require.True(t, found, "%+v", c.Scripts)
	assert.Greater(t, b.Executed, 0)
	require.NoError(t, s.StopJSCoverage(ctx))

	// A new start forgets what the previous one collected.
	require.NoError(t, s.StartJSCoverage(ctx))
	c = takeCov(t, s)
	_, found = scriptCov(c, aURL)
	assert.False(t, found, "a new start begins afresh: %+v", c.Scripts)
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/a.html"))
	require.NoError(t, s.flushJSCoverage(ctx), "what the engine calls before it navigates")
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/b.html"))
	c = takeCov(t, s)
	a3, found := scriptCov(c, aURL)
	require.True(t, found, "%+v", c.Scripts)
	assert.Equal(t, a1, a3)
	_, found = scriptCov(c, bURL)
	assert.True(t, found)
	require.NoError(t, s.StopJSCoverage(ctx))

	// Do flushes before an action that may leave the page: no take
	// between two navigations loses the first page.
	require.NoError(t, s.StartJSCoverage(ctx))
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/a.html"))
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/b.html"))
	c = takeCov(t, s)
	a5, found := scriptCov(c, aURL)
	require.True(t, found, "the engine merged page A before it left it: %+v", c.Scripts)
	assert.Equal(t, a1, a5)
	require.NoError(t, s.StopJSCoverage(ctx))

	// The page's own navigation (a link), with a take after each action as
	// a harness without the engine's hook does.
	require.NoError(t, s.StartJSCoverage(ctx))
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/a.html"))
	takeCov(t, s)
	ok(t, s, `{"action":"click","target":"role=link[name=\"to B\"]"}`)
	require.Equal(t, app.URL+"/cov/b.html", s.URL())
	takeCov(t, s)
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/two.html"))
	c = takeCov(t, s)
	a4, found := scriptCov(c, aURL)
	require.True(t, found, "%+v", c.Scripts)
	assert.Equal(t, a1, a4)
	for _, u := range []string{bURL, app.URL + "/cov/two.js"} {
		sc, found := scriptCov(c, u)
		assert.True(t, found, "%s: %+v", u, c.Scripts)
		assert.Greater(t, sc.Executed, 0, u)
	}
	require.NoError(t, s.StopJSCoverage(ctx))
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/a.html"))
	after := takeCov(t, s)
	assert.Equal(t, c, after, "nothing merged after the stop")
}

// Inline scripts are keyed by their page's URL + "#inline"; scripts under
// an excluded path, and the engine's own evaluations, are left out.
func TestJSCoverageInlineAndExcluded(t *testing.T) {
	app := newCoverageApp(t)
	s := coverageSession(t, app)
	ctx := context.Background()
	require.NoError(t, s.StartJSCoverage(ctx, JSCoverageOptions{ExcludePaths: []string{"/__collector/"}}))
	defer func() { assert.NoError(t, s.StopJSCoverage(ctx)) }()

	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/inline.html"))
	v, err := s.Evaluate(ctx, `() => [window.__agent, window.__inl]`, nil)
	require.NoError(t, err)
	require.Equal(t, []any{7, 1}, v, "both the collector's script and the inline one ran")

	c := takeCov(t, s)
	in, found := scriptCov(c, s.URL()+"#inline")
	require.True(t, found, "%+v", c.Scripts)
	assert.Equal(t, app.URL+"/cov/inline.html#inline", in.URL)
	assert.Greater(t, in.Executed, 0)
	assert.Less(t, in.Executed, in.Bytes, "never() did not run")
	for _, sc := range c.Scripts {
		assert.NotContains(t, sc.URL, "__collector", "excluded")
		assert.True(t, strings.HasPrefix(sc.URL, app.URL+"/"), "only the app's scripts, not the engine's evaluations: %q", sc.URL)
	}
}

// Start, Stop and Take in any order: clear errors, Stop twice is fine, what
// was collected stays after Stop.
func TestJSCoverageLifecycle(t *testing.T) {
	app := newCoverageApp(t)
	s := coverageSession(t, app)
	ctx := context.Background()

	_, err := s.TakeJSCoverage(ctx)
	require.ErrorIs(t, err, ErrJSCoverageNotStarted)
	require.NoError(t, s.StopJSCoverage(ctx))
	_, err = s.TakeJSCoverage(ctx)
	require.ErrorIs(t, err, ErrJSCoverageNotStarted, "a stop does not start it")

	require.NoError(t, s.StartJSCoverage(ctx))
	err = s.StartJSCoverage(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already started")

	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/two.html"))
	require.NoError(t, s.StopJSCoverage(ctx))
	require.NoError(t, s.StopJSCoverage(ctx), "idempotent")

	c := takeCov(t, s)
	two, found := scriptCov(c, app.URL+"/cov/two.js")
	require.True(t, found, "stop merged the last report: %+v", c.Scripts)
	assert.Greater(t, two.Executed, 0)
	// Nothing is collected after the stop.
	ok(t, s, `{"action":"click","target":"[data-testid=\"go\"]"}`)
	again := takeCov(t, s)
	assert.Equal(t, c, again)
	assert.Greater(t, c.Percent(), 0.0)
	assert.Less(t, c.Percent(), 100.0)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, s.StartJSCoverage(cctx), context.Canceled)
}

// A page that was replaced or closed does not break Take: it returns what
// was merged, and a replacement page is covered from the next take on.
func TestJSCoveragePageReplaced(t *testing.T) {
	app := newCoverageApp(t)
	s := coverageSession(t, app)
	ctx := context.Background()
	require.NoError(t, s.StartJSCoverage(ctx))
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/a.html"))
	c := takeCov(t, s)
	a1, found := scriptCov(c, app.URL+"/cov/a.js")
	require.True(t, found, "%+v", c.Scripts)

	s.mu.Lock()
	err := s.replacePage(ctx) // what the engine does with an unresponsive page
	s.mu.Unlock()
	require.NoError(t, err)
	c = takeCov(t, s)
	a2, found := scriptCov(c, app.URL+"/cov/a.js")
	require.True(t, found, "what was merged survives the page: %+v", c.Scripts)
	assert.Equal(t, a1, a2)

	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/cov/b.html"))
	c = takeCov(t, s)
	_, found = scriptCov(c, app.URL+"/cov/b.js")
	assert.True(t, found, "the new page is covered: %+v", c.Scripts)

	// The page closes under the coverage.
	s.loadWaits.wait(5 * time.Second)
	require.NoError(t, s.currentPage().Close())
	c = takeCov(t, s)
	_, found = scriptCov(c, app.URL+"/cov/b.js")
	assert.True(t, found)
	start := time.Now()
	require.NoError(t, s.StopJSCoverage(ctx))
	assert.Less(t, time.Since(start), 5*time.Second)
	require.NoError(t, s.StopJSCoverage(ctx))
}

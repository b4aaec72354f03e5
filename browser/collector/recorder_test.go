package collector

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// a11yPage has an image without alt text, a button without a name, a skip
// link that stays off screen when it has focus and a visible link.
const a11yPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Account</title></head><body><main>
<h1>Account</h1>
<img src="/logo.svg" width="40" height="40">
<button id="icon"><svg width="12" height="12"><circle cx="6" cy="6" r="5"/></svg></button>
<a id="skip" href="#main" style="position:absolute;left:-9999px">Skip to content</a>
<a id="about" href="/about">About</a>
</main></body></html>`

// In a real page, Violations waits for the recorder's scan, hands each
// violation over once, with the focus check's; the console reports the
// explorer reads carry axe-core's violations as before and nothing of the
// focus check.
func TestRecorderViolations(t *testing.T) {
	app := http.NewServeMux()
	app.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, a11yPage)
	})
	app.HandleFunc("/logo.svg", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40"/></svg>`)
	})
	upstream := httptest.NewServer(app)
	defer upstream.Close()
	c, err := New(upstream.URL, 0, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	front := httptest.NewServer(c)
	defer front.Close()
	e, err := testBrowser.NewEngine(browser.Config{Origins: []string{front.URL}, SettleTimeout: 2 * time.Second, ActionTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer func() { _ = e.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := e.User(ctx, "tester")
	require.NoError(t, err)

	mark := c.Mark()
	nav := s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: front.URL + "/"})
	require.True(t, nav.OK, nav.Error)
	reqs := c.RequestsSince(mark)
	require.NotEmpty(t, reqs)
	assert.Equal(t, "/", reqs[0].Path)
	assert.True(t, slices.ContainsFunc(reqs, func(r Request) bool { return r.Path == "/logo.svg" }), "%v", reqs)

	rules := func(vs []Violation) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Rule+" "+strings.Join(v.Targets, " "))
		}
		return out
	}
	vs, err := c.Violations(ctx, s, 10*time.Second)
	require.NoError(t, err)
	got := rules(vs)
	assert.Contains(t, got, "image-alt img")
	assert.Contains(t, got, "button-name #icon")
	for _, v := range vs {
		assert.Equal(t, front.URL+"/", v.URL)
		assert.Contains(t, []string{"serious", "critical"}, v.Impact)
		assert.NotEmpty(t, v.Help)
		assert.NotEmpty(t, v.HTML)
		assert.NotEqual(t, FocusInvisibleRule, v.Rule, "nothing had focus yet")
	}
	vs, err = c.Violations(ctx, s, 10*time.Second)
	require.NoError(t, err)
	assert.Empty(t, vs, "each violation once")

	// A DOM change makes a scan due: Violations waits for it.
	_, err = s.Evaluate(ctx, `() => { const i = document.createElement('img'); i.id = 'late'; i.src = '/logo.svg'; document.querySelector('main').append(i); }`, nil)
	require.NoError(t, err)
	vs, err = c.Violations(ctx, s, 10*time.Second)
	require.NoError(t, err)
	// (axe-core names the first image anew now that there are two, so it
	// may come again under its new selector; the button does not.)
	assert.Contains(t, rules(vs), "image-alt #late")
	assert.NotContains(t, rules(vs), "button-name #icon")

	// Focus on a visible link is fine; on the off-screen skip link it is not.
	_, err = s.Evaluate(ctx, `() => document.getElementById('about').focus()`, nil)
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond) // the check looks after the next frame
	vs, err = c.Violations(ctx, s, 10*time.Second)
	require.NoError(t, err)
	assert.Empty(t, vs, "visible focus is fine")
	_, err = s.Evaluate(ctx, `() => document.getElementById('skip').focus()`, nil)
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond)
	vs, err = c.Violations(ctx, s, 10*time.Second)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, FocusInvisibleRule, vs[0].Rule)
	assert.Equal(t, []string{`a#skip "Skip to content"`}, vs[0].Targets)
	assert.Contains(t, vs[0].HTML, `id="skip"`)

	// The console reports are the explorer's: axe-core's violations, one
	// per element, and no focus check.
	snap := s.Do(ctx, browser.Intent{Action: browser.ActSnapshot})
	raw := append(nav.Findings, snap.Findings...)
	var a11y []string
	for _, f := range PageFindings(raw) {
		assert.NotContains(t, f.Message+f.Evidence, FocusInvisibleRule)
		if f.Kind == FindA11y {
			a11y = append(a11y, f.Message)
		}
	}
	assert.True(t, slices.ContainsFunc(a11y, func(m string) bool { return strings.Contains(m, "(rule image-alt)") }), "%v", a11y)
	assert.True(t, slices.ContainsFunc(a11y, func(m string) bool { return strings.Contains(m, "(rule button-name)") }), "%v", a11y)

	// A document without the recorder (an image) has none, at once.
	nav = s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: front.URL + "/logo.svg"})
	require.True(t, nav.OK, nav.Error)
	start := time.Now()
	vs, err = c.Violations(ctx, s, 5*time.Second)
	require.NoError(t, err)
	assert.Empty(t, vs)
	assert.Less(t, time.Since(start), 2*time.Second)
}

// TestRecorderTimersAreNotThePages: the recorder's own timers (a clicked
// button's dead window, the deferred accessibility scan) are not counted
// as the page's when the engine waits for the page to go calm.
func TestRecorderTimersAreNotThePages(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Panel</title></head><body><main><h1>Panel</h1>
<button id="dead">Nothing</button><button id="grow" onclick="document.querySelector('main').append(document.createElement('p'))">Grow</button></main></body></html>`)
	}))
	defer upstream.Close()
	c, err := New(upstream.URL, 0, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	front := httptest.NewServer(c)
	defer front.Close()
	e, err := testBrowser.NewEngine(browser.Config{Origins: []string{front.URL}})
	require.NoError(t, err)
	defer func() { _ = e.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := e.User(ctx, "calm")
	require.NoError(t, err)
	require.True(t, s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: front.URL + "/"}).OK)
	for _, id := range []string{"#dead", "#grow"} {
		require.True(t, s.Do(ctx, browser.Intent{Action: browser.ActClick, Target: id}).OK)
		calm, ran, err := s.AwaitCalm(ctx, 2*time.Second)
		require.NoError(t, err)
		assert.True(t, calm, id)
		assert.Zero(t, ran, "%s: the recorder's timers are its own", id)
	}
}

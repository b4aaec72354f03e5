package explore

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
)

// The collector's accessibility oracle is axe-core in the page: serious and
// critical violations come back once per element with the rule id, and an
// XSS probe of ours that rendered is left to the XSS finding. Content added
// later is scanned when the page stops changing.
func TestCollectorAxe(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><title>Form</title></head><body><main>
<h1>Settings</h1>
<label for="name">Name</label><input id="name" data-testid="name">
<input id="tz" data-testid="tz">
<button type="button" data-testid="icon"><img src="data:," alt=""></button>
<button type="button">Save</button>
<p>` + collector.XSSPayload + `</p>
<script>setTimeout(() => { const i = document.createElement('input'); i.dataset.testid = 'late'; document.querySelector('main').append(i); }, 800);</script>
</main></body></html>`))
	}))
	defer app.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a11y := a11yThrough(ctx, t, app.URL, true, 3)
	var rules []string
	for _, f := range a11y {
		switch {
		case findings.ReRule.MatchString(f.Message):
			rules = append(rules, findings.ReRule.FindStringSubmatch(f.Message)[1]+" "+findings.CssFor(f.Evidence))
		default:
			t.Errorf("a11y finding without a rule id: %+v", f)
		}
		assert.NotContains(t, f.Evidence, "__agxss", "our own probe is the XSS finding's")
	}
	slices.Sort(rules)
	// The field added later is scanned once the page stops changing.
	assert.Equal(t, []string{`button-name button[data-testid="icon"]`, `label input[data-testid="late"]`, `label input[data-testid="tz"]`}, rules, "each violation once: %v", a11y)

	// Without axe-core (a replay that looks for other findings) the page
	// loads without it and reports no accessibility finding; the XSS probe
	// still reports.
	assert.Empty(t, a11yThrough(ctx, t, app.URL, false, 0))
}

// a11yThrough opens target's start page through a fresh collector (axe-core
// injected or not) and returns the accessibility findings it reported once
// it has want of them, or after a few seconds.
func a11yThrough(ctx context.Context, t *testing.T, target string, axe bool, want int) []browser.Finding {
	t.Helper()
	s, origin := collectorUser(ctx, t, target, axe, "axe")
	res := s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: origin + "/"})
	require.True(t, res.OK, res.Error)
	raw := res.Findings
	only := func(kind browser.FindingKind) []browser.Finding {
		return slices.DeleteFunc(collector.PageFindings(slices.Clone(raw)), func(f browser.Finding) bool { return f.Kind != kind })
	}
	// axe-core runs at load, and again once the page stops changing.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(300 * time.Millisecond)
		raw = append(raw, s.TakeFindings()...)
		if want > 0 && len(only(collector.FindA11y)) >= want || want == 0 && len(only(collector.FindXSS)) > 0 {
			break
		}
	}
	time.Sleep(1500 * time.Millisecond) // past the late field and its scan
	raw = append(raw, s.TakeFindings()...)
	require.NotEmpty(t, only(collector.FindXSS), "the recorder ran")
	return only(collector.FindA11y)
}

// The collector's dead-control watch: a button whose click changes nothing
// is reported; a button that did something once is not when clicked again
// to no effect; nor a menu button a hover already opened, whose click
// flips only its own aria-expanded; nor a toggle double-clicked back; nor
// a button whose click threw (the page error reports that one).
func TestCollectorDeadControl(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api":
			_, _ = w.Write([]byte(`{}`))
			return
		case "/slow":
			time.Sleep(time.Second)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><title>Controls</title>
<style>#menu{display:none} #wrap:hover #menu, #menu.open{display:block}</style></head><body><main>
<button type="button" id="dead">Archive</button>
<button type="button" id="show" onclick="document.getElementById('panel').textContent='History: created today'">Show history</button>
<div id="panel"></div>
<div id="wrap"><button type="button" id="more" aria-expanded="false" onclick="const m=document.getElementById('menu');m.classList.toggle('open');this.setAttribute('aria-expanded', m.classList.contains('open'))">More</button>
<ul id="menu"><li>Export</li></ul></div>
<button type="button" id="toggle" onclick="const p=document.getElementById('tp');p.hidden=!p.hidden">Details</button><p id="tp" hidden>Some details</p>
<button type="button" id="throws" onclick="null.events.length">Show log</button>
<form onsubmit="return false"><label>Seats <input type="number" name="n" value="40"></label><button id="deadsubmit">Refresh enrolment</button></form>
<form onsubmit="return false"><label>Name <input name="q" required></label><button id="blocked">Go</button></form>
<form onsubmit="event.preventDefault(); fetch('/api')"><label>Title <input name="a" value="1"></label><button id="fetchsubmit">Save</button></form>
<form method="post" action="/slow"><label>Note <input name="b" value="1"></label><button id="navsubmit">Send</button></form>
</main></body></html>`))
	}))
	defer app.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, origin := collectorUser(ctx, t, app.URL, false, "dead")
	require.True(t, s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: origin + "/"}).OK)
	var raw []browser.Finding
	for _, in := range []browser.Intent{
		{Action: browser.ActClick, Target: "#show"}, {Action: browser.ActClick, Target: "#show"},
		{Action: browser.ActClick, Target: "#more"},
		{Action: browser.ActDblclick, Target: "#toggle"},
		{Action: browser.ActClick, Target: "#throws"},
		{Action: browser.ActClick, Target: "#dead"},
		{Action: browser.ActClick, Target: "#deadsubmit"},
		{Action: browser.ActClick, Target: "#blocked"},
		{Action: browser.ActClick, Target: "#fetchsubmit"},
	} {
		r := s.Do(ctx, in)
		require.True(t, r.OK, r.Error)
		raw = append(raw, r.Findings...)
		time.Sleep(900 * time.Millisecond) // past the 600 ms watch
		raw = append(raw, s.TakeFindings()...)
	}
	var dead []string
	var sel string
	for _, f := range collector.PageFindings(raw) {
		if f.Kind == collector.FindDeadControl {
			dead = append(dead, findings.CssFor(f.Evidence))
			if sel == "" {
				sel = f.Selector
			}
		}
	}
	assert.Equal(t, []string{`button[id="dead"]`, `button[id="deadsubmit"]`}, dead,
		"a valid form's submit that does nothing is dead; one the browser's validation stops, or that sends a request, is not")

	// The team waits for the recorder's judgement, not a fixed time: once
	// awaitJudgement returns, no click is undecided and a dead one's
	// report is in.
	judge := &missionRun{sess: s, trace: slog.New(slog.DiscardHandler)}
	undecided := func() any {
		v, err := s.Evaluate(ctx, `() => window.__agUndecided()`, nil)
		require.NoError(t, err)
		return v
	}
	for _, c := range []struct {
		target string
		dead   bool
	}{{"#show", false}, {"#dead", true}, {"#more", false}} {
		require.True(t, s.Do(ctx, browser.Intent{Action: browser.ActClick, Target: c.target}).OK)
		judge.awaitJudgement(ctx)
		assert.EqualValues(t, 0, undecided(), c.target)
		got := false
		for _, f := range collector.PageFindings(s.TakeFindings()) {
			got = got || f.Kind == collector.FindDeadControl
		}
		assert.Equal(t, c.dead, got, "%s: dead control reported by the time the wait ends", c.target)
	}

	// The finding names its element, and a bug's screenshot outlines it
	// (then the page is as it was).
	assert.Equal(t, "#dead", sel)
	mr := &missionRun{sess: s, trace: slog.New(slog.DiscardHandler)}
	markup := func() string {
		v, err := s.Evaluate(ctx, `(sel) => document.querySelector(sel).outerHTML`, sel)
		require.NoError(t, err)
		return fmt.Sprint(v)
	}
	before := markup()
	require.True(t, mr.outline(ctx, sel, true))
	shot := s.Do(ctx, browser.Intent{Action: browser.ActScreenshot})
	require.True(t, shot.OK, shot.Error)
	require.True(t, mr.outline(ctx, sel, false))
	// The element's cause is as it was (axe-core's scan, which the
	// outline's mutation starts, may leave an empty style attribute).
	restored := markup()
	assert.Equal(t, findings.ElementSig(before), findings.ElementSig(restored), "the element's cause is unchanged: %s", restored)
	assert.NotContains(t, restored, "data-agx", "nothing of the outline is left")
	after := s.Do(ctx, browser.Intent{Action: browser.ActScreenshot})
	assert.Greater(t, outlinePixels(t, shot.Screenshot), 100, "the element is outlined")
	assert.Zero(t, outlinePixels(t, after.Screenshot), "and the outline is gone afterwards")
	assert.False(t, mr.outline(ctx, "#no-such-element", true))
	assert.False(t, mr.outline(ctx, "::not a selector", true))

	// A form sent the usual way to a slow server is under way, not dead,
	// though the page shows nothing new within the watch.
	r := s.Do(ctx, browser.Intent{Action: browser.ActClick, Target: "#navsubmit"})
	require.True(t, r.OK, r.Error)
	navFindings := r.Findings
	time.Sleep(1500 * time.Millisecond)
	navFindings = append(navFindings, s.TakeFindings()...)
	for _, f := range collector.PageFindings(navFindings) {
		assert.NotEqual(t, collector.FindDeadControl, f.Kind, "a navigating submit reported dead: %s", f.Evidence)
	}
}

// outlinePixels counts the pixels of a PNG in the outline colour.
func outlinePixels(t *testing.T, png []byte) int {
	t.Helper()
	img, err := pngDecode(png)
	require.NoError(t, err)
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 240 && g>>8 < 16 && bl>>8 > 240 {
				n++
			}
		}
	}
	return n
}

func pngDecode(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }

// collectorUser serves a fresh collector (axe-core injected or not) in
// front of target and opens a browser user on it; both close when the test
// ends.
func collectorUser(ctx context.Context, t *testing.T, target string, axe bool, name string) (*browser.Session, string) {
	t.Helper()
	col, err := collector.New(target, 3*time.Second, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	if !axe {
		col.WithoutAxe()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: col, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	origin := "http://" + ln.Addr().String()
	eng, err := testBrowser.NewEngine(browser.Config{Origins: []string{origin}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close() })
	s, err := eng.User(ctx, name)
	require.NoError(t, err)
	return s, origin
}

// Markup the team typed that the app cut reached the page all the same:
// its handler does not compile, and the recorder reports the element as
// the XSS sink; the compile error is that report's echo, not a page
// error of its own. A page's own broken script stays a page error.
func TestCollectorCutPayload(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		body := `<p id="echo">Saved: <img src="x" onerror="__agxss(this"></p>`
		if r.URL.Path == "/list" {
			// A marker payload cut inside its quoted handler: the
			// handler runs on to the next quote of the page.
			body = `<ul id="recent"><li><a href="/items/5"><img src onerror="console.error('` + collector.XSSMarker + `in</a></li><li><a href="/items/4">Fuse</a></li></ul>`
		}
		if r.URL.Path == "/long" {
			// The same, in an element whose markup (quotes, letters
			// outside ASCII) makes the recorder's report longer than the
			// engine keeps of a console message.
			const t = "Ω東京 Ångström \"quoted\" Ω東京 Ångström Ω東京 Ångström Ω東京"
			body = `<ul id="recent"><li><a href="/items/9" class="row item" data-kind="tool" data-note='` + t + `' title='` + t + `'><img src onerror="console.error('` + collector.XSSMarker + `in</a></li><li><a href="/items/8" data-note='` + t + `'>Ångström Ωmega 東京</a></li></ul>`
		}
		if r.URL.Path == "/broken" {
			body = `<p id="echo">Saved</p><img src="x" onerror="show(">`
		}
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><title>Item</title></head><body><main><h1>Item</h1>` + body + `</main></body></html>`))
	}))
	defer app.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, origin := collectorUser(ctx, t, app.URL, false, "cut")
	open := func(path string) []browser.Finding {
		r := s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: origin + path})
		require.True(t, r.OK, r.Error)
		time.Sleep(500 * time.Millisecond)
		return collector.PageFindings(append(r.Findings, s.TakeFindings()...))
	}
	fs := open("/item")
	var xss []browser.Finding
	for _, f := range fs {
		assert.NotEqual(t, browser.FindPageError, f.Kind, "the cut payload's compile error is no page error: %+v", f)
		if f.Kind == collector.FindXSS {
			xss = append(xss, f)
		}
	}
	require.Len(t, xss, 1, "%+v", fs)
	assert.Contains(t, xss[0].Message, "cut")
	assert.True(t, strings.HasPrefix(xss[0].Evidence, `<p id="echo">`), xss[0].Evidence)

	// A marker payload cut inside its handler, in a short element and in
	// one whose report is longer than the engine keeps of a console
	// message (it must still parse).
	for _, c := range []struct{ path, start string }{{"/list", `<a href="/items/5">`}, {"/long", `<a href="/items/9"`}} {
		fs = open(c.path)
		xss = nil
		for _, f := range fs {
			assert.NotEqual(t, browser.FindPageError, f.Kind, "%s: the cut payload's compile error is no page error: %+v", c.path, f)
			if f.Kind == collector.FindXSS {
				xss = append(xss, f)
			}
		}
		require.Len(t, xss, 1, "%s: %+v", c.path, fs)
		assert.True(t, strings.HasPrefix(xss[0].Evidence, c.start), "%s: %s", c.path, xss[0].Evidence)
		assert.Contains(t, xss[0].Message, "cut", c.path)
	}

	fs = open("/broken")
	kinds := map[browser.FindingKind]int{}
	for _, f := range fs {
		kinds[f.Kind]++
	}
	assert.Equal(t, 1, kinds[browser.FindPageError], "%+v", fs)
	assert.Zero(t, kinds[collector.FindXSS])
}

package personas

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scripted is a persona that plays fixed intents, then stops.
func scripted(name string, intents ...browser.Intent) Persona {
	return Persona{Name: name, Role: "a script", NewStrategy: func() Strategy {
		i := 0
		return StrategyFunc(func(Step) (browser.Intent, error) {
			if i >= len(intents) {
				return browser.Intent{}, ErrDone
			}
			i++
			return intents[i-1], nil
		})
	}}
}

func oracleApp() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", page("Home", `<h1>Home</h1>
<button id="dead">Export</button>
<button id="late" onclick="setTimeout(() => { document.getElementById('out').textContent = 'exported' }, 300)">Export later</button>
<button id="net" onclick="fetch('/api/ping')">Ping</button>
<label for="name">Name</label><input id="name"> <button id="greet" onclick="document.getElementById('out').innerHTML = 'Hello ' + document.getElementById('name').value">Greet</button>
<p id="out"></p>`))
	mux.HandleFunc("/api/ping", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/pageerror", page("PE", `<script>setTimeout(() => { throw new Error('kaput in render') }, 0)</script>`))
	mux.HandleFunc("/console", page("Console", `<script>console.error('widget failed to load')</script>`))
	mux.HandleFunc("/api/broken", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	mux.HandleFunc("/fivexx", page("5xx", `<script>fetch('/api/broken')</script>`))
	mux.HandleFunc("/banner", page("Banner", `<div class="alert-danger">Something went wrong</div>`))
	mux.HandleFunc("/trace", page("Trace", "<pre>TypeError: Cannot read properties of undefined (reading 'id')\n    at render (app.js:10:5)\n    at main (app.js:20:3)\n</pre>"))
	mux.HandleFunc("/slow", func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(700 * time.Millisecond)
		html(w, "Slow", "<h1>Slow</h1>")
	})
	return mux
}

func TestOracles(t *testing.T) {
	xss := `<img src onerror="console.error('` + collector.XSSMarker + `t9')">`
	cases := []struct {
		name    string
		collect bool
		intents []browser.Intent
		want    browser.FindingKind
		page    string
		absent  []browser.FindingKind
	}{
		{"page error", false, []browser.Intent{Navigate("/pageerror")}, browser.FindPageError, "/pageerror", nil},
		{"console error", false, []browser.Intent{Navigate("/console")}, browser.FindConsoleError, "/console", nil},
		{"http 5xx", false, []browser.Intent{Navigate("/fivexx")}, browser.FindServerError, "/fivexx", nil},
		{"same-origin 404", false, []browser.Intent{Navigate("/nowhere")}, browser.FindNotFound, "/nowhere", nil},
		{"error banner", false, []browser.Intent{Navigate("/banner")}, browser.FindErrorBanner, "/banner", nil},
		{"stack trace", false, []browser.Intent{Navigate("/trace")}, browser.FindStackTrace, "/trace", nil},
		{"slow action without a collector", false, []browser.Intent{Navigate("/slow")}, KindSlow, "/slow", nil},
		{"slow request through the collector", true, []browser.Intent{Navigate("/slow")}, KindSlow, "/slow", nil},
		{"xss marker", false, []browser.Intent{
			{Action: browser.ActFill, Target: "#name", Value: &xss}, {Action: browser.ActClick, Target: "#greet"},
		}, KindXSS, "/", []browser.FindingKind{browser.FindConsoleError}},
		{"xss through the collector", true, []browser.Intent{
			{Action: browser.ActFill, Target: "#name", Value: &xss}, {Action: browser.ActClick, Target: "#greet"},
		}, KindXSS, "/", []browser.FindingKind{browser.FindConsoleError, collector.FindXSS}},
		{"dead control", true, []browser.Intent{{Action: browser.ActClick, Target: "#dead"}}, KindDeadControl, "/", nil},
		{"late effect is not dead", true, []browser.Intent{{Action: browser.ActClick, Target: "#late"}}, "", "", []browser.FindingKind{KindDeadControl}},
		{"network is not dead", true, []browser.Intent{{Action: browser.ActClick, Target: "#net"}}, "", "", []browser.FindingKind{KindDeadControl}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rig := newRig(t, oracleApp(), tc.collect)
			rep := rig.run(t, scripted("script", tc.intents...), "/", len(tc.intents), 1, OracleConfig{SlowThreshold: 500 * time.Millisecond})
			kinds := map[browser.FindingKind]Finding{}
			for _, f := range rep.Findings {
				kinds[f.Kind] = f
			}
			if tc.want != "" {
				f, ok := kinds[tc.want]
				require.True(t, ok, "want %s, got %v", tc.want, rep.Findings)
				assert.Equal(t, tc.page, pathQuery(f.URL))
				assert.NotEmpty(t, f.Evidence)
				assert.NotEmpty(t, f.Oracle)
				assert.Equal(t, "script", f.Persona)
				assert.Equal(t, f.Seq, rep.Tape[f.TapeIndex].Seq)
				if tc.want == KindXSS {
					assert.Equal(t, xss, f.Payload)
					assert.Equal(t, "critical", f.Severity)
					assert.Contains(t, f.Title, "(probe t9)")
				}
			}
			for _, k := range tc.absent {
				assert.NotContains(t, kinds, k, "findings: %v", rep.Findings)
			}
		})
	}
}

// The dead-control oracle only judges buttons and links: a click into a
// text field (which only focuses it) is not a finding.
func TestDeadControlIgnoresFields(t *testing.T) {
	rig := newRig(t, oracleApp(), true)
	rep := rig.run(t, scripted("script", browser.Intent{Action: browser.ActClick, Target: "#name"}), "/", 1, 1, OracleConfig{})
	for _, f := range rep.Findings {
		assert.NotEqual(t, KindDeadControl, f.Kind, f.Evidence)
	}
	assert.Len(t, rep.Tape, 2)
}

func TestRunStopsOnContext(t *testing.T) {
	rig := newRig(t, oracleApp(), false)
	ctx, cancel := context.WithCancel(context.Background())
	p := Persona{Name: "canceller", Role: "cancels", NewStrategy: func() Strategy {
		return StrategyFunc(func(s Step) (browser.Intent, error) {
			if s.N == 1 {
				cancel()
			}
			return browser.Intent{Action: browser.ActScroll}, nil
		})
	}}
	rep, err := Run(ctx, rig.page, p, RunOptions{Start: rig.origin() + "/", Steps: 10})
	require.ErrorIs(t, err, context.Canceled)
	assert.LessOrEqual(t, rep.Steps, 2)
}

func TestRunRejectsBadInput(t *testing.T) {
	rig := newRig(t, oracleApp(), false)
	_, err := Run(context.Background(), rig.page, Persona{Name: "x"}, RunOptions{Start: "/"})
	require.Error(t, err)
	_, err = Run(context.Background(), rig.page, scripted("x"), RunOptions{})
	require.ErrorContains(t, err, "no start URL")
	// a strategy error ends the run with context
	bad := Persona{Name: "bad", Role: "fails", NewStrategy: func() Strategy {
		return StrategyFunc(func(Step) (browser.Intent, error) { return browser.Intent{}, assert.AnError })
	}}
	_, err = Run(context.Background(), rig.page, bad, RunOptions{Start: rig.origin() + "/"})
	require.ErrorIs(t, err, assert.AnError)
	require.ErrorContains(t, err, "bad step 0")
	// an invalid intent from a strategy is a failed action, not a crash
	rep, err := Run(context.Background(), rig.page, scripted("odd", browser.Intent{Action: "fly"}), RunOptions{Start: rig.origin() + "/"})
	require.NoError(t, err)
	require.Len(t, rep.Tape, 2)
	assert.False(t, rep.Tape[1].OK)
	assert.Contains(t, rep.Tape[1].Error, "unknown action")
}

// What the collector's recorder reports reaches the oracles in the form
// each reads: an executed script for the xss oracle (its token read from
// the element's markup), accessibility violations grouped per rule and
// page; the recorder's own dead controls and duplicate rows, and its
// console form of accessibility reports, are no findings of the personas.
func TestCollectorReportsReachTheOracles(t *testing.T) {
	mark := "[agentgraph-collector] "
	raw := []browser.Finding{
		{Kind: browser.FindConsoleError, URL: "http://h/", Message: mark + `{"kind":"xss","message":"an injected script executed in li","evidence":"<li><img src=\"\" onerror=\"console.error('` + collector.XSSMarker + `p3')\"></li>"}`},
		{Kind: browser.FindConsoleError, URL: "http://h/", Message: mark + `{"kind":"a11y","message":"Images must have alternate text (rule image-alt)","evidence":"<img>"}`},
		{Kind: browser.FindConsoleError, URL: "http://h/", Message: mark + `{"kind":"dead_control","message":"clicking \"Export\" changed nothing","evidence":"<button>"}`},
		{Kind: browser.FindConsoleError, URL: "http://h/", Message: mark + `{"kind":"duplicate_record","message":"two identical rows in a table","evidence":"<tr>"}`},
		{Kind: browser.FindConsoleError, URL: "http://h/", Message: "widget failed"},
	}
	fs := pageFindings(raw)
	require.Len(t, fs, 2, "%v", fs)
	assert.Equal(t, collector.FindXSS, fs[0].Kind)
	assert.Equal(t, "widget failed", fs[1].Message)
	assert.Empty(t, pageFindings(nil))

	payload := `<img src="" onerror="console.error('` + collector.XSSMarker + `p3')">`
	obs := Observation{Intent: browser.Intent{Action: browser.ActClick, Target: "#post"}, Result: browser.Result{URL: "http://h/", Findings: fs},
		Tape: []browser.Entry{{Action: browser.ActFill, OK: true, Params: browser.Intent{Action: browser.ActFill, Target: "#c", Value: &payload}}}}
	xss := xssOracle{}.Check(context.Background(), obs)
	require.Len(t, xss, 1)
	assert.Equal(t, KindXSS, xss[0].Kind)
	assert.Equal(t, "injected script executed (probe p3)", xss[0].Title)
	assert.True(t, strings.HasPrefix(xss[0].Evidence, collector.XSSMarker+"p3: "), xss[0].Evidence)
	assert.Equal(t, payload, xss[0].Payload, "the fill that typed the token")
	health := healthOracle{}.Check(context.Background(), obs)
	require.Len(t, health, 1, "the executed script is the xss oracle's, not a health finding")
	assert.Equal(t, browser.FindConsoleError, health[0].Kind)

	obs = Observation{Violations: []collector.Violation{
		{URL: "http://h/", Rule: "image-alt", Impact: "critical", Help: "Images must have alternate text", Targets: []string{"img:nth-of-type(1)"}, HTML: `<img data-bug="A">`},
		{URL: "http://h/", Rule: "image-alt", Impact: "critical", Help: "Images must have alternate text", Targets: []string{"img:nth-of-type(2)"}, HTML: `<img data-bug="B">`},
		{URL: "http://h/", Rule: collector.FocusInvisibleRule, Impact: "serious", Help: "Keyboard focus lands on an element the user cannot see", Targets: []string{`a "Skip"`}, HTML: "<a>"},
		{URL: "http://h/b", Rule: "image-alt", Impact: "critical", Help: "Images must have alternate text", Targets: []string{"img"}},
	}}
	a11y := axeOracle{}.Check(context.Background(), obs)
	require.Len(t, a11y, 3)
	assert.Equal(t, "axe image-alt (critical): Images must have alternate text", a11y[0].Title)
	assert.Equal(t, "critical", a11y[0].Severity)
	assert.Equal(t, "image-alt critical on img:nth-of-type(1), img:nth-of-type(2)\n<img data-bug=\"A\">\n<img data-bug=\"B\">", a11y[0].Evidence)
	assert.Contains(t, a11y[1].Title, collector.FocusInvisibleRule)
	assert.Equal(t, "high", a11y[1].Severity)
	assert.Equal(t, "http://h/b", a11y[2].URL)
}

package explore

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// report.html, opened in Chromium: its counts match summary.json, the
// severity filter hides and shows bugs, and every screenshot, spec and
// trace it links is there.
func TestHTMLReportInChromium(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "screenshots"), 0o755))
	png := []byte("\x89PNG\r\n\x1a\n")
	var bugs []findings.Bug
	for i, k := range []struct{ kind, sev, persona, url string }{
		{"http_5xx", findings.SeverityCritical, "adversarial", "http://app.test/orders/new"},
		{"page_error", findings.SeverityMajor, "new_user", "http://app.test/"},
		{"a11y", findings.SeverityMinor, "new_user", "http://app.test/"},
		{"console_error", findings.SeverityMinor, "power_user", "http://app.test/stats"},
	} {
		id := "bug-0" + string(rune('1'+i)) + "-" + strings.ReplaceAll(k.kind, "_", "-")
		b := findings.Bug{ID: id, Kind: k.kind, Severity: k.sev, Persona: k.persona, URL: k.url, Title: k.kind + " on " + urlx.Path(k.url),
			Evidence: "evidence <b>" + id + "</b>", New: i%2 == 0, SeenCount: 1 + i, Screenshot: "screenshots/" + id + ".png",
			Spec: report.SpecName(id), Trace: TraceName(id), ReproSteps: 2, ReproFullSteps: 9}
		if i == 0 {
			b.Symptoms = []string{"error_banner: Something went wrong"}
		}
		for _, f := range []string{b.Screenshot, b.Spec, b.Trace} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), png, 0o644))
		}
		bugs = append(bugs, b)
	}
	r := report.MissionResult{Mission: mission.Mission{ThreadID: "explore", Prompt: "Explore"}, Team: "standard", Target: "http://app.test", Steps: 42,
		Bugs: bugs, Explored: []string{"/", "/stats", "/orders/new"}, Dir: dir, Duration: 3 * time.Second,
		Coverage: &report.Coverage{Stats: personas.Stats{States: 5, Targets: 40, Tried: 30}, Stopped: "step budget spent", Untried: []string{"/ [s1]: click button \"X\""}, Graph: "flowchart LR\n"}}
	require.NoError(t, report.WriteHTML(filepath.Join(dir, "report.html"), r))
	require.NoError(t, report.WriteJSON(filepath.Join(dir, "summary.json"), report.MissionSummary(r)))

	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	e, err := testBrowser.NewEngine(browser.Config{Origins: []string{srv.URL}})
	require.NoError(t, err)
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := e.User(ctx, "reader")
	require.NoError(t, err)
	require.True(t, s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: srv.URL + "/report.html"}).OK)
	eval := func(js string) any {
		v, err := s.Evaluate(ctx, js, nil)
		require.NoError(t, err, js)
		return v
	}
	text := func(id string) string {
		return eval(`document.getElementById(` + jsQuote(id) + `).textContent.trim()`).(string)
	}

	var sum report.SummaryJSON
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))
	assert.Equal(t, itoa(len(sum.Bugs)), text("count-bugs"))
	assert.Equal(t, itoa(sum.NewBugs), text("count-new"))
	for _, sev := range report.SeverityOrder {
		n := 0
		for _, b := range sum.Bugs {
			if b.Severity == sev {
				n++
			}
		}
		assert.Equal(t, itoa(n), text("count-"+sev), sev)
	}
	assert.Equal(t, "30/40", text("count-tried"))

	visible := func() []string {
		v := eval(`[...document.querySelectorAll('section.bug')].filter((b) => b.offsetParent !== null).map((b) => b.id).join(',')`).(string)
		if v == "" {
			return nil
		}
		return strings.Split(v, ",")
	}
	assert.Len(t, visible(), 4)
	require.True(t, s.Do(ctx, browser.Intent{Action: browser.ActSelectOption, Target: "#f-severity", Value: ptr(findings.SeverityMinor)}).OK)
	assert.Equal(t, []string{bugs[2].ID, bugs[3].ID}, visible())
	assert.Equal(t, "2 shown", text("shown"))
	require.True(t, s.Do(ctx, browser.Intent{Action: browser.ActSelectOption, Target: "#f-persona", Value: ptr("power_user")}).OK)
	assert.Equal(t, []string{bugs[3].ID}, visible())
	require.True(t, s.Do(ctx, browser.Intent{Action: browser.ActSelectOption, Target: "#f-severity", Value: ptr("")}).OK)
	require.True(t, s.Do(ctx, browser.Intent{Action: browser.ActSelectOption, Target: "#f-persona", Value: ptr("")}).OK)
	assert.Len(t, visible(), 4, "all back")

	// Every link and image resolves; the evidence is text, not markup.
	refs := eval(`[...document.querySelectorAll('a[href], img[src]')].map((e) => e.getAttribute('href') || e.getAttribute('src')).join('\n')`).(string)
	n := 0
	for _, ref := range strings.Split(refs, "\n") {
		resp, err := http.Get(srv.URL + "/" + ref)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, ref)
		n++
	}
	assert.Equal(t, 12, n, "a screenshot, a spec and a trace per bug")
	assert.EqualValues(t, 0, eval(`document.querySelectorAll('pre b').length`))
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`(?s)\[critical\].*\[major\].*\[minor\]`), string(html), "most severe first")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func ptr(s string) *string { return &s }

func jsQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

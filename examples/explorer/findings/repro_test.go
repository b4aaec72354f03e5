package findings

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// bugOf builds a Bug the way missionRun.bug does from a finding.
func bugOf(kind browser.FindingKind, url, message, evidence string) Bug {
	ev := evidence
	if ev == "" {
		ev = message
	} else if !strings.Contains(ev, message) {
		ev = message + " — " + ev
	}
	return Bug{ID: "bug-01", Kind: string(kind), URL: url, Title: bugKinds[kind] + " on " + urlx.Path(url) + ": " + clip.String(message, 120), Evidence: ev}
}

// TestReproductionChecks maps each kind of finding, with evidence as the
// explorer records it on the demo app, to the narrow checks of its spec.
func TestReproductionChecks(t *testing.T) {
	const app = "http://127.0.0.1:4000"
	long := "BUG-LONG-NAME: value too long for column name (character varying(100)): got 161 characters and then some more text to pass the clip"
	tests := []struct {
		name string
		bug  Bug
		want []browser.Check
		slow time.Duration
	}{
		{"page error", bugOf(browser.FindPageError, app+"/checkout/3", "BUG-PAGEERR-WIZARD: order summary is missing the billing plan",
			"Error: BUG-PAGEERR-WIZARD: order summary is missing the billing plan\n    at http://127.0.0.1:4000/checkout/3:53:11"),
			[]browser.Check{browser.NoPageError{Contains: "BUG-PAGEERR-WIZARD: order summary is missing the billing plan"}}, 0},
		{"console error: the row number varies", bugOf(browser.FindConsoleError, app+"/projects?page=2", "BUG-CONSOLE-LIST-PAGE2: cannot hydrate row 18: owner is undefined", ""),
			[]browser.Check{browser.NoConsoleError{Contains: "BUG-CONSOLE-LIST-PAGE2: cannot hydrate row"}}, 0},
		{"5xx: the path, not the query", bugOf(browser.FindServerError, app+"/projects?status=all&sort=budget", "server error 500 on GET /projects", "GET /projects?status=all&sort=budget → 500; body: BUG-5XX-SORT"),
			[]browser.Check{browser.NoServerError{Method: "GET", Path: "/projects"}}, 0},
		{"404", bugOf(browser.FindNotFound, app+"/release-notes/BUG-404-RELEASE-NOTES", "page not found: /release-notes/BUG-404-RELEASE-NOTES", ""),
			[]browser.Check{browser.NoNotFound{Path: "/release-notes/BUG-404-RELEASE-NOTES"}}, 0},
		{"404 of an escaped path", bugOf(browser.FindNotFound, app+"/a%20b/c%27d", "page not found: /a b/c'd", ""),
			[]browser.Check{browser.NoNotFound{Path: "/a%20b/c%27d"}}, 0},
		{"banner holding a dash", bugOf(browser.FindErrorBanner, app+"/projects/export", "visible error message: Export failed: BUG-BANNER-EXPORT — an unexpected error occurred while writing the CSV file.\n\nTypeError: x",
			"Export failed: BUG-BANNER-EXPORT — an unexpected error occurred while writing the CSV file.\n\nTypeError: x"),
			[]browser.Check{browser.NoErrorBanner{Contains: "Export failed: BUG-BANNER-EXPORT — an unexpected error occurred while writing the CSV file."}}, 0},
		{"banner clipped in the title", bugOf(browser.FindErrorBanner, app+"/projects", "visible error message: "+long, long),
			[]browser.Check{browser.NoErrorBanner{Contains: "BUG-LONG-NAME: value too long for column name (character varying(100)): got"}}, 0},
		{"stack trace", bugOf(browser.FindStackTrace, app+"/projects/export", "stack trace visible on the page", "TypeError: Cannot read properties of null (reading 'budget')\n    at serializeRow (/srv/csv.js:41:22)"),
			[]browser.Check{browser.NoStackTrace{Contains: "TypeError: Cannot read properties of null (reading 'budget')"}}, 0},
		{"xss", bugOf(collector.FindXSS, app+"/search?q=x", "an injected script executed in p", `<p data-testid="search-summary">1 results for <img src="x" onerror="__agxss(this)"></p>`),
			[]browser.Check{browser.NoScriptRun{Marker: "__agxss", Within: `p[data-testid="search-summary"]`}}, 0},
		{"xss in an unnamed element", bugOf(collector.FindXSS, app+"/search?q=x", "an injected script executed in td", `<td>1 results for <img src="x" onerror="__agxss(this)"></td>`),
			[]browser.Check{browser.NoScriptRun{Marker: "__agxss"}}, 0},
		{"a11y button", bugOf(collector.FindA11y, app+"/projects", "button has no accessible name (rule button-name)", `<button type="button" class="icon" data-testid="refresh-list"><img src="/r.svg" alt=""></button>`),
			[]browser.Check{browser.NoA11yViolation{Rule: "button-name", Selector: `button[data-testid="refresh-list"]`}}, 0},
		{"a11y field by id", bugOf(collector.FindA11y, app+"/settings", "form field has no label (rule label)", `<input id="s-tz" name="timezone" type="text" value="UTC">`),
			[]browser.Check{browser.NoA11yViolation{Rule: "label", Selector: `input[id="s-tz"]`}}, 0},
		{"slow", bugOf(collector.FindSlow, app+"/reports", "GET /reports took 3.5s (threshold 2.5s)", "GET /reports → 200 in 3.5s"),
			[]browser.Check{browser.FastResponse{Path: "/reports", Within: 2500 * time.Millisecond, Fetch: true}}, 0},
		{"dead control", bugOf(collector.FindDeadControl, app+"/checkout/2", `clicking "Save draft" changed nothing`, `<button type="button" class="secondary" data-testid="save-draft">Save draft</button>`),
			[]browser.Check{browser.ClickChanges{Selector: `button[data-testid="save-draft"]`}}, 0},
		{"dead control without ids", bugOf(collector.FindDeadControl, app+"/x", `clicking "Go" changed nothing`, `<button>Go "now"</button>`),
			[]browser.Check{browser.ClickChanges{Selector: `button:has-text("Go \"now\"")`}}, 0},
		{"duplicate submit", bugOf(collector.FindDuplicate, app+"/projects", "the same POST /projects was accepted twice and made two records (/projects/30 and /projects/31)", "/projects → 303 Location /projects/30 | /projects → 303 Location /projects/31"),
			[]browser.Check{browser.NoDuplicatePost{Path: "/projects"}}, specSlowPosts},
		{"duplicate record", bugOf(collector.FindDuplicateRow, app+"/projects", "two identical rows in a table", "<tr><td>A</td></tr>"),
			[]browser.Check{browser.NoDuplicateRows{}}, specSlowPosts},
		{"spinner: the defaults", bugOf(browser.FindSpinner, app+"/x", "1 loading indicator(s) still visible after 3s", ""), browser.DefaultChecks(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Reproduction(tt.bug, nil)
			assert.True(t, r.Bug)
			assert.Equal(t, tt.want, r.Checks)
			assert.Equal(t, tt.slow, r.SlowPosts)
			assert.Equal(t, "bug-01: "+tt.bug.Title, r.Name)
			_, err := browser.Translate([]browser.Reproduction{r}, browser.SpecOptions{BaseURL: app})
			require.NoError(t, err)
		})
	}
}

func TestXSSPayloadCallsTheMarker(t *testing.T) {
	assert.Contains(t, collector.XSSPayload, xssMarker+"(this)")
}

func TestStableText(t *testing.T) {
	tests := map[string]string{
		"BUG-CONSOLE-LIST-PAGE2: cannot hydrate row 18: owner": "BUG-CONSOLE-LIST-PAGE2: cannot hydrate row",
		"took 3.5s":                      "", // too short to narrow anything
		"first line\nsecond line":        "first line",
		"Failed to load resource: #12 x": "Failed to load resource:",
		"order (12 items) ready":         "", // "order" is under six characters: no narrowing
		"":                               "",
	}
	for in, want := range tests {
		assert.Equal(t, want, stableText(in), in)
	}
	long := stableText("ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé")
	assert.LessOrEqual(t, len(long), 160)
	assert.True(t, utf8.ValidString(long))
}

func TestCSSFor(t *testing.T) {
	tests := map[string]string{
		`<button data-testid="it's &quot;x&quot;" id="b">`: `button[data-testid="it's \"x\""]`,
		`<INPUT name="q\z" type="text">`:                   `input[name="q\\z"]`,
		`<a href="/x" data-bug="BUG-1">x</a>`:              ``,
		`<button id="line&#10;break">`:                     `button[id="line\a break"]`,
		`not html`:                                         ``,
	}
	for in, want := range tests {
		assert.Equal(t, want, CssFor(in), in)
	}
}

func TestBeforeClickOn(t *testing.T) {
	ents := []browser.Entry{
		{Action: browser.ActNavigate, OK: true},
		{Action: browser.ActClick, OK: true, Locator: "getByTestId('save-draft')"},
		{Action: browser.ActFill, OK: true, Locator: "getByLabel('Name')"},
		{Action: browser.ActClick, OK: true, Locator: "getByTestId('save-draft')"},
		{Action: browser.ActSnapshot, OK: true},
	}
	el := `<button type="button" data-testid="save-draft">Save draft</button>`
	assert.Len(t, beforeClickOn(ents, el), 3, "cut before the last click on the control")
	byText := []browser.Entry{{Action: browser.ActNavigate, OK: true}, {Action: browser.ActClick, OK: true, Locator: "getByRole('button', { name: 'Save draft' })"}}
	assert.Len(t, beforeClickOn(byText, `<button>Save draft</button>`), 1, "matched by the button's text")
	assert.Len(t, beforeClickOn(ents, `<button data-testid="other">Other</button>`), len(ents), "no click on it: kept whole")

	r := Reproduction(bugOf(collector.FindDeadControl, "http://h/checkout/2", `clicking "Save draft" changed nothing`, el), ents)
	assert.Len(t, r.Entries, 3)
}

func TestSameSubmit(t *testing.T) {
	ents := []browser.Entry{
		{Action: browser.ActClick, OK: true, Locator: "getByTestId('signin-submit')", Params: browser.Intent{Target: "e3"}},
		{Action: browser.ActClick, OK: true, Locator: "getByTestId('nav')", Params: browser.Intent{Target: "e7"}},
		{Action: browser.ActClick, OK: true, Locator: "getByTestId('project-submit')", Params: browser.Intent{Target: "e9"}},
		{Action: browser.ActClick, OK: true, Locator: "getByRole('button', { name: 'Create project' })", Params: browser.Intent{Target: `role=button[name="Create project"]`}},
	}
	got := sameSubmit(ents)
	assert.Equal(t, "getByTestId('project-submit')", got[3].Locator, "the impatient second click is on the first's control")
	assert.Equal(t, "getByTestId('nav')", got[1].Locator, "other clicks keep theirs")
	assert.Equal(t, "getByRole('button', { name: 'Create project' })", ents[3].Locator, "the input is not changed")
}

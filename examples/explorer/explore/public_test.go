package explore

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/memory"
)

func TestCauseAcrossRoutes(t *testing.T) {
	f := func(path string) browser.Finding {
		return browser.Finding{Kind: browser.FindServerError, URL: "http://app" + path, Message: "server error 500 on GET " + path,
			Evidence: "GET " + path + " → 500; body: runtime error: nil pointer: session lookup returned nil for GET " + path}
	}
	assert.Equal(t, findings.RootCause(f("/dashboard"), ""), findings.RootCause(f("/projects/28/edit"), ""),
		"an error that quotes its own request is one cause on every route")
	// The request's path inside another name (a Go package in a stack)
	// stays: the same stack on two routes is one cause.
	stack := func(path string) browser.Finding {
		g := f(path)
		g.Evidence += " goroutine 42 [running]: acme/projects.(*Server).currentUser(0x0) /srv/acme/session.go:88"
		return g
	}
	assert.Equal(t, findings.RootCause(stack("/dashboard"), ""), findings.RootCause(stack("/projects"), ""), "a stack naming acme/projects")
	assert.Equal(t, "GET <path> ran; <path>: x; /projects/7 acme/projects.go", findings.WithoutRequest("GET /projects ran; /projects: x; /projects/7 acme/projects.go", "http://app/projects"))
	other := f("/reports")
	other.Evidence = "GET /reports → 500; body: template reports.html: no such file"
	assert.NotEqual(t, findings.RootCause(f("/reports"), ""), findings.RootCause(other, ""))
	// An error that echoes a query value it failed on is one cause
	// whatever the value; the value inside a longer word stays.
	sorted := func(key string) browser.Finding {
		return browser.Finding{Kind: browser.FindServerError, URL: "http://app/items?sort=" + key + "&q=",
			Message: "server error 500 on GET /items", Evidence: `GET /items?sort=` + key + ` → 500; body: sort key "` + key + `" has no comparator`}
	}
	assert.Equal(t, findings.RootCause(sorted("budget"), ""), findings.RootCause(sorted("-budget"), ""))
	assert.Contains(t, findings.RootCause(sorted("budget"), ""), `sort key "<value>" has`)
	assert.Equal(t, "budgets <value>, <value>-x", findings.WithoutQueryValues("budgets budget, budget-x", "http://app/items?sort=budget"))
	assert.Equal(t, "no query", findings.WithoutQueryValues("no query", "http://app/items"))
	assert.Equal(t, "a b", findings.WithoutQueryValues("a b", "http://app/items?x=a&y=b"), "one-letter values stay")

	row := func(page, html string) browser.Finding {
		return browser.Finding{Kind: collector.FindDuplicateRow, URL: page, Evidence: html}
	}
	assert.Equal(t, findings.RootCause(row("http://app/items?page=2", `<tr data-id="3">`), ""), findings.RootCause(row("http://app/items", `<tr data-id="9" data-x="y">`), ""),
		"one list showing records twice is one cause")
	// One generic message thrown by two handlers is two causes; the same
	// handler on two records' pages (an inline script), or one script
	// file on two pages, is one.
	js := func(page, stack string) browser.Finding {
		return browser.Finding{Kind: browser.FindPageError, URL: "http://app" + page, Message: "NetworkError when attempting to fetch resource",
			Evidence: "Error: NetworkError when attempting to fetch resource\n" + stack}
	}
	onLoad := js("/items/1/edit", "    at http://app/items/1/edit:64:37")
	onToggle := js("/settings", "    at HTMLInputElement.<anonymous> (http://app/settings:88:12)")
	assert.NotEqual(t, findings.RootCause(onLoad, ""), findings.RootCause(onToggle, ""))
	assert.Equal(t, findings.RootCause(onLoad, ""), findings.RootCause(js("/items/16/edit", "    at http://app/items/16/edit:64:40"), ""))
	shared := func(page string) browser.Finding {
		return js(page, "    at load (http://app/static/app.js:10:5)\n    at http://app"+page+":3:1")
	}
	assert.Equal(t, findings.RootCause(shared("/a"), ""), findings.RootCause(shared("/b/7"), ""))
	assert.NotEqual(t, findings.RootCause(shared("/a"), ""), findings.RootCause(js("/a", "load@http://app/static/other.js:10:5"), ""))
	assert.Equal(t, findings.RootCause(js("/a", ""), ""), findings.RootCause(js("/b", "no frames here"), ""), "no stack: the message alone")

	assert.True(t, findings.ValidationMessage("Choose a plan."))
	assert.False(t, findings.ValidationMessage("Select failed: SQLSTATE 42P01"))
}

// reportingRun is a mission run that only reports (the app at
// http://app.test behind a collector at 127.0.0.1:4100, memory in memory)
// and an adversarial member.
func reportingRun(t *testing.T) (*missionRun, *member) {
	t.Helper()
	qa, err := memory.NewQA(memory.NewInMemoryStore(), "http://app.test")
	require.NoError(t, err)
	mr := &missionRun{cfg: Config{}, m: mission.Mission{ThreadID: "t"}, qa: qa, colURL: "http://127.0.0.1:4100", target: "http://app.test",
		trace: slog.New(slog.DiscardHandler), secrets: browser.NewSecrets(), bugSeen: map[string]bool{}, recorded: map[string]findings.Bug{}, sw: newSweep()}
	return mr, &member{p: leaning(Persona{Name: "adversarial"})}
}

// TestReportOneBugPerCause drives the team's reporting with findings of
// several actions: a server error that quotes its route is one bug seen on
// three routes, whose banner and console echo are symptoms even when the
// bug was already known; a list showing a record typed once, twice, after
// a double submission, is a symptom of that submission; every address is
// the app's.
func TestReportOneBugPerCause(t *testing.T) {
	ctx := context.Background()
	mr, m := reportingRun(t)
	out := &State{}
	err500 := func(path string) []browser.Finding {
		return []browser.Finding{
			{Kind: browser.FindConsoleError, Message: "Failed to load resource: the server responded with a status of 500 (Internal Server Error)", URL: "http://127.0.0.1:4100" + path},
			{Kind: browser.FindErrorBanner, Message: "visible error message: Go to the start page", Evidence: "Go to the start page", URL: "http://127.0.0.1:4100" + path},
			{Kind: browser.FindServerError, URL: "http://app.test" + path, Message: "server error 500 on GET " + path,
				Evidence: "GET " + path + " → 500; body: nil pointer: no session for GET " + path},
		}
	}
	seq := int64(0)
	act := func(path string, fs []browser.Finding) []findings.Bug {
		seq++
		mr.steps++
		return mr.report(ctx, m, browser.Entry{Seq: seq, Action: browser.ActNavigate, URL: "http://127.0.0.1:4100" + path}, fs, out)
	}
	require.Len(t, act("/dashboard", err500("/dashboard")), 1)
	assert.Empty(t, act("/reports", err500("/reports")), "the same cause on another route")
	assert.Empty(t, act("/items/7", err500("/items/7")))
	require.Len(t, out.Bugs, 1)
	b := out.Bugs[0]
	assert.Equal(t, 3, b.Seen)
	require.Len(t, b.Sightings, 2)
	assert.Equal(t, "http://app.test/reports", b.Sightings[0].URL)
	assert.Len(t, b.Symptoms, 2, "the banner and the console echo, each once")
	assert.Equal(t, "http://app.test/dashboard", b.URL)

	// A later turn (its out holds only its own bugs) sees the same error:
	// its banner and console echo are no bugs of their own either.
	first := out
	out = &State{}
	assert.Empty(t, act("/settings", err500("/settings")))
	assert.Empty(t, out.Bugs)
	out = first
	later := mr.laterCopies(slices.Clone(out.Bugs))
	assert.Equal(t, 4, later[0].Seen, "the later turn's sighting counts")
	require.Len(t, later[0].Sightings, 3)
	assert.Equal(t, "http://app.test/settings", later[0].Sightings[2].URL)

	mr.sw.typed.add("Ada Lovelace 601")
	dup := []browser.Finding{{Kind: collector.FindDuplicate, URL: "http://app.test/items", Message: "the same POST /items was accepted twice and made two records (/items/8 and /items/9)"}}
	require.Len(t, act("/items/new", dup), 1)
	row := `<tr data-id="9"><td><a href="/items/9">Ada Lovelace 601</a></td><td>active</td></tr>`
	assert.Empty(t, act("/items", []browser.Finding{{Kind: collector.FindDuplicateRow, URL: "http://127.0.0.1:4100/items", Message: "two identical rows in a table", Evidence: row}}))
	require.Len(t, out.Bugs, 2)
	require.Len(t, out.Bugs[1].Symptoms, 1)
	assert.Equal(t, "duplicate_record: two identical rows in a table — "+row, out.Bugs[1].Symptoms[0], "the row shown twice, as evidence")

	// The other way round: the list first, then the second post.
	mr.sw.typed.add("Grace Hopper 7")
	row2 := `<tr data-id="12"><td><a href="/items/12">Grace Hopper 7</a></td><td>active</td></tr>`
	require.Len(t, act("/items", []browser.Finding{{Kind: collector.FindDuplicateRow, URL: "http://127.0.0.1:4100/things", Message: "two identical rows in a table", Evidence: row2}}), 1)
	assert.Empty(t, act("/things/new", []browser.Finding{{Kind: collector.FindDuplicate, URL: "http://app.test/things", Message: "the same POST /things was accepted twice"}}))
	require.Len(t, out.Bugs, 3)
	require.Len(t, out.Bugs[2].Symptoms, 1)
	assert.Equal(t, "duplicate_submit: the same POST /things was accepted twice", out.Bugs[2].Symptoms[0])

	// Across turns (each turn's out holds only its own bugs): the other
	// half, in a later turn, is no second report, either way round.
	mr.sw.typed.add("Linus Torvalds 9")
	row3 := `<tr data-id="14"><td>Linus Torvalds 9</td></tr>`
	require.Len(t, act("/parts", []browser.Finding{{Kind: collector.FindDuplicateRow, URL: "http://127.0.0.1:4100/parts", Message: "two identical rows in a table", Evidence: row3}}), 1)
	out = &State{}
	assert.Empty(t, act("/settings", []browser.Finding{{Kind: collector.FindDuplicate, URL: "http://app.test/parts", Message: "the same POST /parts was accepted twice"}}))
	require.Len(t, act("/bins/new", []browser.Finding{{Kind: collector.FindDuplicate, URL: "http://app.test/bins", Message: "the same POST /bins was accepted twice"}}), 1)
	mr.sw.typed.add("Ken Thompson 3")
	out = &State{}
	assert.Empty(t, act("/bins", []browser.Finding{{Kind: collector.FindDuplicateRow, URL: "http://127.0.0.1:4100/bins", Message: "two identical rows in a table", Evidence: `<tr><td>Ken Thompson 3</td></tr>`}}))
	assert.Empty(t, out.Bugs)
	var bins findings.Bug
	for _, b := range mr.laterCopies(slices.Clone(mr.bugsSoFar())) {
		if b.Kind == string(collector.FindDuplicate) && strings.Contains(b.URL, "/bins") {
			bins = b
		}
	}
	assert.Equal(t, []string{"duplicate_record: two identical rows in a table — <tr><td>Ken Thompson 3</td></tr>"}, bins.Symptoms, "the row a later turn saw, on the submission's report")
	mr.sw.typed.add("Dennis Ritchie 4")
	assert.Len(t, act("/crates", []browser.Finding{{Kind: collector.FindDuplicateRow, URL: "http://127.0.0.1:4100/crates", Message: "two identical rows in a table", Evidence: `<tr><td>Dennis Ritchie 4</td></tr>`}}), 1,
		"another list's row is its own bug")

	for _, b := range out.Bugs {
		raw, _ := json.Marshal(b)
		assert.NotContains(t, string(raw), "127.0.0.1:4100")
	}
}

// TestReportErrorPageA11y: what axe-core says of a page the server
// answered with an error (no title, no lang on its bare error body) is
// that error's symptom, in the action and in a later turn; a page whose
// fetch failed keeps its own accessibility bugs.
func TestReportErrorPageA11y(t *testing.T) {
	ctx := context.Background()
	mr, m := reportingRun(t)
	out := &State{}
	seq := int64(0)
	act := func(path string, fs []browser.Finding) []findings.Bug {
		seq++
		mr.steps++
		return mr.report(ctx, m, browser.Entry{Seq: seq, Action: browser.ActClick, URL: "http://127.0.0.1:4100" + path}, fs, out)
	}
	body := "<html><head></head><body>Internal Server Error</body></html>"
	failedPost := func() []browser.Finding {
		return []browser.Finding{
			{Kind: collector.FindA11y, URL: "http://127.0.0.1:4100/widgets/new", Message: "Documents must have <title> element to aid in navigation (rule document-title)", Evidence: body},
			{Kind: collector.FindA11y, URL: "http://127.0.0.1:4100/widgets/new", Message: "<html> element must have a lang attribute (rule html-has-lang)", Evidence: body},
			{Kind: browser.FindServerError, URL: "http://app.test/widgets/new", Message: "server error 500 on POST /widgets/new",
				Evidence: "POST /widgets/new → 500; body: Internal Server Error"},
		}
	}
	bugs := act("/widgets/new", failedPost())
	require.Len(t, bugs, 1)
	assert.Equal(t, string(browser.FindServerError), bugs[0].Kind)
	require.Len(t, out.Bugs[0].Symptoms, 2)
	assert.Contains(t, out.Bugs[0].Symptoms[0], "document-title")

	// A later turn submits it again: still no accessibility bug.
	out = &State{}
	assert.Empty(t, act("/widgets/new", failedPost()))

	// The collector reports one 500 once: a submission that fails again
	// brings only its page's violations, which are still its symptoms,
	// in this turn and in a later one.
	out = &State{}
	assert.Empty(t, act("/widgets/new", failedPost()[:2]))
	out = &State{}
	act("/widgets/new", failedPost())
	assert.Empty(t, act("/widgets/new", failedPost()[:2]), "the same turn")
	assert.Empty(t, out.Bugs)

	// A fetch of the page failed: the page's own violation is its bug.
	out = &State{}
	bugs = act("/dashboard", []browser.Finding{
		{Kind: collector.FindA11y, URL: "http://127.0.0.1:4100/dashboard", Message: "Images must have alternative text (rule image-alt)", Evidence: `<img src="chart.png">`},
		{Kind: browser.FindServerError, URL: "http://app.test/api/stats", Message: "server error 500 on GET /api/stats", Evidence: "GET /api/stats → 500; body: boom"},
	})
	require.Len(t, bugs, 2)
	assert.ElementsMatch(t, []string{string(browser.FindServerError), string(collector.FindA11y)}, []string{bugs[0].Kind, bugs[1].Kind})
}

package gremlins

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// named reports whether some bug's evidence names the seeded id, the way
// the explorer's summary matches them.
func named(bugs []findings.Bug, id string) bool {
	for _, b := range bugs {
		if slices.Contains(demoapp.FindIDs(b.Evidence+"\n"+b.Title+"\n"+b.URL), demoapp.BugID(id)) {
			return true
		}
	}
	return false
}

// TestCompareGremlins runs the side-by-side comparison with a small N, both
// sides starting on the sign-in form that leads to the settings page (whose
// console error and unlabelled field are there on load): gremlins.js makes
// exactly N counted actions, the shared collector and the engine see what
// it triggers, and both counts come from the evidence of each side's
// findings.
func TestCompareGremlins(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const n = 30
	cmp, err := Compare(ctx, Config{Budget: n, Seed: 3, StartURL: "/signin?next=/settings", ReportDir: dir, Browser: testBrowser})
	require.NoError(t, err)
	g := cmp.Gremlins
	t.Logf("explorer %d/%d %v; gremlins %d/%d %v (own oracles %v), species %v, pages %v, hordes %d, sign-ins %d",
		len(cmp.Explorer.Found), len(cmp.Seeded), cmp.Explorer.Found, len(g.Found), len(cmp.Seeded), g.Found, g.OwnOracles, g.Species, g.Pages, g.Hordes, g.SignIns)

	// Exactly N gremlin actions, counted by the species' logger.
	assert.Equal(t, n, g.Actions)
	sum := 0
	for _, v := range g.Species {
		sum += v
	}
	assert.Equal(t, n, sum, "the species' split adds up")
	assert.Positive(t, g.Hordes)
	assert.GreaterOrEqual(t, g.SignIns, 1, "signed in before the horde")
	require.NotEmpty(t, g.Pages)
	assert.Equal(t, "/settings", g.Pages[0])

	// The collector and the engine watched the gremlins' page: the console
	// error (engine) and the unlabelled field (the collector's recorder).
	assert.Contains(t, g.Found, string(demoapp.BugConsoleSettings))
	assert.Contains(t, g.Found, string(demoapp.BugA11ySettingsLabel))
	// gremlins' own oracles see JS errors only.
	assert.Contains(t, g.OwnOracles, string(demoapp.BugConsoleSettings))
	assert.NotContains(t, g.OwnOracles, string(demoapp.BugA11ySettingsLabel))

	// Both counts come from evidence.
	for _, id := range g.Found {
		assert.True(t, named(g.Bugs, id), "gremlins: %s", id)
	}
	var sum2 struct {
		Bugs []findings.Bug `json:"bugs"`
	}
	raw, err := os.ReadFile(filepath.Join(cmp.Explorer.Report, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum2))
	for _, id := range cmp.Explorer.Found {
		assert.True(t, named(sum2.Bugs, id), "explorer: %s", id)
	}
	assert.LessOrEqual(t, cmp.Explorer.Steps, n+20)

	// The table.
	require.Len(t, cmp.Rows, len(demoapp.Bugs()))
	for _, r := range cmp.Rows {
		assert.NotEmpty(t, r.Class, r.ID)
		assert.Equal(t, slices.Contains(cmp.Explorer.Found, r.ID), r.Explorer, r.ID)
		assert.Equal(t, slices.Contains(g.Found, r.ID), r.Gremlins, r.ID)
	}
	assert.GreaterOrEqual(t, len(cmp.Explorer.Found), len(g.Found), "the explorer triggers at least as many seeded bugs")

	// The report files.
	var back Comparison
	raw, err = os.ReadFile(filepath.Join(dir, "gremlins.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, cmp.Gremlins.Found, back.Gremlins.Found)
	assert.Equal(t, cmp.Explorer.Found, back.Explorer.Found)
	assert.Equal(t, n, back.Gremlins.Actions)
	md, err := os.ReadFile(filepath.Join(dir, "gremlins.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| "+string(demoapp.BugA11ySettingsLabel)+" | a11y | ")
	assert.Contains(t, string(md), "gremlins.js: **")
}

func TestGremlinsMarkdown(t *testing.T) {
	c := Comparison{Budget: 3, Seeded: []string{"BUG-A", "BUG-B"},
		Explorer: ExplorerSide{Steps: 3, Found: []string{"BUG-A", "BUG-B"}},
		Gremlins: Side{Actions: 3, Species: map[string]int{"typer": 2, "clicker": 1}, Found: []string{"BUG-B"}},
		Rows:     []Row{{ID: "BUG-A", Class: "xss", Explorer: true}, {ID: "BUG-B", Class: "a11y", Explorer: true, Gremlins: true}},
		Notes:    []string{"a note"}}
	md := c.Markdown()
	for _, want := range []string{"(N = 3)", "Explorer: **2/2**", "gremlins.js: **1/2** seeded bugs in 3 gremlin actions (clicker 1, typer 2)",
		"own oracles (JS errors only) would have seen 0/2: none", "| BUG-A | xss | y | n |", "| BUG-B | a11y | y | y |", "| **total** | | **2** | **1** |", "- a note"} {
		assert.Contains(t, md, want)
	}
}

func TestLoadGremlins(t *testing.T) {
	dir := t.TempDir()
	dist := filepath.Join(dir, "gremlins.js", "dist")
	require.NoError(t, os.MkdirAll(dist, 0o755))
	script := filepath.Join(dist, "gremlins.min.js")
	pkg := filepath.Join(dir, "gremlins.js", "package.json")

	_, err := loadGremlins(filepath.Join(dir, "none.js"))
	var se *explore.SetupError
	require.ErrorAs(t, err, &se)

	require.NoError(t, os.WriteFile(script, []byte("var gremlins = {createHorde: function () {}};"), 0o644))
	require.NoError(t, os.WriteFile(pkg, []byte(`{"name": "gremlins.js", "version": "2.1.0"}`), 0o644))
	_, err = loadGremlins(script)
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "is 2.1.0, want 2.2.0")

	require.NoError(t, os.WriteFile(pkg, []byte(`{"name": "gremlins.js", "version": "2.2.0"}`), 0o644))
	src, err := loadGremlins(script)
	require.NoError(t, err)
	assert.Contains(t, src, "createHorde")

	require.NoError(t, os.WriteFile(script, []byte("console.log('not it')"), 0o644))
	_, err = loadGremlins(script)
	require.ErrorAs(t, err, &se)

	// The installed one is the pinned release.
	src, err = loadGremlins("")
	require.NoError(t, err, "scripts/setup.sh installs gremlins.js")
	assert.True(t, strings.Contains(src, "createHorde"))
}

func TestFindingBug(t *testing.T) {
	tests := []struct {
		name string
		f    browser.Finding
		ok   bool
		want string
	}{
		{"console error", browser.Finding{Kind: browser.FindConsoleError, Message: "BUG-X: boom", URL: "http://h/settings"}, true, "BUG-X: boom"},
		{"5xx from the collector", browser.Finding{Kind: browser.FindServerError, Message: "server error 500", Evidence: "GET /p → 500; body: BUG-Y", URL: "http://h/p"}, true, "server error 500 — GET /p → 500; body: BUG-Y"},
		{"the engine's 5xx copy", browser.Finding{Kind: browser.FindServerError, Message: "GET /p returned 500", Evidence: "oops", URL: "http://h/p"}, false, ""},
		{"a dialog is no bug", browser.Finding{Kind: browser.FindDialog, Message: "alert"}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, ok := findings.FindingBug(tc.f, "http://h/page")
			assert.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, tc.want, b.Evidence)
				assert.NotEmpty(t, b.Fingerprint)
				assert.Contains(t, b.Title, urlx.Path(tc.f.URL))
			}
		})
	}
}

package explore

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/memory"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
)

// TestExploreFixedDemoApp runs the offline explorer against the demo app
// with every seeded bug switched off: the same personas and oracles that
// find them all report nothing (no false positives).
func TestExploreFixedDemoApp(t *testing.T) {
	// Parallel: it runs at the end of the package, beside the tests that
	// read the shared demo run (see demoRun), not before them.
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var off []string
	for _, b := range demoapp.Bugs() {
		off = append(off, string(b.ID))
	}
	res, err := Run(ctx, onDemo(t, Config{Budget: 100, ReportDir: dir, Browser: testBrowser, MinimizeReplays: -1}, off...))
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	assert.Greater(t, m.Steps, 50, "it explored")
	for _, b := range m.Bugs {
		t.Errorf("false positive: %s %s: %s", b.Kind, b.URL, clip.String(b.Evidence, 300))
	}
	require.NotNil(t, res.Demo)
	assert.Empty(t, res.Demo.Found)
}

// TestExploreDemoApp runs the offline explorer against the demo app, as
// `go run ./examples/explorer` does, with a smaller budget, and checks the
// seeded bugs it finds (matched by id from the evidence alone) and every
// report file.
func TestExploreDemoApp(t *testing.T) {
	dir, res := demoRun(t)
	ctx := context.Background()
	m := res.Missions[0]
	require.NotNil(t, res.Demo)
	assert.Len(t, res.Demo.Seeded, len(demoapp.Bugs()))
	t.Logf("found %d/%d seeded bugs in %s and %d steps, %d reports: %v", len(res.Demo.Found), len(res.Demo.Seeded), res.Duration, m.Steps, len(m.Bugs), res.Demo.Found)
	assert.GreaterOrEqual(t, len(res.Demo.Found), 14, "the main job's bar: 14 of the 15 seeded bugs")
	for _, id := range []demoapp.BugID{demoapp.BugConsoleSettings, demoapp.Bug5xxSort, demoapp.Bug404ReleaseNotes, demoapp.BugBannerExport,
		demoapp.BugXSSSearch, demoapp.BugLongName, demoapp.BugA11yIconButton, demoapp.BugSlowReports, demoapp.BugDeadSaveDraft} {
		assert.Contains(t, res.Demo.Found, string(id))
	}
	assert.LessOrEqual(t, len(m.Bugs), len(res.Demo.Found)+4, "about one report per seeded bug (one cause, one report)")
	assert.LessOrEqual(t, m.Steps, 200+20, "the budget holds (a turn may finish its last form)")
	assert.Equal(t, res.NewBugs(), res.Bugs(), "a fresh memory: every bug is new")

	mdir := filepath.Join(dir, "explore")
	for _, f := range []string{"traces.log", "action_tape.jsonl", "test_report.md", "report.html", "summary.json"} {
		st, err := os.Stat(filepath.Join(mdir, f))
		require.NoError(t, err, f)
		assert.Positive(t, st.Size(), f)
	}
	shots, err := filepath.Glob(filepath.Join(mdir, "screenshots", "*.png"))
	require.NoError(t, err)
	assert.NotEmpty(t, shots)
	specs := 0
	for _, b := range m.Bugs {
		if b.Spec == "" {
			continue
		}
		specs++
		src, err := os.ReadFile(filepath.Join(mdir, b.Spec))
		require.NoError(t, err)
		assert.Contains(t, string(src), "test.fail(")
		assert.Positive(t, b.ReproSteps)
	}
	assert.Equal(t, len(m.Bugs), specs, "a reproduction per bug")

	var sum struct {
		Demo struct{ Seeded, Found []string } `json:"demo"`
		Bugs []findings.Bug                   `json:"bugs"`
	}
	raw, err := os.ReadFile(filepath.Join(mdir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))
	assert.ElementsMatch(t, res.Demo.Found, sum.Demo.Found)
	assert.Len(t, sum.Demo.Seeded, len(demoapp.Bugs()))
	// found is what the evidence names, nothing else.
	for _, id := range sum.Demo.Found {
		named := false
		for _, b := range sum.Bugs {
			for _, got := range demoapp.FindIDs(b.Evidence + "\n" + b.Title + "\n" + b.URL + "\n" + strings.Join(b.Symptoms, "\n")) {
				named = named || string(got) == id
			}
		}
		assert.True(t, named, id)
	}

	var junit report.JunitSuites
	raw, err = os.ReadFile(res.JUnit)
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(raw, &junit))
	assert.Equal(t, 1+len(m.Bugs), junit.Tests)
	assert.Equal(t, len(m.Bugs), junit.Fail)
	html, err := os.ReadFile(filepath.Join(mdir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "screenshots/")
	assert.Contains(t, string(html), "Timeline (")
	assertAppAddressesOnly(t, dir, m.Target)

	// After the batch, reflection wrote each bug-finding persona's learned
	// supplement into the memory of the bbolt file.
	db, err := checkpoint.OpenBoltDB(filepath.Join(dir, "explorer.db"), nil)
	require.NoError(t, err)
	defer db.Close()
	st, err := memory.NewBoltStore(db)
	require.NoError(t, err)
	qa, err := memory.NewQA(st, demoapp.MemoryOrigin)
	require.NoError(t, err)
	finder := m.Bugs[0].Persona
	sup, err := qa.Supplement(ctx, finder)
	require.NoError(t, err)
	assert.NotEmpty(t, sup, "a supplement for %s", finder)
}

var reLoopbackAddr = regexp.MustCompile(`(?:127\.0\.0\.1|localhost|\[::1\]):\d+`)

// assertAppAddressesOnly: every text artifact under dir (reports, tape,
// traces.log, specs, config) names the app's own address only, never the
// collector's port or one of its internal paths.
func assertAppAddressesOnly(t *testing.T, dir, target string) {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	files := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".png", ".zip", ".db":
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(dir, path)
		for _, addr := range slices.Compact(slices.Sorted(slices.Values(reLoopbackAddr.FindAllString(string(raw), -1)))) {
			assert.Equal(t, u.Host, addr, "%s names an address that is not the app's", rel)
		}
		assert.NotContains(t, string(raw), collector.Prefix, "%s names an internal path", rel)
		return nil
	}))
	assert.Greater(t, files, 5)
}

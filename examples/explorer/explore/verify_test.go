package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/memory"
)

// openMemory opens the QA memory of origin in the bbolt file path.
func openMemory(t *testing.T, path, origin string) (*memory.QA, *memory.BoltStore, func()) {
	t.Helper()
	db, err := checkpoint.OpenBoltDB(path, nil)
	require.NoError(t, err)
	st, err := memory.NewBoltStore(db)
	require.NoError(t, err)
	qa, err := memory.NewQA(st, origin)
	require.NoError(t, err)
	return qa, st, func() { _ = db.Close() }
}

// widgetsPage is a small app page whose "Load widgets" button throws when
// the bug is on.
func widgetsPage(bug bool) string {
	handler := `document.getElementById('out').textContent = 'No widgets yet.'`
	if bug {
		handler = `const list = null; document.getElementById('out').textContent = list.length + ' widgets'`
	}
	return `<!doctype html><html lang="en"><head><title>Widgets</title></head><body><main><h1>Widgets</h1>
<button type="button" id="load" onclick="` + handler + `">Load widgets</button><p id="out"></p>
<a href="/about">About</a></main></body></html>`
}

// TestRegressionVerifies: three runs on one database against an app whose
// bug is switched off and on again. Run 1 finds the bug and memory keeps
// its reproduction; a --regression run with the bug off replays it and
// marks it fixed by that run; another with the bug back reopens it as a
// regression, and its JUnit fails for it.
func TestRegressionVerifies(t *testing.T) {
	var bug atomic.Bool
	bug.Store(true)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, widgetsPage(bug.Load()))
	})
	mux.HandleFunc("GET /about", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><title>About</title></head><body><main><h1>About</h1><a href="/">Home</a></main></body></html>`)
	})
	app := httptest.NewServer(mux)
	defer app.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	db := filepath.Join(t.TempDir(), "explorer.db")
	run := func(regression bool) (report.Result, string) {
		var progress bytes.Buffer
		reports := t.TempDir()
		res, err := Run(ctx, Config{Target: app.URL, Regression: regression, DB: db, ReportDir: reports, Budget: 12, MinimizeReplays: 8,
			Browser: testBrowser, Progress: &progress, Missions: []mission.Mission{{ThreadID: "widgets", Prompt: "Explore the widgets app"}}})
		require.NoError(t, err, "progress:\n%s", progress.String())
		t.Logf("run (bug %v, regression %v):\n%s", bug.Load(), regression, progress.String())
		for _, v := range res.Verified {
			t.Logf("verified %s (%s %s): %s %s", v.Fingerprint, v.Kind, v.URL, v.Verdict, v.Note)
		}
		return res, reports
	}
	memOf := func(fp string) memory.BugEntry {
		t.Helper()
		qa, _, closeDB := openMemory(t, db, app.URL)
		defer closeDB()
		e, err := qa.Bug(ctx, fp)
		require.NoError(t, err)
		return e
	}

	// Run 1: the bug is found and memory keeps its reproduction.
	res1, _ := run(false)
	var fp string
	for _, m := range res1.Missions {
		for _, b := range m.Bugs {
			if b.Kind == "page_error" {
				fp = b.Fingerprint
			}
		}
	}
	require.NotEmpty(t, fp, "run 1 found the page error")
	e := memOf(fp)
	require.NotEmpty(t, e.Repro, "memory keeps the reproduction")
	var rec reproRecord
	require.NoError(t, json.Unmarshal(e.Repro, &rec))
	require.NotEmpty(t, rec.Steps)
	require.NotEmpty(t, rec.Sig)

	// Run 2: the bug is fixed.
	bug.Store(false)
	res2, _ := run(true)
	require.Equal(t, string(memory.VerdictFixed), verdictOf(res2, fp))
	assert.Zero(t, res2.NewBugs())
	e = memOf(fp)
	assert.Equal(t, memory.BugFixed, e.Status)
	assert.Equal(t, res2.RunID, e.FixedIn, "memory names the run that showed the fix")

	// Run 3: the bug is back.
	bug.Store(true)
	res3, reports3 := run(true)
	require.Equal(t, string(memory.VerdictReopened), verdictOf(res3, fp))
	assert.Equal(t, 1, res3.NewBugs()-newInMissions(res3), "a regression counts as new for --fail-on")
	e = memOf(fp)
	assert.Equal(t, memory.BugOpen, e.Status)
	assert.Equal(t, 1, e.Regressions)
	assert.Equal(t, res3.RunID, e.ReopenedIn)
	assert.Equal(t, res2.RunID, e.FixedIn)

	junit, err := os.ReadFile(filepath.Join(reports3, "junit.xml"))
	require.NoError(t, err)
	var suites report.JunitSuites
	require.NoError(t, xml.Unmarshal(junit, &suites))
	failed := -1
	for _, s := range suites.Suites {
		if s.Name == "regression" {
			failed = 0
			for _, c := range s.Cases {
				if c.Failure != nil && strings.HasPrefix(c.Failure.Message, "reopened") {
					failed++
				}
			}
		}
	}
	assert.Equal(t, 1, failed, "one failing regression case for the reopened bug; junit:\n%s", junit)
	var summary struct {
		RunID    string                `json:"run_id"`
		Verified []report.Verification `json:"verified"`
	}
	b, err := os.ReadFile(filepath.Join(reports3, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &summary))
	assert.Equal(t, res3.RunID, summary.RunID)
	assert.Len(t, summary.Verified, len(res3.Verified))

	// The missions left selector tallies and session summaries in memory.
	qa, _, closeDB := openMemory(t, db, app.URL)
	defer closeDB()
	sels, err := qa.Selectors(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, sels, "the locators the personas used are in memory")
	sessions, err := qa.Sessions(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, sessions)
	for _, s := range sessions {
		assert.Positive(t, s.Actions, "session %s", s.ThreadID)
		assert.LessOrEqual(t, s.Succeeded, s.Actions)
		assert.NotEmpty(t, s.Outcome, "session %s", s.ThreadID)
	}
}

// verdictOf is res's verdict on the bug fp ("" when it was not replayed).
func verdictOf(res report.Result, fp string) string {
	for _, v := range res.Verified {
		if v.Fingerprint == fp {
			return v.Verdict
		}
	}
	return ""
}

// newInMissions counts the new bugs of res's missions (not its replays).
func newInMissions(res report.Result) int {
	n := 0
	for _, m := range res.Missions {
		for _, b := range m.Bugs {
			if b.New {
				n++
			}
		}
	}
	return n
}

func TestUnknownSecret(t *testing.T) {
	secrets := browser.NewSecrets("hunter22")
	typed := func(v string) browser.Entry {
		return browser.Entry{Action: browser.ActFill, Params: browser.Intent{Action: browser.ActFill, Target: "#pw", Value: &v}}
	}
	assert.Empty(t, unknownSecret([]browser.Entry{typed("plain"), typed("${SECRET_1}")}, secrets), "the configured password is SECRET_1")
	assert.Equal(t, "SECRET_2", unknownSecret([]browser.Entry{typed("${SECRET_1}"), typed("${SECRET_2}")}, secrets))
	t.Setenv("SECRET_2", "from the environment")
	assert.Empty(t, unknownSecret([]browser.Entry{typed("${SECRET_2}")}, secrets), "as specs do, the environment gives it")
}

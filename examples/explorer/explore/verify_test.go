package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/internal/demoapp"
	"github.com/agentgraph/agentgraph/memory"
)

// openMemory opens the QA memory of the demo app in the bbolt file path.
func openMemory(t *testing.T, path string) (*memory.QA, *memory.BoltStore, func()) {
	t.Helper()
	db, err := checkpoint.OpenBoltDB(path, nil)
	require.NoError(t, err)
	st, err := memory.NewBoltStore(db)
	require.NoError(t, err)
	qa, err := memory.NewQA(st, memoryOrigin("", true))
	require.NoError(t, err)
	return qa, st, func() { _ = db.Close() }
}

// TestRegressionVerifies: three runs on one database. The shared demo run
// (run 1) leaves its bugs in memory with their reproductions; a
// --regression run against the demo app with every bug fixed replays
// them and marks them fixed by that run; another against the app with
// its bugs back reopens them as regressions, and its JUnit fails for them.
func TestRegressionVerifies(t *testing.T) {
	dir, _ := demoRun(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	// A copy of run 1's database, cut down to a few bugs whose finding
	// does not depend on timing, to keep the test short.
	work := t.TempDir()
	db := filepath.Join(work, "explorer.db")
	raw, err := os.ReadFile(filepath.Join(dir, "explorer.db"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(db, raw, 0o600))
	qa, st, closeDB := openMemory(t, db)
	bugs, err := qa.Bugs(ctx, "")
	require.NoError(t, err)
	type kept struct {
		fp    string
		steps int
	}
	var withRepro []kept
	for _, b := range bugs {
		if len(b.Repro) == 0 {
			continue
		}
		var rec reproRecord
		require.NoError(t, json.Unmarshal(b.Repro, &rec), "bug %s", b.Fingerprint)
		require.NotEmpty(t, rec.Steps)
		require.NotEmpty(t, rec.Sig)
		for _, s := range rec.Steps {
			assert.NotContains(t, s.URL+s.Params.URL, "127.0.0.1", "memory keeps its own origin, not a run's port")
		}
		switch b.Kind {
		case "http_5xx", "page_error", "console_error", "not_found", "xss", "stack_trace", "error_banner":
			withRepro = append(withRepro, kept{b.Fingerprint, len(rec.Steps)})
		}
	}
	require.GreaterOrEqual(t, len(withRepro), 3, "run 1 remembered reproductions (of %d bugs)", len(bugs))
	slices.SortStableFunc(withRepro, func(a, b kept) int { return a.steps - b.steps })
	keep := map[string]bool{}
	for _, k := range withRepro[:3] {
		keep[k.fp] = true
	}
	for _, b := range bugs {
		if !keep[b.Fingerprint] {
			require.NoError(t, st.Delete(ctx, qa.Namespace(memory.KindBugs), b.Fingerprint))
		}
	}
	closeDB()

	run := func(disabled string) (Result, string) {
		var progress bytes.Buffer
		reports := t.TempDir()
		// The sign-in's password: run 1 typed it (the demo app shows it)
		// and memory keeps only its reference, ${SECRET_1}.
		creds := Credentials{Email: demoapp.DemoEmail, Password: demoapp.DemoPassword}
		res, err := Run(ctx, Config{Regression: true, DB: db, ReportDir: reports, Budget: 3, MinimizeReplays: -1,
			DemoDisabled: []string{disabled}, Browser: testBrowser, Progress: &progress, Credentials: creds})
		require.NoError(t, err, "progress:\n%s", progress.String())
		t.Logf("regression run against the demo app with %s disabled:\n%s", disabled, progress.String())
		for _, v := range res.Verified {
			t.Logf("verified %s (%s %s): %s %s", v.Fingerprint, v.Kind, v.URL, v.Verdict, v.Note)
		}
		return res, reports
	}
	verdicts := func(res Result) map[string]string {
		out := map[string]string{}
		for _, v := range res.Verified {
			out[v.Fingerprint] = v.Verdict
		}
		return out
	}

	// Run 2: every bug fixed.
	res2, _ := run("all")
	v2 := verdicts(res2)
	require.Len(t, v2, len(keep), "every remembered reproduction is replayed")
	fixed := 0
	for fp, v := range v2 {
		assert.NotEqual(t, string(memory.VerdictStillOpen), v, "bug %s shows on the fixed app", fp)
		if v == string(memory.VerdictFixed) {
			fixed++
		}
	}
	require.GreaterOrEqual(t, fixed, 2, "verdicts: %v", v2)
	assert.Zero(t, res2.NewBugs())

	qa, _, closeDB = openMemory(t, db)
	for fp, v := range v2 {
		e, err := qa.Bug(ctx, fp)
		require.NoError(t, err)
		if v == string(memory.VerdictFixed) {
			assert.Equal(t, memory.BugFixed, e.Status)
			assert.Equal(t, res2.RunID, e.FixedIn, "memory names the run that showed the fix")
		}
	}
	closeDB()

	// Run 3: the bugs are back.
	res3, reports3 := run("none")
	v3 := verdicts(res3)
	reopened := 0
	for fp, v := range v2 {
		if v == string(memory.VerdictFixed) {
			assert.Equal(t, string(memory.VerdictReopened), v3[fp], "bug %s", fp)
			if v3[fp] == string(memory.VerdictReopened) {
				reopened++
			}
		}
	}
	assert.Equal(t, reopened, res3.NewBugs()-newInMissions(res3), "a regression counts as new for --fail-on")
	qa, _, closeDB = openMemory(t, db)
	defer closeDB()
	for fp, v := range v3 {
		if v != string(memory.VerdictReopened) {
			continue
		}
		e, err := qa.Bug(ctx, fp)
		require.NoError(t, err)
		assert.Equal(t, memory.BugOpen, e.Status)
		assert.Equal(t, 1, e.Regressions)
		assert.Equal(t, res3.RunID, e.ReopenedIn)
		assert.Equal(t, res2.RunID, e.FixedIn)
	}
	junit, err := os.ReadFile(filepath.Join(reports3, "junit.xml"))
	require.NoError(t, err)
	var suites junitSuites
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
	assert.Equal(t, reopened, failed, "one failing regression case per reopened bug; junit:\n%s", junit)
	var summary struct {
		RunID    string         `json:"run_id"`
		Verified []Verification `json:"verified"`
	}
	f, err := os.Open(filepath.Join(reports3, "summary.json"))
	require.NoError(t, err)
	defer f.Close()
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &summary))
	assert.Equal(t, res3.RunID, summary.RunID)
	assert.Len(t, summary.Verified, len(v3))

	// The missions left the selector tallies and session summaries in memory.
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

// newInMissions counts the new bugs of res's missions (not its replays).
func newInMissions(res Result) int {
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

package explore

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeShardReports writes a batch report directory as Run does (the
// batch's summary.json and junit.xml, each mission's summary.json and
// test_report.md) with a spec and a screenshot file per bug and a hidden
// resume file, without a browser.
func writeShardReports(t *testing.T, dir, shard string, ms ...report.MissionResult) {
	t.Helper()
	res := report.Result{Shard: shard, Duration: time.Second}
	for _, m := range ms {
		m.Dir = filepath.Join(dir, m.Mission.ThreadID)
		require.NoError(t, os.MkdirAll(filepath.Join(m.Dir, "screenshots"), 0o700))
		for _, b := range m.Bugs {
			if b.Spec != "" {
				require.NoError(t, os.WriteFile(filepath.Join(m.Dir, b.Spec), []byte("// spec of "+b.ID+"\n"), 0o600))
			}
			if b.Screenshot != "" {
				require.NoError(t, os.WriteFile(filepath.Join(m.Dir, b.Screenshot), []byte("PNG of "+b.ID), 0o600))
			}
		}
		require.NoError(t, report.WriteJSON(filepath.Join(m.Dir, "summary.json"), report.MissionSummary(m)))
		require.NoError(t, os.WriteFile(filepath.Join(m.Dir, "test_report.md"), []byte(report.Markdown(m)), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(m.Dir, browserStateFile), []byte(`{"cookies":[{"value":"session-secret"}]}`), 0o600))
		res.Missions = append(res.Missions, m)
		res.Demo = report.UnionDemo(res.Demo, m.Demo)
		res.Duration += m.Duration
	}
	require.NoError(t, report.WriteJUnit(filepath.Join(dir, "junit.xml"), res))
	require.NoError(t, report.WriteBatchSummary(filepath.Join(dir, "summary.json"), res))
}

func testBug(id, fp, kind string, seen, seenCount, repro int, isNew bool, symptoms ...string) findings.Bug {
	return findings.Bug{ID: id, Fingerprint: fp, Kind: kind, Severity: findings.SeverityOf(kind), Title: kind + " " + fp, URL: "http://127.0.0.1:9/p/" + fp,
		Evidence: "evidence of " + fp, Persona: "new_user", Seen: seen, SeenCount: seenCount, New: isNew, Symptoms: symptoms,
		Spec: report.SpecName(id), ReproSteps: repro, Screenshot: filepath.Join("screenshots", id+".png")}
}

// TestMergeReports merges two shards' report directories: the cause both
// shards reported is one bug (its sightings added, the shorter
// reproduction kept, the symptoms of both), JUnit has one test case per
// cause, and every mission's files are copied but the resume state.
func TestMergeReports(t *testing.T) {
	root := t.TempDir()
	s1, s2, out := filepath.Join(root, "s1"), filepath.Join(root, "s2"), filepath.Join(root, "merged")
	alpha := report.MissionResult{Mission: mission.Mission{ThreadID: "alpha", Prompt: "p"}, Team: "standard", Target: "http://127.0.0.1:9", Steps: 100, Duration: time.Minute,
		Explored: []string{"/", "/a"}, Demo: &report.DemoScore{Seeded: []string{"B1", "B2", "B3"}, Found: []string{"B1"}},
		Bugs: []findings.Bug{
			testBug("bug-01-server-error", "fa", "server_error", 2, 1, 9, true, "error_banner: boom"),
			testBug("bug-02-a11y", "fb", "a11y", 1, 1, 3, true),
		}}
	beta := report.MissionResult{Mission: mission.Mission{ThreadID: "beta", Prompt: "q"}, Team: "advanced", Target: "http://127.0.0.1:10", Steps: 80, Duration: 2 * time.Minute,
		Explored: []string{"/", "/b"}, Demo: &report.DemoScore{Seeded: []string{"B1", "B2", "B3"}, Found: []string{"B3", "B1"}},
		Bugs: []findings.Bug{
			testBug("bug-01-server-error", "fa", "server_error", 3, 2, 4, false, "console_error: boom", "error_banner: boom"),
			testBug("bug-02-dead-control", "fc", "dead_control", 1, 1, 2, true),
		}}
	writeShardReports(t, s1, "1/2", alpha)
	writeShardReports(t, s2, "2/2", beta)

	res, err := report.MergeReports(out, s1, s2)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Missions)
	assert.Equal(t, 3, res.Bugs, "fa, fb, fc")
	assert.Equal(t, 1, res.Merged)
	assert.Empty(t, res.Warnings, "shards 1/2 and 2/2: complete")
	assert.Equal(t, []string{"B1", "B3"}, res.Demo.Found)

	var sum report.MergedSummary
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))
	assert.Equal(t, 3, sum.Bugs)
	assert.Equal(t, 3, sum.NewBugs, "fa was new in shard 1")
	assert.Equal(t, int64(121000), sum.DurationMS, "the longest shard")
	require.Len(t, sum.Causes, 3)
	require.Len(t, sum.Missions, 2)
	byFP := map[string]report.MergedBug{}
	for _, c := range sum.Causes {
		_, dup := byFP[c.Fingerprint]
		assert.False(t, dup, "one bug per fingerprint: %s", c.Fingerprint)
		byFP[c.Fingerprint] = c
	}
	fa := byFP["fa"]
	assert.Equal(t, 5, fa.Seen, "sightings of both shards added")
	assert.Equal(t, 2, fa.SeenCount, "memory's count: the larger")
	assert.True(t, fa.New)
	assert.Equal(t, []string{"alpha", "beta"}, fa.Missions)
	assert.Equal(t, "beta/bug-01-server-error", fa.ID, "the shorter reproduction is kept")
	assert.Equal(t, "beta/"+report.SpecName("bug-01-server-error"), fa.Spec)
	assert.Equal(t, 4, fa.ReproSteps)
	assert.ElementsMatch(t, []string{"error_banner: boom", "console_error: boom"}, fa.Symptoms)
	assert.Equal(t, "alpha/screenshots/bug-02-a11y.png", byFP["fb"].Screenshot)
	assert.Equal(t, []string{"beta"}, byFP["fc"].Missions)

	// Every referenced file is there; the resume state is not.
	for _, c := range sum.Causes {
		for _, f := range []string{c.Spec, c.Screenshot} {
			_, err := os.Stat(filepath.Join(out, f))
			assert.NoError(t, err, f)
		}
	}
	for _, f := range []string{"alpha/summary.json", "alpha/test_report.md", "beta/test_report.md", "test_report.md", "report.html", "junit.xml"} {
		_, err := os.Stat(filepath.Join(out, f))
		assert.NoError(t, err, f)
	}
	_, err = os.Stat(filepath.Join(out, "alpha", browserStateFile))
	assert.ErrorIs(t, err, os.ErrNotExist)

	var junit report.JunitSuites
	raw, err = os.ReadFile(filepath.Join(out, "junit.xml"))
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(raw, &junit))
	assert.Equal(t, 2+3, junit.Tests, "a case per mission and one per cause")
	assert.Equal(t, 3, junit.Fail)
	names := map[string]int{}
	for _, s := range junit.Suites {
		for _, c := range s.Cases {
			names[strings.SplitN(c.Name, ":", 2)[0]]++
		}
	}
	assert.Equal(t, map[string]int{"mission alpha": 1, "mission beta": 1, "alpha/bug-02-a11y": 1, "beta/bug-01-server-error": 1, "beta/bug-02-dead-control": 1}, names)

	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), `<b id="count-bugs">3</b>`)
	assert.Contains(t, string(html), `href="beta/reproduction_bug-01-server-error.spec.ts"`)
	assert.Contains(t, string(html), `src="alpha/screenshots/bug-02-a11y.png"`)
	md, err := os.ReadFile(filepath.Join(out, "test_report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "- Bugs: 3\n")
	assert.Contains(t, string(md), "## Merged from")
	assert.Contains(t, string(md), "- beta/bug-01-server-error (server_error): alpha, beta\n")

	// Merging again into the same directory gives the same result.
	again, err := report.MergeReports(out, s1, s2)
	require.NoError(t, err)
	assert.Equal(t, res.Bugs, again.Bugs)
}

func TestMergeReportsErrors(t *testing.T) {
	root := t.TempDir()
	s1, s2, s3 := filepath.Join(root, "s1"), filepath.Join(root, "s2"), filepath.Join(root, "s3")
	m := report.MissionResult{Mission: mission.Mission{ThreadID: "alpha"}, Bugs: []findings.Bug{testBug("bug-01-x", "fx", "page_error", 1, 1, 1, true)}}
	writeShardReports(t, s1, "1/3", m)
	writeShardReports(t, s2, "1/3", m)
	writeShardReports(t, s3, "")
	s4 := filepath.Join(root, "s4")
	writeShardReports(t, s4, "", report.MissionResult{Mission: mission.Mission{ThreadID: "s2"}})
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plain"), 0o700))

	for _, tc := range []struct {
		name string
		out  string
		dirs []string
		want string
	}{
		{"no input", filepath.Join(root, "o1"), nil, "no report directory given"},
		{"not a report directory", filepath.Join(root, "o2"), []string{filepath.Join(root, "plain")}, "is not an explorer report directory"},
		{"missing directory", filepath.Join(root, "o3"), []string{filepath.Join(root, "nope")}, "is not an explorer report directory"},
		{"twice", filepath.Join(root, "o4"), []string{s1, s1}, "given twice"},
		{"output inside an input", filepath.Join(s1, "merged"), []string{s1, s2}, "is inside the input"},
		{"mission copied onto an input", root, []string{s2, s4}, "would be copied to " + s2 + ", which overlaps the input"},
		{"inputs inside the output", root, []string{s1, s3}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := report.MergeReports(tc.out, tc.dirs...)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrUsage)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	// The same thread in two inputs: two directories; the same cause: one
	// bug; a shard given twice and the missing ones: warnings.
	out := filepath.Join(root, "o5")
	res, err := report.MergeReports(out, s1, s2, s3)
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha"}, res.Inputs[0].Missions)
	assert.Equal(t, []string{"alpha-2"}, res.Inputs[1].Missions)
	assert.Empty(t, res.Inputs[2].Missions)
	assert.Equal(t, 1, res.Bugs)
	assert.Equal(t, 1, res.Merged)
	assert.Equal(t, []string{"missing shards: 2/3, 3/3", "shard 1/3 twice: " + s1 + " and " + s2}, res.Warnings)
	_, err = os.Stat(filepath.Join(out, "alpha-2", report.SpecName("bug-01-x")))
	assert.NoError(t, err)
}

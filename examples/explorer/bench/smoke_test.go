package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

// TestBenchSmoke runs the harness for real (Chromium, the offline
// explorer, gremlins.js) on two seeds with a small budget and checks its
// arithmetic against the explorer's own reports, not a recall value.
func TestBenchSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b, err := browser.Launch(ctx, browser.LaunchOptions{})
	require.NoError(t, err, "the smoke test needs Chromium and the Playwright driver: %s", browser.SetupHint)
	defer b.Close()
	out := t.TempDir()
	var progress bytes.Buffer
	const budget = 12
	seeds := []int64{4, 7}
	rep, err := Run(ctx, Options{Seeds: seeds, Budget: budget, Gremlins: true, Parallel: 3, Out: out, Browser: b, Progress: &progress})
	require.NoError(t, err)
	t.Logf("%s\n%s", progress.String(), rep.Markdown())

	require.Len(t, rep.Rows, 2)
	var sum Row
	for i, r := range rep.Rows {
		assert.Equal(t, seeds[i], r.Seed)
		assert.Empty(t, r.Errors)
		// Seeded is the generator's bug list.
		seeded := bugfarm.Generate(r.Seed, bugfarm.Options{}).Bugs
		assert.Equal(t, len(seeded), r.Seeded)
		// The buggy row is the score of the explorer's own summary.
		buggy := readBugs(t, filepath.Join(out, fmt.Sprint(r.Seed), "buggy", "explore", "summary.json"))
		fixed := readBugs(t, filepath.Join(out, fmt.Sprint(r.Seed), "fixed", "explore", "summary.json"))
		s := score(seeded, buggy)
		assert.Equal(t, len(buggy), r.Reports)
		assert.Equal(t, len(s.Found), r.Found)
		assert.Equal(t, s.Found, r.FoundIDs)
		assert.Equal(t, s.Unattributed, r.Unattributed)
		assert.Equal(t, len(seeded)-r.Found, len(r.Missed))
		// The fixed-build column counts the fixed run's bugs.
		assert.Equal(t, len(fixed), r.FixedReports)
		assert.Len(t, r.FixedTitles, len(fixed))
		// Ratios.
		assert.InDelta(t, float64(r.Found)/float64(r.Seeded), r.Recall, 1e-9)
		if r.Found > 0 {
			assert.InDelta(t, float64(r.Reports)/float64(r.Found), r.ReportsPerFound, 1e-9)
		}
		classSeeded, classFound := 0, 0
		for _, c := range r.Classes {
			classSeeded += c.Seeded
			classFound += c.Found
		}
		assert.Equal(t, r.Seeded, classSeeded)
		assert.Equal(t, r.Found, classFound)
		// Steps are the explorer's (checked against its summary above);
		// it may stop before the budget when it sees nothing left to try.
		assert.Positive(t, r.Steps)
		assert.Equal(t, readSteps(t, filepath.Join(out, fmt.Sprint(r.Seed), "buggy", "explore", "summary.json")), r.Steps)
		assert.Equal(t, readSteps(t, filepath.Join(out, fmt.Sprint(r.Seed), "fixed", "explore", "summary.json")), r.FixedSteps)
		assert.Positive(t, r.Wall)
		require.NotNil(t, r.Gremlins)
		assert.Equal(t, budget, r.Gremlins.Actions, "gremlins.js spends the same budget")
		assert.InDelta(t, float64(r.Gremlins.Found)/float64(r.Seeded), r.Gremlins.Recall, 1e-9)
		assert.Contains(t, progress.String(), fmt.Sprintf("seed %d buggy    found %d/%d, reports %d, steps %d", r.Seed, r.Found, r.Seeded, r.Reports, r.Steps))
		assert.Contains(t, progress.String(), fmt.Sprintf("seed %d fixed    reports %d", r.Seed, r.FixedReports))

		sum.Seeded += r.Seeded
		sum.Found += r.Found
		sum.Reports += r.Reports
		sum.Unattributed += r.Unattributed
		sum.FixedReports += r.FixedReports
		sum.Steps += r.Steps
		sum.FixedSteps += r.FixedSteps
		sum.Wall += r.Wall
	}
	// Totals are the sums of the rows; the ratios come from the sums.
	tot := rep.Total
	assert.Equal(t, sum.Seeded, tot.Seeded)
	assert.Equal(t, sum.Found, tot.Found)
	assert.Equal(t, sum.Reports, tot.Reports)
	assert.Equal(t, sum.Unattributed, tot.Unattributed)
	assert.Equal(t, sum.FixedReports, tot.FixedReports)
	assert.Equal(t, sum.Steps, tot.Steps)
	assert.Equal(t, sum.FixedSteps, tot.FixedSteps)
	assert.Equal(t, sum.Wall, tot.Wall)
	assert.InDelta(t, float64(sum.Found)/float64(sum.Seeded), tot.Recall, 1e-9)
	if sum.Found > 0 {
		assert.InDelta(t, float64(sum.Reports)/float64(sum.Found), tot.ReportsPerFound, 1e-9)
	}
	require.NotNil(t, tot.Gremlins)
	assert.Equal(t, rep.Rows[0].Gremlins.Found+rep.Rows[1].Gremlins.Found, tot.Gremlins.Found)
	classSeeded, classFound := 0, 0
	for _, c := range rep.Classes {
		classSeeded += c.Seeded
		classFound += c.Found
	}
	assert.Equal(t, tot.Seeded, classSeeded)
	assert.Equal(t, tot.Found, classFound)

	// bench.json is the report; bench.md shows the same numbers.
	raw, err := os.ReadFile(filepath.Join(out, "bench.json"))
	require.NoError(t, err)
	var back Report
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, rep.Rows, back.Rows)
	assert.Equal(t, rep.Total, back.Total)
	md, err := os.ReadFile(filepath.Join(out, "bench.md"))
	require.NoError(t, err)
	assert.Equal(t, rep.Markdown(), string(md))
	for _, r := range append(back.Rows, back.Total) {
		label := fmt.Sprint(r.Seed)
		if r.Seed == 0 {
			label = "**total**"
		}
		assert.Contains(t, string(md), fmt.Sprintf("| %s | %d | %d | %s | %d | %s | %d | %d |", label, r.Seeded, r.Found, pct(r.Recall), r.FixedReports, perFound(r), r.Unattributed, r.Steps))
	}
	for _, c := range back.Classes {
		assert.Contains(t, string(md), fmt.Sprintf("| %s | %d/%d |", c.Class, c.Found, c.Seeded))
	}
	assert.False(t, strings.Contains(string(md), "## Errors"))
}

func readBugs(t *testing.T, path string) []findings.Bug {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var s struct {
		Bugs []findings.Bug `json:"bugs"`
	}
	require.NoError(t, json.Unmarshal(raw, &s))
	return s.Bugs
}

func readSteps(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var s struct {
		Steps int `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(raw, &s))
	return s.Steps
}

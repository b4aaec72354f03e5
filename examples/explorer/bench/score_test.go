package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

func seededBugs() []bugfarm.Bug {
	return []bugfarm.Bug{
		{ID: "bf5-01", Class: bugfarm.ClassPageError, What: "a"},
		{ID: "bf5-02", Class: bugfarm.ClassConsole, What: "b"},
		{ID: "bf5-03", Class: bugfarm.ClassPageError, What: "c"},
		{ID: "bf5-04", Class: bugfarm.ClassA11y, What: "d"},
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		name         string
		reports      []findings.Bug
		found        []string
		unattributed int
	}{
		{"none", nil, []string{}, 0},
		{"evidence, title and URL all count", []findings.Bug{
			{Evidence: "TypeError: x [bf5-03]"},
			{Title: "Console error on /: bf5-01 failed"},
			{URL: "http://h/docs/bf5-04"},
		}, []string{"bf5-01", "bf5-03", "bf5-04"}, 0},
		{"one report naming two bugs finds both", []findings.Bug{{Evidence: "bf5-02 and BF5-01"}}, []string{"bf5-01", "bf5-02"}, 0},
		{"duplicates count once as found, every report counts", []findings.Bug{{Evidence: "bf5-02"}, {Evidence: "again bf5-02"}}, []string{"bf5-02"}, 0},
		{"a report naming no id is unattributed", []findings.Bug{{Evidence: "slow page"}, {Evidence: "bf5-01"}}, []string{"bf5-01"}, 1},
		{"an id that is not seeded is unattributed", []findings.Bug{{Evidence: "bf6-01"}, {Evidence: "bf5-09"}}, []string{}, 2},
		{"a longer id is not the seeded one", []findings.Bug{{Evidence: "bf5-010"}}, []string{}, 1},
		{"a symptom is part of the report", []findings.Bug{{Evidence: "GET /x 500", Symptoms: []string{"error_banner: Oops [bf5-03]"}}}, []string{"bf5-03"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := score(seededBugs(), tc.reports)
			assert.Equal(t, tc.found, s.Found)
			assert.Equal(t, tc.unattributed, s.Unattributed)
		})
	}
}

func TestNewRowAndTotal(t *testing.T) {
	buggy := []findings.Bug{{Evidence: "bf5-01"}, {Evidence: "bf5-01 again"}, {Evidence: "bf5-04"}, {Evidence: "noise"}, {Evidence: "more noise"}}
	fixed := []findings.Bug{{Title: "Slow response on /x"}}
	r := newRow(5, seededBugs(), buggy, fixed)
	assert.Equal(t, 4, r.Seeded)
	assert.Equal(t, 2, r.Found)
	assert.InDelta(t, 0.5, r.Recall, 1e-9)
	assert.Equal(t, 5, r.Reports)
	assert.InDelta(t, 2.5, r.ReportsPerFound, 1e-9, "all buggy reports / found bugs")
	assert.Equal(t, 2, r.Unattributed)
	assert.Equal(t, 1, r.FixedReports)
	assert.Equal(t, []string{"Slow response on /x"}, r.FixedTitles)
	assert.Equal(t, []Missed{{ID: "bf5-02", Class: bugfarm.ClassConsole, What: "b"}, {ID: "bf5-03", Class: bugfarm.ClassPageError, What: "c"}}, r.Missed)
	assert.Equal(t, ClassCount{Seeded: 2, Found: 1, Recall: 0.5}, r.Classes[bugfarm.ClassPageError])
	assert.Equal(t, ClassCount{Seeded: 1, Found: 0, Recall: 0}, r.Classes[bugfarm.ClassConsole])
	assert.Equal(t, ClassCount{Seeded: 1, Found: 1, Recall: 1}, r.Classes[bugfarm.ClassA11y])

	empty := newRow(6, []bugfarm.Bug{{ID: "bf6-01", Class: bugfarm.ClassDead}}, []findings.Bug{{Evidence: "x"}}, nil)
	assert.Zero(t, empty.ReportsPerFound, "no found bug: no ratio")
	assert.Equal(t, 1, empty.Unattributed)

	r.Steps, r.FixedSteps, empty.Steps, empty.FixedSteps = 10, 11, 20, 21
	r.Gremlins = &GremlinsRow{Found: 1, Actions: 10}
	empty.Gremlins = &GremlinsRow{Found: 0, Actions: 10}
	r.ratios()
	empty.ratios()
	assert.InDelta(t, 0.25, r.Gremlins.Recall, 1e-9)
	tot := total([]Row{r, empty})
	assert.Equal(t, 5, tot.Seeded)
	assert.Equal(t, 2, tot.Found)
	assert.InDelta(t, 0.4, tot.Recall, 1e-9)
	assert.Equal(t, 6, tot.Reports)
	assert.InDelta(t, 3.0, tot.ReportsPerFound, 1e-9)
	assert.Equal(t, 3, tot.Unattributed)
	assert.Equal(t, 1, tot.FixedReports)
	assert.Equal(t, 30, tot.Steps)
	assert.Equal(t, 32, tot.FixedSteps)
	require.NotNil(t, tot.Gremlins)
	assert.Equal(t, 1, tot.Gremlins.Found)
	assert.Equal(t, 20, tot.Gremlins.Actions)
	assert.InDelta(t, 0.2, tot.Gremlins.Recall, 1e-9)

	classes := byClass(tot)
	require.Len(t, classes, 4)
	assert.Equal(t, bugfarm.ClassConsole, classes[0].Class, "weakest first (0/1, then dead 0/1 by name)")
	assert.Equal(t, bugfarm.ClassDead, classes[1].Class)
	assert.Equal(t, bugfarm.ClassPageError, classes[2].Class)
	assert.Equal(t, bugfarm.ClassA11y, classes[3].Class)

	rep := Report{Budget: 3, Seeds: []int64{5, 6}, Gremlins: true, Rows: []Row{r, empty}, Total: tot, Classes: classes}
	md := rep.Markdown()
	for _, want := range []string{"| 5 | 4 | 2 | 50% | 1 | 2.50 | 2 | 10 |", "| 6 | 1 | 0 | 0% | 0 | – | 1 | 20 |",
		"| **total** | 5 | 2 | 40% | 1 | 3.00 | 3 | 30 |", "| console_error | 0/1 | 0% |", "- bf5-02 (console_error): b",
		"- seed 5: Slow response on /x", " 1 | 25% |"} {
		assert.Contains(t, md, want)
	}
}

func TestRunFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-seeds", "3-1"}, "runs backwards"},
		{[]string{"-seeds", "x"}, "is not a seed"},
		{[]string{"-seeds", ""}, "empty list"},
		{[]string{"-budget", "0"}, "-budget 0"},
		{[]string{"-parallel", "0"}, "-parallel 0"},
		{[]string{"-out", ""}, "-out"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-nope"}, "flag provided but not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errb.String(), tc.want)
		})
	}
}

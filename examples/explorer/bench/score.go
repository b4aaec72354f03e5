package main

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

// Score is how a run's reports match an app's seeded bugs.
type Score struct {
	// Found are the seeded ids named by some report, in seeded order.
	Found []string
	// Unattributed counts the reports that name no seeded id.
	Unattributed int
}

// score matches reports to seeded bugs: a bug is found when its id shows
// (bugfarm.FindIDs) in the evidence, title, URL or symptoms of a reported
// bug (a symptom is part of its report: the banner that shows a failing
// request's body, as the demo app's score counts it too).
func score(seeded []bugfarm.Bug, reports []findings.Bug) Score {
	ids := map[string]bool{}
	for _, b := range seeded {
		ids[b.ID] = true
	}
	named := map[string]bool{}
	var s Score
	for _, r := range reports {
		attributed := false
		for _, id := range bugfarm.FindIDs(r.Evidence + "\n" + r.Title + "\n" + r.URL + "\n" + strings.Join(r.Symptoms, "\n")) {
			if ids[id] {
				named[id] = true
				attributed = true
			}
		}
		if !attributed {
			s.Unattributed++
		}
	}
	s.Found = []string{}
	for _, b := range seeded {
		if named[b.ID] {
			s.Found = append(s.Found, b.ID)
		}
	}
	return s
}

// ClassCount is found/seeded of one bug class.
type ClassCount struct {
	Seeded int     `json:"seeded"`
	Found  int     `json:"found"`
	Recall float64 `json:"recall"`
}

// Missed is a seeded bug no report named.
type Missed struct {
	ID    string        `json:"id"`
	Class bugfarm.Class `json:"class"`
	What  string        `json:"what"`
}

// GremlinsRow is gremlins.js's run on one buggy app (or their total).
type GremlinsRow struct {
	Found    int           `json:"found"`
	FoundIDs []string      `json:"found_ids,omitempty"`
	Actions  int           `json:"actions"`
	Reports  int           `json:"reports"`
	Recall   float64       `json:"recall"`
	Wall     time.Duration `json:"wall_ns"`
	Err      string        `json:"error,omitempty"`
}

// Row is one seed's line of the benchmark, or the total.
type Row struct {
	Seed   int64 `json:"seed"`
	Seeded int   `json:"seeded"`
	Found  int   `json:"found"`
	// Recall is Found / Seeded.
	Recall   float64  `json:"recall"`
	FoundIDs []string `json:"found_ids,omitempty"`
	Missed   []Missed `json:"missed,omitempty"`
	// Reports are the bugs the explorer reported on the buggy build;
	// ReportsPerFound is Reports / Found (0 when nothing was found).
	Reports         int     `json:"reports"`
	ReportsPerFound float64 `json:"reports_per_found"`
	// Unattributed are buggy-build reports naming no seeded id.
	Unattributed int `json:"unattributed"`
	// FixedReports are the bugs reported on the fixed build: every one is
	// a false positive. FixedTitles lists them.
	FixedReports int      `json:"fixed_reports"`
	FixedTitles  []string `json:"fixed_titles,omitempty"`
	// Steps and Wall are the buggy run's; FixedSteps and FixedWall the
	// fixed run's.
	Steps      int                          `json:"steps"`
	FixedSteps int                          `json:"fixed_steps"`
	Wall       time.Duration                `json:"wall_ns"`
	FixedWall  time.Duration                `json:"fixed_wall_ns"`
	Classes    map[bugfarm.Class]ClassCount `json:"classes"`
	Gremlins   *GremlinsRow                 `json:"gremlins,omitempty"`
	Errors     []string                     `json:"errors,omitempty"`
}

// newRow scores one seed: its seeded bugs, the explorer's reports on the
// buggy and the fixed build.
func newRow(seed int64, seeded []bugfarm.Bug, buggy, fixed []findings.Bug) Row {
	s := score(seeded, buggy)
	r := Row{Seed: seed, Seeded: len(seeded), Found: len(s.Found), FoundIDs: s.Found, Reports: len(buggy),
		Unattributed: s.Unattributed, FixedReports: len(fixed), Classes: map[bugfarm.Class]ClassCount{}}
	found := map[string]bool{}
	for _, id := range s.Found {
		found[id] = true
	}
	for _, b := range seeded {
		c := r.Classes[b.Class]
		c.Seeded++
		if found[b.ID] {
			c.Found++
		} else {
			r.Missed = append(r.Missed, Missed{ID: b.ID, Class: b.Class, What: b.What})
		}
		r.Classes[b.Class] = c
	}
	for _, b := range fixed {
		r.FixedTitles = append(r.FixedTitles, b.Title)
	}
	r.ratios()
	return r
}

// ratios computes Recall, ReportsPerFound and the classes' recall from
// the counts.
func (r *Row) ratios() {
	r.Recall = ratio(r.Found, r.Seeded)
	r.ReportsPerFound = ratio(r.Reports, r.Found)
	for k, c := range r.Classes {
		c.Recall = ratio(c.Found, c.Seeded)
		r.Classes[k] = c
	}
	if g := r.Gremlins; g != nil {
		g.Recall = ratio(g.Found, r.Seeded)
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// total sums the rows: counts, steps and walls add up; the ratios are
// computed from the sums.
func total(rows []Row) Row {
	t := Row{Classes: map[bugfarm.Class]ClassCount{}}
	for _, r := range rows {
		t.Seeded += r.Seeded
		t.Found += r.Found
		t.Reports += r.Reports
		t.Unattributed += r.Unattributed
		t.FixedReports += r.FixedReports
		t.Steps += r.Steps
		t.FixedSteps += r.FixedSteps
		t.Wall += r.Wall
		t.FixedWall += r.FixedWall
		for k, c := range r.Classes {
			tc := t.Classes[k]
			tc.Seeded += c.Seeded
			tc.Found += c.Found
			t.Classes[k] = tc
		}
		if r.Gremlins != nil {
			if t.Gremlins == nil {
				t.Gremlins = &GremlinsRow{}
			}
			t.Gremlins.Found += r.Gremlins.Found
			t.Gremlins.Actions += r.Gremlins.Actions
			t.Gremlins.Reports += r.Gremlins.Reports
			t.Gremlins.Wall += r.Gremlins.Wall
		}
		t.Errors = append(t.Errors, r.Errors...)
	}
	t.ratios()
	return t
}

// ClassRow is one class's line of the by-class table.
type ClassRow struct {
	Class bugfarm.Class `json:"class"`
	ClassCount
}

// byClass lists the total's classes, weakest recall first.
func byClass(t Row) []ClassRow {
	out := make([]ClassRow, 0, len(t.Classes))
	for k, c := range t.Classes {
		out = append(out, ClassRow{Class: k, ClassCount: c})
	}
	slices.SortFunc(out, func(a, b ClassRow) int {
		return cmp.Or(cmp.Compare(a.Recall, b.Recall), cmp.Compare(b.Seeded, a.Seeded), cmp.Compare(a.Class, b.Class))
	})
	return out
}

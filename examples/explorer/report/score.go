package report

import (
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/examples/explorer/findings"
)

// ScoreWith matches the findings' evidence, title and URL to the seeded
// bug ids with find.
func ScoreWith(seeded []string, bugs []findings.Bug, find func(string) []string) *DemoScore {
	found := map[string]bool{}
	for _, b := range bugs {
		for _, id := range find(b.Evidence + "\n" + b.Title + "\n" + b.URL + "\n" + strings.Join(b.Symptoms, "\n")) {
			found[id] = true
		}
	}
	out := &DemoScore{Seeded: slices.Clone(seeded), Found: []string{}}
	for _, id := range seeded {
		if found[id] {
			out.Found = append(out.Found, id)
		}
	}
	return out
}

// Seeded are the bugs an app is known to have (a test app's, a
// benchmark's): their ids, and how to find the ids a finding names.
type Seeded struct {
	IDs  []string
	Find func(text string) []string
}

// Score is ScoreWith over s's ids.
func (s *Seeded) Score(bugs []findings.Bug) *DemoScore { return ScoreWith(s.IDs, bugs, s.Find) }

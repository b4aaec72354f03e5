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

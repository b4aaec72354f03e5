package main

import (
	"regexp"

	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

// Score is how a run's reports match an app's mutations.
type Score struct {
	Found  []string // mutation ids, in the app's order
	Missed []string
	// AlsoClean are mutations matched only by their patterns (no id) whose
	// patterns a clean-run report matches too: not counted as found, since
	// the report does not tell the mutation from the app's own behaviour.
	AlsoClean    []string
	Unattributed int // reports matching no mutation
}

// score matches the mutated run's reports to mutations
// (kit.Mutation.Matches). A mutation without an id in its evidence
// (Match patterns) counts only when no report of the clean run matches
// its patterns as well.
func score(muts []kit.Mutation, reports, clean []Report) Score {
	named := map[string]bool{}
	var s Score
	for _, r := range reports {
		text := r.Text()
		hit := false
		for _, m := range muts {
			if m.Matches(text) {
				named[m.ID] = true
				hit = true
			}
		}
		if !hit {
			s.Unattributed++
		}
	}
	for _, m := range muts {
		if named[m.ID] && len(m.Match) > 0 {
			for _, r := range clean {
				if m.Matches(r.Text()) {
					named[m.ID] = false
					s.AlsoClean = append(s.AlsoClean, m.ID)
					break
				}
			}
		}
		if named[m.ID] {
			s.Found = append(s.Found, m.ID)
		} else {
			s.Missed = append(s.Missed, m.ID)
		}
	}
	return s
}

// Judged is one clean-run report with its judgement.
type Judged struct {
	Kind  string `json:"kind"`
	Title string `json:"title"`
	URL   string `json:"url"`
	// Verdict is "real defect", "false positive" or "unjudged".
	Verdict string `json:"verdict"`
	Why     string `json:"why,omitempty"`
}

// judge looks each clean-run report up in the app's judgements (the
// first whose pattern matches its text); the rest are unjudged.
func judge(a kit.App, reports []Report) []Judged {
	out := make([]Judged, 0, len(reports))
	for _, r := range reports {
		j := Judged{Kind: r.Kind, Title: r.Title, URL: r.URL, Verdict: "unjudged"}
		for _, jj := range a.Judgements {
			if re, err := regexp.Compile("(?i)" + jj.Pattern); err == nil && re.MatchString(r.Text()) {
				j.Verdict, j.Why = jj.Verdict, jj.Why
				break
			}
		}
		out = append(out, j)
	}
	return out
}

package main

// The one place the benchmark calls the explorer: adapt this file when
// the explorer's public entry point changes.

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
)

// Report is one bug the explorer reported.
type Report struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Severity string   `json:"severity"`
	Title    string   `json:"title"`
	URL      string   `json:"url"`
	Evidence string   `json:"evidence"`
	Symptoms []string `json:"symptoms,omitempty"`
}

// Text is what a mutation's patterns are matched against.
func (r Report) Text() string {
	return "kind: " + r.Kind + "\n" + r.Title + "\n" + r.URL + "\n" + r.Evidence + "\n" + strings.Join(r.Symptoms, "\n")
}

// Explored is one explorer run on one build.
type Explored struct {
	Reports []Report `json:"reports"`
	Steps   int      `json:"steps"`
	States  int      `json:"states"`
	Targets int      `json:"targets"`
	Tried   int      `json:"tried"`
	// JSPercent is the app's JavaScript that ran (V8 precise coverage),
	// -1 when not collected.
	JSPercent float64 `json:"js_percent"`
}

// explore runs the explorer offline on target with budget steps, signed
// in as acc, writing its reports to dir. It is told nothing about the
// mutations; minimisation is off (as in bugfarm's bench).
func runExplorer(ctx context.Context, b *browser.Browser, target string, acc kit.Account, budget int, dir string, jsCoverage bool) (Explored, error) {
	res, err := explore.Run(ctx, explore.Config{Target: target, Budget: budget, Seed: 1, ReportDir: dir, MinimizeReplays: -1,
		Credentials: session.Credentials{Email: acc.User, Password: acc.Password}, JSCoverage: jsCoverage, Browser: b})
	out := Explored{JSPercent: -1}
	for _, m := range res.Missions {
		out.Steps += m.Steps
		for _, bug := range m.Bugs {
			out.Reports = append(out.Reports, Report{ID: bug.ID, Kind: bug.Kind, Severity: bug.Severity, Title: bug.Title, URL: bug.URL,
				Evidence: bug.Evidence, Symptoms: bug.Symptoms})
		}
		if c := m.Coverage; c != nil {
			out.States += c.States
			out.Targets += c.Targets
			out.Tried += c.Tried
			if c.JS != nil {
				out.JSPercent = c.JS.Percent
			}
		}
		if m.Err != "" && err == nil {
			err = fmt.Errorf("mission %s: %s", m.Mission.ThreadID, m.Err)
		}
	}
	return out, err
}

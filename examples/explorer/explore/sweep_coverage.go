package explore

import (
	"fmt"
	"strings"

	"github.com/agentgraph/agentgraph/personas"
)

// Coverage is what a mission's app model saw and tried (the model's
// personas.Stats), why the mission ended, and for the report the
// untried targets and the state graph.
type Coverage struct {
	personas.Stats
	// Stopped says why the mission ended: its budget spent, every
	// target tried, or an error.
	Stopped string `json:"stopped,omitempty"`
	// Untried lists up to 50 untried targets, reachable states first.
	Untried []string `json:"untried,omitempty"`
	// Graph is the state graph as a Mermaid flowchart.
	Graph string `json:"graph,omitempty"`
	// Entries are the pages discovery found outside the app's links
	// (sitemaps, robots.txt, conventional and configured paths).
	Entries []string `json:"entries,omitempty"`
	// JS is the app's JavaScript the mission ran (nil: not collected).
	JS *JSCoverage `json:"js,omitempty"`
}

// coverage reports the model at the end of a mission.
func (sw *sweep) coverage(stopped string) *Coverage {
	if sw == nil {
		return nil
	}
	return &Coverage{Stats: sw.model.Stats(), Stopped: stopped, Untried: sw.model.Untried(50), Graph: sw.model.Mermaid()}
}

// summary is c without the graph and the untried list (for summary.json).
func (c *Coverage) summary() *Coverage {
	if c == nil {
		return nil
	}
	return &Coverage{Stats: c.Stats, Stopped: c.Stopped, Entries: c.Entries, JS: c.JS}
}

// markdown is c as test_report.md's Coverage section.
func (c *Coverage) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Coverage\n\n- Ended: %s\n- States: %d, transitions: %d\n- Targets: %d discovered, %d tried, %d failed\n",
		c.Stopped, c.States, c.Transitions, c.Targets, c.Tried, c.Failed)
	if tr := c.Truncated.String(); tr != "" {
		fmt.Fprintf(&b, "- Limits: %s\n", tr)
	}
	if len(c.Entries) > 0 {
		fmt.Fprintf(&b, "- Entry points found outside the app's links: %s\n", strings.Join(c.Entries, ", "))
	}
	if c.JS != nil {
		fmt.Fprintf(&b, "- JavaScript executed: %s\n", c.JS)
	}
	if len(c.Untried) > 0 {
		b.WriteString("\n### Untried targets\n\n")
		for _, u := range c.Untried {
			fmt.Fprintf(&b, "- %s\n", u)
		}
	}
	if c.Graph != "" {
		b.WriteString("\n### State graph\n\n```mermaid\n" + c.Graph + "```\n")
	}
	return b.String()
}

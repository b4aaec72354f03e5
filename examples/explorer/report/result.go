package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/personas"
)

// Result is the outcome of a batch of missions.
type Result struct {
	// RunID names the run in memory (the run that marked a bug fixed or
	// reopened it): "run-" and its start time in UTC.
	RunID    string          `json:"run_id"`
	Missions []MissionResult `json:"missions"`
	// Verified are the verdicts of a --regression run's replays of the
	// reproductions memory keeps, made before its missions.
	Verified []Verification `json:"verified,omitempty"`
	Duration time.Duration  `json:"duration"`
	// JUnit is the path of the batch's JUnit XML.
	JUnit string `json:"junit"`
	// Shard is the batch's share ("i/n", Config.Shard; "" for all).
	Shard string `json:"shard,omitempty"`
	// Demo scores the batch against the demo app's seeded bugs (nil for
	// other targets): found is matched from the findings' evidence alone.
	Demo *DemoScore `json:"demo,omitempty"`
	// Usage is the batch's model usage (nil offline).
	Usage *Usage `json:"usage,omitempty"`
	// SecretEnv is the environment the reproduction specs need to replay
	// a sign-in: SECRET_n=value for each secret the run typed (specs read
	// process.env.SECRET_n; artifacts hold only the references). Never
	// written to a file.
	SecretEnv []string `json:"-"`
}

// Bugs counts the bugs of all missions.
func (r Result) Bugs() int {
	n := 0
	for _, m := range r.Missions {
		n += len(m.Bugs)
	}
	return n
}

// NewBugs counts the bugs memory had not seen before, and the fixed bugs
// whose reproduction showed them again (regressions).
func (r Result) NewBugs() int {
	n := 0
	for _, v := range r.Verified {
		if v.Verdict == string(memory.VerdictReopened) {
			n++
		}
	}
	for _, m := range r.Missions {
		for _, b := range m.Bugs {
			if b.New {
				n++
			}
		}
	}
	return n
}

// MissionResult is the outcome of one mission.
type MissionResult struct {
	Mission  mission.Mission `json:"mission"`
	Team     string          `json:"team"`
	Target   string          `json:"target"`
	Steps    int             `json:"steps"`
	Bugs     []findings.Bug  `json:"bugs"`
	Explored []string        `json:"explored"`
	Dir      string          `json:"dir"`
	Duration time.Duration   `json:"duration_ns"`
	Demo     *DemoScore      `json:"demo,omitempty"`
	Err      string          `json:"error,omitempty"`
	// Retries counts the continuations after transient errors.
	Retries int `json:"retries,omitempty"`
	// Timeline is the mission's full action tape.
	Timeline []TimelineEntry `json:"-"`
	// Analysis is the reporter model's write-up ("" offline).
	Analysis string `json:"-"`
	// Usage is the mission's model usage (nil offline).
	Usage *Usage `json:"usage,omitempty"`
	// Coverage is what the mission's app model saw and tried, and why the
	// mission ended.
	Coverage *Coverage `json:"coverage,omitempty"`
}

// TimelineEntry is one action of the mission with the persona that took it.
type TimelineEntry struct {
	Persona string
	Entry   browser.Entry
}

// DemoScore lists the demo app's seeded bug ids and those found.
type DemoScore struct {
	Seeded []string `json:"seeded"`
	Found  []string `json:"found"`
}

// Usage is the model usage of a mission or a batch, as summary.json shows it.
type Usage struct {
	Calls        int                    `json:"calls"`
	InputTokens  int                    `json:"input_tokens"`
	OutputTokens int                    `json:"output_tokens"`
	CostUSD      float64                `json:"cost_usd"`
	ByRole       map[string]RoleUsage   `json:"by_role,omitempty"`
	ByRoleRaw    map[llm.Role]llm.Usage `json:"-"`
}

// RoleUsage is one role's share of a Usage.
type RoleUsage struct {
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

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

// JSCoverage is the mission's JavaScript coverage in the report.
type JSCoverage struct {
	// Scripts counts the app's scripts seen (the inline scripts of one
	// page template are one).
	Scripts int `json:"scripts"`
	// Bytes is their source size, Executed the part that ran.
	Bytes    int     `json:"bytes"`
	Executed int     `json:"executed"`
	Percent  float64 `json:"percent"`
}

// String is the figure as the report and the progress line say it.
func (c *JSCoverage) String() string {
	if c == nil {
		return "not collected"
	}
	return fmt.Sprintf("%.1f%% of %d bytes in %d scripts", c.Percent, c.Bytes, c.Scripts)
}

// Verification is the verdict of one replay of a remembered reproduction.
type Verification struct {
	Fingerprint string `json:"fingerprint"`
	Kind        string `json:"kind"`
	Title       string `json:"title,omitempty"`
	URL         string `json:"url"`
	// Before is the bug's status in memory before the replay.
	Before string `json:"before"`
	// Verdict: "still open", "fixed", "reopened", "still fixed" (see
	// memory.Verdict), or "not replayable" (a step of the reproduction
	// could not be done, e.g. the page changed: the status stays).
	Verdict string `json:"verdict"`
	Steps   int    `json:"steps"`
	// Replays counts the replays it took (a bug that did not show is
	// replayed once more before it is called fixed).
	Replays int    `json:"replays"`
	Note    string `json:"note,omitempty"`
}

// Reproduced reports whether the replay showed the bug.
func (v Verification) Reproduced() bool {
	return v.Verdict == string(memory.VerdictStillOpen) || v.Verdict == string(memory.VerdictReopened)
}

// VerdictNotReplayable is the verdict of a reproduction whose steps could
// not be replayed.
const VerdictNotReplayable = "not replayable"

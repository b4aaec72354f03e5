package team

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentgraph/agentgraph/llm"
)

// Printer writes a run to a terminal as it happens, node by node, and then
// the final code, tests and metrics. Write errors are ignored (it is
// display only).
type Printer struct {
	W io.Writer
	// Verbose also prints the full failure output of each failed test run.
	Verbose bool
}

// Step prints one node's update (an Updates stream event).
func (p Printer) Step(node string, up State) {
	for _, st := range up.Steps {
		who := st.Node
		if st.Role != "" && string(st.Role) != st.Node {
			who += " (" + string(st.Role) + ")"
		}
		fmt.Fprintf(p.W, "▶ %-10s %s  [%s%s]\n", who, st.Did, fmtDur(st.Duration), usageNote(st))
	}
	switch node {
	case NodeArchitect:
		fmt.Fprintf(p.W, "%s\n", indent(firstLines(up.Spec, 6), "    │ "))
	case NodeSandbox:
		r := up.Results
		if !r.Passed {
			fmt.Fprintf(p.W, "%s\n", indent(firstLines(r.ErrorSummary, 8), "    │ "))
			if p.Verbose && r.Failures != "" {
				fmt.Fprintf(p.W, "%s\n", indent(r.Failures, "    ┆ "))
			}
		}
	case NodeDebugger:
		for _, d := range up.DebugHistory {
			fmt.Fprintf(p.W, "%s\n", indent("diagnosis: "+d.Diagnosis, "    │ "))
		}
	case NodeReviewer:
		if up.Warning != "" {
			fmt.Fprintf(p.W, "    ⚠ %s\n", up.Warning)
		}
	}
}

// Final prints the outcome, the review, the final code and tests, and the
// metrics table.
func (p Printer) Final(s State, wall time.Duration) {
	rule := strings.Repeat("─", 72)
	fmt.Fprintf(p.W, "\n%s\nREVIEW (%s)\n%s\n%s\n", rule, s.Status, rule, s.Review)
	if s.Warning != "" {
		fmt.Fprintf(p.W, "\n⚠ WARNING: %s\n", s.Warning)
	}
	fmt.Fprintf(p.W, "\n%s\nFINAL CODE (%s.go)\n%s\n%s", rule, s.Package, rule, s.Code)
	fmt.Fprintf(p.W, "\n%s\nTESTS (%s_test.go)\n%s\n%s", rule, s.Package, rule, s.Tests)
	fmt.Fprintf(p.W, "\n%s\nMETRICS\n%s\n", rule, rule)
	p.Metrics(s, wall)
}

// Metrics prints the metrics table: outcome, iterations, test runs, and per
// node the runs, time, model calls and tokens.
func (p Printer) Metrics(s State, wall time.Duration) {
	m := Summarize(s)
	tw := tabwriter.NewWriter(p.W, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "outcome\t%s\n", s.Status)
	fmt.Fprintf(tw, "debug iterations\t%d of %d\n", s.Iteration, s.MaxIterations)
	runs := make([]string, len(s.TestRuns))
	for i, r := range s.TestRuns {
		runs[i] = fmt.Sprintf("%d/%d", r.PassCount, r.Total())
		if !r.Passed {
			runs[i] += " " + string(r.Failure)
		} else {
			runs[i] += " pass"
		}
	}
	fmt.Fprintf(tw, "test runs\t%d (%s)\n", len(s.TestRuns), strings.Join(runs, " → "))
	fmt.Fprintf(tw, "model calls\t%d\n", m.Calls)
	if m.Usage.TotalTokens() > 0 {
		fmt.Fprintf(tw, "tokens\t%d in, %d out\n", m.Usage.InputTokens, m.Usage.OutputTokens)
	} else {
		fmt.Fprintf(tw, "tokens\tnone reported\n")
	}
	if wall > 0 {
		fmt.Fprintf(tw, "wall time\t%s\n", fmtDur(wall))
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "node\truns\ttime\tcalls\ttokens in\ttokens out\n")
	for _, n := range m.Nodes {
		in, out := "-", "-"
		if n.Usage.TotalTokens() > 0 {
			in, out = fmt.Sprint(n.Usage.InputTokens), fmt.Sprint(n.Usage.OutputTokens)
		}
		calls := "-"
		if n.Calls > 0 {
			calls = fmt.Sprint(n.Calls)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", n.Node, n.Runs, fmtDur(n.Duration), calls, in, out)
	}
	_ = tw.Flush()
}

// NodeMetrics aggregates the runs of one node.
type NodeMetrics struct {
	Node     string
	Runs     int
	Duration time.Duration
	Calls    int
	Usage    llm.Usage
}

// Metrics aggregates a run.
type Metrics struct {
	Nodes    []NodeMetrics // in order of first run
	Calls    int
	Usage    llm.Usage
	TestRuns int
}

// Summarize aggregates s.Steps per node.
func Summarize(s State) Metrics {
	var m Metrics
	idx := map[string]int{}
	for _, st := range s.Steps {
		i, ok := idx[st.Node]
		if !ok {
			i = len(m.Nodes)
			idx[st.Node] = i
			m.Nodes = append(m.Nodes, NodeMetrics{Node: st.Node})
		}
		n := &m.Nodes[i]
		n.Runs++
		n.Duration += st.Duration
		n.Calls += st.Calls
		n.Usage = n.Usage.Add(st.Usage)
		m.Calls += st.Calls
		m.Usage = m.Usage.Add(st.Usage)
	}
	m.TestRuns = len(s.TestRuns)
	return m
}

func usageNote(st StepRecord) string {
	if st.Usage.TotalTokens() == 0 {
		if st.Calls > 1 {
			return fmt.Sprintf(", %d calls", st.Calls)
		}
		return ""
	}
	calls := "1 call"
	if st.Calls != 1 {
		calls = fmt.Sprintf("%d calls", st.Calls)
	}
	return fmt.Sprintf(", %s, %d+%d tokens", calls, st.Usage.InputTokens, st.Usage.OutputTokens)
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

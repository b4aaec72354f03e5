package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentgraph/agentgraph/internal/clip"
)

// PrintTable writes the final table of a batch: one row per mission, then
// the demo score when the target was the demo app.
func PrintTable(w io.Writer, res Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MISSION\tTEAM\tSTEPS\tBUGS\tNEW\tTIME\tREPORT")
	for _, m := range res.Missions {
		n := 0
		for _, b := range m.Bugs {
			if b.New {
				n++
			}
		}
		dir := m.Dir
		if m.Err != "" {
			dir += " (error: " + clip.String(m.Err, 80) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\n", m.Mission.ThreadID, m.Team, m.Steps, len(m.Bugs), n, m.Duration.Round(100*time.Millisecond), dir)
	}
	_ = tw.Flush()
	if res.Demo != nil {
		fmt.Fprintf(w, "demo app: found %d/%d seeded bugs in %s: %s\n", len(res.Demo.Found), len(res.Demo.Seeded), res.Duration.Round(100*time.Millisecond), strings.Join(res.Demo.Found, ", "))
		var missed []string
		for _, id := range res.Demo.Seeded {
			if !contains(res.Demo.Found, id) {
				missed = append(missed, id)
			}
		}
		if len(missed) > 0 {
			fmt.Fprintf(w, "demo app: missed %s\n", strings.Join(missed, ", "))
		}
	}
	if res.JUnit != "" {
		fmt.Fprintf(w, "junit: %s\n", res.JUnit)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

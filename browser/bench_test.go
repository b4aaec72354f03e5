package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkClickSnapshot is one agent step on a 200-element page: click a
// button by test id, then take a fresh snapshot.
func BenchmarkClickSnapshot(b *testing.B) {
	app := newFixture(b)
	s := mustUser(b, newEngine(b, app, nil), "bench")
	ok(b, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/many"))
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		r := s.Do(ctx, Intent{Action: ActClick, Target: fmt.Sprintf("testid=b%d", (i%50)*4)})
		if !r.OK {
			b.Fatal(r.Error)
		}
		if _, err := s.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

var interactiveLine = regexp.MustCompile(`(?m)^\s*- (button|link|textbox|combobox|checkbox|radio)\b[^\n]*\[ref=`)

// BenchmarkSnapshotSize reports the snapshot's size next to the raw HTML and
// the raw aria snapshot, and the share of the page's 200 interactive
// elements that carry a ref.
func BenchmarkSnapshotSize(b *testing.B) {
	app := newFixture(b)
	s := mustUser(b, newEngine(b, app, func(c *Config) { c.SnapshotBudget = 1 << 20 }), "bench")
	ok(b, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/many"))
	html, err := s.page.Content()
	require.NoError(b, err)
	total, err := s.page.Locator("button, a[href], input, select, textarea").Count()
	require.NoError(b, err)
	ctx := context.Background()
	var snap Snapshot
	b.ResetTimer()
	for range b.N {
		snap, err = s.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	addressable := len(interactiveLine.FindAllString(snap.Text, -1))
	ariaOnly := len(interactiveLine.FindAllString(snap.Text[:strings.Index(snap.Text+"\n"+hoverHeading, "\n"+hoverHeading)], -1))
	b.ReportMetric(float64(len(snap.Text)), "snapshot-chars")
	b.ReportMetric(float64(snap.RawChars), "aria-raw-chars")
	b.ReportMetric(float64(len(html)), "html-chars")
	b.ReportMetric(100*float64(addressable)/float64(total), "%addressable")
	b.ReportMetric(100*float64(ariaOnly)/float64(total), "%addressable-aria-only")
	// Optional: the same page through @playwright/mcp's browser_snapshot.
	if cli := os.Getenv("AGENTGRAPH_PLAYWRIGHT_MCP"); cli != "" {
		script, err := filepath.Abs("testdata/mcp_snapshot.mjs")
		require.NoError(b, err)
		cmd := exec.Command("node", script, cli, app.URL+"/many")
		cmd.Dir = b.TempDir() // the MCP server writes .playwright-mcp/ logs into its working directory
		out, err := cmd.Output()
		require.NoError(b, err)
		mcp := string(out)
		if i := strings.Index(mcp, "### Snapshot"); i >= 0 {
			mcp = mcp[i:] // the YAML, without the page/console header
		}
		b.ReportMetric(float64(len(mcp)), "mcp-snapshot-chars")
		b.ReportMetric(100*float64(len(interactiveLine.FindAllString(mcp, -1)))/float64(total), "%addressable-mcp")
	}
}

// BenchmarkTapeAppend measures durable (fsynced) appends of a typical entry.
func BenchmarkTapeAppend(b *testing.B) {
	tape, err := OpenTape(filepath.Join(b.TempDir(), "tape.jsonl"))
	require.NoError(b, err)
	defer tape.Close()
	e := Entry{Time: time.Now(), User: "bench", Action: ActClick, Params: Intent{Action: ActClick, Target: "e12"},
		Locator: "getByRole('button', { name: 'Save' })", OK: true, DurationMS: 42, URL: "http://127.0.0.1:8080/items", Title: "Items",
		Findings: []Finding{{Kind: FindServerError, Message: "POST /api/save returned 500", URL: "http://127.0.0.1:8080/api/save", Status: 500}}}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		e.Seq = int64(i)
		if err := tape.Append(e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "entries/s")
}

package personas

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentgraph/agentgraph/browser"
)

// bigSnapshot is a snapshot text with n controls of mixed roles.
func bigSnapshot(n int) browser.Snapshot {
	var b strings.Builder
	b.WriteString("page: \"Big\" http://127.0.0.1:8080/list\n- main [ref=e1]:\n")
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "  - button \"Button %d\" [ref=e%d]\n", i, i+2)
		case 1:
			fmt.Fprintf(&b, "  - link \"Link %d\" [ref=e%d] → /item/%d\n", i, i+2, i)
		case 2:
			fmt.Fprintf(&b, "  - textbox \"Field %d\" [ref=e%d]: value %d\n", i, i+2, i)
		default:
			fmt.Fprintf(&b, "  - checkbox \"Row %d\" [checked] [ref=e%d]\n", i, i+2)
		}
	}
	return browser.Snapshot{URL: "http://127.0.0.1:8080/list", Text: b.String()}
}

func BenchmarkParseElements(b *testing.B) {
	snap := bigSnapshot(200)
	b.ReportAllocs()
	for b.Loop() {
		if len(ParseElements(snap)) != 201 {
			b.Fatal("parse")
		}
	}
}

func BenchmarkStateHash(b *testing.B) {
	snap := bigSnapshot(200)
	b.ReportAllocs()
	for b.Loop() {
		_ = StateHash(snap)
	}
}

// BenchmarkModelStrategyNext is the explorer persona's decision (the
// app model played by its preference) on a 200-control page after 50
// steps.
func BenchmarkModelStrategyNext(b *testing.B) {
	p, err := NewRegistry().Get(Explorer)
	if err != nil {
		b.Fatal(err)
	}
	x := p.Strategy()
	snap := bigSnapshot(200)
	els := ParseElements(snap)
	for i := range 50 {
		_, _ = x.Next(Step{N: i, Snapshot: snap, Elements: els})
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = x.Next(Step{Snapshot: snap, Elements: els})
	}
}

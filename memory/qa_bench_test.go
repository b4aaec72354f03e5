package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentgraph/agentgraph/graph"
	bolt "go.etcd.io/bbolt"
)

func BenchmarkFingerprint(b *testing.B) {
	ev := `Uncaught TypeError: Cannot read properties of undefined (reading "price") at https://shop.test/static/app.3f2a9c1e.js:12:3456 at 2026-03-01T12:00:00.123Z`
	for b.Loop() {
		_ = Fingerprint("console_error", "/items/{n}", ev)
	}
}

// BenchmarkRecordBug records sightings of 50 distinct bugs: one Get and one
// Put per sighting.
func BenchmarkRecordBug(b *testing.B) {
	b.Run("in-memory", func(b *testing.B) { benchRecordBug(b, NewInMemoryStore()) })
	b.Run("bbolt", func(b *testing.B) {
		db, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), 0o600, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		st, err := NewBoltStore(db)
		if err != nil {
			b.Fatal(err)
		}
		benchRecordBug(b, st)
	})
}

func benchRecordBug(b *testing.B, st graph.Store) {
	q, err := NewQA(st, qaTestOrigin)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	reports := make([]BugReport, 50)
	for i := range reports {
		reports[i] = BugReport{Kind: "http_5xx", URL: fmt.Sprintf("/p%c/%d", 'a'+i%26, i), Evidence: fmt.Sprintf("GET /api/%c/%d returned 500", 'a'+i/26, i)}
	}
	i := 0
	for b.Loop() {
		if _, err := q.RecordBug(ctx, reports[i%len(reports)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSupervisorContext renders the context over 50 open bugs, 50
// quirks and 50 selectors.
func BenchmarkSupervisorContext(b *testing.B) {
	q, err := NewQA(NewInMemoryStore(), qaTestOrigin)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := range 50 {
		page := fmt.Sprintf("/p%c%c", 'a'+i%26, 'a'+i/26)
		if _, err := q.RecordBug(ctx, BugReport{Kind: "page_error", URL: page, Evidence: "boom"}); err != nil {
			b.Fatal(err)
		}
		if _, err := q.AddQuirk(ctx, page, "quirk of "+page, ""); err != nil {
			b.Fatal(err)
		}
		if _, err := q.RecordSelector(ctx, page, "#x", false, ""); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := q.SupervisorContext(ctx, 0); err != nil {
			b.Fatal(err)
		}
	}
}

package memory

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// qaOpenBolt opens a BoltStore on path; the database closes with the test.
func qaOpenBolt(t *testing.T, path string) *BoltStore {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	st, err := NewBoltStore(db)
	require.NoError(t, err)
	return st
}

// qaRun is one explorer run's use of the memory: it opens the store, does
// its work through a fresh QA value and closes the store again.
func qaRun(t *testing.T, open func() graph.Store, closeStore func(graph.Store), work func(q *QA)) {
	t.Helper()
	st := open()
	q, err := NewQA(st, qaTestOrigin, WithQALogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	work(q)
	closeStore(st)
}

// checkMemoryAcrossRuns is the scenario: the second run's supervisor
// context names the first run's high-risk pages, a bug seen in both runs is
// one entry with seen count 2, and regression missions cover every open bug.
func checkMemoryAcrossRuns(t *testing.T, open func() graph.Store, closeStore func(graph.Store)) {
	ctx := context.Background()
	orderBug := BugReport{Kind: "http_5xx", Severity: "high", URL: "/orders/17", Title: "Order page fails", Evidence: "GET /api/orders/17 returned 500", Persona: "adversarial", ThreadID: "run-1", TapeIndex: 5}
	var firstFP string

	qaRun(t, open, closeStore, func(q *QA) {
		for _, u := range []string{"/", "/orders/17", "/search?q=shoes", "/help"} {
			_, err := q.RecordPageVisit(ctx, u, "")
			require.NoError(t, err)
		}
		rec, err := q.RecordBug(ctx, orderBug)
		require.NoError(t, err)
		require.True(t, rec.New)
		firstFP = rec.Entry.Fingerprint
		_, err = q.RecordBug(ctx, BugReport{Kind: "console_error", URL: "/search?q=shoes", Evidence: "TypeError: results is undefined", Persona: "new_user", ThreadID: "run-1"})
		require.NoError(t, err)
		_, err = q.AddQuirk(ctx, "/help", "the chat widget covers the submit button", "new_user")
		require.NoError(t, err)
		require.NoError(t, q.SaveSession(ctx, SessionSummary{ThreadID: "run-1", Personas: []string{"adversarial", "new_user"}, Pages: []string{"/", "/orders/17", "/search?q=shoes", "/help"}, Bugs: []string{firstFP}}))
		_, err = q.Reflect(ctx, ReflectOptions{})
		require.NoError(t, err)
	})

	qaRun(t, open, closeStore, func(q *QA) {
		text, err := q.SupervisorContext(ctx, 0)
		require.NoError(t, err)
		head, _, _ := strings.Cut(text, "Open bugs:")
		assert.Contains(t, head, "High-risk pages:")
		assert.Contains(t, head, "- /orders/{n} (risk", "the first run's riskiest page is named")
		assert.Contains(t, head, "- /search?q=shoes (risk")
		assert.Contains(t, text, "on /orders/{n}: prefer adversarial", "routing rules learned in run 1")

		sup, err := q.Supplement(ctx, "adversarial")
		require.NoError(t, err)
		assert.Contains(t, sup, "/orders/{n}")

		again := orderBug
		again.URL, again.Evidence, again.ThreadID = "/orders/23", "GET /api/orders/23 returned 500", "run-2"
		rec, err := q.RecordBug(ctx, again)
		require.NoError(t, err)
		assert.False(t, rec.New)
		assert.Equal(t, firstFP, rec.Entry.Fingerprint)
		assert.Equal(t, 2, rec.Entry.SeenCount)
		assert.Equal(t, "run-2", rec.Entry.ThreadID)

		bugs, err := q.Bugs(ctx, "")
		require.NoError(t, err)
		assert.Len(t, bugs, 2, "one entry per bug across both runs")

		missions, err := q.RegressionMissions(ctx)
		require.NoError(t, err)
		covered := map[string]bool{}
		for _, m := range missions {
			for _, fp := range m.Fingerprints {
				covered[fp] = true
			}
		}
		for _, b := range bugs {
			assert.True(t, covered[b.Fingerprint], "open bug %s on %s has a regression mission", b.Fingerprint, b.Page)
		}
		assert.Len(t, missions, 2)
	})
}

func TestMemoryAcrossRunsInMemory(t *testing.T) {
	st := NewInMemoryStore() // one process keeps the store between runs
	checkMemoryAcrossRuns(t, func() graph.Store { return st }, func(graph.Store) {})
}

// Two explorer runs, one after the other, on one bbolt file: the second
// opens the file afresh and sees what the first learned.
func TestMemoryAcrossRunsBolt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "explorer.db")
	var db *bolt.DB
	open := func() graph.Store {
		var err error
		db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
		require.NoError(t, err)
		st, err := NewBoltStore(db)
		require.NoError(t, err)
		return st
	}
	closeStore := func(graph.Store) { require.NoError(t, db.Close()) }
	checkMemoryAcrossRuns(t, open, closeStore)
}

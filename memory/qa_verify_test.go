package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/graph"
)

func TestVerifyLifecycle(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, clock *qaClock) {
		ctx := context.Background()
		rec, err := q.RecordBug(ctx, BugReport{Kind: "http_5xx", URL: "/orders", Evidence: "POST /api/orders → 500", Cause: "POST /api/orders 500"})
		require.NoError(t, err)
		fp := rec.Entry.Fingerprint

		repro := json.RawMessage(`{"steps":[{"action":"navigate"}],"sig":"x"}`)
		require.NoError(t, q.SetRepro(ctx, fp, repro))
		e, err := q.Bug(ctx, fp)
		require.NoError(t, err)
		assert.JSONEq(t, string(repro), string(e.Repro), "the reproduction is kept as given")

		// Run 1: it still shows.
		clock.Add(time.Hour)
		e, v, err := q.Verify(ctx, fp, "run-1", true)
		require.NoError(t, err)
		assert.Equal(t, VerdictStillOpen, v)
		assert.Equal(t, BugOpen, e.Status)
		assert.Equal(t, 2, e.SeenCount, "a replay that shows the bug is a sighting")
		assert.Equal(t, clock.Now(), e.VerifiedAt)

		// Run 2: gone, so fixed by run 2.
		clock.Add(time.Hour)
		e, v, err = q.Verify(ctx, fp, "run-2", false)
		require.NoError(t, err)
		assert.Equal(t, VerdictFixed, v)
		assert.Equal(t, BugFixed, e.Status)
		assert.Equal(t, "run-2", e.FixedIn)
		assert.Equal(t, clock.Now(), e.FixedAt)
		open, err := q.Bugs(ctx, BugOpen)
		require.NoError(t, err)
		assert.Empty(t, open, "a verified fix leaves the open list")

		// Run 3: still gone.
		_, v, err = q.Verify(ctx, fp, "run-3", false)
		require.NoError(t, err)
		assert.Equal(t, VerdictStillFixed, v)

		// Run 4: back: a regression.
		clock.Add(time.Hour)
		e, v, err = q.Verify(ctx, fp, "run-4", true)
		require.NoError(t, err)
		assert.Equal(t, VerdictReopened, v)
		assert.Equal(t, BugOpen, e.Status)
		assert.Equal(t, 1, e.Regressions)
		assert.Equal(t, "run-4", e.ReopenedIn)
		assert.Equal(t, "run-2", e.FixedIn, "who fixed it stays on record")
		assert.JSONEq(t, string(repro), string(e.Repro), "verifying keeps the reproduction")

		_, _, err = q.Verify(ctx, "0000000000000000", "run-5", true)
		require.ErrorIs(t, err, ErrUnknownBug)
		require.ErrorIs(t, err, graph.ErrNotFound)
	})
}

func TestSetReproRejectsBadInput(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, _ *qaClock) {
		ctx := context.Background()
		rec, err := q.RecordBug(ctx, BugReport{Kind: "page_error", URL: "/", Evidence: "boom"})
		require.NoError(t, err)
		fp := rec.Entry.Fingerprint
		require.NoError(t, q.SetRepro(ctx, fp, json.RawMessage(`{"a":1}`)))

		err = q.SetRepro(ctx, fp, json.RawMessage(`{"a":`))
		require.ErrorIs(t, err, ErrInvalidQAInput)
		err = q.SetRepro(ctx, fp, json.RawMessage(`"`+strings.Repeat("x", maxRepro)+`"`))
		require.ErrorIs(t, err, ErrInvalidQAInput)
		err = q.SetRepro(ctx, "0000000000000000", json.RawMessage(`{}`))
		require.ErrorIs(t, err, ErrUnknownBug)

		e, err := q.Bug(ctx, fp)
		require.NoError(t, err)
		assert.JSONEq(t, `{"a":1}`, string(e.Repro), "a refused reproduction loses nothing")
	})
}

func TestAddSelectorUsesFeedsRisk(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, _ *qaClock) {
		ctx := context.Background()
		rec, err := q.AddSelectorUses(ctx, "/cart", "getByRole('button', { name: 'Pay' })", 3, 4, "timeout 3000ms")
		require.NoError(t, err)
		assert.Equal(t, 3, rec.Successes)
		assert.Equal(t, 4, rec.Failures)
		rec, err = q.RecordSelector(ctx, "/cart", "getByRole('button', { name: 'Pay' })", true, "")
		require.NoError(t, err)
		assert.Equal(t, 4, rec.Successes)
		assert.Equal(t, "timeout 3000ms", rec.LastError, "a success keeps the last failure's text")
		_, err = q.AddSelectorUses(ctx, "/cart", "x", -1, 0, "")
		require.ErrorIs(t, err, ErrInvalidQAInput)

		_, err = q.AddSelectorUses(ctx, "/home", "getByText('Hi')", 9, 0, "")
		require.NoError(t, err)
		risks, err := q.PageRisks(ctx)
		require.NoError(t, err)
		require.NotEmpty(t, risks)
		assert.Equal(t, "/cart", risks[0].Page, "the page whose locators fail is the riskiest")
		assert.Equal(t, 4, risks[0].SelectorFailures)
	})
}

func TestSessionSummaryOutcome(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, _ *qaClock) {
		ctx := context.Background()
		require.NoError(t, q.SaveSession(ctx, SessionSummary{ThreadID: "m1", Steps: 12, Actions: 14, Succeeded: 11,
			Pages: []string{"/a", "/a?x=1", "/b"}, Bugs: []string{"f1"}, Outcome: "  step budget spent "}))
		ss, err := q.Sessions(ctx)
		require.NoError(t, err)
		require.Len(t, ss, 1)
		assert.Equal(t, 14, ss[0].Actions)
		assert.Equal(t, 11, ss[0].Succeeded)
		assert.Equal(t, "step budget spent", ss[0].Outcome)
		assert.Equal(t, []string{"f1"}, ss[0].Bugs)
	})
}

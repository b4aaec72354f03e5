package memory

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSeverity(t *testing.T) {
	tests := []struct {
		in   string
		want Severity
	}{
		{"", SeverityMedium}, {"Critical", SeverityCritical}, {"blocker", SeverityCritical},
		{" HIGH ", SeverityHigh}, {"major", SeverityHigh}, {"serious", SeverityHigh},
		{"moderate", SeverityMedium}, {"minor", SeverityLow}, {"low", SeverityLow},
	}
	for _, tt := range tests {
		got, err := ParseSeverity(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	_, err := ParseSeverity("catastrophic")
	require.ErrorIs(t, err, ErrInvalidQAInput)
}

func TestRecordBugDedupe(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, clock *qaClock) {
		ctx := context.Background()
		first, err := q.RecordBug(ctx, BugReport{
			Kind: "http_5xx", Severity: "high", URL: "/items/17?tab=reviews&x=1", Title: "Item API fails",
			Evidence: "GET /api/items/17 → 500 at 2026-03-01T12:00:00Z (req 9fceb02d0ae5)", Payload: "'; DROP TABLE",
			Persona: "adversarial", ThreadID: "m-1", TapeIndex: 4, Screenshot: "shots/1.png",
		})
		require.NoError(t, err)
		assert.True(t, first.New)
		assert.False(t, first.Reopened)
		e := first.Entry
		assert.Equal(t, "/items/{n}?tab=reviews&x={n}", e.Page)
		assert.Equal(t, BugOpen, e.Status)
		assert.Equal(t, 1, e.SeenCount)
		assert.Equal(t, SeverityHigh, e.Severity)
		assert.Equal(t, clock.Now(), e.FirstSeen)
		assert.Equal(t, 4, e.TapeIndex)
		assert.Equal(t, "shots/1.png", e.Screenshot)

		clock.Add(time.Hour)
		second, err := q.RecordBug(ctx, BugReport{
			Kind: "HTTP_5XX", Severity: "critical", URL: "http://shop.test:8080/items/23?x=9&tab=reviews",
			Evidence: "GET /api/items/23 → 500 at 2026-03-01T13:00:00Z (req 0ae5d61af8ab)", Payload: "<script>",
			Persona: "power_user", ThreadID: "m-2", TapeIndex: 9, Screenshot: "shots/2.png",
		})
		require.NoError(t, err)
		assert.False(t, second.New)
		assert.False(t, second.Reopened)
		e2 := second.Entry
		assert.Equal(t, e.Fingerprint, e2.Fingerprint)
		assert.Equal(t, 2, e2.SeenCount)
		assert.Equal(t, e.FirstSeen, e2.FirstSeen)
		assert.Equal(t, clock.Now(), e2.LastSeen)
		assert.Equal(t, SeverityCritical, e2.Severity, "severity only rises")
		assert.Equal(t, "Item API fails", e2.Title)
		assert.Equal(t, []string{"adversarial", "power_user"}, e2.Personas)
		assert.Equal(t, []string{"'; DROP TABLE", "<script>"}, e2.Payloads)
		assert.Len(t, e2.Samples, 2)
		assert.Equal(t, e.Evidence, e2.Evidence, "the first sample stays the evidence")
		assert.Equal(t, 9, e2.TapeIndex, "tape index of the latest sighting")
		assert.Equal(t, "m-2", e2.ThreadID)
		assert.Equal(t, qaTestOrigin+"/items/23?x=9&tab=reviews", e2.URL)

		other, err := q.RecordBug(ctx, BugReport{Kind: "http_5xx", URL: "/cart", Evidence: "GET /api/cart → 500"})
		require.NoError(t, err)
		assert.True(t, other.New)

		all, err := q.Bugs(ctx, "")
		require.NoError(t, err)
		require.Len(t, all, 2)
		assert.Equal(t, e.Fingerprint, all[0].Fingerprint, "most severe first")
		got, err := q.Bug(ctx, e.Fingerprint)
		require.NoError(t, err)
		assert.Equal(t, e2, got)
	})
}

func TestRecordBugSamplesBounded(t *testing.T) {
	q, _ := newTestQA(t, newQAFakeStore())
	ctx := context.Background()
	for i := range 12 {
		// Same normalised evidence, different raw text.
		_, err := q.RecordBug(ctx, BugReport{Kind: "console_error", URL: "/", Evidence: fmt.Sprintf("boom %d", i), Payload: fmt.Sprintf("p%d", i)})
		require.NoError(t, err)
	}
	bugs, err := q.Bugs(ctx, "")
	require.NoError(t, err)
	require.Len(t, bugs, 1)
	b := bugs[0]
	assert.Equal(t, 12, b.SeenCount)
	assert.Len(t, b.Samples, 5)
	assert.Equal(t, "boom 0", b.Samples[0], "the first sample is kept")
	assert.Equal(t, "boom 11", b.Samples[4], "the latest sample is kept")
	assert.Len(t, b.Payloads, 5)

	q3, err := NewQA(newQAFakeStore(), qaTestOrigin, WithEvidenceSamples(1))
	require.NoError(t, err)
	for i := range 3 {
		_, err := q3.RecordBug(ctx, BugReport{Kind: "k", URL: "/", Evidence: fmt.Sprintf("e %d", i)})
		require.NoError(t, err)
	}
	b3, err := q3.Bugs(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"e 0"}, b3[0].Samples)
}

func TestRecordBugInvalid(t *testing.T) {
	q, _ := newTestQA(t, newQAFakeStore())
	tests := []struct {
		name string
		r    BugReport
	}{
		{"no kind", BugReport{URL: "/"}},
		{"no url", BugReport{Kind: "x"}},
		{"bad url", BugReport{Kind: "x", URL: "http://[::1"}},
		{"bad severity", BugReport{Kind: "x", URL: "/", Severity: "meh"}},
	}
	for _, tt := range tests {
		_, err := q.RecordBug(context.Background(), tt.r)
		require.ErrorIs(t, err, ErrInvalidQAInput, tt.name)
	}
	_, err := q.Bugs(context.Background(), "closed")
	require.ErrorIs(t, err, ErrInvalidQAInput)
}

func TestMarkFixedAndReopen(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, clock *qaClock) {
		ctx := context.Background()
		r := BugReport{Kind: "page_error", URL: "/checkout", Evidence: "TypeError: total is NaN"}
		rec, err := q.RecordBug(ctx, r)
		require.NoError(t, err)
		fp := rec.Entry.Fingerprint

		clock.Add(time.Hour)
		fixed, err := q.MarkFixed(ctx, fp)
		require.NoError(t, err)
		assert.Equal(t, BugFixed, fixed.Status)
		assert.Equal(t, clock.Now(), fixed.FixedAt)
		again, err := q.MarkFixed(ctx, fp)
		require.NoError(t, err, "marking twice is fine")
		assert.Equal(t, fixed, again)

		open, err := q.Bugs(ctx, BugOpen)
		require.NoError(t, err)
		assert.Empty(t, open)
		closed, err := q.Bugs(ctx, BugFixed)
		require.NoError(t, err)
		require.Len(t, closed, 1)

		clock.Add(time.Hour)
		re, err := q.RecordBug(ctx, r)
		require.NoError(t, err)
		assert.False(t, re.New)
		assert.True(t, re.Reopened, "a fixed bug seen again is a regression")
		assert.Equal(t, BugOpen, re.Entry.Status)
		assert.Equal(t, 1, re.Entry.Regressions)
		assert.Equal(t, 2, re.Entry.SeenCount)

		again2, err := q.RecordBug(ctx, r)
		require.NoError(t, err)
		assert.False(t, again2.Reopened, "an open bug is not reopened")

		_, err = q.MarkFixed(ctx, "0000000000000000")
		require.ErrorIs(t, err, ErrUnknownBug)
		require.ErrorIs(t, err, graph.ErrNotFound)
	})
}

func TestBugsFilterUsesStore(t *testing.T) {
	st := newQAFakeStore()
	q, _ := newTestQA(t, st)
	ctx := context.Background()
	_, err := q.Bugs(ctx, BugOpen)
	require.NoError(t, err)
	require.NotEmpty(t, st.queries)
	assert.Equal(t, graph.Filter{graph.Eq("status", "open")}, st.queries[len(st.queries)-1].Filter)
	for _, o := range st.puts {
		assert.True(t, o.NoIndex || len(o.Index) > 0)
	}
}

func TestBugsPaging(t *testing.T) {
	q, _ := newTestQA(t, newQAFakeStore())
	ctx := context.Background()
	n := qaPageSize + 7
	for i := range n {
		_, err := q.RecordBug(ctx, BugReport{Kind: fmt.Sprintf("kind_%c%c", 'a'+i%26, 'a'+i/26), URL: "/"})
		require.NoError(t, err)
	}
	bugs, err := q.Bugs(ctx, "")
	require.NoError(t, err)
	assert.Len(t, bugs, n, "listing pages through the store")
}

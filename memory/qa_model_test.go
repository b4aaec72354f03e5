package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const qaTestOrigin = "http://shop.test:8080"

// qaStoreCase is a Store back-end the QA tests run on.
type qaStoreCase struct {
	name string
	new  func(t *testing.T) graph.Store
}

// qaStoreCases lists the back-ends the QA tests run on.
func qaStoreCases() []qaStoreCase {
	return []qaStoreCase{
		{"fake", func(*testing.T) graph.Store { return newQAFakeStore() }},
		{"in-memory", func(*testing.T) graph.Store { return NewInMemoryStore() }},
		{"bbolt", func(t *testing.T) graph.Store { return qaOpenBolt(t, filepath.Join(t.TempDir(), "qa.db")) }},
	}
}

func newTestQA(t *testing.T, st graph.Store) (*QA, *qaClock) {
	t.Helper()
	clock := newQAClock()
	q, err := NewQA(st, qaTestOrigin, WithQAClock(clock.Now), WithQALogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	return q, clock
}

// forEachStore runs f once per back-end.
func forEachStore(t *testing.T, f func(t *testing.T, q *QA, clock *qaClock)) {
	for _, sc := range qaStoreCases() {
		t.Run(sc.name, func(t *testing.T) {
			q, clock := newTestQA(t, sc.new(t))
			f(t, q, clock)
		})
	}
}

func TestNewQA(t *testing.T) {
	st := newQAFakeStore()
	q, err := NewQA(st, "HTTP://Shop.Test:8080/landing")
	require.NoError(t, err)
	assert.Equal(t, "http://shop.test:8080", q.Origin())
	assert.Equal(t, []string{"qa", q.AppID(), "bugs"}, q.Namespace(KindBugs))

	other, err := NewQA(st, "http://other.test")
	require.NoError(t, err)
	assert.NotEqual(t, q.AppID(), other.AppID())

	_, err = NewQA(nil, qaTestOrigin)
	require.ErrorIs(t, err, ErrInvalidQAInput)
	_, err = NewQA(st, "not a url")
	require.ErrorIs(t, err, ErrInvalidQAInput)
}

func TestQAPage(t *testing.T) {
	q, _ := newTestQA(t, newQAFakeStore())
	tests := []struct{ in, want string }{
		{"/items/3", "/items/{n}"},
		{"items/3", "/items/{n}"},
		{"http://shop.test:8080/items/3?b=1&a=2", "/items/{n}?a={n}&b={n}"},
		{"HTTP://SHOP.TEST:8080/cart", "/cart"},
		{"https://cdn.test/lib.js", "//cdn.test/lib.js"},
	}
	for _, tt := range tests {
		got, err := q.Page(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	for _, bad := range []string{"", "  ", "http://[::1", "about:blank", "mailto:qa@shop.test"} {
		_, err := q.Page(bad)
		require.ErrorIs(t, err, ErrInvalidQAInput, "%q", bad)
	}
}

func TestPagesSelectorsQuirks(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, clock *qaClock) {
		ctx := context.Background()
		p, err := q.RecordPageVisit(ctx, "/items/1", "Item one")
		require.NoError(t, err)
		assert.Equal(t, 1, p.Visits)
		clock.Add(time.Minute)
		p, err = q.RecordPageVisit(ctx, "/items/2", "")
		require.NoError(t, err)
		assert.Equal(t, 2, p.Visits, "ids share a page")
		assert.Equal(t, "Item one", p.Title, "an empty title keeps the old one")
		assert.Equal(t, qaTestOrigin+"/items/2", p.URL)
		assert.True(t, p.LastSeen.After(p.FirstSeen))
		_, err = q.RecordPageVisit(ctx, "/cart", "Cart")
		require.NoError(t, err)
		pages, err := q.Pages(ctx)
		require.NoError(t, err)
		require.Len(t, pages, 2)
		assert.Equal(t, "/items/{n}", pages[0].Page)
		_, err = q.RecordPageVisit(ctx, "", "x")
		require.ErrorIs(t, err, ErrInvalidQAInput)

		for _, ok := range []bool{true, false, false} {
			_, err = q.RecordSelector(ctx, "/cart", "#checkout", ok, "timeout 30000ms")
			require.NoError(t, err)
		}
		_, err = q.RecordSelector(ctx, "/cart", "role=button[name=Pay]", true, "")
		require.NoError(t, err)
		sels, err := q.Selectors(ctx)
		require.NoError(t, err)
		require.Len(t, sels, 2)
		assert.Equal(t, SelectorRecord{Page: "/cart", Selector: "#checkout", Successes: 1, Failures: 2, LastError: "timeout 30000ms", LastSeen: clock.Now()}, sels[0])
		_, err = q.RecordSelector(ctx, "/cart", " ", true, "")
		require.ErrorIs(t, err, ErrInvalidQAInput)

		k, err := q.AddQuirk(ctx, "/cart", "Pay is enabled only after 2 seconds", "new_user")
		require.NoError(t, err)
		assert.Equal(t, 1, k.Count)
		k, err = q.AddQuirk(ctx, "/cart", "pay is enabled only after 3  seconds", "power_user")
		require.NoError(t, err)
		assert.Equal(t, 2, k.Count, "same normalised text is one quirk")
		assert.Equal(t, "new_user", k.Persona)
		_, err = q.AddQuirk(ctx, "/cart", "", "")
		require.ErrorIs(t, err, ErrInvalidQAInput)
		quirks, err := q.Quirks(ctx)
		require.NoError(t, err)
		assert.Len(t, quirks, 1)
	})
}

func TestObservationsSessionsProcedures(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, clock *qaClock) {
		ctx := context.Background()
		o1, err := q.AddObservation(ctx, Observation{Text: "first", Page: "/items/9", Persona: "new_user"})
		require.NoError(t, err)
		assert.Equal(t, "/items/{n}", o1.Page)
		assert.NotEmpty(t, o1.ID)
		clock.Add(time.Second)
		o2, err := q.AddObservation(ctx, Observation{Text: "first"})
		require.NoError(t, err)
		assert.NotEqual(t, o1.ID, o2.ID, "equal notes are still two observations")
		obs, err := q.Observations(ctx)
		require.NoError(t, err)
		require.Len(t, obs, 2)
		assert.Equal(t, o2.ID, obs[0].ID, "newest first")
		_, err = q.AddObservation(ctx, Observation{Text: " "})
		require.ErrorIs(t, err, ErrInvalidQAInput)
		_, err = q.AddObservation(ctx, Observation{Text: "x", Page: "http://[::1"})
		require.ErrorIs(t, err, ErrInvalidQAInput)

		require.NoError(t, q.SaveSession(ctx, SessionSummary{ThreadID: "m-1", Personas: []string{"adversarial"}, Pages: []string{"/items/1", "/items/2", "/cart"}, Summary: "ok"}))
		clock.Add(time.Hour)
		require.NoError(t, q.SaveSession(ctx, SessionSummary{ThreadID: "m-2", Summary: "second"}))
		require.NoError(t, q.SaveSession(ctx, SessionSummary{ThreadID: "m-1", Personas: []string{"adversarial"}, Pages: []string{"/items/1"}, Summary: "replaced", Ended: clock.Now().Add(time.Hour)}))
		sessions, err := q.Sessions(ctx)
		require.NoError(t, err)
		require.Len(t, sessions, 2)
		assert.Equal(t, "m-2", sessions[0].ThreadID)
		assert.Equal(t, "replaced", sessions[1].Summary)
		assert.Equal(t, []string{"/items/{n}"}, sessions[1].Pages)
		require.ErrorIs(t, q.SaveSession(ctx, SessionSummary{}), ErrInvalidQAInput)

		_, err = q.Procedure(ctx, "adversarial")
		require.ErrorIs(t, err, graph.ErrNotFound)
		sup, err := q.Supplement(ctx, "adversarial")
		require.NoError(t, err)
		assert.Empty(t, sup)
		require.NoError(t, q.SetProcedure(ctx, "adversarial", "Try SQL quotes on /search."))
		p, err := q.Procedure(ctx, "adversarial")
		require.NoError(t, err)
		assert.Equal(t, Procedure{Persona: "adversarial", Supplement: "Try SQL quotes on /search.", Source: "manual", UpdatedAt: clock.Now()}, p)
		require.ErrorIs(t, q.SetProcedure(ctx, "", "x"), ErrInvalidQAInput)

		rules, err := q.RoutingRules(ctx)
		require.NoError(t, err)
		assert.Empty(t, rules)
		want := []RoutingRule{{Page: "/cart", Persona: "impatient", Reason: "double submits"}, {Keyword: "a11y", Persona: "accessibility"}}
		require.NoError(t, q.SetRoutingRules(ctx, want))
		rules, err = q.RoutingRules(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, rules)
		procs, err := q.Procedures(ctx)
		require.NoError(t, err)
		require.Len(t, procs, 1, "routing rules are not a persona procedure")
		require.ErrorIs(t, q.SetRoutingRules(ctx, []RoutingRule{{Page: "/x"}}), ErrInvalidQAInput)
	})
}

func TestRoutingRuleString(t *testing.T) {
	tests := []struct {
		r    RoutingRule
		want string
	}{
		{RoutingRule{Persona: "explorer"}, "always: prefer explorer"},
		{RoutingRule{Page: "/cart", Persona: "impatient", Reason: "double submits"}, "on /cart: prefer impatient (double submits)"},
		{RoutingRule{Keyword: "a11y", Persona: "accessibility"}, `for missions about "a11y": prefer accessibility`},
		{RoutingRule{Page: "/cart", Keyword: "pay", Persona: "impatient"}, `on /cart or for missions about "pay": prefer impatient`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.r.String())
	}
}

func TestStoreErrorsAreWrapped(t *testing.T) {
	st := newQAFakeStore()
	q, _ := newTestQA(t, st)
	boom := errors.New("disk full")
	st.failPut = boom
	_, err := q.RecordPageVisit(context.Background(), "/a", "")
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "pages")
	_, err = q.RecordBug(context.Background(), BugReport{Kind: "x", URL: "/a"})
	require.ErrorIs(t, err, boom)
}

func TestCorruptItemsAreSkipped(t *testing.T) {
	st := newQAFakeStore()
	q, _ := newTestQA(t, st)
	ctx := context.Background()
	_, err := q.RecordBug(ctx, BugReport{Kind: "x", URL: "/a"})
	require.NoError(t, err)
	require.NoError(t, st.Put(ctx, q.Namespace(KindBugs), "broken", []byte(`{"seen_count":"many"}`), nil))
	bugs, err := q.Bugs(ctx, "")
	assert.Len(t, bugs, 1, "the readable entries come back")
	var ce *CorruptRecordsError
	require.ErrorAs(t, err, &ce, "with the unreadable ones listed")
	require.Len(t, ce.Records, 1)
	assert.Equal(t, "broken", ce.Records[0].Key)
	assert.Equal(t, q.Namespace(KindBugs), ce.Records[0].Namespace)
	assert.True(t, IsCorruptOnly(err))
	_, err = q.Bug(ctx, "broken")
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "decode")
}

func TestConcurrentUpdatesAreSerialised(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, _ *qaClock) {
		ctx := context.Background()
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := q.RecordBug(ctx, BugReport{Kind: "http_5xx", URL: fmt.Sprintf("/items/%d", i), Evidence: fmt.Sprintf("GET /api/items/%d 500", i)})
				assert.NoError(t, err)
				_, err = q.RecordPageVisit(ctx, "/items/1", "")
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		bugs, err := q.Bugs(ctx, BugOpen)
		require.NoError(t, err)
		require.Len(t, bugs, 1)
		assert.Equal(t, 20, bugs[0].SeenCount)
		pages, err := q.Pages(ctx)
		require.NoError(t, err)
		require.Len(t, pages, 1)
		assert.Equal(t, 20, pages[0].Visits)
	})
}

package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKindWeight(t *testing.T) {
	w := DefaultRiskWeights()
	tests := []struct {
		kind string
		want float64
	}{
		{"xss_executed", 1.5}, {"HTTP_5XX", 1.25}, {"console_error", 0.75}, {"axe_violation", 0.75},
		{"slow_response", 0.5}, {"dead_control", 0.5}, {"something_new", 1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, w.KindWeight(tt.kind), tt.kind)
	}
}

func TestPageRiskOrdering(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, clock *qaClock) {
		ctx := context.Background()
		rec := func(r BugReport) BugEntry {
			t.Helper()
			out, err := q.RecordBug(ctx, r)
			require.NoError(t, err)
			return out.Entry
		}
		// /checkout: a critical server error, seen twice.
		rec(BugReport{Kind: "http_5xx", Severity: "critical", URL: "/checkout", Evidence: "POST /api/pay 500"})
		rec(BugReport{Kind: "http_5xx", Severity: "critical", URL: "/checkout", Evidence: "POST /api/pay 500"})
		// /search: a low console error and a quirk.
		rec(BugReport{Kind: "console_error", Severity: "low", URL: "/search?q=x", Evidence: "warning"})
		_, err := q.AddQuirk(ctx, "/search", "results load lazily", "")
		require.NoError(t, err)
		// /profile: only selector failures.
		for range 3 {
			_, err := q.RecordSelector(ctx, "/profile", "#save", false, "")
			require.NoError(t, err)
		}
		// /about: a fixed bug does not count.
		fixed := rec(BugReport{Kind: "page_error", Severity: "critical", URL: "/about", Evidence: "x"})
		_, err = q.MarkFixed(ctx, fixed.Fingerprint)
		require.NoError(t, err)
		// /help: visited, no findings: not a risk.
		_, err = q.RecordPageVisit(ctx, "/help", "Help")
		require.NoError(t, err)

		risks, err := q.PageRisks(ctx)
		require.NoError(t, err)
		var pages []string
		for _, r := range risks {
			pages = append(pages, r.Page)
		}
		// /search?q=x holds the bug, /search the quirk: they are distinct pages.
		assert.Equal(t, []string{"/checkout", "/profile", "/search", "/search?q=x"}, pages)
		assert.Equal(t, 1, risks[0].OpenBugs)
		assert.Equal(t, qaTestOrigin+"/checkout", risks[0].URL)
		assert.Equal(t, 3, risks[1].SelectorFailures)
		for i := 1; i < len(risks); i++ {
			assert.GreaterOrEqual(t, risks[i-1].Score, risks[i].Score)
		}

		top, err := q.HighRiskPages(ctx, 2)
		require.NoError(t, err)
		assert.Equal(t, risks[:2], top)
		all, err := q.HighRiskPages(ctx, 0)
		require.NoError(t, err)
		assert.Len(t, all, len(risks))
	})
}

func TestPageRiskRecencyAndRegressions(t *testing.T) {
	q, clock := newTestQA(t, newQAFakeStore())
	ctx := context.Background()
	_, err := q.RecordBug(ctx, BugReport{Kind: "page_error", URL: "/old", Evidence: "e"})
	require.NoError(t, err)
	clock.Add(14 * 24 * time.Hour) // two half-lives
	_, err = q.RecordBug(ctx, BugReport{Kind: "page_error", URL: "/new", Evidence: "e"})
	require.NoError(t, err)
	risks, err := q.PageRisks(ctx)
	require.NoError(t, err)
	require.Len(t, risks, 2)
	assert.Equal(t, "/new", risks[0].Page)
	assert.InDelta(t, risks[0].Score/4, risks[1].Score, 0.01, "two half-lives quarter the score")

	// A regression outweighs an equal bug that never regressed.
	q2, _ := newTestQA(t, newQAFakeStore())
	r := BugReport{Kind: "page_error", URL: "/a", Evidence: "e"}
	first, err := q2.RecordBug(ctx, r)
	require.NoError(t, err)
	_, err = q2.MarkFixed(ctx, first.Entry.Fingerprint)
	require.NoError(t, err)
	_, err = q2.RecordBug(ctx, r)
	require.NoError(t, err)
	_, err = q2.RecordBug(ctx, BugReport{Kind: "page_error", URL: "/b", Evidence: "e"})
	require.NoError(t, err)
	_, err = q2.RecordBug(ctx, BugReport{Kind: "page_error", URL: "/b", Evidence: "e"})
	require.NoError(t, err)
	risks, err = q2.PageRisks(ctx)
	require.NoError(t, err)
	require.Len(t, risks, 2)
	assert.Equal(t, "/a", risks[0].Page, "same seen count, but /a regressed")
}

func TestSupervisorContext(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, _ *qaClock) {
		ctx := context.Background()
		empty, err := q.SupervisorContext(ctx, 0)
		require.NoError(t, err)
		assert.Contains(t, empty, "No known risks yet")
		assert.Contains(t, empty, qaTestOrigin)

		_, err = q.RecordBug(ctx, BugReport{Kind: "http_5xx", Severity: "high", URL: "/orders/12", Title: "Order page 500", Evidence: "GET /api/orders/12 500"})
		require.NoError(t, err)
		_, err = q.AddQuirk(ctx, "/login", "the form needs a blur before submit", "")
		require.NoError(t, err)
		require.NoError(t, q.SetRoutingRules(ctx, []RoutingRule{{Page: "/orders/{n}", Persona: "adversarial", Reason: "found 1 open bug there"}}))

		text, err := q.SupervisorContext(ctx, 0)
		require.NoError(t, err)
		for _, want := range []string{"High-risk pages:", "- /orders/{n} (risk", "Open bugs:", "[high] http_5xx on /orders/{n}", "Order page 500",
			"Known quirks:", "/login: the form needs a blur before submit", "Routing rules:", "on /orders/{n}: prefer adversarial"} {
			assert.Contains(t, text, want)
		}
		assert.NotContains(t, text, "truncated")
		assert.LessOrEqual(t, utf8.RuneCountInString(text), DefaultContextChars)
	})
}

func TestSupervisorContextCap(t *testing.T) {
	q, _ := newTestQA(t, newQAFakeStore())
	ctx := context.Background()
	for i := range 30 {
		_, err := q.RecordBug(ctx, BugReport{Kind: fmt.Sprintf("kind_%c", 'a'+i%26), URL: fmt.Sprintf("/page%c/x", 'a'+i%26), Title: strings.Repeat("é", 80)})
		require.NoError(t, err)
		_, err = q.AddQuirk(ctx, fmt.Sprintf("/page%c/x", 'a'+i%26), fmt.Sprintf("quirk %c %s", 'a'+i%26, strings.Repeat("ü", 100)), "")
		require.NoError(t, err)
	}
	full, err := q.SupervisorContext(ctx, 100000)
	require.NoError(t, err)
	assert.NotContains(t, full, "truncated")
	assert.Contains(t, full, "(top 5 of 26)", "sections say when they show only the top")

	for _, max := range []int{40, 200, 700, 1500} {
		text, err := q.SupervisorContext(ctx, max)
		require.NoError(t, err)
		assert.LessOrEqual(t, utf8.RuneCountInString(text), max, "cap %d", max)
		assert.Contains(t, text, "truncated", "cap %d", max)
		if max >= 200 {
			assert.Contains(t, text, "QA memory for", "the header survives cap %d", max)
			assert.Regexp(t, `\(truncated: \d+ more lines omitted\)$`, text)
		}
	}
	tiny, err := q.SupervisorContext(ctx, 5)
	require.NoError(t, err)
	assert.LessOrEqual(t, utf8.RuneCountInString(tiny), 5)
}

func TestRegressionMissions(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, _ *qaClock) {
		ctx := context.Background()
		none, err := q.RegressionMissions(ctx)
		require.NoError(t, err)
		assert.Empty(t, none)

		reports := []BugReport{
			{Kind: "http_5xx", Severity: "critical", URL: "/items/1", Evidence: "GET /api/items/1 500", Persona: "adversarial", Payload: "' OR 1=1 --"},
			{Kind: "console_error", URL: "/items/2", Evidence: "TypeError: price undefined", Persona: "new_user"},
			{Kind: "xss_executed", Severity: "high", URL: "/search?q=%3Cscript%3E", Evidence: "alert fired", Persona: "adversarial"},
			{Kind: "page_error", URL: "/about", Evidence: "fixed later"},
			{Kind: "slow_response", Severity: "low", URL: "/reports", Evidence: "GET /api/reports took 4200ms"},
		}
		var fixedFP string
		for _, r := range reports {
			out, err := q.RecordBug(ctx, r)
			require.NoError(t, err)
			if r.URL == "/about" {
				fixedFP = out.Entry.Fingerprint
			}
		}
		_, err = q.MarkFixed(ctx, fixedFP)
		require.NoError(t, err)

		missions, err := q.RegressionMissions(ctx)
		require.NoError(t, err)
		open, err := q.Bugs(ctx, BugOpen)
		require.NoError(t, err)

		covered := map[string]string{}
		pages := map[string]bool{}
		for _, m := range missions {
			assert.False(t, pages[m.Page], "one mission per page: %s", m.Page)
			pages[m.Page] = true
			assert.True(t, strings.HasPrefix(m.StartURL, qaTestOrigin+"/"), m.StartURL)
			assert.True(t, strings.HasPrefix(m.ThreadID, "regression-"+q.AppID()+"-"), m.ThreadID)
			for _, fp := range m.Fingerprints {
				covered[fp] = m.Page
				assert.Contains(t, m.Prompt, fp)
			}
		}
		require.Len(t, covered, len(open), "every open bug is covered")
		for _, b := range open {
			assert.Equal(t, b.Page, covered[b.Fingerprint])
		}
		assert.NotContains(t, covered, fixedFP)
		assert.Len(t, missions, 3, "/items/{n}, /search?q={v}, /reports")
		assert.Equal(t, "/items/{n}", missions[0].Page, "riskiest page first")
		assert.Len(t, missions[0].Fingerprints, 2)
		assert.Equal(t, []string{"adversarial", "new_user"}, missions[0].Personas)
		assert.Contains(t, missions[0].Prompt, "' OR 1=1 --")

		again, err := q.RegressionMissions(ctx)
		require.NoError(t, err)
		assert.Equal(t, missions, again, "deterministic")
	})
}

func TestWithRiskWeights(t *testing.T) {
	ctx := context.Background()
	seed := func(q *QA) {
		_, err := q.RecordBug(ctx, BugReport{Kind: "slow_response", Severity: "high", URL: "/reports", Evidence: "4s"})
		require.NoError(t, err)
		_, err = q.AddQuirk(ctx, "/settings", "autosaves on blur", "")
		require.NoError(t, err)
	}
	def, _ := newTestQA(t, newQAFakeStore())
	seed(def)
	top, err := def.HighRiskPages(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, "/reports", top[0].Page, "by default a high bug outweighs a quirk")

	w := DefaultRiskWeights()
	w.Quirk = 10
	w.Kinds = []KindWeight{{Contains: "SLOW", Weight: 0.1}}
	custom, err := NewQA(newQAFakeStore(), qaTestOrigin, WithRiskWeights(w))
	require.NoError(t, err)
	seed(custom)
	top, err = custom.HighRiskPages(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, "/settings", top[0].Page, "custom weights reorder the pages")
	assert.Equal(t, 0.1, w.KindWeight("slow_response"))
}

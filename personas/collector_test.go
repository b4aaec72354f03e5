package personas

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePage is a browser user on one unchanging page.
type fakePage struct{}

func (p *fakePage) User() string { return "fake" }

func (p *fakePage) Do(_ context.Context, in browser.Intent) browser.Result {
	r := browser.Result{OK: true, Action: in.Action, URL: "http://app/", Title: "Home"}
	if in.Action == browser.ActSnapshot {
		r.Snapshot = &browser.Snapshot{URL: r.URL, Title: r.Title, Text: `- heading "Home" [level=1]`}
	}
	return r
}

// evalPage can also run scripts, as *browser.Session can.
type evalPage struct{ fakePage }

func (*evalPage) Evaluate(context.Context, string, any) (any, error) {
	return nil, nil
}

// fakeCollector relays one slow request per action and has one
// accessibility violation to hand over.
type fakeCollector struct {
	n     int
	waits []time.Duration
	pages []collector.Evaluator
}

func (c *fakeCollector) Mark() int { return c.n }

func (c *fakeCollector) RequestsSince(mark int) []collector.Request {
	if c.n == mark {
		c.n++ // the action's request
	}
	return []collector.Request{{Method: http.MethodGet, Path: "/report?id=1", Status: http.StatusOK, Duration: 3 * time.Second}}
}

func (c *fakeCollector) Violations(_ context.Context, page collector.Evaluator, wait time.Duration) ([]collector.Violation, error) {
	c.waits = append(c.waits, wait)
	c.pages = append(c.pages, page)
	if len(c.waits) > 1 {
		return nil, nil
	}
	return []collector.Violation{{URL: "http://app/", Rule: "image-alt", Impact: "critical", Help: "Images must have alternate text", Targets: []string{"img"}, HTML: "<img>"}}, nil
}

// Run hands the collector's requests and violations to the oracles after
// every action, waiting for the page's scan at most AuditTimeout; a page
// that cannot evaluate scripts gives no violations and the run goes on.
func TestRunReadsTheCollector(t *testing.T) {
	page, col := &evalPage{}, &fakeCollector{}
	p := scripted("script", browser.Intent{Action: browser.ActScroll})
	rep, err := Run(context.Background(), page, p, RunOptions{Start: "http://app/", Collector: col, AuditTimeout: 1500 * time.Millisecond, Grace: -1})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{1500 * time.Millisecond, 1500 * time.Millisecond}, col.waits, "after the start and after the one step")
	for _, ev := range col.pages {
		assert.Same(t, page, ev)
	}
	var titles []string
	for _, f := range rep.Findings {
		titles = append(titles, string(f.Kind)+": "+f.Title)
	}
	assert.Contains(t, titles, "a11y: axe image-alt (critical): Images must have alternate text")
	assert.True(t, slices.ContainsFunc(titles, func(s string) bool { return strings.HasPrefix(s, "slow_response: GET /report?id=1 took 3s") }), "%v", titles)

	col = &fakeCollector{}
	rep, err = Run(context.Background(), &fakePage{}, p, RunOptions{Start: "http://app/", Collector: col, Grace: -1})
	require.NoError(t, err)
	assert.Empty(t, col.waits, "a page without Evaluate is not asked")
	assert.True(t, slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Kind == KindSlow }), "the requests still count")

	var none *collector.Collector
	rep, err = Run(context.Background(), &evalPage{}, p, RunOptions{Start: "http://app/", Collector: none, Grace: -1})
	require.NoError(t, err, "a nil *collector.Collector is no collector")
	assert.Len(t, rep.Tape, 2)
}

package eval

import (
	"context"
	"strings"
	"testing"

	"github.com/agentgraph/agentgraph/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

func TestModelAgent(t *testing.T) {
	f := newFixture(t)
	s := loadSuite(t, buySuite)
	s.Tasks[0].Checks.Visual = nil
	ctx := context.Background()

	cases := []struct {
		name      string
		replies   []llm.Reply
		steps     int
		claimed   bool
		pass      bool
		falseClms int
	}{
		{"buys and finishes", []llm.Reply{
			llm.Say("1. click Buy Pro"),
			llm.Say(`{"intent":{"action":"click","target":"testid=buy"}}`),
			llm.Say(`Done: {"done":true,"success":true,"answer":"bought Pro"}`),
		}, 1, true, true, 0},
		{"claims without acting", []llm.Reply{
			llm.Say("1. say it is done"),
			llm.Say(`{"done":true,"success":true,"answer":"bought"}`),
		}, 0, true, false, 1},
		{"budget is a hard limit", []llm.Reply{
			llm.Say("1. look around"),
			llm.Say(`{"intent":{"action":"scroll","direction":"down"}}`),
			llm.Say(`not json at all`),
			llm.Say(`{"intent":{"action":"extract_text"}}`),
			llm.Say(`{"intent":{"action":"click","target":"testid=buy"}}`), // never asked: 3 steps spent
		}, 3, false, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := llm.NewScripted(c.replies...)
			r := &Runner{Harness: testHarness, Suite: s, Agent: &ModelAgent{Model: m}, BaseURL: f.app.URL}
			rep, err := r.Run(ctx)
			require.NoError(t, err)
			row := rep.Rows[0]
			assert.Empty(t, row.Error)
			assert.Equal(t, c.steps, row.Steps)
			assert.Equal(t, c.claimed, row.Claimed)
			assert.Equal(t, c.pass, row.Pass)
			assert.Len(t, rep.FalseClaims, c.falseClms)
			if c.name == "budget is a hard limit" {
				assert.Equal(t, 1, m.Remaining(), "the model is not asked past the budget")
				var sawBad bool
				for _, call := range m.Calls() {
					for _, msg := range call.Messages {
						for _, p := range msg.Parts {
							if tp, ok := p.(llms.TextContent); ok && strings.Contains(tp.Text, "not a JSON decision") {
								sawBad = true
							}
						}
					}
				}
				assert.True(t, sawBad, "an unusable reply is shown to the model")
			}
		})
	}

	// a failing model is an error on the row, not a panic
	r := &Runner{Harness: testHarness, Suite: s, Agent: &ModelAgent{Model: llm.NewScripted()}, BaseURL: f.app.URL}
	rep, err := r.Run(ctx)
	require.NoError(t, err)
	assert.Contains(t, rep.Rows[0].Error, "plan")
	assert.False(t, rep.Rows[0].Pass)
}

// pageAgent drives Playwright itself on a page of its own and exposes it
// as its final page: the graders grade that page, not the session's.
type pageAgent struct{ buy bool }

func (a *pageAgent) Name() string { return "own-page" }

func (a *pageAgent) Attempt(ctx context.Context, st Stage) (Claim, error) {
	p, err := st.Page.Context().NewPage()
	if err != nil {
		return Claim{}, err
	}
	if _, err := p.Goto(st.StartURL); err != nil {
		return Claim{}, err
	}
	steps := 1
	if a.buy {
		if err := p.Locator("[data-testid=buy]").Click(); err != nil {
			return Claim{}, err
		}
		steps++
	}
	return Claim{Success: true, Steps: steps, Page: p}, nil
}

func TestAgentWithOwnPage(t *testing.T) {
	f := newFixture(t)
	s := loadSuite(t, buySuite)
	s.Tasks[0].Checks.Visual = nil
	for _, buy := range []bool{true, false} {
		r := &Runner{Harness: testHarness, Suite: s, Agent: &pageAgent{buy: buy}, BaseURL: f.app.URL}
		rep, err := r.Run(context.Background())
		require.NoError(t, err)
		row := rep.Rows[0]
		require.Empty(t, row.Error)
		assert.Equal(t, buy, row.Pass, "the agent's own page is graded")
		assert.Equal(t, !buy, row.FalseClaim)
	}
}

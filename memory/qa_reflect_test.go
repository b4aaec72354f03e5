package memory

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedBatch stores a batch of two sessions: adversarial found two bugs on
// /search and /items/{n} with payloads; new_user found one on /signup and
// visited /help twice without findings; a selector kept failing.
func seedBatch(t *testing.T, q *QA) {
	t.Helper()
	ctx := context.Background()
	bugs := []BugReport{
		{Kind: "xss_executed", Severity: "critical", URL: "/search?q=%3Cimg%3E", Evidence: "alert(1) fired", Payload: `<img src=x onerror=alert(1)>`, Persona: "adversarial", ThreadID: "m-1"},
		{Kind: "http_5xx", Severity: "high", URL: "/items/7", Evidence: "PUT /api/items/7 500", Payload: "-1", Persona: "adversarial", ThreadID: "m-1"},
		{Kind: "console_error", URL: "/signup", Evidence: "TypeError: e is null", Persona: "new_user", ThreadID: "m-2"},
	}
	for _, b := range bugs {
		_, err := q.RecordBug(ctx, b)
		require.NoError(t, err)
	}
	for range 3 {
		_, err := q.RecordSelector(ctx, "/signup", "#submit-btn", false, "not visible")
		require.NoError(t, err)
	}
	_, err := q.RecordSelector(ctx, "/signup", "text=Sign up", true, "")
	require.NoError(t, err)
	require.NoError(t, q.SaveSession(ctx, SessionSummary{ThreadID: "m-1", Personas: []string{"adversarial"}, Pages: []string{"/search", "/items/7"}, Bugs: []string{"x"}}))
	require.NoError(t, q.SaveSession(ctx, SessionSummary{ThreadID: "m-2", Personas: []string{"new_user"}, Pages: []string{"/signup", "/help"}}))
	require.NoError(t, q.SaveSession(ctx, SessionSummary{ThreadID: "m-3", Personas: []string{"new_user"}, Pages: []string{"/help"}}))
}

func TestReflectRules(t *testing.T) {
	forEachStore(t, func(t *testing.T, q *QA, _ *qaClock) {
		ctx := context.Background()
		seedBatch(t, q)
		out, err := q.Reflect(ctx, ReflectOptions{})
		require.NoError(t, err)
		assert.Empty(t, out.Fallbacks)
		require.Len(t, out.Procedures, 2)
		assert.Equal(t, "adversarial", out.Procedures[0].Persona)
		assert.Equal(t, "new_user", out.Procedures[1].Persona)

		adv, err := q.Procedure(ctx, "adversarial")
		require.NoError(t, err)
		assert.Equal(t, "rules", adv.Source)
		for _, want := range []string{"1 past session(s) of adversarial", "Pages where you found bugs", "/items/{n} (1)", "/search?q={v} (1)",
			`"-1"`, `"<img src=x onerror=alert(1)>"`, "xss_executed", "Open bugs found by others", "console_error on /signup",
			"#submit-btn on /signup (3 failures)"} {
			assert.Contains(t, adv.Supplement, want)
		}
		assert.NotContains(t, adv.Supplement, "text=Sign up", "a selector that works is not listed")

		nu, err := q.Supplement(ctx, "new_user")
		require.NoError(t, err)
		assert.Contains(t, nu, "2 past session(s) of new_user")
		assert.Contains(t, nu, "Visited often without findings (lower priority): /help (2)")
		assert.Contains(t, nu, "xss_executed on /search?q={v}")

		rules, err := q.RoutingRules(ctx)
		require.NoError(t, err)
		assert.Equal(t, out.RoutingRules, rules)
		assert.ElementsMatch(t, []RoutingRule{
			{Page: "/items/{n}", Persona: "adversarial", Reason: "found 1 open bug there"},
			{Page: "/search?q={v}", Persona: "adversarial", Reason: "found 1 open bug there"},
			{Page: "/signup", Persona: "new_user", Reason: "found 1 open bug there"},
		}, rules)

		ctxText, err := q.SupervisorContext(ctx, 0)
		require.NoError(t, err)
		assert.Contains(t, ctxText, "on /signup: prefer new_user")
	})
}

func TestRuleSupplementEmptyAndCapped(t *testing.T) {
	s := RuleSupplement(ReflectionInput{Persona: "explorer"})
	assert.Contains(t, s, "Nothing specific learned yet")

	in := ReflectionInput{Persona: "p"}
	for i := range 50 {
		in.Bugs = append(in.Bugs, BugEntry{Fingerprint: strings.Repeat("f", i+1), Kind: "k", Page: "/" + strings.Repeat("x", 200+i), Status: BugOpen, Personas: []string{"p"}, Payloads: []string{strings.Repeat("y", 100+i)}})
	}
	s = RuleSupplement(in)
	assert.LessOrEqual(t, utf8.RuneCountInString(s), maxSupplementRune)
	assert.Equal(t, s, RuleSupplement(in), "deterministic")
}

func TestReflectWithModelAndFallback(t *testing.T) {
	q, _ := newTestQA(t, NewInMemoryStore())
	ctx := context.Background()
	seedBatch(t, q)
	require.NoError(t, q.SetProcedure(ctx, "new_user", "old advice"))

	var seen []ReflectionInput
	model := ReflectorFunc(func(_ context.Context, in ReflectionInput) (string, error) {
		seen = append(seen, in)
		if in.Persona == "new_user" {
			return "", errors.New("model timeout")
		}
		return "Model says: fuzz the search box.", nil
	})
	out, err := q.Reflect(ctx, ReflectOptions{Reflector: model})
	require.NoError(t, err)
	require.Len(t, seen, 2)
	assert.Len(t, seen[0].Sessions, 1, "only the persona's sessions")
	assert.Len(t, seen[0].Bugs, 3)
	require.Len(t, seen[0].FailedSelectors, 1)
	assert.Equal(t, "#submit-btn", seen[0].FailedSelectors[0].Selector)
	assert.Equal(t, "old advice", seen[1].Current)

	adv, err := q.Procedure(ctx, "adversarial")
	require.NoError(t, err)
	assert.Equal(t, Procedure{Persona: "adversarial", Supplement: "Model says: fuzz the search box.", Source: "model", UpdatedAt: adv.UpdatedAt}, adv)
	nu, err := q.Procedure(ctx, "new_user")
	require.NoError(t, err)
	assert.Equal(t, "rules", nu.Source, "a failing model falls back to the rules")
	assert.Contains(t, nu.Supplement, "Pages where you found bugs")
	require.Contains(t, out.Fallbacks, "new_user")
	assert.EqualError(t, out.Fallbacks["new_user"], "model timeout")

	// An empty answer is a failure too; Personas limits the batch.
	out, err = q.Reflect(ctx, ReflectOptions{Personas: []string{"adversarial"}, Reflector: ReflectorFunc(func(context.Context, ReflectionInput) (string, error) { return "  ", nil })})
	require.NoError(t, err)
	require.Len(t, out.Procedures, 1)
	assert.Equal(t, "rules", out.Procedures[0].Source)
	assert.Contains(t, out.Fallbacks, "adversarial")
}

func TestReflectCancelled(t *testing.T) {
	q, _ := newTestQA(t, newQAFakeStore())
	seedBatch(t, q)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := q.Reflect(ctx, ReflectOptions{Reflector: ReflectorFunc(func(ctx context.Context, _ ReflectionInput) (string, error) { return "", ctx.Err() })})
	require.ErrorIs(t, err, context.Canceled)
}

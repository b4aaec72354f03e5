package explore

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func threads(ms []Mission) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ThreadID)
	}
	return out
}

func TestGoalTemplatesGo(t *testing.T) {
	ms, err := CreateTests(CreateTestsParams{Flow: "Checkout", Steps: []string{"add to cart", "pay."}, StartURL: "/shop", Budget: 40})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	assert.Equal(t, "tests-checkout", ms[0].ThreadID)
	assert.Equal(t, "/shop", ms[0].StartURL)
	assert.Equal(t, 40, ms[0].Budget)
	assert.Contains(t, ms[0].Prompt, "Create regression tests for the Checkout flow. Its steps: 1. add to cart. 2. pay.")

	ms, err = CompareVariants(CompareVariantsParams{Task: "Sign up as a new user", Budget: 25, Variants: []Variant{
		{Name: "A", StartURL: "/signup"}, {Name: "B", StartURL: "/signup-v2", Notes: "one-page form"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"compare-a", "compare-b"}, threads(ms))
	assert.Equal(t, 25, ms[0].Budget)
	assert.Equal(t, ms[0].Budget, ms[1].Budget, "the same budget for every variant")
	assert.Contains(t, ms[1].Prompt, `variant "B" (one-page form): Sign up as a new user.`)
	assert.Contains(t, ms[1].Prompt, "from the others (A)")

	ms, err = SimulateAllUsers(SimulateUsersParams{Goal: "Buy a desk", Budget: 20})
	require.NoError(t, err)
	var want []string
	for _, p := range append(StandardTeam(), AdvancedTeam()...) {
		want = append(want, threadName("user-"+p.Name))
	}
	assert.Equal(t, want, threads(ms), "every persona of both built-in teams")
	assert.Equal(t, TeamStandard, ms[0].Team)
	assert.Equal(t, TeamAdvanced, ms[len(ms)-1].Team)
	assert.Contains(t, ms[0].Prompt, "Simulate the user "+StandardTeam()[0].Name+" (")
	assert.Contains(t, ms[0].Prompt, "Buy a desk.")

	ms, err = SimulateAllUsers(SimulateUsersParams{Users: []User{{Name: "alice", Description: "an admin"}, {Name: "accessibility"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"user-alice", "user-accessibility"}, threads(ms))
	assert.Equal(t, TeamStandard, ms[0].Team)
	assert.Equal(t, TeamAdvanced, ms[1].Team, "a built-in persona's own team")

	ms, err = FullSeed(FullSeedParams{})
	require.NoError(t, err)
	assert.Equal(t, []string{"seed-standard", "seed-advanced"}, threads(ms))
	assert.Equal(t, DefaultFullSeedBudget, ms[0].Budget)
	ms, err = FullSeed(FullSeedParams{StartURLs: []string{"/", "/admin/users"}, Teams: []string{TeamAdvanced}, Budget: 100})
	require.NoError(t, err)
	assert.Equal(t, []string{"seed-advanced-root", "seed-advanced-admin-users"}, threads(ms))
	assert.Contains(t, ms[1].Prompt, "Explore everything reachable from /admin/users")

	for _, ms := range [][]Mission{ms} {
		for _, m := range ms {
			assert.LessOrEqual(t, len(m.Prompt), MaxPRMissionPrompt)
		}
	}
	long, err := CreateTests(CreateTestsParams{Flow: "x", Steps: []string{strings.Repeat("step ", 400)}})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(long[0].Prompt), MaxPRMissionPrompt, "prompts are capped")

	bad := []struct {
		err  error
		want string
	}{
		{second(CreateTests(CreateTestsParams{})), "flow is required"},
		{second(CreateTests(CreateTestsParams{Flow: "x", StartURL: "ftp://x"})), "start_url"},
		{second(CompareVariants(CompareVariantsParams{Task: "t", Variants: []Variant{{Name: "A"}}})), "at least two"},
		{second(CompareVariants(CompareVariantsParams{Task: "t", Variants: []Variant{{Name: "A"}, {Name: "A"}}})), "appears twice"},
		{second(CompareVariants(CompareVariantsParams{Variants: []Variant{{Name: "A"}, {Name: "B"}}})), "task is required"},
		{second(SimulateAllUsers(SimulateUsersParams{Users: []User{{Name: ""}}})), "name is required"},
		{second(SimulateAllUsers(SimulateUsersParams{Users: []User{{Name: "a", Team: "gold"}}})), `team "gold"`},
		{second(FullSeed(FullSeedParams{Teams: []string{"gold"}})), `team "gold"`},
		{second(FullSeed(FullSeedParams{Budget: -1})), "budget -1"},
	}
	for _, b := range bad {
		assert.ErrorContains(t, b.err, b.want)
	}
}

func second(_ []Mission, err error) error { return err }

func TestGoalTemplatesYAML(t *testing.T) {
	src := `missions:
  - thread_id: smoke
    prompt: Click around.
  - template: simulate_all_users
    params:
      goal: Buy a desk
      users: [{name: alice, description: an admin}, {name: power_user}]
      budget: 30
  - template: compare_variants
    params:
      task: Sign up
      variants:
        - {name: old, start_url: /signup}
        - {name: new, start_url: /signup-v2}
  - template: create_tests
    params: {flow: checkout, steps: [cart, pay]}
  - template: full_seed
`
	ms, err := ParseMissions("m.yaml", []byte(src))
	require.NoError(t, err)
	assert.Equal(t, []string{"smoke", "user-alice", "user-power_user", "compare-old", "compare-new", "tests-checkout", "seed-standard", "seed-advanced"}, threads(ms))
	assert.Equal(t, 30, ms[1].Budget)
	assert.Equal(t, "/signup-v2", ms[4].StartURL)

	// from a file, as --missions reads it
	path := t.TempDir() + "/missions.yaml"
	require.NoError(t, os.WriteFile(path, []byte("missions:\n  - template: full_seed\n    params: {budget: 50, teams: [standard]}\n"), 0o644))
	ms, err = LoadMissions(path)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	assert.Equal(t, Mission{ThreadID: "seed-standard", Team: TeamStandard, Budget: 50, StartURL: "/", Prompt: ms[0].Prompt}, ms[0])

	cases := []struct{ name, yaml, want string }{
		{"unknown template", "missions:\n  - template: moonshot\n", `line 2: mission 1: template moonshot: unknown template "moonshot" (want create_tests, compare_variants, simulate_all_users, full_seed)`},
		{"unknown param", "missions:\n  - template: full_seed\n    params: {budget: 5, colour: red}\n", "line 2: mission 1: template full_seed: params: field colour not found"},
		{"wrong type", "missions:\n  - template: full_seed\n    params: {budget: lots}\n", "line 2: mission 1: template full_seed: params: cannot unmarshal"},
		{"bad params", "missions:\n  - template: create_tests\n", "line 2: mission 1: template create_tests: create_tests: flow is required"},
		{"extra key on a template item", "missions:\n  - template: full_seed\n    budget: 5\n", "line 3: mission 1: field budget: a template item takes only template and params"},
		{"duplicate thread across", "missions:\n  - {thread_id: seed-standard, prompt: p}\n  - template: full_seed\n", `line 3: mission 2: thread_id "seed-standard" is already used on line 2`},
		{"unknown field beside a template", "missions:\n  - {thread_id: a, prompt: p, colour: red}\n  - template: full_seed\n", "line 2: field colour not found in type explore.Mission"},
		{"wrong type beside a template", "missions:\n  - {thread_id: a, prompt: p, budget: lots}\n  - template: full_seed\n", "line 2: cannot unmarshal"},
		{"second document", "missions:\n  - template: full_seed\n---\nmissions: []\n", "line 3: a second YAML document"},
		{"unknown top-level key", "colour: red\nmissions:\n  - template: full_seed\n", "line 1: field colour not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseMissions("m.yaml", []byte(c.yaml))
			var me *MissionsError
			require.True(t, errors.As(err, &me), "%v", err)
			assert.ErrorIs(t, err, ErrUsage)
			assert.Contains(t, strings.Join(me.Problems, "\n"), c.want)
		})
	}

	// ExpandTemplate from Go, with a YAML node
	var n yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("{flow: sign up}"), &n))
	ms, err = ExpandTemplate(TemplateCreateTests, n.Content[0])
	require.NoError(t, err)
	assert.Equal(t, "tests-sign-up", ms[0].ThreadID)
	ms, err = ExpandTemplate(TemplateFullSeed, nil)
	require.NoError(t, err)
	assert.Len(t, ms, 2)
}

// TestTemplateMissionsRun runs missions built by goal templates, offline on
// the demo app, with an observer: each template mission runs under its
// thread id and the observer sees each goal start, its steps and its end.
func TestTemplateMissionsRun(t *testing.T) {
	seed, err := FullSeed(FullSeedParams{Teams: []string{TeamStandard}, Budget: 4})
	require.NoError(t, err)
	tests, err := CreateTests(CreateTestsParams{Flow: "sign in", StartURL: "/signin", Budget: 4})
	require.NoError(t, err)
	var rec observe.Recorder
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{Missions: append(seed, tests...), ReportDir: t.TempDir(), Browser: testBrowser, Observer: &rec})
	require.NoError(t, err)
	require.Len(t, res.Missions, 2)
	assert.Equal(t, "seed-standard", res.Missions[0].Mission.ThreadID)
	assert.Equal(t, "tests-sign-in", res.Missions[1].Mission.ThreadID)
	starts, ends := rec.Of(observe.GoalStart), rec.Of(observe.GoalComplete)
	require.Len(t, starts, 2)
	require.Len(t, ends, 2)
	for i, m := range res.Missions {
		assert.Empty(t, m.Err)
		assert.Equal(t, m.Mission.ThreadID, starts[i].Goal)
		assert.Equal(t, m.Mission.Prompt, starts[i].Text)
		assert.Equal(t, i+1, starts[i].GoalIndex)
		assert.Equal(t, 2, starts[i].GoalTotal)
		assert.Equal(t, m.Steps, ends[i].Steps)
		steps := 0
		for _, ev := range rec.Of(observe.Step) {
			if ev.Goal == m.Mission.ThreadID {
				steps++
				assert.Equal(t, 4, ev.Budget)
			}
		}
		assert.Equal(t, m.Steps, steps, "%s: a step event per step", m.Mission.ThreadID)
	}
	assert.Contains(t, res.Missions[1].Explored, "/signin")
}

package explore

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func threads(ms []mission.Mission) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ThreadID)
	}
	return out
}

func TestGoalTemplatesGo(t *testing.T) {
	ms, err := mission.CreateTests(mission.CreateTestsParams{Flow: "Checkout", Steps: []string{"add to cart", "pay."}, StartURL: "/shop", Budget: 40})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	assert.Equal(t, "tests-checkout", ms[0].ThreadID)
	assert.Equal(t, "/shop", ms[0].StartURL)
	assert.Equal(t, 40, ms[0].Budget)
	assert.Contains(t, ms[0].Prompt, "Create regression tests for the Checkout flow. Its steps: 1. add to cart. 2. pay.")

	ms, err = mission.CompareVariants(mission.CompareVariantsParams{Task: "Sign up as a new user", Budget: 25, Variants: []mission.Variant{
		{Name: "A", StartURL: "/signup"}, {Name: "B", StartURL: "/signup-v2", Notes: "one-page form"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"compare-a", "compare-b"}, threads(ms))
	assert.Equal(t, 25, ms[0].Budget)
	assert.Equal(t, ms[0].Budget, ms[1].Budget, "the same budget for every variant")
	assert.Contains(t, ms[1].Prompt, `variant "B" (one-page form): Sign up as a new user.`)
	assert.Contains(t, ms[1].Prompt, "from the others (A)")

	ms, err = mission.SimulateAllUsers(mission.SimulateUsersParams{Goal: "Buy a desk", Budget: 20})
	require.NoError(t, err)
	var want []string
	for _, p := range append(mission.StandardTeam(), mission.AdvancedTeam()...) {
		want = append(want, mission.ThreadName("user-"+p.Name))
	}
	assert.Equal(t, want, threads(ms), "every persona of both built-in teams")
	assert.Equal(t, mission.TeamStandard, ms[0].Team)
	assert.Equal(t, mission.TeamAdvanced, ms[len(ms)-1].Team)
	assert.Contains(t, ms[0].Prompt, "Simulate the user "+mission.StandardTeam()[0].Name+" (")
	assert.Contains(t, ms[0].Prompt, "Buy a desk.")

	ms, err = mission.SimulateAllUsers(mission.SimulateUsersParams{Users: []mission.User{{Name: "alice", Description: "an admin"}, {Name: "accessibility"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"user-alice", "user-accessibility"}, threads(ms))
	assert.Equal(t, mission.TeamStandard, ms[0].Team)
	assert.Equal(t, mission.TeamAdvanced, ms[1].Team, "a built-in persona's own team")

	ms, err = mission.FullSeed(mission.FullSeedParams{})
	require.NoError(t, err)
	assert.Equal(t, []string{"seed-standard", "seed-advanced"}, threads(ms))
	assert.Equal(t, mission.DefaultFullSeedBudget, ms[0].Budget)
	ms, err = mission.FullSeed(mission.FullSeedParams{StartURLs: []string{"/", "/admin/users"}, Teams: []string{mission.TeamAdvanced}, Budget: 100})
	require.NoError(t, err)
	assert.Equal(t, []string{"seed-advanced-root", "seed-advanced-admin-users"}, threads(ms))
	assert.Contains(t, ms[1].Prompt, "Explore everything reachable from /admin/users")

	for _, ms := range [][]mission.Mission{ms} {
		for _, m := range ms {
			assert.LessOrEqual(t, len(m.Prompt), mission.MaxPRMissionPrompt)
		}
	}
	long, err := mission.CreateTests(mission.CreateTestsParams{Flow: "x", Steps: []string{strings.Repeat("step ", 400)}})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(long[0].Prompt), mission.MaxPRMissionPrompt, "prompts are capped")

	bad := []struct {
		err  error
		want string
	}{
		{second(mission.CreateTests(mission.CreateTestsParams{})), "flow is required"},
		{second(mission.CreateTests(mission.CreateTestsParams{Flow: "x", StartURL: "ftp://x"})), "start_url"},
		{second(mission.CompareVariants(mission.CompareVariantsParams{Task: "t", Variants: []mission.Variant{{Name: "A"}}})), "at least two"},
		{second(mission.CompareVariants(mission.CompareVariantsParams{Task: "t", Variants: []mission.Variant{{Name: "A"}, {Name: "A"}}})), "appears twice"},
		{second(mission.CompareVariants(mission.CompareVariantsParams{Variants: []mission.Variant{{Name: "A"}, {Name: "B"}}})), "task is required"},
		{second(mission.SimulateAllUsers(mission.SimulateUsersParams{Users: []mission.User{{Name: ""}}})), "name is required"},
		{second(mission.SimulateAllUsers(mission.SimulateUsersParams{Users: []mission.User{{Name: "a", Team: "gold"}}})), `team "gold"`},
		{second(mission.FullSeed(mission.FullSeedParams{Teams: []string{"gold"}})), `team "gold"`},
		{second(mission.FullSeed(mission.FullSeedParams{Budget: -1})), "budget -1"},
	}
	for _, b := range bad {
		assert.ErrorContains(t, b.err, b.want)
	}
}

func second(_ []mission.Mission, err error) error { return err }

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
	ms, err := mission.ParseMissions("m.yaml", []byte(src))
	require.NoError(t, err)
	assert.Equal(t, []string{"smoke", "user-alice", "user-power_user", "compare-old", "compare-new", "tests-checkout", "seed-standard", "seed-advanced"}, threads(ms))
	assert.Equal(t, 30, ms[1].Budget)
	assert.Equal(t, "/signup-v2", ms[4].StartURL)

	// from a file, as --missions reads it
	path := t.TempDir() + "/missions.yaml"
	require.NoError(t, os.WriteFile(path, []byte("missions:\n  - template: full_seed\n    params: {budget: 50, teams: [standard]}\n"), 0o644))
	ms, err = mission.LoadMissions(path)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	assert.Equal(t, mission.Mission{ThreadID: "seed-standard", Team: mission.TeamStandard, Budget: 50, StartURL: "/", Prompt: ms[0].Prompt}, ms[0])

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
			_, err := mission.ParseMissions("m.yaml", []byte(c.yaml))
			var me *mission.MissionsError
			require.True(t, errors.As(err, &me), "%v", err)
			assert.ErrorIs(t, err, ErrUsage)
			assert.Contains(t, strings.Join(me.Problems, "\n"), c.want)
		})
	}

	// ExpandTemplate from Go, with a YAML node
	var n yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("{flow: sign up}"), &n))
	ms, err = mission.ExpandTemplate(mission.TemplateCreateTests, n.Content[0])
	require.NoError(t, err)
	assert.Equal(t, "tests-sign-up", ms[0].ThreadID)
	ms, err = mission.ExpandTemplate(mission.TemplateFullSeed, nil)
	require.NoError(t, err)
	assert.Len(t, ms, 2)
}

// TestTemplateMissionsRun runs missions built by goal templates, offline on
// the demo app, with an observer: each template mission runs under its
// thread id and the observer sees each goal start, its steps and its end.
func TestTemplateMissionsRun(t *testing.T) {
	seed, err := mission.FullSeed(mission.FullSeedParams{Teams: []string{mission.TeamStandard}, Budget: 4})
	require.NoError(t, err)
	tests, err := mission.CreateTests(mission.CreateTestsParams{Flow: "sign in", StartURL: "/signin", Budget: 4})
	require.NoError(t, err)
	var rec observe.Recorder
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run(ctx, onDemo(t, Config{Missions: append(seed, tests...), ReportDir: t.TempDir(), Browser: testBrowser, Observer: &rec}))
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

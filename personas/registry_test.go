package personas

import (
	"strings"
	"sync"
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func names(ps []Persona) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func TestRegistryTeams(t *testing.T) {
	r := NewRegistry()
	std, err := r.Team(TeamStandard)
	require.NoError(t, err)
	assert.Equal(t, []string{NewUser, PowerUser, Adversarial}, names(std))
	adv, err := r.Team(TeamAdvanced)
	require.NoError(t, err)
	assert.Equal(t, []string{Accessibility, DataHeavy, Impatient, ReturningUser, Explorer}, names(adv))
	assert.Len(t, r.Names(), 8)
	assert.Equal(t, []string{TeamAdvanced, TeamStandard}, r.Teams())
	for _, p := range Builtins() {
		require.NoError(t, p.Validate(), p.Name)
		assert.NotEmpty(t, p.Focus, p.Name)
		assert.NotEmpty(t, p.Keywords, p.Name)
		assert.NotNil(t, p.Strategy(), p.Name)
		assert.NotEmpty(t, p.Tricks, "%s: what it does in the explorer's team", p.Name)
	}
	_, err = r.Team("nope")
	require.ErrorContains(t, err, `unknown team "nope"`)
}

func TestRegistryCustom(t *testing.T) {
	r := NewRegistry()
	custom := Persona{Name: "auditor", Role: "a compliance auditor", Keywords: []string{"gdpr", "consent"},
		NewStrategy: func() Strategy {
			return StrategyFunc(func(Step) (browser.Intent, error) { return browser.Intent{}, ErrDone })
		}}
	require.NoError(t, r.Register(custom))
	require.ErrorIs(t, r.Register(custom), ErrDuplicate)
	got, err := r.Get("auditor")
	require.NoError(t, err)
	assert.Equal(t, "a compliance auditor", got.Role)
	_, err = r.Get("ghost")
	require.ErrorIs(t, err, ErrUnknownPersona)
	assert.Contains(t, err.Error(), "auditor")

	require.NoError(t, r.SetTeam("compliance", "auditor", Accessibility))
	require.ErrorIs(t, r.SetTeam("broken", "ghost"), ErrUnknownPersona)
	require.Error(t, r.SetTeam("", "auditor"))
	rt, err := r.Route("Check GDPR consent banners on every page", "")
	require.NoError(t, err)
	assert.Equal(t, "compliance", rt.Team)
	assert.Equal(t, []string{"auditor", Accessibility}, names(rt.Personas))
}

func TestPersonaValidate(t *testing.T) {
	ok := func() Strategy { return nil }
	cases := []struct {
		p    Persona
		want string
	}{
		{Persona{Role: "r", NewStrategy: ok}, "no name"},
		{Persona{Name: "Two Words", Role: "r", NewStrategy: ok}, "lower case"},
		{Persona{Name: "x", NewStrategy: ok}, "no role"},
		{Persona{Name: "x", Role: "r", NewStrategy: ok, Tricks: []Trick{TrickXSS, "juggle"}}, `unknown trick "juggle"`},
	}
	for _, tc := range cases {
		err := tc.p.Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
	r := NewRegistry()
	require.Error(t, r.Register(Persona{Name: "x"}))
}

func TestRoute(t *testing.T) {
	r := NewRegistry()
	cases := []struct {
		mission, override string
		team              string
		personas          []string
		matched           string
	}{
		{"Smoke test the signup and onboarding flow", "", TeamStandard, nil, "onboarding"},
		{"Look for XSS and injection in the comment form", "", TeamStandard, nil, "xss"},
		{"Audit accessibility (WCAG) and keyboard only navigation", "", TeamAdvanced, nil, "accessibility"},
		{"Check pagination with many records", "", TeamAdvanced, nil, "pagination"},
		{"Double-submit the checkout, reload mid payment", "", TeamAdvanced, nil, "checkout"},
		{"Crawl everything, find broken links", "", TeamAdvanced, nil, "crawl"},
		{"Have a look around", "", TeamStandard, nil, ""},
		{"", "", TeamStandard, nil, ""},
		{"Audit accessibility", "standard", TeamStandard, nil, ""},
		{"Smoke test", "explorer, adversarial", "custom", []string{Explorer, Adversarial}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.mission+"|"+tc.override, func(t *testing.T) {
			rt, err := r.Route(tc.mission, tc.override)
			require.NoError(t, err)
			assert.Equal(t, tc.team, rt.Team)
			assert.Equal(t, tc.override != "", rt.Override)
			if tc.personas != nil {
				assert.Equal(t, tc.personas, names(rt.Personas))
			}
			if tc.matched != "" {
				assert.Contains(t, rt.Matched, tc.matched)
			} else if tc.override == "" {
				assert.Empty(t, rt.Matched)
			}
		})
	}
	_, err := r.Route("x", "explorer, ghost")
	require.ErrorIs(t, err, ErrUnknownPersona)
	// keywords match whole words only: "contrasting" is not "contrast"
	rt, err := r.Route("contrasting opinions", "")
	require.NoError(t, err)
	assert.Equal(t, TeamStandard, rt.Team)
}

func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_ = r.Register(Persona{Name: "p" + strings.Repeat("x", i), Role: "r", NewStrategy: func() Strategy { return nil }})
		}()
		go func() {
			defer wg.Done()
			_, _ = r.Route("accessibility audit", "")
			_ = r.Names()
		}()
	}
	wg.Wait()
	assert.Len(t, r.Names(), 16)
}

func TestSystemPrompt(t *testing.T) {
	p, err := NewRegistry().Get(Adversarial)
	require.NoError(t, err)
	got := p.SystemPrompt(PromptInput{
		App:        App{Name: "Shop", BaseURL: "http://127.0.0.1:8080", Description: "A small web shop.", Pages: []string{"/checkout: payment form"}},
		Mission:    "Break the checkout.",
		Supplement: "Payload <svg onload> found XSS on /reviews last time.",
	})
	for _, want := range []string{
		"You are adversarial, a hostile tester who feeds the app malicious and malformed input,",
		"## Application\nName: Shop\nURL: http://127.0.0.1:8080\nA small web shop.\n- /checkout: payment form",
		"## Mission\nBreak the checkout.",
		"## Focus\n- injection: XSS probes",
		"## Browser rules\nAct only through the browser tools",
		`{"action":"click","target":"e12"}`,
		"## Learned from earlier sessions\nPayload <svg onload> found XSS on /reviews last time.",
	} {
		assert.Contains(t, got, want)
	}
	for _, a := range browser.Actions() {
		assert.Contains(t, got, string(a))
	}
	// sections in order: role, app, focus, rules, supplement
	order := []string{"You are", "## Application", "## Mission", "## Focus", "## Browser rules", "## Learned"}
	last := -1
	for _, s := range order {
		i := strings.Index(got, s)
		require.Greater(t, i, last, s)
		last = i
	}
	// no supplement, custom rules: no empty sections
	bare := p.SystemPrompt(PromptInput{BrowserRules: "Only click."})
	assert.NotContains(t, bare, "## Learned")
	assert.NotContains(t, bare, "## Mission")
	assert.Contains(t, bare, "## Browser rules\nOnly click.\n")
}

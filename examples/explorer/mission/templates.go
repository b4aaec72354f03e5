package mission

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/personas"
	"go.yaml.in/yaml/v3"
)

// TemplateName names a goal template: a recipe that builds missions from a
// few parameters.
type TemplateName string

// The goal templates.
const (
	// TemplateCreateTests explores one flow step by step so that its tape
	// and the minimised reproductions become regression tests
	// (CreateTestsParams).
	TemplateCreateTests TemplateName = "create_tests"
	// TemplateCompareVariants runs the same task on each variant of a page
	// or feature, one mission per variant with the same budget, so their
	// results compare side by side (CompareVariantsParams).
	TemplateCompareVariants TemplateName = "compare_variants"
	// TemplateSimulateAllUsers runs one mission per user: the personas of
	// both built-in teams, or the users given (SimulateUsersParams).
	TemplateSimulateAllUsers TemplateName = "simulate_all_users"
	// TemplateFullSeed explores everything: one long mission per team and
	// start URL (FullSeedParams).
	TemplateFullSeed TemplateName = "full_seed"
)

// Templates lists the goal templates.
func Templates() []TemplateName {
	return []TemplateName{TemplateCreateTests, TemplateCompareVariants, TemplateSimulateAllUsers, TemplateFullSeed}
}

// CreateTestsParams are create_tests' parameters.
type CreateTestsParams struct {
	// Flow names the flow (required): "checkout", "sign up".
	Flow string `yaml:"flow"`
	// Steps are the flow's steps in order (optional).
	Steps    []string `yaml:"steps"`
	StartURL string   `yaml:"start_url"`
	Budget   int      `yaml:"budget"`
	// ThreadID defaults to tests-<flow>.
	ThreadID string `yaml:"thread_id"`
}

// Variant is one variant compare_variants explores.
type Variant struct {
	Name     string `yaml:"name"`
	StartURL string `yaml:"start_url"`
	Notes    string `yaml:"notes"`
}

// CompareVariantsParams are compare_variants' parameters.
type CompareVariantsParams struct {
	// Task is what to do in every variant (required).
	Task string `yaml:"task"`
	// Variants to compare (at least two, distinct names).
	Variants []Variant `yaml:"variants"`
	// Budget of each variant's mission (the same for all: 0 uses the run's).
	Budget int    `yaml:"budget"`
	Team   string `yaml:"team"`
}

// User is one user simulate_all_users plays.
type User struct {
	// Name is a persona name (new_user, power_user, …) or any name.
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Team defaults to the built-in team with that persona, else standard.
	Team string `yaml:"team"`
}

// SimulateUsersParams are simulate_all_users' parameters.
type SimulateUsersParams struct {
	// Goal every user pursues (default: use the app as that user would and
	// report every bug).
	Goal string `yaml:"goal"`
	// Users (default: every persona of the standard and advanced teams).
	Users    []User `yaml:"users"`
	StartURL string `yaml:"start_url"`
	Budget   int    `yaml:"budget"`
}

// FullSeedParams are full_seed's parameters.
type FullSeedParams struct {
	// StartURLs to explore from (default "/").
	StartURLs []string `yaml:"start_urls"`
	// Teams to explore with (default standard and advanced).
	Teams []string `yaml:"teams"`
	// Budget of each mission (default 500 steps).
	Budget int `yaml:"budget"`
}

// DefaultFullSeedBudget is full_seed's default budget per mission.
const DefaultFullSeedBudget = 500

// CreateTests builds create_tests' mission.
func CreateTests(p CreateTestsParams) ([]Mission, error) {
	flow := strings.TrimSpace(p.Flow)
	if flow == "" {
		return nil, errors.New("create_tests: flow is required")
	}
	steps := ""
	if len(p.Steps) > 0 {
		var b strings.Builder
		for i, s := range p.Steps {
			fmt.Fprintf(&b, " %d. %s.", i+1, strings.TrimRight(strings.TrimSpace(s), "."))
		}
		steps = " Its steps:" + b.String()
	}
	id := p.ThreadID
	if id == "" {
		id = ThreadName("tests-" + flow)
	}
	m := Mission{ThreadID: id, Team: TeamStandard, Budget: p.Budget, StartURL: p.StartURL, Prompt: CapPrompt(fmt.Sprintf(
		"Create regression tests for the %s flow.%s First complete the flow once with valid input, step by step, so its recorded actions replay as a test; then go through it again with empty, boundary, invalid and hostile input at every step, and try going back, reloading and submitting twice. Report every bug with evidence: each gets a minimised reproduction spec.",
		flow, steps))}
	return checkTemplate(TemplateCreateTests, []Mission{m})
}

// CompareVariants builds compare_variants' missions, one per variant.
func CompareVariants(p CompareVariantsParams) ([]Mission, error) {
	task := strings.TrimSpace(p.Task)
	if task == "" {
		return nil, errors.New("compare_variants: task is required")
	}
	if len(p.Variants) < 2 {
		return nil, fmt.Errorf("compare_variants: want at least two variants, got %d", len(p.Variants))
	}
	var names []string
	for i, v := range p.Variants {
		n := strings.TrimSpace(v.Name)
		if n == "" {
			return nil, fmt.Errorf("compare_variants: variant %d: name is required", i+1)
		}
		if slices.Contains(names, n) {
			return nil, fmt.Errorf("compare_variants: variant %q appears twice", n)
		}
		names = append(names, n)
	}
	var out []Mission
	for _, v := range p.Variants {
		others := slices.DeleteFunc(slices.Clone(names), func(s string) bool { return s == strings.TrimSpace(v.Name) })
		notes := ""
		if strings.TrimSpace(v.Notes) != "" {
			notes = " (" + strings.TrimSpace(v.Notes) + ")"
		}
		out = append(out, Mission{ThreadID: ThreadName("compare-" + v.Name), Team: p.Team, Budget: p.Budget, StartURL: v.StartURL,
			Prompt: CapPrompt(fmt.Sprintf("Variant comparison, variant %q%s: %s Do it the way a real user would and note what this variant does differently from the others (%s): errors, dead ends, missing feedback, extra steps, slowness. Report every bug with evidence; the variants run with the same budget so their results compare side by side.",
				strings.TrimSpace(v.Name), notes, strings.TrimRight(task, ".")+".", strings.Join(others, ", ")))})
	}
	return checkTemplate(TemplateCompareVariants, out)
}

// SimulateAllUsers builds simulate_all_users' missions, one per user.
func SimulateAllUsers(p SimulateUsersParams) ([]Mission, error) {
	users := p.Users
	if len(users) == 0 {
		for _, team := range []string{TeamStandard, TeamAdvanced} {
			ps, _ := Team(team)
			for _, pp := range ps {
				users = append(users, User{Name: pp.Name, Description: pp.Role + ": " + strings.Join(pp.Focus, ", "), Team: team})
			}
		}
	}
	goal := strings.TrimSpace(p.Goal)
	if goal == "" {
		goal = "Use the app as this user would, in their own way and at their own pace, and report every bug with evidence"
	}
	var out []Mission
	seen := map[string]bool{}
	for i, u := range users {
		name := strings.TrimSpace(u.Name)
		if name == "" {
			return nil, fmt.Errorf("simulate_all_users: user %d: name is required", i+1)
		}
		if seen[name] {
			return nil, fmt.Errorf("simulate_all_users: user %q appears twice", name)
		}
		seen[name] = true
		team := u.Team
		if team == "" {
			team = teamWith(name)
		}
		desc := strings.TrimSpace(u.Description)
		if desc == "" {
			desc = describePersona(name)
		}
		if desc != "" {
			desc = " (" + desc + ")"
		}
		out = append(out, Mission{ThreadID: ThreadName("user-" + name), Team: team, Budget: p.Budget, StartURL: p.StartURL,
			Prompt: CapPrompt(fmt.Sprintf("Simulate the user %s%s. %s. Stay in character: the %s persona acts first.", name, desc, strings.TrimRight(goal, "."), name))})
	}
	return checkTemplate(TemplateSimulateAllUsers, out)
}

// teamWith is the built-in team with persona name (standard when none).
func teamWith(name string) string {
	for _, team := range []string{TeamStandard, TeamAdvanced} {
		ps, _ := Team(team)
		for _, p := range ps {
			if p.Name == name {
				return team
			}
		}
	}
	return TeamStandard
}

func describePersona(name string) string {
	for _, p := range personas.Builtins() {
		if p.Name == name {
			return p.Role + ": " + strings.Join(p.Focus, ", ")
		}
	}
	return ""
}

// FullSeed builds full_seed's missions: every team from every start URL.
func FullSeed(p FullSeedParams) ([]Mission, error) {
	starts := p.StartURLs
	if len(starts) == 0 {
		starts = []string{"/"}
	}
	teams := p.Teams
	if len(teams) == 0 {
		teams = []string{TeamStandard, TeamAdvanced}
	}
	budget := p.Budget
	if budget == 0 {
		budget = DefaultFullSeedBudget
	}
	var out []Mission
	for _, team := range teams {
		if team != TeamStandard && team != TeamAdvanced {
			return nil, fmt.Errorf("full_seed: team %q: want %s or %s", team, TeamStandard, TeamAdvanced)
		}
		for _, start := range starts {
			id := "seed-" + team
			if len(starts) > 1 {
				id += "-" + pathSlug(start)
			}
			out = append(out, Mission{ThreadID: ThreadName(id), Team: team, Budget: budget, StartURL: start,
				Prompt: CapPrompt(fmt.Sprintf("Explore everything reachable from %s: visit every page and state, open every menu, dialog and tab, use every control and form with valid, empty, boundary and hostile input, follow every link within the app, and come back to what is left untried. Coverage first; report every bug with evidence.", cmpStr(start, "/")))})
		}
	}
	return checkTemplate(TemplateFullSeed, out)
}

func cmpStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

var reSlug = regexp.MustCompile(`[^a-z0-9]+`)

// pathSlug is a start URL's path as a thread id part ("root" for "/").
func pathSlug(start string) string {
	p := start
	if u, err := url.Parse(start); err == nil {
		p = u.Path
	}
	s := strings.Trim(reSlug.ReplaceAllString(strings.ToLower(p), "-"), "-")
	if s == "" {
		return "root"
	}
	return s
}

// checkTemplate validates a template's missions as a missions file would.
func checkTemplate(name TemplateName, ms []Mission) ([]Mission, error) {
	e := &MissionsError{File: string(name)}
	validateMissions(e, ms, nil)
	if len(e.Problems) > 0 {
		for i, p := range e.Problems {
			e.Problems[i] = strings.TrimPrefix(p, "line 0: ")
		}
		return nil, fmt.Errorf("%s: %s", name, strings.Join(e.Problems, "; "))
	}
	return ms, nil
}

// ExpandTemplate builds the missions of the named template from its YAML
// parameters (a mapping; nil for none), decoded strictly: unknown keys and
// wrong types are errors.
func ExpandTemplate(name TemplateName, params *yaml.Node) ([]Mission, error) {
	decode := func(v any) error {
		if params == nil || (params.Kind == yaml.ScalarNode && params.Tag == "!!null") {
			return nil
		}
		raw, err := yaml.Marshal(params)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
			msg := strings.TrimPrefix(err.Error(), "yaml: ")
			msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
			return fmt.Errorf("params: %s", yamlLinePrefix.ReplaceAllString(msg, ""))
		}
		return nil
	}
	switch name {
	case TemplateCreateTests:
		var p CreateTestsParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return CreateTests(p)
	case TemplateCompareVariants:
		var p CompareVariantsParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return CompareVariants(p)
	case TemplateSimulateAllUsers:
		var p SimulateUsersParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return SimulateAllUsers(p)
	case TemplateFullSeed:
		var p FullSeedParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return FullSeed(p)
	}
	var names []string
	for _, t := range Templates() {
		names = append(names, string(t))
	}
	return nil, fmt.Errorf("unknown template %q (want %s)", name, strings.Join(names, ", "))
}

var yamlLinePrefix = regexp.MustCompile(`line \d+: `)

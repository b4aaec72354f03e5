package explore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/personas"
	"github.com/agentgraph/agentgraph/state"
)

func TestParseMissions(t *testing.T) {
	ok := `missions:
  - thread_id: smoke
    prompt: Explore the app
  - thread_id: a11y
    prompt: Check accessibility and keyboard use
    team: advanced
    budget: 50
    start_url: http://localhost:8080/settings?tab=1
`
	ms, err := mission.ParseMissions("ok.yaml", []byte(ok))
	require.NoError(t, err)
	require.Len(t, ms, 2)
	assert.Equal(t, mission.Mission{ThreadID: "smoke", Prompt: "Explore the app"}, ms[0])
	assert.Equal(t, mission.Mission{ThreadID: "a11y", Prompt: "Check accessibility and keyboard use", Team: mission.TeamAdvanced, Budget: 50, StartURL: "http://localhost:8080/settings?tab=1"}, ms[1])

	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"empty file", "", []string{"line 1: empty file"}},
		{"unknown key", "missions:\n  - thread_id: a\n    prompt: p\n    colour: red\n", []string{"line 4: field colour not found"}},
		{"wrong type", "missions:\n  - thread_id: a\n    prompt: p\n    budget: lots\n", []string{"line 4: cannot unmarshal !!str `lots` into int"}},
		{"no missions", "missions: []\n", []string{"line 1: no missions"}},
		{"missing fields", "missions:\n  - team: standard\n", []string{"line 2: mission 1: thread_id is required", "line 2: mission 1: prompt is required"}},
		{"duplicate and bad values", "missions:\n  - thread_id: a\n    prompt: p\n  - thread_id: a\n    prompt: q\n    team: elite\n    budget: -3\n    start_url: ftp://x/y\n",
			[]string{"line 4: mission 2: thread_id \"a\" is already used on line 2", "line 4: mission 2: team \"elite\"", "line 4: mission 2: budget -3", "line 4: mission 2: start_url \"ftp://x/y\""}},
		{"bad thread id", "missions:\n  - thread_id: ../etc\n    prompt: p\n", []string{"line 2: mission 1: thread_id \"../etc\""}},
		{"not yaml", "missions: [\n", []string{"line 1: did not find expected node content"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mission.ParseMissions("m.yaml", []byte(tc.yaml))
			require.Error(t, err)
			var me *mission.MissionsError
			require.True(t, errors.As(err, &me), "%T", err)
			assert.ErrorIs(t, err, ErrUsage)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Len(t, me.Problems, len(tc.want), "%q", me.Problems)
		})
	}
}

func TestExitCode(t *testing.T) {
	newBug := report.Result{Missions: []report.MissionResult{{Bugs: []findings.Bug{{New: true}}}}}
	oldBug := report.Result{Missions: []report.MissionResult{{Bugs: []findings.Bug{{New: false}}}}}
	clean := report.Result{Missions: []report.MissionResult{{}}}
	tests := []struct {
		name   string
		res    report.Result
		err    error
		failOn FailOn
		want   int
	}{
		{"clean", clean, nil, FailOnNew, ExitClean},
		{"new bug, fail on new", newBug, nil, FailOnNew, ExitBugs},
		{"known bug, fail on new", oldBug, nil, FailOnNew, ExitClean},
		{"known bug, fail on any", oldBug, nil, FailOnAny, ExitBugs},
		{"new bug, fail on none", newBug, nil, FailOnNone, ExitClean},
		{"set-up error", newBug, &SetupError{Err: browser.ErrSetup}, FailOnNew, ExitSetup},
		{"usage error", clean, fmt.Errorf("%w: bad", ErrUsage), FailOnNone, ExitSetup},
		{"failed mission", report.Result{Missions: []report.MissionResult{{Err: "browser crashed"}}}, nil, FailOnNone, ExitSetup},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ExitCode(tc.res, tc.err, tc.failOn))
		})
	}
	_, err := ParseFailOn("sometimes")
	require.Error(t, err)
	f, err := ParseFailOn("")
	require.NoError(t, err)
	assert.Equal(t, FailOnNew, f)
}

func TestRouteTeam(t *testing.T) {
	assert.Equal(t, mission.TeamStandard, mission.RouteTeam("Explore the checkout"))
	assert.Equal(t, mission.TeamAdvanced, mission.RouteTeam("Check ACCESSIBILITY of the forms"))
	assert.Equal(t, mission.TeamAdvanced, mission.RouteTeam("what happens when the session expires"))
	_, err := mission.Team("elite")
	require.Error(t, err)
	for _, name := range []string{mission.TeamStandard, mission.TeamAdvanced} {
		ps, err := mission.Team(name)
		require.NoError(t, err)
		for _, p := range ps {
			assert.NotEmpty(t, p.Tricks, p.Name)
		}
	}
}

func TestSummarizeKeepsFirstAndLast20(t *testing.T) {
	var msgs []state.Message
	for i := range 30 {
		msgs = append(msgs, state.Message{ID: fmt.Sprint("m", i), Role: state.RoleAI, Content: fmt.Sprintf("turn %d. detail", i)})
	}
	msgs[0].Role = state.RoleHuman
	upd, err := summarize(context.Background(), State{Messages: msgs})
	require.NoError(t, err)
	got := state.AddMessages(msgs, upd.Messages)
	require.Len(t, got, 1+1+KeepMessages)
	assert.Equal(t, "m0", got[0].ID)
	assert.Equal(t, state.RoleSystem, got[1].Role)
	assert.Contains(t, got[1].Content, "Summary of 9 earlier messages")
	assert.Contains(t, got[1].Content, "turn 5")
	assert.Equal(t, "m10", got[2].ID)
	assert.Equal(t, "m29", got[len(got)-1].ID)

	upd, err = summarize(context.Background(), State{Messages: msgs[:KeepMessages+1]})
	require.NoError(t, err)
	assert.Empty(t, upd.Messages, "short histories are left alone")
}

func TestTemplatesAndLinks(t *testing.T) {
	assert.Equal(t, "/projects/{n}/edit", templateOf("/projects/12/edit"))
	assert.Equal(t, "/a/{n}/{n}", templateOf("/a/1/22"))
	assert.Equal(t, "/projects?page&status", pageTemplate("/projects?status=x&page=2"))
	c := newCoverage()
	assert.True(t, c.visit("/projects/1"))
	assert.False(t, c.visit("/projects/1"))
	assert.False(t, c.explored("/projects/2"))
	c.visit("/projects/2")
	assert.True(t, c.explored("/projects/3"), "two pages of a template are enough")
	assert.False(t, c.explored("/projects"))

	l, ok := resolveLink("http://h:1/a/b", "../c?x=1")
	require.True(t, ok)
	assert.Equal(t, "/c?x=1", l)
	for _, href := range []string{"http://other:1/x", "mailto:a@b", "#top", "/__explorer/clear-site-data"} {
		_, ok := resolveLink("http://h:1/a", href)
		assert.False(t, ok, href)
	}
}

func TestGuessCredentialsFallback(t *testing.T) {
	c := session.GuessCredentials("no account here", session.Credentials{})
	assert.Equal(t, "qa@example.com", c.Email)
	assert.NotEmpty(t, c.Password)
	c = session.GuessCredentials("Demo account: demo@example.com", session.Credentials{Password: "given"})
	assert.Equal(t, session.Credentials{Email: "demo@example.com", Password: "given"}, c)
}

// validFor: a valid value by the field's type and constraints, free text
// made unique so two created records never read the same.
func TestValidFor(t *testing.T) {
	v := &view{Rand: rand.New(rand.NewPCG(1, 2)), Cov: newCoverage()}
	assert.Equal(t, "qa.tester@example.com", validFor(personas.Element{Role: "textbox", Name: "Billing email", Flags: []string{"type=email"}}, v))
	n := validFor(personas.Element{Role: "spinbutton", Name: "Copies", Flags: []string{"min=2", "max=9"}}, v)
	num, err := strconv.Atoi(n)
	require.NoError(t, err, n)
	assert.True(t, num >= 2 && num <= 9, n)
	a, b := validFor(personas.Element{Role: "textbox", Name: "Title"}, v), validFor(personas.Element{Role: "textbox", Name: "Title"}, v)
	assert.NotEqual(t, a, b)
	assert.Regexp(t, `^\D+ \d+$`, a)
	short := validFor(personas.Element{Role: "textbox", Name: "Title", Flags: []string{"maxlength=5"}}, v)
	assert.LessOrEqual(t, len(short), 5)
	// Never the same number twice in a mission: more values than the
	// first range holds stay distinct.
	seen := map[string]bool{}
	for range 2000 {
		s := validFor(personas.Element{Role: "textbox", Name: "Title"}, v)
		require.False(t, seen[s], "%s twice", s)
		seen[s] = true
	}
	assert.Equal(t, 2000+3, len(v.Cov.tags), "one number per free text drawn")
}

// The explorer's teams are the personas package's: the same members, in
// the same order, with its roles and focus (only the offline tricks are
// the explorer's own).
func TestTeamsArePersonas(t *testing.T) {
	reg := personas.NewRegistry()
	for _, team := range []string{mission.TeamStandard, mission.TeamAdvanced} {
		want, err := reg.Team(team)
		require.NoError(t, err)
		got, err := mission.Team(team)
		require.NoError(t, err)
		require.Len(t, got, len(want), team)
		for i, p := range got {
			assert.Equal(t, want[i].Name, p.Name)
			assert.Equal(t, want[i].Role, p.Role)
			assert.Equal(t, want[i].Focus, p.Focus)
			assert.NotEmpty(t, p.Tricks, p.Name)
			// The member leans over the model as the persona does.
			probe := personas.Target{Action: personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: "x", Class: personas.ClassMarkup}}
			assert.Equal(t, want[i].Preference()(probe), preference(p)(probe), p.Name)
			assert.Equal(t, want[i].Prefer != nil, p.Prefer != nil, p.Name)
		}
	}
}

// A replay leaves out failed steps, but for the bug's own: a click that
// timed out on a slow page still took the recording there.
func TestReplayable(t *testing.T) {
	var tl []report.TimelineEntry
	for i, ok := range []bool{true, false, true, false, true} {
		tl = append(tl, report.TimelineEntry{Entry: browser.Entry{Seq: int64(i + 1), Action: browser.ActClick, OK: ok}})
	}
	tl = append(tl, report.TimelineEntry{Entry: browser.Entry{Seq: 6, Action: browser.ActSnapshot, OK: true}})
	seqs := func(es []browser.Entry) []int64 {
		var out []int64
		for _, e := range es {
			out = append(out, e.Seq)
		}
		return out
	}
	assert.Equal(t, []int64{1, 3, 4}, seqs(report.Replayable(tl, 4)), "the failed 4th is the bug's")
	assert.Equal(t, []int64{1, 3, 5}, seqs(report.Replayable(tl, 6)), "snapshots and other failures are left out")
}

// leaning gives a test's persona the lean of the built-in persona of its
// name (personas.Persona.Prefer), as the built-in teams have it.
func leaning(p Persona) Persona {
	if b, err := personas.NewRegistry().Get(p.Name); err == nil {
		p.Prefer = b.Prefer
	}
	return p
}

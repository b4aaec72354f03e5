package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/personas"
	"github.com/agentgraph/agentgraph/tools"
)

type embedArgs struct {
	Q string `json:"q"`
}

func embedTool(name string) tools.Tool {
	return tools.New(name, "a test tool", func(_ context.Context, in embedArgs) (string, error) { return "answer " + in.Q, nil })
}

// renamed is a tool of its own making with any name (tools.New checks
// the names it is given).
type renamed struct {
	tools.Tool
	name string
}

func (r renamed) Name() string { return r.name }

// TestEmbedConfigChecks: a bad Config.Personas or Config.Tools entry stops
// Run before anything starts, with an ErrUsage error naming it.
func TestEmbedConfigChecks(t *testing.T) {
	ok := personas.Persona{Name: "mine", Role: "a user of my own"}
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"upper-case name", Config{Personas: []personas.Persona{{Name: "Mine", Role: "r"}}}, `Config.Personas[0] "Mine"`},
		{"no role", Config{Personas: []personas.Persona{ok, {Name: "norole"}}}, `Config.Personas[1] "norole": personas: persona "norole" has no role`},
		{"unknown trick", Config{Personas: []personas.Persona{{Name: "tricky", Role: "r", Tricks: []personas.Trick{"juggle"}}}}, `unknown trick "juggle"`},
		{"a node's name", Config{Personas: []personas.Persona{{Name: NodeSupervisor, Role: "r"}}}, `"supervisor": the name is the team graph's own node`},
		{"twice", Config{Personas: []personas.Persona{ok, ok}}, `Config.Personas[1] "mine": two personas`},
		{"nil tool", Config{Tools: []tools.Tool{nil}}, `Config.Tools[0] is nil`},
		{"bad tool name", Config{Tools: []tools.Tool{renamed{embedTool("x"), "my tool"}}}, `Config.Tools[0] "my tool": a tool name must match`},
		{"built-in tool name", Config{Tools: []tools.Tool{embedTool("get_dom_snapshot")}}, `"get_dom_snapshot": the name of a built-in tool`},
		{"tool twice", Config{Tools: []tools.Tool{embedTool("lookup"), embedTool("lookup")}}, `Config.Tools[1] "lookup": two tools`},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.ReportDir = t.TempDir()
			_, err := Run(context.Background(), c.cfg)
			require.ErrorIs(t, err, ErrUsage)
			assert.ErrorContains(t, err, c.want)
		})
	}
}

// TestEmbedTeam: without Config.Personas a mission's team is the built-in
// one it names, as before; with them, they are its team.
func TestEmbedTeam(t *testing.T) {
	for _, team := range []string{mission.TeamStandard, mission.TeamAdvanced} {
		m := mission.Mission{ThreadID: "x", Team: team}
		want, err := mission.Team(team)
		require.NoError(t, err)
		cfg := Config{}
		assert.Equal(t, names(want), names(cfg.teamOf(m)))
		assert.Equal(t, team, cfg.teamLabel(m))
	}
	a := personas.Persona{Name: "a", Role: "r"}
	b := personas.Persona{Name: "b", Role: "r"}
	cfg := Config{Personas: []personas.Persona{a, b}, Team: mission.TeamAdvanced}
	m := mission.Mission{ThreadID: "x", Team: mission.TeamAdvanced}
	assert.Equal(t, []string{"a", "b"}, names(cfg.teamOf(m)))
	assert.Equal(t, "custom: a, b", cfg.teamLabel(m))
}

func names(ps []personas.Persona) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// TestEmbedTools: Config.Tools join the extra tools after the skills',
// before the MCP servers' (a clash either way is ErrUsage), each call
// bounded by ToolTimeout; the persona's task names them.
func TestEmbedTools(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := slog.New(slog.DiscardHandler)

	x, err := openExtraTools(ctx, Config{Tools: []tools.Tool{embedTool("lookup")}}, log, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"lookup"}, x.names())
	assert.Equal(t, "\nBesides the browser you have the tools lookup; they do not count as browser actions.", extraToolsNote(x))
	out, err := x.tools[0].Call(ctx, json.RawMessage(`{"q":"why"}`))
	require.NoError(t, err)
	assert.Equal(t, "answer why", out)

	_, err = openExtraTools(ctx, Config{Skills: writeSkill(t), Tools: []tools.Tool{embedTool("skill_run")}}, log, nil)
	require.ErrorIs(t, err, ErrUsage)
	assert.ErrorContains(t, err, `Config.Tools: tool "skill_run" has the name of a skills tool`)

	exe, err := os.Executable()
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(p, fmt.Appendf(nil, `{"mcpServers": {"tracker": {"command": %q, "args": ["-test.run=^$"], "env": {%q: "1"}}}}`,
		exe, testMCPServerEnv), 0o600))
	_, err = openExtraTools(ctx, Config{MCPConfig: p, Tools: []tools.Tool{embedTool("tracker_ticket")}}, log, nil)
	require.ErrorIs(t, err, ErrUsage)
	assert.ErrorContains(t, err, `MCP server "tracker": tool "tracker_ticket" has the name of a Config.Tools tool`)

	slow := tools.New("slow", "never answers", func(ctx context.Context, _ embedArgs) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	x, err = openExtraTools(ctx, Config{Tools: []tools.Tool{slow}, ToolTimeout: 50 * time.Millisecond}, log, nil)
	require.NoError(t, err)
	_, err = x.tools[0].Call(ctx, json.RawMessage(`{"q":""}`))
	assert.ErrorContains(t, err, "no answer within 50ms")
}

// TestEmbedStores: an injected checkpointer and store are the run's.
func TestEmbedStores(t *testing.T) {
	cp, st := checkpoint.NewMemory(), memory.NewInMemoryStore()
	cfg := Config{Checkpointer: cp, Store: st, DB: filepath.Join(t.TempDir(), "unused.db")}
	gotCP, gotST, closeDB, err := cfg.openStores(context.Background())
	require.NoError(t, err)
	defer closeDB()
	assert.Same(t, cp, gotCP)
	assert.Same(t, st, gotST)
	assert.True(t, cfg.persistent())
	assert.False(t, (&Config{}).persistent())
}

// TestEmbedResumeInjected: a custom team on an injected checkpointer and
// store, killed mid-mission and resumed: the resumed run goes on from the
// checkpoint (no DB file), the browser state was kept for it, the tape
// has no gap, every action is the team's, and the injected store holds
// the bugs.
func TestEmbedResumeInjected(t *testing.T) {
	app := fixtureApp(t)
	dir := t.TempDir()
	mine := personas.Persona{Name: "form_filler", Role: "a user who fills every form validly",
		Tricks: []personas.Trick{personas.TrickValidForm, personas.TrickClickButtons}}
	cp, st := checkpoint.NewMemory(), memory.NewInMemoryStore()
	cfg := Config{Target: app.URL, Budget: 20, TurnSteps: 4, ReportDir: dir, Browser: testBrowser, MinimizeReplays: -1,
		Checkpointer: cp, Store: st, Personas: []personas.Persona{mine},
		Missions: []mission.Mission{{ThreadID: "notes", Prompt: "Explore the notes app"}}}

	ctx, cancel := context.WithCancelCause(context.Background())
	cfg.Observer = observe.Func(func(ev observe.Event) {
		if ev.Kind == observe.Step && ev.Step >= 8 {
			cancel(errors.New("killed at step 8"))
		}
	})
	first, err := Run(ctx, cfg)
	cancel(nil)
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, first.Missions, 1)
	require.NotEmpty(t, first.Missions[0].Err, "killed mid-mission")
	assert.FileExists(t, filepath.Join(dir, "notes", browserStateFile), "the browser state kept for the resume")

	cfg.Observer, cfg.Resume = nil, "notes"
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel2()
	res, err := Run(ctx2, cfg)
	require.NoError(t, err)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	assert.Equal(t, "custom: form_filler", m.Team)

	entries, _, err := browser.ReadTapeFile(filepath.Join(dir, "notes", "action_tape.jsonl"))
	require.NoError(t, err)
	assert.Greater(t, len(entries), len(first.Missions[0].Timeline), "the resumed run went on")
	for i, e := range entries {
		assert.Equal(t, int64(i+1), e.Seq, "no gap in the tape")
		assert.Contains(t, []string{mine.Name, "explorer"}, e.User, "the team's actions (and the resume's start)")
	}
	qa, err := memory.NewQA(st, app.URL)
	require.NoError(t, err)
	bugs, err := qa.Bugs(context.Background(), "")
	require.NoError(t, err)
	assert.NotEmpty(t, bugs, "the injected store is the run's memory")
}

package explore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/tools"
	"github.com/agentgraph/agentgraph/tools/mcp"
)

// testMCPServerEnv set to 1 makes the test binary an MCP server over stdio
// (TestMain calls serveTestMCP).
const testMCPServerEnv = "EXPLORE_TEST_MCP_SERVER"

// mcpSecret is a configured secret the test MCP server's tool answers with.
const mcpSecret = "tok-9f8e7d6c5b4a"

type ticketArgs struct {
	ID string `json:"id" jsonschema:"description=ticket id"`
}

// serveTestMCP serves one tool, ticket, over stdin/stdout until stdin
// closes; it writes its pid to $PID_FILE first.
func serveTestMCP() int {
	if p := os.Getenv("PID_FILE"); p != "" {
		if err := os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	name := os.Getenv("TOOL_NAME")
	if name == "" {
		name = "ticket"
	}
	ticket := tools.New(name, "Look up a ticket of the team's tracker", func(_ context.Context, in ticketArgs) (string, error) {
		if in.ID == "" {
			return "", errors.New("id is required")
		}
		return fmt.Sprintf("ticket %s: the projects list breaks when sorted; reporter's token %s", in.ID, os.Getenv("TICKET_TOKEN")), nil
	})
	srv, err := mcp.NewServer("tracker", "1.0.0", ticket)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mcp.ServeStdio(ctx, srv, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// writeSkill writes a skills directory with one skill, smoke, whose script
// echoes its argument and the skill's name.
func writeSkill(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "smoke")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(`---
name: smoke
description: Smoke-check one page of the app.
scripts:
  check.sh:
    description: Check a path
    args:
      - {name: path, required: true, pattern: '/[a-z/]*'}
---
# Smoke check
SMOKE-DOC: run check.sh with the path of the page.
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "check.sh"), []byte("#!/bin/sh\necho \"SMOKE-OUT checked $1 with skill $SKILL_NAME\"\n"), 0o755))
	return root
}

// TestModelPersonaMCPAndSkills: a model-driven run whose persona model
// calls a tool of a stdio MCP server (this test binary re-executed) and
// the skills tools (list, show, run a script). Each result comes back in
// the next request to the model, redacted; the tool events carry them; a
// server that cannot start is a warning; the server is stopped at the end.
func TestModelPersonaMCPAndSkills(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "server.pid")
	cfgPath := filepath.Join(dir, "mcp_servers.json")
	require.NoError(t, os.WriteFile(cfgPath, fmt.Appendf(nil, `{"mcpServers": {
		"tracker": {"command": %q, "args": ["-test.run=^$"], "env": {%q: "1", "PID_FILE": %q, "TICKET_TOKEN": %q}},
		"broken":  {"command": %q},
		"off":     {"command": "never-started", "disabled": true}
	}}`, exe, testMCPServerEnv, pidFile, mcpSecret, filepath.Join(dir, "no-such-server")), 0o600))

	var routes counter
	steps := []llmfake.Reply{
		llmfake.CallTool("tracker_ticket", `{"id":"T-7"}`),
		llmfake.CallTool("skill_list", `{}`),
		llmfake.CallTool("skill_show", `{"skill":"smoke"}`),
		llmfake.CallTool("skill_run", `{"skill":"smoke","script":"check.sh","args":["/projects"]}`),
	}
	srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
		switch {
		case r.HasTool(llm.ChooseTool):
			if routes.next() == 0 {
				return llmfake.CallTool(llm.ChooseTool, `{"choice":"power_user","reason":"check the ticket"}`)
			}
			return llmfake.CallTool(llm.ChooseTool, `{"choice":"FINISH","reason":"done"}`)
		case r.HasTool("execute_browser_command"):
			if k := len(r.ToolResults()); k < len(steps) {
				return steps[k]
			}
			return llmfake.Text("checked the ticket and the smoke skill")
		default:
			return llmfake.Text("report")
		}
	})
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var rec observe.Recorder
	var progress bytes.Buffer
	reports := t.TempDir()
	res, err := Run(ctx, onDemo(t, Config{Budget: 5, TurnSteps: 3, ReportDir: reports, Browser: testBrowser, Models: fakeModels(t, srv),
		MinimizeReplays: -1, MCPConfig: cfgPath, Skills: writeSkill(t), Secrets: []string{mcpSecret},
		Observer: &rec, Progress: &progress}))
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	require.Empty(t, res.Missions[0].Err)

	assert.Contains(t, progress.String(), `warning: MCP server "broken" left out`, "a server that cannot start is a warning")

	// The persona model was offered the MCP and skills tools with the built-ins.
	var personaReqs []llmfake.Request
	for _, r := range srv.Requests() {
		if r.HasTool("execute_browser_command") {
			personaReqs = append(personaReqs, r)
		}
	}
	require.Len(t, personaReqs, len(steps)+1)
	names := personaReqs[0].ToolNames()
	for _, want := range append([]string{"tracker_ticket", "skill_list", "skill_show", "skill_scripts", "skill_run"}, builtinToolNames...) {
		assert.Contains(t, names, want)
	}
	assert.Len(t, names, len(builtinToolNames)+5, "nothing of the broken or disabled servers")
	assert.Contains(t, personaReqs[0].Text(), "MCP servers tracker", "the task names the extra tools")

	// Each result is in the next request to the model.
	for i, want := range []string{"ticket T-7: the projects list breaks when sorted", "- smoke: Smoke-check one page of the app.",
		"SMOKE-DOC: run check.sh", "SMOKE-OUT checked /projects with skill smoke"} {
		results := personaReqs[i+1].ToolResults()
		require.Len(t, results, i+1)
		assert.Contains(t, results[i].Text(), want, "result %d", i)
	}
	ticket := personaReqs[1].ToolResults()[0].Text()
	assert.NotContains(t, ticket, mcpSecret, "the secret never reaches the model")
	assert.Contains(t, ticket, "${SECRET_1}")

	// The observers saw the calls and results, redacted too.
	calls, results := rec.Of(observe.ToolCall), rec.Of(observe.ToolResult)
	require.Len(t, calls, len(steps))
	require.Len(t, results, len(steps))
	for i, tool := range []string{"tracker_ticket", "skill_list", "skill_show", "skill_run"} {
		assert.Equal(t, tool, calls[i].Tool)
		assert.Equal(t, tool, results[i].Tool)
		assert.True(t, results[i].OK, results[i].Error)
		assert.Equal(t, "power_user", results[i].Persona)
	}
	assert.Contains(t, results[0].Result, "ticket T-7")
	assert.NotContains(t, results[0].Result, mcpSecret)
	trace, err := os.ReadFile(filepath.Join(reports, "explore", "traces.log"))
	require.NoError(t, err)
	assert.Contains(t, string(trace), "tool=tracker_ticket")
	assert.NotContains(t, string(trace), mcpSecret)

	// The server was started once and is stopped at the end of the run.
	raw, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(raw))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, 10*time.Second, 50*time.Millisecond, "MCP server %d still runs", pid)
}

// TestExtraToolsErrors: a tool named like a built-in is refused with a
// clear error; a bad skills directory or config file is a usage error.
func TestExtraToolsErrors(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := slog.New(slog.DiscardHandler)

	server := func(name, tool string) string {
		p := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(p, fmt.Appendf(nil, `{"mcpServers": {%q: {"command": %q, "args": ["-test.run=^$"], "env": {%q: "1", "TOOL_NAME": %q}}}}`,
			name, exe, testMCPServerEnv, tool), 0o600))
		return p
	}
	t.Run("clash with a built-in", func(t *testing.T) {
		_, err := openExtraTools(ctx, Config{MCPConfig: server("record", "observation")}, log, nil)
		assert.ErrorIs(t, err, ErrUsage)
		assert.ErrorContains(t, err, `MCP server "record": tool "record_observation" has the name of a built-in tool`)
	})
	t.Run("clash with a skills tool", func(t *testing.T) {
		_, err := openExtraTools(ctx, Config{MCPConfig: server("skill", "list"), Skills: writeSkill(t)}, log, nil)
		assert.ErrorIs(t, err, ErrUsage)
		assert.ErrorContains(t, err, `tool "skill_list" has the name of a skills tool`)
	})
	t.Run("no clash", func(t *testing.T) {
		x, err := openExtraTools(ctx, Config{MCPConfig: server("tracker", "ticket"), Skills: writeSkill(t)}, log, nil)
		require.NoError(t, err)
		assert.Equal(t, []string{"skill_list", "skill_show", "skill_scripts", "skill_run", "tracker_ticket"}, x.names())
		assert.Equal(t, []string{"tracker"}, x.servers)
		require.NoError(t, x.Close())
	})
	t.Run("bad skills dir", func(t *testing.T) {
		_, err := openExtraTools(ctx, Config{Skills: filepath.Join(dir, "none")}, log, nil)
		assert.ErrorIs(t, err, ErrUsage)
		assert.ErrorContains(t, err, "skills")
	})
	t.Run("bad config", func(t *testing.T) {
		p := filepath.Join(dir, "bad.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"mcpServers": {"x": {"colour": "red"}}}`), 0o600))
		_, err := openExtraTools(ctx, Config{MCPConfig: p}, log, nil)
		assert.ErrorIs(t, err, ErrUsage)
		assert.ErrorContains(t, err, "colour")
	})
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/agentgraph/agentgraph/llm"
)

// TestMainModelDriven runs the program with OPENAI_BASE_URL pointing at a
// fake chat-completions server: it detects the provider, builds the role
// models through llm.Factory and explores the demo app model-driven, end to
// end in Chromium.
func TestMainModelDriven(t *testing.T) {
	const writeup = "MAIN-WRITEUP: the dashboard links to release notes that do not exist."
	var routed atomic.Bool
	srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
		switch {
		case r.HasTool(llm.ChooseTool):
			if routed.CompareAndSwap(false, true) {
				return llmfake.CallTool(llm.ChooseTool, `{"choice":"new_user","reason":"start with the basics"}`)
			}
			return llmfake.CallTool(llm.ChooseTool, `{"choice":"FINISH"}`)
		case r.HasTool("execute_browser_command"):
			if len(r.ToolResults()) == 0 {
				return llmfake.CallTool("execute_browser_command", `{"intent":{"action":"navigate","url":"/release-notes/`+string(demoapp.Bug404ReleaseNotes)+`"}}`)
			}
			return llmfake.Text("The release notes link is broken.")
		default: // reporter and reflection
			return llmfake.Text(writeup)
		}
	})
	defer srv.Close()
	dir := t.TempDir()
	env := llm.MapEnv(map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "x", "AGENTGRAPH_PERSONA_MODEL": "gpt-4.1-mini"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"--budget", "10", "--reports", dir, "--db", filepath.Join(dir, "explorer.db"), "--plain", "--fail-on", "any"}, &out, &errOut, env)
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	assert.Equal(t, explore.ExitBugs, code)
	assert.Contains(t, errOut.String(), "model-driven: openai (via OPENAI_API_KEY); supervisor=gpt-4o-mini persona=gpt-4.1-mini reporter=gpt-4o-mini")
	assert.Contains(t, out.String(), "model usage:")

	var sum struct {
		Demo  struct{ Found []string } `json:"demo"`
		Usage *report.Usage            `json:"usage"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))
	assert.Contains(t, sum.Demo.Found, string(demoapp.Bug404ReleaseNotes))
	require.NotNil(t, sum.Usage)
	assert.Equal(t, len(srv.Requests()), sum.Usage.Calls, "every call to the provider is counted")
	for _, role := range []string{"supervisor", "persona", "reporter"} {
		assert.Positive(t, sum.Usage.ByRole[role].Calls, role)
	}
	md, err := os.ReadFile(filepath.Join(dir, "explore", "test_report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), writeup)
}

// TestMainOfflineFlag: --offline keeps the team offline even with a key.
func TestMainOfflineFlag(t *testing.T) {
	f, err := modelFactory(llm.MapEnv(map[string]string{"OPENAI_API_KEY": "x"}), true, nil)
	require.NoError(t, err)
	assert.Nil(t, f)
	f, err = modelFactory(llm.MapEnv(map[string]string{"OPENAI_API_KEY": "x"}), false, nil)
	require.NoError(t, err)
	require.NotNil(t, f)
	assert.Equal(t, llm.OpenAI, f.Detection.Provider)
	_, err = modelFactory(llm.MapEnv(map[string]string{"AGENTGRAPH_ROLES_FILE": filepath.Join(t.TempDir(), "none.yaml")}), false, nil)
	assert.Error(t, err, "a missing roles file is a set-up error")
}

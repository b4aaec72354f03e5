package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/llm"
)

// advancedNames are the personas of the advanced team.
func advancedNames() []string {
	var out []string
	for _, p := range mission.AdvancedTeam() {
		out = append(out, p.Name)
	}
	return out
}

// actors counts the tape entries of each persona in a mission's report.
func actors(t *testing.T, dir string) map[string]int {
	t.Helper()
	tape, _, err := browser.ReadTapeFile(filepath.Join(dir, "explore", "action_tape.jsonl"))
	require.NoError(t, err)
	out := map[string]int{}
	for _, e := range tape {
		out[e.User]++
	}
	return out
}

// TestMainAdvancedTeam runs the advanced team end to end on the demo app,
// offline and with a model (a fake OpenAI server routing to each persona
// in turn): every persona of the team acts in Chromium at least once.
func TestMainAdvancedTeam(t *testing.T) {
	names := advancedNames()
	require.Len(t, names, 5)

	t.Run("offline", func(t *testing.T) {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		var out, errOut bytes.Buffer
		code := run(ctx, []string{"--team", "advanced", "--budget", "60", "--turn-steps", "8", "--reports", dir, "--db", "",
			"--minimize-replays", "-1", "--plain", "--fail-on", "none", "--offline"}, &out, &errOut, llm.MapEnv(nil))
		require.Equal(t, explore.ExitClean, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		acted := actors(t, dir)
		for _, n := range names {
			assert.Positive(t, acted[n], "%s acted (tape users: %v)", n, acted)
		}
	})

	t.Run("model", func(t *testing.T) {
		var mu sync.Mutex
		next := 0
		srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
			switch {
			case r.HasTool(llm.ChooseTool):
				mu.Lock()
				defer mu.Unlock()
				if next < len(names) {
					next++
					return llmfake.CallTool(llm.ChooseTool, fmt.Sprintf(`{"choice":%q,"reason":"each in turn"}`, names[next-1]))
				}
				return llmfake.CallTool(llm.ChooseTool, `{"choice":"FINISH"}`)
			case r.HasTool("execute_browser_command"):
				if len(r.ToolResults()) == 0 {
					// Each persona its own page (the same action three
					// times on one page is refused as a loop).
					who := "someone"
					for _, n := range names {
						if strings.Contains(r.System(), "You are "+n) {
							who = n
						}
					}
					return llmfake.CallTool("execute_browser_command", `{"intent":{"action":"navigate","url":"/?from=`+who+`"}}`)
				}
				return llmfake.Text("Looked at the start page.")
			default: // reporter and reflection
				return llmfake.Text("Nothing more to say.")
			}
		})
		defer srv.Close()
		dir := t.TempDir()
		env := llm.MapEnv(map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "x"})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		var out, errOut bytes.Buffer
		code := run(ctx, []string{"--team", "advanced", "--budget", "20", "--reports", dir, "--db", "",
			"--minimize-replays", "-1", "--plain", "--fail-on", "none"}, &out, &errOut, env)
		require.Equal(t, explore.ExitClean, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		acted := actors(t, dir)
		for _, n := range names {
			assert.Positive(t, acted[n], "%s acted (tape users: %v)", n, acted)
		}

		mu.Lock()
		assert.Equal(t, len(names), next, "the supervisor model routed to every persona")
		mu.Unlock()
	})
}

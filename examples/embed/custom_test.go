package embed

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/personas"
	"github.com/agentgraph/agentgraph/tools"
)

// longTexter is a custom persona: a user who pastes over-long text into
// every form. Offline it plays the long trick (personas' own) and leans
// over the app model to the long input classes and away from the others.
var longTexter = personas.Persona{
	Name:  "long_texter",
	Role:  "a user who pastes whole paragraphs into every text field",
	Focus: []string{"over-long input", "server errors on long values"},
	Prefer: func(t personas.Target) float64 {
		if t.Action.Kind != personas.ActionFill {
			return 0
		}
		switch t.Action.Class {
		case personas.ClassLong256, personas.ClassLong1001, personas.ClassLong10001:
			return 3
		}
		return -2
	},
	Tricks: []personas.Trick{personas.TrickLong},
}

// suggestArgs are the arguments of the suggest_page tool.
type suggestArgs struct {
	Topic string `json:"topic" jsonschema:"description=what the persona wants to look at"`
}

// suggestPage is a custom tool: it tells the model which page of the app
// to look at for a topic. It answers with text; the model acts on it
// through the browser tools.
type suggestPage struct {
	mu    sync.Mutex
	calls []suggestArgs
}

const suggestion = "SUGGESTION: open /about, the page about the %s"

func (s *suggestPage) tool() tools.Tool {
	return tools.New("suggest_page", "Suggest a page of the app worth a look for a topic",
		func(_ context.Context, in suggestArgs) (string, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.calls = append(s.calls, in)
			return fmt.Sprintf(suggestion, in.Topic), nil
		})
}

// TestCustomPersonaAndTool: a team of one custom persona, offline and
// model-driven, with a custom tool, all from outside the explorer's
// packages.
func TestCustomPersonaAndTool(t *testing.T) {
	t.Run("offline", func(t *testing.T) {
		app := notesApp(t)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		res, err := explore.Run(ctx, explore.Config{Target: app.URL, Budget: 30, MinimizeReplays: -1,
			ReportDir: t.TempDir(), Browser: testBrowser, Personas: []personas.Persona{longTexter}})
		require.NoError(t, err)
		require.Len(t, res.Missions, 1)
		m := res.Missions[0]
		require.Empty(t, m.Err)
		assert.Equal(t, "custom: long_texter", m.Team)

		// The tape: every action is the persona's, and it typed its long text.
		tape, rep, err := browser.ReadTapeFile(filepath.Join(m.Dir, "action_tape.jsonl"))
		require.NoError(t, err)
		require.Empty(t, rep.Invalid)
		require.NotEmpty(t, tape)
		longest := 0
		for _, e := range tape {
			assert.Equal(t, longTexter.Name, e.User, "tape #%d", e.Seq)
			for _, v := range e.Params.Typed() {
				longest = max(longest, len(v))
			}
		}
		assert.Greater(t, longest, maxNote, "the persona typed over-long text")
		require.Len(t, m.Timeline, len(tape), "the result's timeline is the tape")
		for _, te := range m.Timeline {
			assert.Equal(t, longTexter.Name, te.Persona)
		}

		// And the bug its long note provokes is its own.
		var found bool
		for _, b := range m.Bugs {
			t.Logf("%s %s %s %s: %s", b.ID, b.Kind, b.Persona, b.URL, b.Title)
			if u, _ := url.Parse(b.URL); b.Kind == string(browser.FindServerError) && u != nil && u.Path == "/notes" {
				found = true
				assert.Equal(t, longTexter.Name, b.Persona)
				assert.Contains(t, b.Evidence, "value too long")
			}
		}
		assert.True(t, found, "the 500 of a long note")
	})

	t.Run("model", func(t *testing.T) {
		app := notesApp(t)
		suggest := &suggestPage{}
		// The scripted model: the supervisor picks the persona, then
		// FINISH; the persona calls suggest_page, then opens the page it
		// suggested, then ends its turn; the reporter writes.
		var mu sync.Mutex
		routes := 0
		script := []llmfake.Reply{
			llmfake.CallTool("suggest_page", `{"topic":"company"}`),
			llmfake.CallTool("execute_browser_command", `{"intent":{"action":"navigate","url":"/about"}}`),
		}
		const summary = "SUMMARY: asked suggest_page and opened /about"
		srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
			switch {
			case r.HasTool(llm.ChooseTool):
				mu.Lock()
				defer mu.Unlock()
				routes++
				if routes == 1 {
					return llmfake.CallTool(llm.ChooseTool, `{"choice":"long_texter","reason":"try the suggested page"}`)
				}
				return llmfake.CallTool(llm.ChooseTool, `{"choice":"FINISH","reason":"done"}`)
			case r.HasTool("execute_browser_command"):
				if k := len(r.ToolResults()); k < len(script) {
					return script[k]
				}
				return llmfake.Text(summary)
			default:
				return llmfake.Text("report")
			}
		})
		defer srv.Close()
		models, err := explore.ModelsFromFactory(context.Background(), &llm.Factory{
			Detection: llm.Detection{Provider: llm.OpenAI, APIKey: "x", BaseURL: srv.URL(), Source: llm.EnvOpenAIKey},
			Env:       llm.MapEnv(nil), Meter: llm.NewMeter(nil)})
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var rec observe.Recorder
		res, err := explore.Run(ctx, explore.Config{Target: app.URL, Budget: 5, TurnSteps: 3, MinimizeReplays: -1,
			ReportDir: t.TempDir(), Browser: testBrowser, Models: models, Observer: &rec,
			Personas: []personas.Persona{longTexter}, Tools: []tools.Tool{suggest.tool()}})
		require.NoError(t, err)
		require.Len(t, res.Missions, 1)
		m := res.Missions[0]
		require.Empty(t, m.Err)

		// The tool ran once, with the arguments the model sent.
		suggest.mu.Lock()
		assert.Equal(t, []suggestArgs{{Topic: "company"}}, suggest.calls)
		suggest.mu.Unlock()

		// The persona's model was offered the tool, and its answer came
		// back to the model in the next request.
		var personaReqs []llmfake.Request
		for _, r := range srv.Requests() {
			if r.HasTool("execute_browser_command") {
				personaReqs = append(personaReqs, r)
			}
		}
		require.Len(t, personaReqs, len(script)+1)
		assert.Contains(t, personaReqs[0].ToolNames(), "suggest_page")
		assert.Contains(t, personaReqs[0].Text(), "the tools suggest_page", "the task names the tool")
		assert.Contains(t, personaReqs[0].System(), longTexter.Role, "the persona's own prompt")
		results := personaReqs[1].ToolResults()
		require.Len(t, results, 1)
		assert.Equal(t, fmt.Sprintf(suggestion, "company"), results[0].Text())

		// Its call is where the run records tool calls: the observers…
		calls, answers := rec.Of(observe.ToolCall), rec.Of(observe.ToolResult)
		require.Len(t, calls, len(script))
		require.Len(t, answers, len(script))
		assert.Equal(t, "suggest_page", calls[0].Tool)
		assert.Equal(t, `{"topic":"company"}`, calls[0].Args, "the arguments the model sent")
		assert.Equal(t, longTexter.Name, calls[0].Persona)
		assert.Equal(t, m.Mission.ThreadID, calls[0].Goal)
		assert.Equal(t, "suggest_page", answers[0].Tool)
		assert.True(t, answers[0].OK, answers[0].Error)
		assert.Equal(t, fmt.Sprintf(suggestion, "company"), answers[0].Result)
		assert.Equal(t, "execute_browser_command", calls[1].Tool, "then the browser step")
		// … and traces.log.
		trace, err := os.ReadFile(filepath.Join(m.Dir, "traces.log"))
		require.NoError(t, err)
		assert.Contains(t, string(trace), "tool=suggest_page")
		assert.Contains(t, string(trace), "SUGGESTION: open /about")

		// The tool does not act on the page: the model does, on its
		// answer, and that step is on the tape as the persona's.
		tape, _, err := browser.ReadTapeFile(filepath.Join(m.Dir, "action_tape.jsonl"))
		require.NoError(t, err)
		var opened bool
		for _, e := range tape {
			assert.Equal(t, longTexter.Name, e.User)
			if e.Action == browser.ActNavigate && e.Params.URL == "/about" {
				opened = true
				assert.True(t, e.OK, e.Error)
				assert.True(t, strings.HasSuffix(e.URL, "/about"), e.URL)
			}
		}
		assert.True(t, opened, "the browser step the model took on the tool's answer")
		assert.Equal(t, 2, m.Steps, "the start page and the model's step: the tool call is no browser step")
	})
}

package explore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/memory"
)

// reflectQA is a memory with one session and one bug found by adversarial.
func reflectQA(t *testing.T) *memory.QA {
	t.Helper()
	ctx := context.Background()
	qa, err := memory.NewQA(memory.NewInMemoryStore(), "http://127.0.0.1:8765")
	require.NoError(t, err)
	require.NoError(t, qa.SaveSession(ctx, memory.SessionSummary{ThreadID: "m1", Steps: 40, Personas: []string{"adversarial"},
		Pages: []string{"/search"}, Summary: "searched with markup"}))
	_, err = qa.RecordBug(ctx, memory.BugReport{Kind: "xss", URL: "/search?q=x", Evidence: "probe executed",
		Payload: "<img src=x onerror=alert(1)>", Persona: "adversarial", TapeIndex: 3})
	require.NoError(t, err)
	return qa
}

func TestModelReflectorWritesSupplement(t *testing.T) {
	ctx := context.Background()
	qa := reflectQA(t)
	model := llm.NewScripted(llm.Say("  - Retry XSS payloads on /search and every other text field.  "))
	out, err := qa.Reflect(ctx, memory.ReflectOptions{Reflector: ModelReflector{Model: model}, Personas: []string{"adversarial"}})
	require.NoError(t, err)
	assert.Empty(t, out.Fallbacks)
	sup, err := qa.Supplement(ctx, "adversarial")
	require.NoError(t, err)
	assert.Equal(t, "- Retry XSS payloads on /search and every other text field.", sup)

	calls := model.Calls()
	require.Len(t, calls, 1)
	var brief strings.Builder
	for _, m := range calls[0].Messages {
		for _, p := range m.Parts {
			if tp, ok := p.(llms.TextContent); ok {
				brief.WriteString(tp.Text)
			}
		}
	}
	for _, want := range []string{"Persona: adversarial", "xss on /search", "<img src=x onerror=alert(1)>", "searched with markup"} {
		assert.Contains(t, brief.String(), want)
	}
}

func TestModelReflectorFailureFallsBackToRules(t *testing.T) {
	ctx := context.Background()
	for name, r := range map[string]memory.Reflector{
		"model error": ModelReflector{Model: llm.NewScripted(llm.Reply{Err: errors.New("overloaded")})},
		"empty":       ModelReflector{Model: llm.NewScripted(llm.Say("   "))},
		"no model":    ModelReflector{},
	} {
		t.Run(name, func(t *testing.T) {
			qa := reflectQA(t)
			out, err := qa.Reflect(ctx, memory.ReflectOptions{Reflector: r, Personas: []string{"adversarial"}})
			require.NoError(t, err)
			require.Contains(t, out.Fallbacks, "adversarial")
			sup, err := qa.Supplement(ctx, "adversarial")
			require.NoError(t, err)
			assert.Contains(t, sup, "/search", "the rules wrote the supplement")
		})
	}
}

// TestModelReflectorOverOpenAIWire drives langchaingo's real OpenAI client
// against a local server speaking the chat-completions format.
func TestModelReflectorOverOpenAIWire(t *testing.T) {
	srv := llmfake.New(func(llmfake.Request) llmfake.Reply {
		return llmfake.Reply{Content: "- Probe /search with markup first.", PromptTokens: 90, CompletionTokens: 9}
	})
	defer srv.Close()
	model, err := openai.New(openai.WithBaseURL(srv.URL()), openai.WithToken("test"), openai.WithModel("gpt-4o-mini"))
	require.NoError(t, err)

	ctx := context.Background()
	qa := reflectQA(t)
	out, err := qa.Reflect(ctx, memory.ReflectOptions{Reflector: ModelReflector{Model: model}, Personas: []string{"adversarial"}})
	require.NoError(t, err)
	assert.Empty(t, out.Fallbacks)
	sup, err := qa.Supplement(ctx, "adversarial")
	require.NoError(t, err)
	assert.Equal(t, "- Probe /search with markup first.", sup)

	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	last := reqs[len(reqs)-1]
	assert.Equal(t, "gpt-4o-mini", last.Model)
	require.Len(t, last.Messages, 2)
	assert.Equal(t, "system", last.Messages[0].Role)
	assert.Contains(t, last.Messages[1].Text(), "xss on /search")
}

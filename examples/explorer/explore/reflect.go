package explore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/memory"
)

// ModelReflector is memory's procedural reflection done by a model: it
// rewrites a persona's prompt supplement from its sessions, the bug catalog
// and the selectors that keep failing. Pass it as memory.ReflectOptions.Reflector;
// when the model fails or answers nothing, QA.Reflect falls back to the rules
// for that persona.
type ModelReflector struct {
	Model llms.Model
	// MaxChars caps the supplement (default 1200); the prompt's lists are
	// capped too, so a long history does not grow the call.
	MaxChars int
}

var _ memory.Reflector = ModelReflector{}

// Reflect asks the model for the new supplement.
func (m ModelReflector) Reflect(ctx context.Context, in memory.ReflectionInput) (string, error) {
	if m.Model == nil {
		return "", errors.New("explore: reflect: no model")
	}
	max := m.MaxChars
	if max <= 0 {
		max = 1200
	}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You maintain the standing instructions of one QA persona that explores a web app. "+
			"Rewrite its prompt supplement from what past sessions learned: where bugs were found and with which inputs, "+
			"which areas are still unexplored or risky, which selectors to avoid. Answer with the supplement only: "+
			fmt.Sprintf("short imperative bullet points, at most %d characters, no preamble.", max)),
		llms.TextParts(llms.ChatMessageTypeHuman, reflectionBrief(in)),
	}
	resp, err := m.Model.GenerateContent(ctx, msgs, llms.WithTemperature(0))
	if err != nil {
		return "", fmt.Errorf("explore: reflect %s: %w", in.Persona, err)
	}
	if len(resp.Choices) == 0 {
		return "", fmt.Errorf("explore: reflect %s: the model returned no choice", in.Persona)
	}
	text := strings.TrimSpace(resp.Choices[0].Content)
	if text == "" {
		return "", fmt.Errorf("explore: reflect %s: empty supplement", in.Persona)
	}
	return llm.Truncate(text, max), nil
}

// reflectionBrief is the model's input: capped lists, newest sessions last.
func reflectionBrief(in memory.ReflectionInput) string {
	const maxItems = 12
	var b strings.Builder
	fmt.Fprintf(&b, "Persona: %s\n", in.Persona)
	if in.Current != "" {
		fmt.Fprintf(&b, "Current supplement:\n%s\n", in.Current)
	}
	sessions := in.Sessions
	if len(sessions) > maxItems {
		sessions = sessions[len(sessions)-maxItems:]
	}
	b.WriteString("Sessions:\n")
	for _, s := range sessions {
		fmt.Fprintf(&b, "- %s (%d steps): %s; pages %s\n", s.ThreadID, s.Steps, llm.Truncate(s.Summary, 200), strings.Join(capList(s.Pages, maxItems), ", "))
	}
	b.WriteString("Bugs:\n")
	n := 0
	for _, bug := range in.Bugs {
		if n == maxItems {
			fmt.Fprintf(&b, "- … %d more\n", len(in.Bugs)-n)
			break
		}
		n++
		fmt.Fprintf(&b, "- [%s] %s on %s, seen %d×, found by %s", bug.Status, bug.Kind, bug.Page, bug.SeenCount, strings.Join(bug.Personas, ", "))
		if len(bug.Payloads) > 0 {
			fmt.Fprintf(&b, ", payloads %q", capList(bug.Payloads, 3))
		}
		b.WriteString("\n")
	}
	if len(in.FailedSelectors) > 0 {
		b.WriteString("Selectors that keep failing:\n")
		for _, s := range capList(in.FailedSelectors, maxItems) {
			fmt.Fprintf(&b, "- %s on %s (%d failures, %d successes)\n", s.Selector, s.Page, s.Failures, s.Successes)
		}
	}
	return b.String()
}

func capList[T any](xs []T, n int) []T {
	if len(xs) > n {
		return xs[:n]
	}
	return xs
}

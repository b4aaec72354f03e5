package team

import (
	"context"
	"embed"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentgraph/agentgraph/llm"
)

//go:embed builtin/ratelimit
var builtin embed.FS

// Task is a built-in task with a script for every role, for offline runs:
// the scripted replies are real work products, and the sandbox really runs
// them.
type Task struct {
	Request string
	Spec    string
	Tests   string // the architect's test file
	Draft   string // the developer's first implementation (has a bug the tests catch)
	Fixed   string // the debugger's patch
	// Diagnosis is the debugger's explanation of the bug.
	Diagnosis string
	// Review, FirstTryReview and FailedReview are the reviewer's summaries
	// when the tests pass after debugging, pass at once (e.g. without
	// -race), and still fail when the budget runs out.
	Review, FirstTryReview, FailedReview string
}

// RateLimiterTask is the built-in task: a thread-safe sliding-window rate
// limiter. The first draft has an unlocked "fast path" in Allow, a data race
// that the concurrent test catches under go test -race; the debugger's patch
// takes the lock first.
func RateLimiterTask() Task {
	read := func(name string) string {
		b, err := builtin.ReadFile("builtin/ratelimit/" + name)
		if err != nil {
			// The files are embedded at build time; a missing one is a
			// build mistake, caught by the package tests.
			return ""
		}
		return string(b)
	}
	return Task{
		Request:        strings.TrimSpace(read("request.md")),
		Spec:           strings.TrimSpace(read("spec.md")),
		Tests:          read("tests.go.txt"),
		Draft:          read("draft.go.txt"),
		Fixed:          read("fixed.go.txt"),
		Diagnosis:      strings.TrimSpace(read("diagnosis.md")),
		Review:         strings.TrimSpace(read("review.md")),
		FirstTryReview: strings.TrimSpace(read("review_first.md")),
		FailedReview:   strings.TrimSpace(read("review_failed.md")),
	}
}

// ScriptedModels returns a scripted model per role that plays the task: the
// architect answers with the spec and tests, the developer with the draft,
// the debugger with the diagnosis and the fix, the reviewer with the review
// that matches the outcome in its prompt (healed, passed at once, or
// budget spent). Replies use the same formats a
// real model is asked for, so they go through the same parsers.
func (t Task) ScriptedModels() Models {
	wrap := func(role Role, fn func(last string) string) llms.Model {
		s := llm.NewScriptedFunc(func(_ context.Context, msgs []llms.MessageContent, _ llms.CallOptions) (llm.Reply, error) {
			return llm.Say(fn(lastHuman(msgs))), nil
		})
		return llm.Wrap(s, llm.Role(role), llm.RoleConfig{Provider: llm.Offline, Model: "scripted"})
	}
	return Models{
		Architect: wrap(RoleArchitect, func(string) string {
			return "SPECIFICATIONS:\n" + t.Spec + "\n\nTESTS:\n```go\n" + t.Tests + "```\n"
		}),
		Developer: wrap(RoleDeveloper, func(string) string {
			return "CODE:\n```go\n" + t.Draft + "```\n"
		}),
		Debugger: wrap(RoleDebugger, func(prompt string) string {
			diag := t.Diagnosis
			if !strings.Contains(prompt, "data race") {
				diag = "The sandbox did not report the data race this script expects; applying the known fix anyway.\n" + diag
			}
			return "DIAGNOSIS:\n" + diag + "\n\nPATCHED_CODE:\n```go\n" + t.Fixed + "```\n"
		}),
		Reviewer: wrap(RoleReviewer, func(prompt string) string {
			switch {
			case strings.Contains(prompt, "WARNING: the debug budget"):
				return t.FailedReview
			case !strings.Contains(prompt, "DEBUG ROUND"):
				return t.FirstTryReview
			}
			return t.Review
		}),
	}
}

// lastHuman returns the text of the last human message.
func lastHuman(msgs []llms.MessageContent) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llms.ChatMessageTypeHuman {
			continue
		}
		var b strings.Builder
		for _, p := range msgs[i].Parts {
			if tc, ok := p.(llms.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	return ""
}

// ModelName describes a role's model for the terminal: provider/model for
// an *llm.Model, else its Go type.
func ModelName(m llms.Model) string {
	if lm, ok := m.(*llm.Model); ok {
		c := lm.Config()
		s := string(c.Provider) + "/" + c.Model
		if c.ReasoningEffort != "" && c.ReasoningEffort != llm.EffortNone {
			s += " (effort " + string(c.ReasoningEffort) + ")"
		}
		return s
	}
	return fmt.Sprintf("%T", m)
}

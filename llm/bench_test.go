package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

func benchMsgs() []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You are a QA persona."),
		llms.TextParts(llms.ChatMessageTypeHuman, strings.Repeat("snapshot line\n", 2000)),
	}
}

func loopModel() *Scripted {
	return NewScriptedFunc(func(_ context.Context, msgs []llms.MessageContent, _ llms.CallOptions) (Reply, error) {
		return Reply{Text: "ok", Usage: &Usage{InputTokens: 100, OutputTokens: 5}}, nil
	})
}

// BenchmarkModelCall is a direct call of the scripted model; compare with
// BenchmarkWrappedModelCall for the Model wrapper's overhead (options,
// budget cut of a 28 KB message, retry bookkeeping, usage metering).
func BenchmarkModelCall(b *testing.B) {
	m, msgs, ctx := loopModel(), benchMsgs(), context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.GenerateContent(ctx, msgs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrappedModelCall(b *testing.B) {
	m := Wrap(loopModel(), RolePersona, RoleConfig{Provider: OpenAI, Model: "gpt-4o-mini", InputBudget: 4000}, WithMeter(NewMeter(nil)))
	msgs, ctx := benchMsgs(), context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.GenerateContent(ctx, msgs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTruncate(b *testing.B) {
	s := strings.Repeat("snapshot line\n", 2000)
	b.ReportAllocs()
	for b.Loop() {
		_ = Truncate(s, 4000)
	}
}

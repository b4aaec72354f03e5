package llm

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		opts    []DetectOption
		want    Detection
		wantErr string
	}{
		{"explicit beats keys", map[string]string{EnvProvider: "openai", EnvOpenAIKey: "o", EnvAnthropicKey: "a"}, nil,
			Detection{Provider: OpenAI, APIKey: "o", Source: EnvProvider}, ""},
		{"explicit offline", map[string]string{EnvProvider: "offline", EnvAnthropicKey: "a"}, nil,
			Detection{Provider: Offline, Source: EnvProvider}, ""},
		{"explicit without key", map[string]string{EnvProvider: "anthropic"}, nil, Detection{}, "ANTHROPIC_API_KEY is not set"},
		{"explicit unknown", map[string]string{EnvProvider: "mistral"}, nil, Detection{}, `unknown provider "mistral"`},
		{"anthropic first", map[string]string{EnvAnthropicKey: "a", EnvOpenAIKey: "o", EnvAnthropicURL: "http://x"}, nil,
			Detection{Provider: Anthropic, APIKey: "a", BaseURL: "http://x", Source: EnvAnthropicKey}, ""},
		{"openai with base url", map[string]string{EnvOpenAIKey: "o", EnvOpenAIURL: "http://vllm:8000/v1", EnvGoogleKey: "g"}, nil,
			Detection{Provider: OpenAI, APIKey: "o", BaseURL: "http://vllm:8000/v1", Source: EnvOpenAIKey}, ""},
		{"openai-compatible without key", map[string]string{EnvOpenAIURL: "http://localhost:8080/v1"}, nil,
			Detection{Provider: OpenAI, APIKey: "unused", BaseURL: "http://localhost:8080/v1", Source: EnvOpenAIURL}, ""},
		{"google key", map[string]string{EnvGoogleKey: "g", EnvGeminiKey: "gem"}, nil, Detection{Provider: Google, APIKey: "g", Source: EnvGoogleKey}, ""},
		{"gemini key", map[string]string{EnvGeminiKey: "gem", EnvOllamaHost: "h:1"}, nil, Detection{Provider: Google, APIKey: "gem", Source: EnvGeminiKey}, ""},
		{"ollama host", map[string]string{EnvOllamaHost: "127.0.0.1:11434"}, nil,
			Detection{Provider: Ollama, BaseURL: "http://127.0.0.1:11434", Source: EnvOllamaHost}, ""},
		{"blank values ignored", map[string]string{EnvAnthropicKey: "  ", EnvOllamaHost: "http://o:1"}, nil,
			Detection{Provider: Ollama, BaseURL: "http://o:1", Source: EnvOllamaHost}, ""},
		{"offline fallback", map[string]string{}, []DetectOption{OfflineFallback()}, Detection{Provider: Offline, Source: "offline fallback"}, ""},
		{"force provider beats keys and explicit", map[string]string{EnvProvider: "anthropic", EnvAnthropicKey: "a", EnvGoogleKey: "g"}, []DetectOption{ForceProvider(Google)},
			Detection{Provider: Google, APIKey: "g", Source: EnvGoogleKey}, ""},
		{"force provider without key", map[string]string{EnvAnthropicKey: "a"}, []DetectOption{ForceProvider(OpenAI)}, Detection{}, "provider openai is forced but OPENAI_API_KEY (or OPENAI_BASE_URL) is not set"},
		{"force provider offline", map[string]string{EnvAnthropicKey: "a"}, []DetectOption{ForceProvider(Offline)}, Detection{Provider: Offline, Source: "forced offline"}, ""},
		{"force offline beats force provider", map[string]string{EnvAnthropicKey: "a"}, []DetectOption{ForceProvider(Anthropic), ForceOffline()}, Detection{Provider: Offline, Source: "forced offline"}, ""},
		{"force offline", map[string]string{EnvAnthropicKey: "a"}, []DetectOption{ForceOffline()}, Detection{Provider: Offline, Source: "forced offline"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect(MapEnv(tt.env), tt.opts...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDetectNothingListsWhatWasLookedFor(t *testing.T) {
	_, err := Detect(MapEnv(nil))
	var npe *NoProviderError
	require.ErrorAs(t, err, &npe)
	for _, v := range []string{EnvProvider, EnvAnthropicKey, EnvOpenAIKey, EnvOpenAIURL, EnvGoogleKey, EnvGeminiKey, EnvOllamaHost} {
		assert.Contains(t, err.Error(), v)
	}
	assert.Contains(t, err.Error(), "AGENTGRAPH_PROVIDER=offline")
}

const tiersYAML = `
default:
  provider: openai
  temperature: 0.2
roles:
  supervisor:
    model: gpt-4.1-mini
    temperature: 0
  judge:
    provider: anthropic
    reasoning_effort: medium
  my_critic:
    max_tokens: 300
    input_budget: 4000
`

func TestTiersResolve(t *testing.T) {
	tiers, err := ParseTiersBytes([]byte(tiersYAML))
	require.NoError(t, err)
	det := Detection{Provider: OpenAI}
	zero, point2, one := 0.0, 0.2, 1.0
	tests := []struct {
		role Role
		env  map[string]string
		want RoleConfig
	}{
		{RoleSupervisor, nil, RoleConfig{Provider: OpenAI, Model: "gpt-4.1-mini", Temperature: &zero}},
		{RolePersona, nil, RoleConfig{Provider: OpenAI, Model: "gpt-4o-mini", Temperature: &point2}},
		{RoleJudge, nil, RoleConfig{Provider: Anthropic, Model: "claude-3-5-haiku-latest", Temperature: &point2, ReasoningEffort: EffortMedium}},
		{"my_critic", nil, RoleConfig{Provider: OpenAI, Model: "gpt-4o-mini", Temperature: &point2, MaxTokens: 300, InputBudget: 4000}},
		{RoleSupervisor, map[string]string{"AGENTGRAPH_SUPERVISOR_MODEL": "gpt-4o", "AGENTGRAPH_SUPERVISOR_TEMPERATURE": "1"},
			RoleConfig{Provider: OpenAI, Model: "gpt-4o", Temperature: &one}},
		{RoleReporter, map[string]string{"AGENTGRAPH_DEFAULT_MODEL": "gpt-4.1-nano", "AGENTGRAPH_REPORTER_REASONING_EFFORT": "HIGH"},
			RoleConfig{Provider: OpenAI, Model: "gpt-4.1-nano", Temperature: &point2, ReasoningEffort: EffortHigh}},
		{"my-critic", map[string]string{"AGENTGRAPH_MY_CRITIC_MAX_TOKENS": "50"},
			RoleConfig{Provider: OpenAI, Model: "gpt-4o-mini", Temperature: &point2, MaxTokens: 50}},
	}
	for _, tt := range tests {
		t.Run(string(tt.role), func(t *testing.T) {
			got, err := tiers.Resolve(tt.role, det, MapEnv(tt.env))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTiersDefaultsFollowDetectedProvider(t *testing.T) {
	for p, model := range map[Provider]string{Anthropic: "claude-3-5-haiku-latest", OpenAI: "gpt-4o-mini", Google: "gemini-2.0-flash", Ollama: "llama3.2"} {
		got, err := Tiers{}.Resolve(RolePersona, Detection{Provider: p}, nil)
		require.NoError(t, err)
		assert.Equal(t, RoleConfig{Provider: p, Model: model}, got)
	}
}

func TestTiersBadInput(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown top key", "defaults:\n  model: x\n", "line 1"},
		{"unknown role key", "roles:\n  judge:\n    modle: x\n", `line 3: unknown key "modle"`},
		{"bad temperature", "roles:\n  judge:\n    temperature: 7\n", "line 3: temperature 7"},
		{"bad effort", "default:\n  reasoning_effort: extreme\n", `line 2: reasoning effort "extreme"`},
		{"bad provider", "default:\n  provider: skynet\n", `line 2: llm: unknown provider "skynet"`},
		{"wrong type", "roles:\n  judge:\n    max_tokens: lots\n", "line 3"},
		{"role not a map", "roles:\n  judge: fast\n", "line 2: a role is a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTiersBytes([]byte(tt.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Tiers{}.Resolve(RoleJudge, Detection{Provider: OpenAI}, MapEnv(map[string]string{"AGENTGRAPH_JUDGE_TEMPERATURE": "hot"}))
	require.ErrorContains(t, err, "AGENTGRAPH_JUDGE_TEMPERATURE")
	empty, err := ParseTiersBytes(nil)
	require.NoError(t, err)
	assert.Equal(t, Tiers{}, empty)
}

func TestModelAppliesRoleOptions(t *testing.T) {
	s := NewScripted(Say("ok"))
	temp := 0.3
	m := Wrap(s, RoleJudge, RoleConfig{Provider: OpenAI, Model: "gpt-4o-mini", Temperature: &temp, MaxTokens: 99, ReasoningEffort: EffortLow, InputBudget: 100})
	long := strings.Repeat("a", 300) + "MIDDLE" + strings.Repeat("z", 300)
	_, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, long)}, llms.WithMaxTokens(10))
	require.NoError(t, err)
	calls := s.Calls()
	require.Len(t, calls, 1)
	o := calls[0].Options
	assert.Equal(t, "gpt-4o-mini", o.Model)
	assert.Equal(t, 0.3, o.Temperature)
	assert.Equal(t, 10, o.MaxTokens, "caller's option wins")
	assert.Equal(t, llms.ThinkingModeLow, llms.GetThinkingConfig(&o).Mode)
	sent := calls[0].Messages[0].Parts[0].(llms.TextContent).Text
	assert.Equal(t, 100, utf8.RuneCountInString(sent))
	assert.NotContains(t, sent, "MIDDLE")
	assert.True(t, strings.HasPrefix(sent, "aaa") && strings.HasSuffix(sent, "zzz"))
	assert.Contains(t, sent, "characters cut")
}

func TestTruncate(t *testing.T) {
	assert.Equal(t, "short", Truncate("short", 10))
	assert.Equal(t, "anything", Truncate("anything", 0))
	s := strings.Repeat("é", 50) + strings.Repeat("ü", 50)
	got := Truncate(s, 60)
	assert.True(t, utf8.ValidString(got))
	assert.Equal(t, 60, utf8.RuneCountInString(got))
	assert.True(t, strings.HasPrefix(got, "éé") && strings.HasSuffix(got, "üü"))
	// the marker counts what was removed
	head, tail, ok := strings.Cut(got, "[… ")
	require.True(t, ok)
	_ = head
	assert.Contains(t, tail, " characters cut …]")
	kept := strings.Count(got, "é") + strings.Count(got, "ü")
	assert.Contains(t, got, "[… "+strconv.Itoa(100-kept)+" characters cut")
	assert.Equal(t, "abcd", Truncate("abcdefghijklmnopqrstuvwxyz", 4), "tiny budgets keep the head only")
}

func TestBudgetKeepsToolCallArguments(t *testing.T) {
	args := `{"q":"` + strings.Repeat("x", 500) + `"}`
	msgs := []llms.MessageContent{
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{ToolCallOf("1", "search", args)}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "1", Name: "search", Content: strings.Repeat("r", 500)}}},
	}
	out := Budget{PerMessage: 100}.Apply(msgs)
	assert.Equal(t, args, out[0].Parts[0].(llms.ToolCall).FunctionCall.Arguments)
	assert.Equal(t, 100, utf8.RuneCountInString(out[1].Parts[0].(llms.ToolCallResponse).Content))
	assert.Len(t, msgs[1].Parts[0].(llms.ToolCallResponse).Content, 500, "input untouched")
}

func TestPriceTableAndMeter(t *testing.T) {
	p := DefaultPrices()
	got, ok := p.Lookup("gpt-4o-mini-2024-07-18")
	require.True(t, ok)
	assert.Equal(t, 0.15, got.InputPerM, "longest prefix: gpt-4o-mini*, not gpt-4o*")
	_, ok = p.Lookup("llama3.2")
	assert.False(t, ok)
	cost, ok := p.Cost("claude-3-5-haiku-latest", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000, CachedInputTokens: 500_000})
	require.True(t, ok)
	assert.InDelta(t, 0.5*0.80+0.5*0.08+4.0, cost, 1e-9)

	m := NewMeter(nil)
	m.Record(RoleSupervisor, "gpt-4o-mini", Usage{Calls: 1, InputTokens: 1000, OutputTokens: 100})
	m.Record(RoleSupervisor, "gpt-4o-mini", Usage{Calls: 1, InputTokens: 1000, OutputTokens: 100})
	m.Record(RolePersona, "llama3.2", Usage{Calls: 1, InputTokens: 50, OutputTokens: 5})
	sup := m.ByRole()[RoleSupervisor]
	assert.Equal(t, 2, sup.Calls)
	assert.InDelta(t, 2*(1000*0.15+100*0.60)/1e6, sup.CostUSD, 1e-12)
	assert.Equal(t, 3, m.Total().Calls)
	assert.Equal(t, 2050, m.Total().InputTokens)
	assert.Equal(t, 0.0, m.ByModel()["llama3.2"].CostUSD)
	assert.Contains(t, m.Summary(), "supervisor")
}

func TestScripted(t *testing.T) {
	s := NewScripted(Say("one"), Reply{Err: errors.New("boom")}, CallTool("c1", "f", map[string]int{"n": 1}))
	ctx := context.Background()
	out, err := s.Call(ctx, "hi")
	require.NoError(t, err)
	assert.Equal(t, "one", out)
	_, err = s.Call(ctx, "hi")
	assert.EqualError(t, err, "boom")
	resp, err := s.GenerateContent(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"n":1}`, resp.Choices[0].ToolCalls[0].FunctionCall.Arguments)
	_, err = s.Call(ctx, "hi")
	assert.ErrorIs(t, err, ErrScriptExhausted)
	assert.Len(t, s.Calls(), 4)

	f := NewScriptedFunc(func(_ context.Context, msgs []llms.MessageContent, _ llms.CallOptions) (Reply, error) {
		return Say(strings.ToUpper(msgs[len(msgs)-1].Parts[0].(llms.TextContent).Text)), nil
	})
	out, err = f.Call(ctx, "shout")
	require.NoError(t, err)
	assert.Equal(t, "SHOUT", out)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = f.Call(cctx, "x")
	assert.ErrorIs(t, err, context.Canceled)
}

func TestChoose(t *testing.T) {
	opts := []string{"new_user", "power_user", "FINISH"}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "who next?")}
	ctx := context.Background()

	t.Run("valid call", func(t *testing.T) {
		s := NewScripted(CallTool("c1", ChooseTool, map[string]string{"choice": "power_user", "reason": "depth"}))
		c, err := Choose(ctx, s, msgs, opts)
		require.NoError(t, err)
		assert.Equal(t, Choice{Option: "power_user", Reason: "depth"}, c)
		call := s.Calls()[0]
		require.Len(t, call.Options.Tools, 1)
		schema, ok := call.Options.Tools[0].Function.Parameters.(map[string]any)
		require.True(t, ok, "langchaingo's Google client takes only a map[string]any")
		wire, err := json.Marshal(schema)
		require.NoError(t, err)
		assert.JSONEq(t, `{"type": "object", "additionalProperties": false, "required": ["choice"], "properties": {
			"choice": {"type": "string", "enum": ["new_user", "power_user", "FINISH"], "description": "exactly one of: new_user, power_user, FINISH"},
			"reason": {"type": "string", "description": "one short sentence on why"}}}`, string(wire))
		assert.Equal(t, []any{"new_user", "power_user", "FINISH"}, ChooseSchema(opts).Properties.Value("choice").Enum)
		assert.Equal(t, llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: ChooseTool}}, call.Options.ToolChoice)
	})
	t.Run("out of enum then valid", func(t *testing.T) {
		s := NewScripted(CallTool("c1", ChooseTool, map[string]string{"choice": "hacker"}), CallTool("c2", ChooseTool, map[string]string{"choice": "finish"}))
		c, err := Choose(ctx, s, msgs, opts)
		require.NoError(t, err)
		assert.Equal(t, "FINISH", c.Option)
		second := s.Calls()[1].Messages
		require.Len(t, second, 3)
		fb := second[2].Parts[0].(llms.ToolCallResponse)
		assert.Equal(t, "c1", fb.ToolCallID)
		assert.Contains(t, fb.Content, `choice "hacker" is not one of the allowed options`)
		assert.Contains(t, fb.Content, "new_user, power_user, FINISH")
	})
	t.Run("plain text answer accepted", func(t *testing.T) {
		c, err := Choose(ctx, NewScripted(Say(" new_user\n")), msgs, opts)
		require.NoError(t, err)
		assert.Equal(t, "new_user", c.Option)
	})
	t.Run("twice wrong", func(t *testing.T) {
		s := NewScripted(Say("I think the admin"), CallTool("c2", ChooseTool, `{"choice": 3}`))
		_, err := Choose(ctx, s, msgs, opts)
		var re *RouteError
		require.ErrorAs(t, err, &re)
		assert.Len(t, re.Answers, 2)
		assert.Contains(t, err.Error(), "did not choose one of [new_user, power_user, FINISH] after 2 attempts")
		second := s.Calls()[1].Messages
		assert.Equal(t, llms.ChatMessageTypeHuman, second[len(second)-1].Role)
	})
	t.Run("model error", func(t *testing.T) {
		_, err := Choose(ctx, NewScripted(Reply{Err: errors.New("down")}), msgs, opts)
		assert.ErrorContains(t, err, "down")
	})
	t.Run("bad options", func(t *testing.T) {
		_, err := Choose(ctx, NewScripted(), msgs, nil)
		assert.Error(t, err)
		_, err = Choose(ctx, NewScripted(), msgs, []string{"a", "A"})
		assert.ErrorContains(t, err, "duplicate")
	})
}

func TestTiersFromEnv(t *testing.T) {
	path := t.TempDir() + "/roles.yaml"
	require.NoError(t, os.WriteFile(path, []byte(tiersYAML), 0o600))
	tiers, err := TiersFromEnv(MapEnv(map[string]string{EnvRolesFile: path}))
	require.NoError(t, err)
	assert.Equal(t, "gpt-4.1-mini", tiers.Roles[RoleSupervisor].Model)
	empty, err := TiersFromEnv(MapEnv(nil))
	require.NoError(t, err)
	assert.Empty(t, empty.Roles)

	bad := t.TempDir() + "/bad.yaml"
	require.NoError(t, os.WriteFile(bad, []byte("roles:\n  judge:\n    temprature: 1\n"), 0o600))
	_, err = LoadTiers(bad)
	require.ErrorContains(t, err, "bad.yaml")
	assert.ErrorContains(t, err, "line 3")
	_, err = LoadTiers(t.TempDir() + "/missing.yaml")
	assert.Error(t, err)
}

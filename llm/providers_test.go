package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// providerCase describes one provider's wire format for the shared tests.
type providerCase struct {
	name string
	det  func(url string) Detection
	// a tool call for lookup{city:Paris} with usage 20 in / 7 out
	toolCall fakeReply
	// the final text "It is sunny in Paris." after the tool result, usage 30/6
	afterTool          fakeReply
	checkToolRequest   func(t *testing.T, r recorded)
	checkToolResult    func(t *testing.T, r recorded) // the request carrying the tool result
	stream             fakeReply                      // streams "Hello" + " world", usage 9/2
	checkStreamRequest func(t *testing.T, r recorded)
	rateLimited        fakeReply // HTTP 429 with Retry-After: 2
	wantCallID         bool      // the provider assigns tool call ids
}

const sunny = "It is sunny in Paris."

func openAICase() providerCase {
	chunk := func(delta string, finish string) string {
		fr := "null"
		if finish != "" {
			fr = `"` + finish + `"`
		}
		return `{"id":"chatcmpl-s1","object":"chat.completion.chunk","created":1733140000,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_1","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + fr + `}]}`
	}
	return providerCase{
		name: "openai",
		det: func(url string) Detection {
			return Detection{Provider: OpenAI, APIKey: "sk-test", BaseURL: url + "/v1"}
		},
		toolCall: fakeReply{body: `{"id":"chatcmpl-1","object":"chat.completion","created":1733140000,"model":"gpt-4o-mini-2024-07-18",
"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc","type":"function","function":{"name":"lookup","arguments":"{\"city\":\"Paris\"}"}}],"refusal":null},"logprobs":null,"finish_reason":"tool_calls"}],
"usage":{"prompt_tokens":20,"completion_tokens":7,"total_tokens":27,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"system_fingerprint":"fp_1"}`},
		afterTool: fakeReply{body: `{"id":"chatcmpl-2","object":"chat.completion","created":1733140001,"model":"gpt-4o-mini-2024-07-18",
"choices":[{"index":0,"message":{"role":"assistant","content":"` + sunny + `","refusal":null},"logprobs":null,"finish_reason":"stop"}],
"usage":{"prompt_tokens":30,"completion_tokens":6,"total_tokens":36}}`},
		checkToolRequest: func(t *testing.T, r recorded) {
			assert.Equal(t, "/v1/chat/completions", r.Path)
			assert.Equal(t, "Bearer sk-test", r.Header.Get("Authorization"))
			assert.Equal(t, "gpt-4o-mini", r.Body["model"])
			assert.Equal(t, "function", jsonPath(t, r.Body, "tools", 0, "type"))
			assert.Equal(t, "lookup", jsonPath(t, r.Body, "tools", 0, "function", "name"))
			assert.Equal(t, []any{"Paris", "Oslo"}, jsonPath(t, r.Body, "tools", 0, "function", "parameters", "properties", "city", "enum"))
			assert.Equal(t, "system", jsonPath(t, r.Body, "messages", 0, "role"))
			assert.Equal(t, "user", jsonPath(t, r.Body, "messages", 1, "role"))
		},
		checkToolResult: func(t *testing.T, r recorded) {
			assert.Equal(t, "assistant", jsonPath(t, r.Body, "messages", 2, "role"))
			assert.Equal(t, "call_abc", jsonPath(t, r.Body, "messages", 2, "tool_calls", 0, "id"))
			assert.Equal(t, "tool", jsonPath(t, r.Body, "messages", 3, "role"))
			assert.Equal(t, "call_abc", jsonPath(t, r.Body, "messages", 3, "tool_call_id"))
			assert.Equal(t, "sunny, 21C", jsonPath(t, r.Body, "messages", 3, "content"))
		},
		stream: fakeReply{contentType: "text/event-stream", chunks: append(sse(
			[2]string{"", chunk(`{"role":"assistant","content":""}`, "")},
			[2]string{"", chunk(`{"content":"Hello"}`, "")},
			[2]string{"", chunk(`{"content":" world"}`, "")},
			[2]string{"", chunk(`{}`, "stop")},
			[2]string{"", `{"id":"chatcmpl-s1","object":"chat.completion.chunk","created":1733140000,"model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`},
		), "data: [DONE]\n\n")},
		checkStreamRequest: func(t *testing.T, r recorded) {
			assert.Equal(t, true, r.Body["stream"])
			assert.Equal(t, true, jsonPath(t, r.Body, "stream_options", "include_usage"))
		},
		rateLimited: fakeReply{status: 429, header: map[string]string{"Retry-After": "2", "x-ratelimit-remaining-requests": "0"},
			body: `{"error":{"message":"Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`},
		wantCallID: true,
	}
}

func anthropicCase() providerCase {
	return providerCase{
		name: "anthropic",
		det: func(url string) Detection {
			return Detection{Provider: Anthropic, APIKey: "sk-ant-test", BaseURL: url + "/v1"}
		},
		toolCall: fakeReply{body: `{"id":"msg_01","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022",
"content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_01","name":"lookup","input":{"city":"Paris"}}],
"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":7}}`},
		afterTool: fakeReply{body: `{"id":"msg_02","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022",
"content":[{"type":"text","text":"` + sunny + `"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":6}}`},
		checkToolRequest: func(t *testing.T, r recorded) {
			assert.Equal(t, "/v1/messages", r.Path)
			assert.Equal(t, "sk-ant-test", r.Header.Get("x-api-key"))
			assert.Equal(t, "2023-06-01", r.Header.Get("anthropic-version"))
			assert.Equal(t, "claude-3-5-haiku-latest", r.Body["model"])
			assert.Equal(t, "You are a weather bot.", r.Body["system"])
			assert.Equal(t, "lookup", jsonPath(t, r.Body, "tools", 0, "name"))
			assert.Equal(t, []any{"Paris", "Oslo"}, jsonPath(t, r.Body, "tools", 0, "input_schema", "properties", "city", "enum"))
			assert.Equal(t, "user", jsonPath(t, r.Body, "messages", 0, "role"))
		},
		checkToolResult: func(t *testing.T, r recorded) {
			// the AI turn was split into one message per part (text, tool_use)
			msgs := jsonPath(t, r.Body, "messages").([]any)
			require.Len(t, msgs, 4)
			assert.Equal(t, "assistant", jsonPath(t, msgs, 1, "role"))
			assert.Equal(t, "Let me check.", jsonPath(t, msgs, 1, "content", 0, "text"))
			assert.Equal(t, "tool_use", jsonPath(t, msgs, 2, "content", 0, "type"))
			assert.Equal(t, "toolu_01", jsonPath(t, msgs, 2, "content", 0, "id"))
			assert.Equal(t, "user", jsonPath(t, msgs, 3, "role"))
			assert.Equal(t, "tool_result", jsonPath(t, msgs, 3, "content", 0, "type"))
			assert.Equal(t, "toolu_01", jsonPath(t, msgs, 3, "content", 0, "tool_use_id"))
			assert.Equal(t, "sunny, 21C", jsonPath(t, msgs, 3, "content", 0, "content"))
		},
		stream: fakeReply{contentType: "text/event-stream", chunks: sse(
			[2]string{"message_start", `{"type":"message_start","message":{"id":"msg_s","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`},
			[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			[2]string{"ping", `{"type": "ping"}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" world"}}`},
			[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}`},
			[2]string{"message_stop", `{"type":"message_stop"}`},
		)},
		checkStreamRequest: func(t *testing.T, r recorded) {
			assert.Equal(t, true, r.Body["stream"])
		},
		rateLimited: fakeReply{status: 429, header: map[string]string{"retry-after": "2", "anthropic-ratelimit-requests-remaining": "0"},
			body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`},
		wantCallID: true,
	}
}

func googleCase() providerCase {
	return providerCase{
		name: "google",
		det: func(url string) Detection {
			return Detection{Provider: Google, APIKey: "g-test", BaseURL: url}
		},
		// genai's chat session always calls streamGenerateContent, which
		// answers with a JSON array of responses
		toolCall: fakeReply{body: `[{"candidates":[{"content":{"parts":[{"functionCall":{"name":"lookup","args":{"city":"Paris"}}}],"role":"model"},"finishReason":1,"index":0}],
"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":7,"totalTokenCount":27},"modelVersion":"gemini-2.0-flash"}]`},
		afterTool: fakeReply{body: `[{"candidates":[{"content":{"parts":[{"text":"` + sunny + `"}],"role":"model"},"finishReason":1,"index":0}],
"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":6,"totalTokenCount":36},"modelVersion":"gemini-2.0-flash"}]`},
		checkToolRequest: func(t *testing.T, r recorded) {
			assert.Equal(t, "/v1beta/models/gemini-2.0-flash:streamGenerateContent", r.Path)
			assert.Equal(t, "g-test", r.Header.Get("x-goog-api-key"))
			assert.Equal(t, "lookup", jsonPath(t, r.Body, "tools", 0, "functionDeclarations", 0, "name"))
			assert.Equal(t, "You are a weather bot.", jsonPath(t, r.Body, "systemInstruction", "parts", 0, "text"))
			assert.Equal(t, "user", jsonPath(t, r.Body, "contents", 0, "role"))
			assert.Equal(t, "Weather in Paris?", jsonPath(t, r.Body, "contents", 0, "parts", 0, "text"))
		},
		checkToolResult: func(t *testing.T, r recorded) {
			assert.Equal(t, "model", jsonPath(t, r.Body, "contents", 1, "role"))
			assert.Equal(t, "lookup", jsonPath(t, r.Body, "contents", 1, "parts", 0, "functionCall", "name"))
			assert.Equal(t, "lookup", jsonPath(t, r.Body, "contents", 2, "parts", 0, "functionResponse", "name"))
			assert.Equal(t, "sunny, 21C", jsonPath(t, r.Body, "contents", 2, "parts", 0, "functionResponse", "response", "response"))
		},
		// the REST client streams a JSON array of responses
		stream: fakeReply{chunks: []string{
			`[{"candidates":[{"content":{"parts":[{"text":"Hello"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":1,"totalTokenCount":10}}` + "\r\n",
			`,{"candidates":[{"content":{"parts":[{"text":" world"}],"role":"model"},"finishReason":1,"index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":2,"totalTokenCount":11}}` + "\r\n",
			"]",
		}},
		checkStreamRequest: func(t *testing.T, r recorded) {
			assert.Equal(t, "/v1beta/models/gemini-2.0-flash:streamGenerateContent", r.Path)
		},
		rateLimited: fakeReply{status: 429, header: map[string]string{"Retry-After": "2"},
			body: `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`},
	}
}

// ollamaCase drives the default Ollama path: langchaingo's OpenAI client
// against Ollama's OpenAI-compatible /v1 API (the native client has no tool
// calling; see TestOllamaNative).
func ollamaCase() providerCase {
	c := openAICase()
	c.name = "ollama"
	c.det = func(url string) Detection { return Detection{Provider: Ollama, BaseURL: url} }
	inner := c.checkToolRequest
	c.checkToolRequest = func(t *testing.T, r recorded) {
		assert.Equal(t, "/v1/chat/completions", r.Path)
		assert.Equal(t, "llama3.2", r.Body["model"])
		r.Body["model"] = "gpt-4o-mini"
		r.Header.Set("Authorization", "Bearer sk-test")
		inner(t, r)
	}
	c.rateLimited = fakeReply{status: 503, body: `{"error":{"message":"server busy, please try again.  maximum pending requests exceeded","type":"api_error"}}`,
		header: map[string]string{"Retry-After": "2"}}
	return c
}

func lookupTool() llms.Tool {
	return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
		Name: "lookup", Description: "Weather for a city",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"city": map[string]any{"type": "string", "enum": []string{"Paris", "Oslo"}},
		}, "required": []string{"city"}},
	}}
}

func newTestModel(t *testing.T, c providerCase, url string, opts ...ModelOption) *Model {
	t.Helper()
	det := c.det(url)
	cfg := RoleConfig{Provider: det.Provider, Model: DefaultModel(det.Provider, RolePersona)}
	base, err := NewProviderModel(context.Background(), det, cfg, NewHTTPClient(nil, 10*time.Second))
	require.NoError(t, err)
	return Wrap(base, RolePersona, cfg, opts...)
}

func TestProvidersWireFormat(t *testing.T) {
	for _, c := range []providerCase{openAICase(), anthropicCase(), googleCase(), ollamaCase()} {
		t.Run(c.name+"/tool call round trip", func(t *testing.T) {
			fp := newFakeProvider(t, c.toolCall, c.afterTool)
			meter := NewMeter(nil)
			m := newTestModel(t, c, fp.URL(), WithMeter(meter))
			convo := []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeSystem, "You are a weather bot."),
				llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?"),
			}
			resp, err := m.GenerateContent(context.Background(), convo, llms.WithTools([]llms.Tool{lookupTool()}))
			require.NoError(t, err)
			c.checkToolRequest(t, fp.last())

			ai, _, calls := AIMessage(resp)
			require.Len(t, calls, 1)
			assert.Equal(t, "lookup", calls[0].FunctionCall.Name)
			assert.JSONEq(t, `{"city":"Paris"}`, calls[0].FunctionCall.Arguments)
			if c.wantCallID {
				assert.NotEmpty(t, calls[0].ID)
			}
			u, ok := UsageOf(resp)
			require.True(t, ok)
			assert.Equal(t, 20, u.InputTokens)
			assert.Equal(t, 7, u.OutputTokens)

			id := calls[0].ID
			if id == "" {
				id = "call_1"
			}
			convo = append(convo, ai, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: id, Name: "lookup", Content: "sunny, 21C"}}})
			resp, err = m.GenerateContent(context.Background(), convo, llms.WithTools([]llms.Tool{lookupTool()}))
			require.NoError(t, err)
			c.checkToolResult(t, fp.last())
			_, text, calls := AIMessage(resp)
			assert.Empty(t, calls)
			assert.Equal(t, sunny, text)

			total := meter.Total()
			assert.Equal(t, 2, total.Calls)
			assert.Equal(t, 50, total.InputTokens)
			assert.Equal(t, 13, total.OutputTokens)
			assert.Equal(t, total, meter.ByRole()[RolePersona])
		})

		t.Run(c.name+"/streaming", func(t *testing.T) {
			fp := newFakeProvider(t, c.stream)
			m := newTestModel(t, c, fp.URL())
			var chunks []string
			resp, err := m.GenerateContent(context.Background(),
				[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Say hello")},
				llms.WithStreamingFunc(func(_ context.Context, b []byte) error {
					if len(b) > 0 {
						chunks = append(chunks, string(b))
					}
					return nil
				}))
			require.NoError(t, err)
			c.checkStreamRequest(t, fp.last())
			assert.Equal(t, []string{"Hello", " world"}, chunks, "%q", chunks)
			_, text, _ := AIMessage(resp)
			assert.Equal(t, "Hello world", text)
			u, ok := UsageOf(resp)
			require.True(t, ok)
			assert.Equal(t, 9, u.InputTokens)
			assert.Equal(t, 2, u.OutputTokens)
		})

		t.Run(c.name+"/transient error then success", func(t *testing.T) {
			fp := newFakeProvider(t, c.rateLimited, c.afterTool)
			var sleeps sleepRecorder
			var hooks []CallUsage
			m := newTestModel(t, c, fp.URL(),
				WithRetry(RetryPolicy{BaseDelay: 100 * time.Millisecond, Sleep: sleeps.sleep, Rand: func() float64 { return 0 }}),
				WithUsageHook(func(cu CallUsage) { hooks = append(hooks, cu) }))
			resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather?")})
			require.NoError(t, err)
			_, text, _ := AIMessage(resp)
			assert.Equal(t, sunny, text)
			assert.Len(t, fp.requests(), 2)
			// Retry-After: 2 beats the 50ms..100ms backoff
			assert.Equal(t, []time.Duration{2 * time.Second}, sleeps.get())
			require.Len(t, hooks, 1)
			assert.Equal(t, 2, hooks[0].Attempts)
			assert.Equal(t, 30, hooks[0].Usage.InputTokens)
		})
	}
}

func TestProviderPermanentErrorIsNotRetried(t *testing.T) {
	fp := newFakeProvider(t, fakeReply{status: 401, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`})
	var sleeps sleepRecorder
	m := newTestModel(t, anthropicCase(), fp.URL(), WithRetry(RetryPolicy{Sleep: sleeps.sleep}))
	_, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	var ce *CallError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, http.StatusUnauthorized, ce.Status)
	assert.False(t, ce.Transient)
	assert.Equal(t, 1, ce.Attempts)
	assert.Empty(t, sleeps.get())
	assert.Len(t, fp.requests(), 1)
}

func TestProviderRetriesGiveUp(t *testing.T) {
	overloaded := fakeReply{status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	fp := newFakeProvider(t, overloaded, overloaded, overloaded)
	var sleeps sleepRecorder
	m := newTestModel(t, anthropicCase(), fp.URL(), WithRetry(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Second, Sleep: sleeps.sleep, Rand: func() float64 { return 0.5 }}))
	_, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	var ce *CallError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 529, ce.Status)
	assert.True(t, ce.Transient)
	assert.Equal(t, 3, ce.Attempts)
	assert.Contains(t, ce.Error(), "HTTP 529")
	// jitter 0.5 of the upper half: 0.75·d for d = 1s, 2s
	assert.Equal(t, []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}, sleeps.get())
}

// TestOllamaNative drives langchaingo's native Ollama client (/api/chat,
// NDJSON streaming) when AGENTGRAPH_OLLAMA_API=native.
func TestOllamaNative(t *testing.T) {
	final := `{"model":"llama3.2","created_at":"2024-12-02T10:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":5000000,"load_duration":1000,"prompt_eval_count":9,"prompt_eval_duration":100,"eval_count":2,"eval_duration":200}` + "\n"
	stream := fakeReply{contentType: "application/x-ndjson", chunks: []string{
		`{"model":"llama3.2","created_at":"2024-12-02T10:00:00Z","message":{"role":"assistant","content":"Hello"},"done":false}` + "\n",
		`{"model":"llama3.2","created_at":"2024-12-02T10:00:00Z","message":{"role":"assistant","content":" world"},"done":false}` + "\n",
		final,
	}}
	busy := fakeReply{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":"too many requests"}`}
	whole := fakeReply{body: `{"model":"llama3.2","created_at":"2024-12-02T10:00:01Z","message":{"role":"assistant","content":"` + sunny + `"},"done":true,"done_reason":"stop","prompt_eval_count":30,"eval_count":6}`}
	fp := newFakeProvider(t, stream, busy, whole)
	env := MapEnv(map[string]string{EnvProvider: "ollama", EnvOllamaHost: strings.TrimPrefix(fp.URL(), "http://"), EnvOllamaAPI: "native"})
	det, err := Detect(env)
	require.NoError(t, err)
	require.True(t, det.OllamaNative)
	var sleeps sleepRecorder
	base, err := NewProviderModel(context.Background(), det, RoleConfig{Model: "llama3.2"}, nil)
	require.NoError(t, err)
	m := Wrap(base, RoleSummarizer, RoleConfig{Provider: Ollama, Model: "llama3.2"}, WithRetry(RetryPolicy{Sleep: sleeps.sleep}))

	var chunks []string
	resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Say hello")},
		llms.WithStreamingFunc(func(_ context.Context, b []byte) error {
			if len(b) > 0 {
				chunks = append(chunks, string(b))
			}
			return nil
		}))
	require.NoError(t, err)
	r := fp.last()
	assert.Equal(t, "/api/chat", r.Path)
	assert.Equal(t, "llama3.2", r.Body["model"])
	assert.Equal(t, true, r.Body["stream"])
	assert.Equal(t, "Say hello", jsonPath(t, r.Body, "messages", 0, "content"))
	assert.Equal(t, []string{"Hello", " world"}, chunks)
	assert.Equal(t, "Hello world", resp.Choices[0].Content)
	u, ok := UsageOf(resp)
	require.True(t, ok)
	assert.Equal(t, Usage{Calls: 1, InputTokens: 9, OutputTokens: 2}, u)

	resp, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather?")})
	require.NoError(t, err)
	assert.Equal(t, sunny, resp.Choices[0].Content)
	assert.NotEqual(t, true, fp.last().Body["stream"])
	assert.Equal(t, []time.Duration{time.Second}, sleeps.get())
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"fraction", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"date", http.Header{"Retry-After": {now.Add(10 * time.Second).Format(http.TimeFormat)}}, 10 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"ms header", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"absent", http.Header{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, parseRetryAfter(tt.h, now))
		})
	}
}

func TestRetryAfterTooLongFails(t *testing.T) {
	fp := newFakeProvider(t, fakeReply{status: 429, header: map[string]string{"Retry-After": "3600"}, body: `{"error":{"message":"slow down"}}`})
	var sleeps sleepRecorder
	m := newTestModel(t, openAICase(), fp.URL(), WithRetry(RetryPolicy{Sleep: sleeps.sleep, MaxRetryAfter: time.Minute}))
	_, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	var ce *CallError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 429, ce.Status)
	assert.Contains(t, err.Error(), "Retry-After 1h0m0s exceeds")
	assert.Empty(t, sleeps.get())
}

func TestIsTransient(t *testing.T) {
	tests := []struct {
		err    error
		status int
		want   bool
	}{
		{assert.AnError, 429, true},
		{assert.AnError, 503, true},
		{assert.AnError, 529, true},
		{assert.AnError, 400, false},
		{assert.AnError, 401, false},
		{context.Canceled, 0, false},
		{context.DeadlineExceeded, 0, true},
		{&llms.Error{Code: llms.ErrCodeRateLimit}, 0, true},
		{json.Unmarshal([]byte("{"), new(any)), 0, false},
		{errorString("anthropic: API returned unexpected status code: 529: Overloaded"), 0, true},
		{nil, 500, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, IsTransient(tt.err, tt.status), "%v %d", tt.err, tt.status)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestFactoryRolesAcrossProviders(t *testing.T) {
	oa := newFakeProvider(t, openAICase().afterTool)
	an := newFakeProvider(t, anthropicCase().afterTool)
	env := MapEnv(map[string]string{
		EnvProvider: "openai", EnvOpenAIKey: "sk-test", EnvOpenAIURL: oa.URL() + "/v1",
		EnvAnthropicKey: "sk-ant-test", EnvAnthropicURL: an.URL() + "/v1",
		"AGENTGRAPH_PERSONA_MODEL": "gpt-4.1-nano",
	})
	tiers, err := ParseTiersBytes([]byte("roles:\n  judge: {provider: anthropic}\n"))
	require.NoError(t, err)
	f, err := NewFactory(env, tiers)
	require.NoError(t, err)
	ctx := context.Background()
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}

	persona, err := f.For(ctx, RolePersona)
	require.NoError(t, err)
	_, err = persona.GenerateContent(ctx, msgs)
	require.NoError(t, err)
	assert.Equal(t, "gpt-4.1-nano", oa.last().Body["model"])

	judge, err := f.For(ctx, RoleJudge)
	require.NoError(t, err)
	_, err = judge.GenerateContent(ctx, msgs)
	require.NoError(t, err)
	assert.Equal(t, "claude-3-5-haiku-latest", an.last().Body["model"])

	by := f.Meter.ByRole()
	assert.Equal(t, 30, by[RolePersona].InputTokens)
	assert.Equal(t, 30, by[RoleJudge].InputTokens)
	assert.Greater(t, by[RoleJudge].CostUSD, by[RolePersona].CostUSD, "haiku costs more than nano")
	assert.Equal(t, 2, f.Meter.Total().Calls)

	off, err := NewFactory(MapEnv(nil), Tiers{}, OfflineFallback())
	require.NoError(t, err)
	_, err = off.For(ctx, RolePersona)
	assert.ErrorIs(t, err, ErrOffline)

	f2, err := NewFactory(MapEnv(map[string]string{EnvOpenAIKey: "k"}), tiers)
	require.NoError(t, err)
	_, err = f2.For(ctx, RoleJudge)
	assert.ErrorContains(t, err, "ANTHROPIC_API_KEY is not set")
}

func TestStreamedOutputIsNotRetried(t *testing.T) {
	calls := 0
	flaky := NewScriptedFunc(func(ctx context.Context, _ []llms.MessageContent, o llms.CallOptions) (Reply, error) {
		calls++
		if err := o.StreamingFunc(ctx, []byte("partial")); err != nil {
			return Reply{}, err
		}
		return Reply{}, errorString("API returned unexpected status code: 503")
	})
	var sleeps sleepRecorder
	m := Wrap(flaky, RolePersona, RoleConfig{Provider: OpenAI}, WithRetry(RetryPolicy{Sleep: sleeps.sleep}))
	var got []string
	_, err := m.GenerateContent(context.Background(), nil, llms.WithStreamingFunc(func(_ context.Context, b []byte) error {
		got = append(got, string(b))
		return nil
	}))
	var ce *CallError
	require.ErrorAs(t, err, &ce)
	assert.True(t, ce.Transient)
	assert.Equal(t, 1, calls)
	assert.Equal(t, []string{"partial"}, got)
	assert.Empty(t, sleeps.get())
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	fp := newFakeProvider(t, openAICase().rateLimited, openAICase().afterTool)
	ctx, cancel := context.WithCancel(context.Background())
	m := newTestModel(t, openAICase(), fp.URL(), WithRetry(RetryPolicy{Sleep: func(c context.Context, _ time.Duration) error {
		cancel()
		<-c.Done()
		return c.Err()
	}}))
	_, err := m.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	require.ErrorIs(t, err, context.Canceled)
	assert.Len(t, fp.requests(), 1)
}

func TestOpenAIReasoningEffortIsSent(t *testing.T) {
	fp := newFakeProvider(t, openAICase().afterTool, openAICase().afterTool)
	det := Detection{Provider: OpenAI, APIKey: "k", BaseURL: fp.URL() + "/v1"}
	for _, tt := range []struct {
		effort Effort
		want   any
	}{{EffortHigh, "high"}, {"", nil}} {
		cfg := RoleConfig{Provider: OpenAI, Model: "o4-mini", ReasoningEffort: tt.effort}
		base, err := NewProviderModel(context.Background(), det, cfg, nil)
		require.NoError(t, err)
		_, err = Wrap(base, RoleJudge, cfg).GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "think")})
		require.NoError(t, err)
		r := fp.last()
		assert.Equal(t, tt.want, r.Body["reasoning_effort"])
		assert.Equal(t, "o4-mini", r.Body["model"], "the rest of the body is intact")
		assert.Equal(t, "think", jsonPath(t, r.Body, "messages", 0, "content"))
	}
}

// TestChooseOverOpenAIWire routes through the real OpenAI client: the
// choose tool with its enum and a forced tool_choice go out; an answer
// outside the enum is sent back as a tool message and the retry succeeds.
func TestChooseOverOpenAIWire(t *testing.T) {
	choose := func(id, choice string) fakeReply {
		return fakeReply{body: `{"id":"chatcmpl-r","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"choose","arguments":"{\"choice\":\"` + choice + `\",\"reason\":\"r\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":9,"total_tokens":59}}`}
	}
	fp := newFakeProvider(t, choose("call_a", "admin"), choose("call_b", "power_user"))
	m := newTestModel(t, openAICase(), fp.URL())
	c, err := Choose(context.Background(), m, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "next?")}, []string{"new_user", "power_user", "FINISH"})
	require.NoError(t, err)
	assert.Equal(t, Choice{Option: "power_user", Reason: "r"}, c)
	reqs := fp.requests()
	require.Len(t, reqs, 2)
	first := reqs[0].Body
	assert.Equal(t, "choose", jsonPath(t, first, "tool_choice", "function", "name"))
	assert.Equal(t, []any{"new_user", "power_user", "FINISH"}, jsonPath(t, first, "tools", 0, "function", "parameters", "properties", "choice", "enum"))
	second := reqs[1].Body
	assert.Equal(t, "call_a", jsonPath(t, second, "messages", 1, "tool_calls", 0, "id"))
	assert.Equal(t, "tool", jsonPath(t, second, "messages", 2, "role"))
	assert.Contains(t, jsonPath(t, second, "messages", 2, "content"), `choice "admin" is not one of the allowed options`)
}

// TestStreamedToolCalls: tool calls arriving as stream deltas (OpenAI's
// tool_calls deltas, Anthropic's input_json_delta) are assembled.
func TestStreamedToolCalls(t *testing.T) {
	oaChunk := func(delta, finish string) [2]string {
		fr := "null"
		if finish != "" {
			fr = `"` + finish + `"`
		}
		return [2]string{"", `{"id":"chatcmpl-t","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fr + `}]}`}
	}
	cases := []struct {
		c     providerCase
		reply fakeReply
	}{
		{openAICase(), fakeReply{contentType: "text/event-stream", chunks: append(sse(
			oaChunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_s","type":"function","function":{"name":"lookup","arguments":""}}]}`, ""),
			oaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]}`, ""),
			oaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]}`, ""),
			oaChunk(`{}`, "tool_calls"),
			[2]string{"", `{"id":"chatcmpl-t","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":7,"total_tokens":27}}`},
		), "data: [DONE]\n\n")}},
		{anthropicCase(), fakeReply{contentType: "text/event-stream", chunks: sse(
			[2]string{"message_start", `{"type":"message_start","message":{"id":"msg_t","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[],"stop_reason":null,"usage":{"input_tokens":20,"output_tokens":1}}}`},
			[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_s","name":"lookup","input":{}}}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"ci"}}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"ty\": \"Paris\"}"}}`},
			[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7}}`},
			[2]string{"message_stop", `{"type":"message_stop"}`},
		)}},
	}
	for _, tc := range cases {
		t.Run(tc.c.name, func(t *testing.T) {
			fp := newFakeProvider(t, tc.reply)
			m := newTestModel(t, tc.c, fp.URL())
			resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")},
				llms.WithTools([]llms.Tool{lookupTool()}), llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			require.NoError(t, err)
			_, _, calls := AIMessage(resp)
			require.Len(t, calls, 1)
			assert.Equal(t, "lookup", calls[0].FunctionCall.Name)
			assert.JSONEq(t, `{"city":"Paris"}`, calls[0].FunctionCall.Arguments)
			assert.NotEmpty(t, calls[0].ID)
		})
	}
}

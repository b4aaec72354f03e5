package llmfake

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// TestOpenAIClientRoundTrip drives langchaingo's real OpenAI client through
// a tool call, its result and a final answer.
func TestOpenAIClientRoundTrip(t *testing.T) {
	srv := New(func(r Request) Reply {
		if len(r.ToolResults()) == 0 {
			return CallTool("lookup", `{"city":"Oslo"}`)
		}
		return Reply{Content: "It snows in " + r.ToolResults()[0].Text() + ".", PromptTokens: 30, CompletionTokens: 5}
	})
	defer srv.Close()
	client, err := openai.New(openai.WithBaseURL(srv.URL()), openai.WithToken("x"), openai.WithModel("gpt-4o-mini"))
	require.NoError(t, err)
	ctx := context.Background()
	tool := llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "lookup", Description: "weather",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}
	convo := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "You are a weather bot."), llms.TextParts(llms.ChatMessageTypeHuman, "Weather?")}

	resp, err := client.GenerateContent(ctx, convo, llms.WithTools([]llms.Tool{tool}))
	require.NoError(t, err)
	require.Len(t, resp.Choices, 1)
	require.Len(t, resp.Choices[0].ToolCalls, 1)
	call := resp.Choices[0].ToolCalls[0]
	assert.Equal(t, "lookup", call.FunctionCall.Name)
	assert.JSONEq(t, `{"city":"Oslo"}`, call.FunctionCall.Arguments)
	assert.NotEmpty(t, call.ID)
	assert.Positive(t, resp.Choices[0].GenerationInfo["PromptTokens"])

	convo = append(convo,
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
		llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: call.ID, Name: "lookup", Content: "Oslo"}}})
	resp, err = client.GenerateContent(ctx, convo, llms.WithTools([]llms.Tool{tool}))
	require.NoError(t, err)
	assert.Equal(t, "It snows in Oslo.", resp.Choices[0].Content)
	assert.Equal(t, 30, resp.Choices[0].GenerationInfo["PromptTokens"])
	assert.Equal(t, 5, resp.Choices[0].GenerationInfo["CompletionTokens"])

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, OpenAI, reqs[0].Wire)
	assert.Equal(t, "x", reqs[0].APIKey)
	assert.Equal(t, "gpt-4o-mini", reqs[0].Model)
	assert.Equal(t, []string{"lookup"}, reqs[0].ToolNames())
	assert.True(t, reqs[0].HasTool("lookup"))
	assert.Equal(t, "You are a weather bot.", reqs[0].System())
	assert.Equal(t, call.ID, reqs[1].Messages[2].ToolCalls[0].ID)
	assert.Equal(t, call.ID, reqs[1].ToolResults()[0].ToolCallID)
}

func TestErrorsAndRoutes(t *testing.T) {
	srv := New(func(Request) Reply { return Error(http.StatusTooManyRequests, "slow down") })
	defer srv.Close()
	client, err := openai.New(openai.WithBaseURL(srv.URL()), openai.WithToken("x"))
	require.NoError(t, err)
	_, err = client.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "slow down")
	ant, err := anthropic.New(anthropic.WithBaseURL(srv.URL()), anthropic.WithToken("x"))
	require.NoError(t, err)
	_, err = ant.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "slow down", "the Anthropic wire's error body")

	for _, tc := range []struct {
		method, path, body string
		want               int
	}{
		{http.MethodGet, "/v1/chat/completions", "", http.StatusNotFound},
		{http.MethodGet, "/v1/embeddings", "", http.StatusNotFound},
		{http.MethodPost, "/v1/embeddings", "{}", http.StatusBadRequest},
		{http.MethodPost, "/v1/embeddings", `{"input":"a","encoding_format":"base64"}`, http.StatusBadRequest},
		{http.MethodPost, "/v1/embeddings", `{"input":"a"}`, http.StatusOK},
		{http.MethodPost, "/v1/chat/completions", "not json", http.StatusBadRequest},
		{http.MethodPost, "/v1/chat/completions", `{"model":"m","stream":true,"messages":[]}`, http.StatusBadRequest},
		{http.MethodPost, "/v1/messages", "not json", http.StatusBadRequest},
		{http.MethodPost, "/v1/messages", `{"model":"m","stream":true,"messages":[]}`, http.StatusBadRequest},
	} {
		req, err := http.NewRequest(tc.method, srv.srv.URL+tc.path, strings.NewReader(tc.body))
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, tc.want, resp.StatusCode, tc.path+" "+tc.body)
	}
}

// TestAnthropicClientRoundTrip drives langchaingo's real Anthropic client
// through a tool call, its result and a final answer, and decodes the
// requests into the same Request shape as OpenAI's.
func TestAnthropicClientRoundTrip(t *testing.T) {
	srv := New(func(r Request) Reply {
		if len(r.ToolResults()) == 0 {
			return CallTool("lookup", `{"city":"Oslo"}`)
		}
		return Reply{Content: "It snows in " + r.ToolResults()[0].Text() + ".", PromptTokens: 30, CompletionTokens: 5}
	})
	defer srv.Close()
	client, err := anthropic.New(anthropic.WithBaseURL(srv.URL()), anthropic.WithToken("sk-ant-x"), anthropic.WithModel("claude-3-5-haiku-20241022"))
	require.NoError(t, err)
	ctx := context.Background()
	tool := llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "lookup", Description: "weather",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}
	convo := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "You are a weather bot."), llms.TextParts(llms.ChatMessageTypeHuman, "Weather?")}

	resp, err := client.GenerateContent(ctx, convo, llms.WithTools([]llms.Tool{tool}))
	require.NoError(t, err)
	require.NotEmpty(t, resp.Choices)
	var call llms.ToolCall
	for _, c := range resp.Choices {
		if len(c.ToolCalls) > 0 {
			call = c.ToolCalls[0]
		}
	}
	assert.Equal(t, "lookup", call.FunctionCall.Name)
	assert.JSONEq(t, `{"city":"Oslo"}`, call.FunctionCall.Arguments)
	assert.NotEmpty(t, call.ID)

	convo = append(convo,
		llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call}},
		llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: call.ID, Name: "lookup", Content: "Oslo"}}})
	resp, err = client.GenerateContent(ctx, convo, llms.WithTools([]llms.Tool{tool}))
	require.NoError(t, err)
	require.NotEmpty(t, resp.Choices)
	assert.Equal(t, "It snows in Oslo.", resp.Choices[0].Content)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, Anthropic, reqs[0].Wire)
	assert.Equal(t, "sk-ant-x", reqs[0].APIKey)
	assert.Equal(t, "claude-3-5-haiku-20241022", reqs[0].Model)
	assert.Equal(t, []string{"lookup"}, reqs[0].ToolNames())
	assert.JSONEq(t, `{"type":"object","properties":{"city":{"type":"string"}}}`, string(reqs[0].Tools[0].Function.Parameters))
	assert.Equal(t, "You are a weather bot.", reqs[0].System())
	assert.Equal(t, "Weather?", reqs[0].Last().Text())
	var calls []ToolCall
	for _, m := range reqs[1].Messages {
		calls = append(calls, m.ToolCalls...)
	}
	require.Len(t, calls, 1)
	assert.Equal(t, call.ID, calls[0].ID)
	require.Len(t, reqs[1].ToolResults(), 1)
	assert.Equal(t, call.ID, reqs[1].ToolResults()[0].ToolCallID)

	in, out := srv.Usage()
	assert.Equal(t, 30, in-len(reqs[0].Raw)/4-1, "the first reply's estimate plus the second's 30")
	assert.Positive(t, out)
}

func TestImagesScriptAndUsage(t *testing.T) {
	srv := New(Script(Reply{Content: "one", PromptTokens: 7, CompletionTokens: 2}, Text("two")))
	defer srv.Close()
	client, err := openai.New(openai.WithBaseURL(srv.URL()), openai.WithToken("x"))
	require.NoError(t, err)
	ctx := context.Background()
	img := llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
		llms.TextPart("what is it?"), llms.ImageURLPart("data:image/png;base64,iVBORw0K")}}
	for _, want := range []string{"one", "two"} {
		resp, err := client.GenerateContent(ctx, []llms.MessageContent{img})
		require.NoError(t, err)
		assert.Equal(t, want, resp.Choices[0].Content)
	}
	_, err = client.GenerateContent(ctx, []llms.MessageContent{img})
	require.Error(t, err, "past the script's end")
	assert.Contains(t, err.Error(), "request 3 has none")

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []Image{{MIME: "image/png", Data: "iVBORw0K"}}, reqs[0].Images())
	assert.Equal(t, "what is it?", reqs[0].Last().Text())
	in, out := srv.Usage()
	assert.Equal(t, 7+len(reqs[1].Raw)/4+1, in, "errors report no usage")
	assert.Equal(t, 2+len("two")/4+1, out)

	ant, err := anthropic.New(anthropic.WithBaseURL(srv.URL()), anthropic.WithToken("x"), anthropic.WithModel("claude-3-5-haiku-20241022"))
	require.NoError(t, err)
	_, err = ant.GenerateContent(ctx, []llms.MessageContent{{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
		llms.TextContent{Text: "what is it?"}, llms.BinaryContent{MIMEType: "image/png", Data: []byte("\x89PNG")}}}})
	require.Error(t, err, "past the script's end, on the Anthropic wire too")
	reqs = srv.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, []Image{{MIME: "image/png", Data: "iVBORw=="}}, reqs[3].Images())

	var m Message
	m.Content = []byte(`[{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/"}},{"type":"text","text":"hi"}]`)
	assert.Equal(t, []Image{{MIME: "image/jpeg", Data: "/9j/"}}, m.Images())
	assert.Empty(t, Message{}.Images())
	assert.Empty(t, Request{}.Last().Text())
}

// TestEmbeddings drives langchaingo's OpenAI embedder: one vector an input,
// Embed's, near for texts sharing words.
func TestEmbeddings(t *testing.T) {
	srv := New(Script())
	defer srv.Close()
	client, err := openai.New(openai.WithBaseURL(srv.URL()), openai.WithToken("x"), openai.WithEmbeddingModel("text-embedding-3-small"))
	require.NoError(t, err)
	texts := []string{"XSS on the search page", "the search page shows XSS", "slow checkout"}
	vecs, err := client.CreateEmbedding(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, vecs, 3)
	for i, v := range vecs {
		assert.Equal(t, Embed(texts[i]), v)
		assert.InDelta(t, 1, dot(v, v), 1e-5, "unit length")
	}
	assert.Greater(t, dot(vecs[0], vecs[1]), dot(vecs[0], vecs[2]))
	assert.Equal(t, make([]float32, EmbedDims), Embed("  ,;  "))
	in, out := srv.Usage()
	assert.Positive(t, in)
	assert.Zero(t, out)
	assert.Empty(t, srv.Requests(), "embeddings are not chat requests")
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

package llmfake

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
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

	for _, tc := range []struct {
		method, path, body string
		want               int
	}{
		{http.MethodGet, "/v1/chat/completions", "", http.StatusNotFound},
		{http.MethodPost, "/v1/embeddings", "{}", http.StatusNotFound},
		{http.MethodPost, "/v1/chat/completions", "not json", http.StatusBadRequest},
		{http.MethodPost, "/v1/chat/completions", `{"model":"m","stream":true,"messages":[]}`, http.StatusBadRequest},
	} {
		req, err := http.NewRequest(tc.method, srv.srv.URL+tc.path, strings.NewReader(tc.body))
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, tc.want, resp.StatusCode, tc.path+" "+tc.body)
	}
}

package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

func TestRedact(t *testing.T) {
	cases := []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"openai key in message", "Incorrect API key provided: sk-proj-AbC123xyz_789. You can find", nil,
			"Incorrect API key provided: [REDACTED]. You can find"},
		{"anthropic key", `{"message":"invalid key sk-ant-api03-QWERTY-uiop_1234"}`, nil, `{"message":"invalid key [REDACTED]"}`},
		{"bearer header", "sent Authorization: Bearer eyJhbGciOi.J9.abc-_= to the server", nil,
			"sent Authorization: [REDACTED] to the server"},
		{"bearer alone", "token Bearer abc.def.ghi rejected", nil, "token Bearer [REDACTED] rejected"},
		{"x-api-key header", "header x-api-key: k-1234567 is invalid", nil, "header x-api-key: [REDACTED] is invalid"},
		{"x-goog-api-key json", `{"x-goog-api-key":"abcdefg123"}`, nil, `{"x-goog-api-key":"[REDACTED]"}`},
		{"api_key field", `api_key="hunter2hunter2", model=x`, nil, `api_key="[REDACTED]", model=x`},
		{"key in url query", `Post "https://generativelanguage.googleapis.com/v1beta/models/g:generate?alt=json&key=XYZ123abc": EOF`, nil,
			`Post "https://generativelanguage.googleapis.com/v1beta/models/g:generate?alt=json&key=[REDACTED]": EOF`},
		{"first query parameter", "GET /v1?key=s3cr3t&x=1", nil, "GET /v1?key=[REDACTED]&x=1"},
		{"google key", "API key not valid: AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW.", nil, "API key not valid: [REDACTED]."},
		{"configured secret", "bad token zz-private-9f8e7d given", []string{"zz-private-9f8e7d"}, "bad token [REDACTED] given"},
		{"secret twice", "a SECRETVALUE b SECRETVALUE", []string{"SECRETVALUE"}, "a [REDACTED] b [REDACTED]"},
		{"short secret ignored", "the model is ok", []string{"ok", ""}, "the model is ok"},
		{"nothing to redact", "HTTP 429: rate limit exceeded, retry in 2s", nil, "HTTP 429: rate limit exceeded, retry in 2s"},
		{"word key alone", "the key is missing", nil, "the key is missing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Redact(tc.in, tc.secrets...))
		})
	}
}

func TestRedactErrKeepsIs(t *testing.T) {
	err := redactErr(fmt.Errorf("call with sk-abcdef123456: %w", context.DeadlineExceeded), "")
	assert.NotContains(t, err.Error(), "sk-abcdef123456")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Nil(t, errors.Unwrap(err), "the original text is not reachable")
	assert.NoError(t, redactErr(nil))
}

// TestProviderErrorRedacted: a provider that echoes the key in its 401
// body; the error a Factory model returns does not contain it.
func TestProviderErrorRedacted(t *testing.T) {
	cases := []struct {
		name string
		env  func(url string) map[string]string
		key  string
		body string
	}{
		{"anthropic", func(url string) map[string]string {
			return map[string]string{EnvAnthropicKey: "sk-ant-api03-SECRET-abc123", EnvAnthropicURL: url + "/v1"}
		}, "sk-ant-api03-SECRET-abc123",
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-api03-SECRET-abc123"}}`},
		{"openai", func(url string) map[string]string {
			return map[string]string{EnvOpenAIKey: "zz-private-9f8e7d", EnvOpenAIURL: url + "/v1"}
		}, "zz-private-9f8e7d",
			`{"error":{"message":"Incorrect API key provided: zz-private-9f8e7d (Authorization: Bearer zz-private-9f8e7d)","type":"invalid_request_error","code":"invalid_api_key"}}`},
		{"google", func(url string) map[string]string {
			return map[string]string{EnvGoogleKey: "AIzaSyFAKEFAKEFAKEFAKEFAKE12345", EnvGoogleURL: url}
		}, "AIzaSyFAKEFAKEFAKEFAKEFAKE12345",
			`{"error":{"code":401,"message":"API key not valid: AIzaSyFAKEFAKEFAKEFAKEFAKE12345 (url ?key=AIzaSyFAKEFAKEFAKEFAKEFAKE12345)","status":"UNAUTHENTICATED"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fp := newFakeProvider(t, fakeReply{status: http.StatusUnauthorized, body: tc.body})
			f, err := NewFactory(MapEnv(tc.env(fp.URL())), Tiers{})
			require.NoError(t, err)
			m, err := f.For(context.Background(), RolePersona)
			require.NoError(t, err)
			_, err = m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
			require.Error(t, err)
			require.NotEmpty(t, fp.requests(), "the provider was called")
			assert.NotContains(t, err.Error(), tc.key)
			assert.Contains(t, err.Error(), Redacted)
			var ce *CallError
			require.ErrorAs(t, err, &ce)
			assert.False(t, ce.Transient)
			for e := error(ce); e != nil; e = errors.Unwrap(e) {
				assert.NotContains(t, e.Error(), tc.key)
			}
		})
	}
}

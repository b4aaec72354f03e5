package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
	"google.golang.org/api/option"
)

// ErrOffline is returned by NewProviderModel for the Offline provider:
// callers branch on Detection.IsOffline before asking for a model.
var ErrOffline = errors.New("llm: provider is offline: no model")

// NewProviderModel builds the langchaingo client for det's provider with
// cfg's model name, over hc (nil: NewHTTPClient(nil, 0)). hc should carry a
// Transport so that retries see HTTP status codes; NewHTTPClient's does.
//
// Base URLs: Anthropic and OpenAI take det.BaseURL as their API root (for
// OpenAI it ends in /v1); Google's is the endpoint the REST client calls
// (for example http://127.0.0.1:8080); Ollama's is the server URL.
func NewProviderModel(ctx context.Context, det Detection, cfg RoleConfig, hc *http.Client) (llms.Model, error) {
	if hc == nil {
		hc = NewHTTPClient(nil, 0)
	}
	p := cfg.Provider
	if p == "" {
		p = det.Provider
	}
	if p != det.Provider {
		return nil, fmt.Errorf("llm: role wants provider %s but the environment configures %s", p, det.Provider)
	}
	model := cfg.Model
	if model == "" {
		model = DefaultModel(p, "")
	}
	switch p {
	case Anthropic:
		opts := []anthropic.Option{anthropic.WithToken(det.APIKey), anthropic.WithModel(model), anthropic.WithHTTPClient(hc)}
		if det.BaseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(strings.TrimRight(det.BaseURL, "/")))
		}
		m, err := anthropic.New(opts...)
		if err != nil {
			return nil, fmt.Errorf("llm: anthropic client: %w", redactErr(err, det.APIKey))
		}
		return &onePartMessages{m}, nil
	case OpenAI:
		opts := []openai.Option{openai.WithToken(det.APIKey), openai.WithModel(model), openai.WithHTTPClient(withOpenAITransport(hc))}
		if det.BaseURL != "" {
			opts = append(opts, openai.WithBaseURL(strings.TrimRight(det.BaseURL, "/")))
		}
		m, err := openai.New(opts...)
		if err != nil {
			return nil, fmt.Errorf("llm: openai client: %w", redactErr(err, det.APIKey))
		}
		return &openAIImages{m}, nil
	case Google:
		// option.WithHTTPClient makes the Google client send no credentials
		// of its own, so the key goes in as a header on our transport.
		keyed := &http.Client{Transport: &googleTransport{base: hc.Transport, key: det.APIKey}, Timeout: hc.Timeout}
		// The key is also given as an option for the cache client, which
		// genai builds without the HTTP client.
		opts := []googleai.Option{googleai.WithRest(), googleai.WithAPIKey(det.APIKey), googleai.WithHTTPClient(keyed), googleai.WithDefaultModel(model)}
		if det.BaseURL != "" {
			opts = append(opts, func(o *googleai.Options) {
				o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(strings.TrimRight(det.BaseURL, "/")))
			})
		}
		m, err := googleai.New(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("llm: googleai client: %w", redactErr(err, det.APIKey))
		}
		return m, nil
	case Ollama:
		host := det.BaseURL
		if host == "" {
			host = defaultOllamaHost
		}
		if !det.OllamaNative {
			m, err := openai.New(openai.WithToken("ollama"), openai.WithModel(model), openai.WithHTTPClient(withOpenAITransport(hc)),
				openai.WithBaseURL(strings.TrimRight(host, "/")+"/v1"))
			if err != nil {
				return nil, fmt.Errorf("llm: ollama (openai-compatible) client: %w", redactErr(err, det.APIKey))
			}
			return &openAIImages{m}, nil
		}
		m, err := ollama.New(ollama.WithModel(model), ollama.WithHTTPClient(hc), ollama.WithServerURL(host))
		if err != nil {
			return nil, fmt.Errorf("llm: ollama client: %w", redactErr(err, det.APIKey))
		}
		return m, nil
	case Offline:
		return nil, ErrOffline
	}
	return nil, fmt.Errorf("llm: unknown provider %q", p)
}

func withOpenAITransport(hc *http.Client) *http.Client {
	c := *hc
	c.Transport = &openAITransport{base: hc.Transport}
	return &c
}

// googleTransport adds the API key header to Google AI requests and taps
// generateContent / streamGenerateContent responses for their usage: genai
// (github.com/google/generative-ai-go v0.15.1) keeps the usageMetadata of the
// first streamed chunk only, and its chat session always streams, so the
// usage langchaingo reports for Gemini is short. The last usageMetadata of
// the raw response is the real one.
type googleTransport struct {
	base http.RoundTripper
	key  string
}

const maxTap = 16 << 20

func (t *googleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.key != "" && req.Header.Get("x-goog-api-key") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("x-goog-api-key", t.key)
	}
	resp, err := base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	rec, ok := req.Context().Value(recorderKey{}).(*statusRecorder)
	if !ok || !strings.Contains(req.URL.Path, "enerateContent") {
		return resp, nil
	}
	tap := &limitedBuffer{max: maxTap}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, tap), resp.Body}
	rec.setUsage(func() (Usage, bool) { return lastGoogleUsage(tap.Bytes()) })
	return resp, nil
}

type limitedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len()+len(p) > b.max {
		b.over = true
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over {
		return nil
	}
	return append([]byte(nil), b.buf.Bytes()...)
}

// lastGoogleUsage reads the last usageMetadata of a generateContent response
// (an object) or a streamGenerateContent response (an array of objects).
func lastGoogleUsage(raw []byte) (Usage, bool) {
	type meta struct {
		UsageMetadata *struct {
			PromptTokenCount        int `json:"promptTokenCount"`
			CandidatesTokenCount    int `json:"candidatesTokenCount"`
			CachedContentTokenCount int `json:"cachedContentTokenCount"`
			ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
		} `json:"usageMetadata"`
	}
	raw = bytes.TrimSpace(raw)
	var list []meta
	if len(raw) > 0 && raw[0] == '[' {
		if json.Unmarshal(raw, &list) != nil {
			return Usage{}, false
		}
	} else {
		var one meta
		if json.Unmarshal(raw, &one) != nil {
			return Usage{}, false
		}
		list = []meta{one}
	}
	for i := len(list) - 1; i >= 0; i-- {
		if m := list[i].UsageMetadata; m != nil {
			return Usage{Calls: 1, InputTokens: m.PromptTokenCount, OutputTokens: m.CandidatesTokenCount + m.ThoughtsTokenCount,
				CachedInputTokens: m.CachedContentTokenCount, ReasoningTokens: m.ThoughtsTokenCount}, true
		}
	}
	return Usage{}, false
}

// Factory builds role models from one environment: it detects the provider,
// resolves each role through Tiers, and wraps each client in a Model that
// shares the factory's Meter.
type Factory struct {
	Detection  Detection
	Tiers      Tiers
	Env        Lookup
	HTTPClient *http.Client // nil: NewHTTPClient(nil, 0)
	Meter      *Meter       // nil: usage is not metered
	Options    []ModelOption
}

// NewFactory detects the provider from env and returns a factory using tiers.
// For Offline it succeeds: check f.Detection.IsOffline() before calling For.
func NewFactory(env Lookup, tiers Tiers, opts ...DetectOption) (*Factory, error) {
	det, err := Detect(env, opts...)
	if err != nil {
		return nil, err
	}
	return &Factory{Detection: det, Tiers: tiers, Env: env, Meter: NewMeter(nil)}, nil
}

// For returns the model for role. It fails with ErrOffline when offline.
func (f *Factory) For(ctx context.Context, role Role) (*Model, error) {
	if f.Detection.IsOffline() {
		return nil, ErrOffline
	}
	cfg, err := f.Tiers.Resolve(role, f.Detection, f.Env)
	if err != nil {
		return nil, fmt.Errorf("llm: role %s: %w", role, err)
	}
	det := f.Detection
	if cfg.Provider != det.Provider {
		// the role names another provider: read its own variables
		d, ok := fromEnv(f.Env, cfg.Provider, true)
		if !ok {
			return nil, fmt.Errorf("llm: role %s wants provider %s but %s is not set", role, cfg.Provider, keyVars(cfg.Provider))
		}
		det = d
	}
	base, err := NewProviderModel(ctx, det, cfg, f.HTTPClient)
	if err != nil {
		return nil, fmt.Errorf("llm: role %s: %w", role, err)
	}
	var opts []ModelOption
	if f.Meter != nil {
		opts = append(opts, WithMeter(f.Meter))
	}
	opts = append(opts, WithSecrets(det.APIKey))
	opts = append(opts, f.Options...)
	return Wrap(base, role, cfg, opts...), nil
}

// onePartMessages splits AI and tool messages of several parts into one
// message per part before calling the model. langchaingo's Anthropic client
// reads only the first part of an AI or tool message, so an AI turn with
// text and tool calls would lose its calls; the Messages API merges
// consecutive turns of one role, so the split conversation means the same.
type onePartMessages struct{ llms.Model }

func (o *onePartMessages) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	return o.Model.GenerateContent(ctx, SplitParts(msgs), opts...)
}

func (o *onePartMessages) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, o, prompt, opts...)
}

// SplitParts returns msgs with every AI or tool message of several parts
// split into messages of one part each, in order.
func SplitParts(msgs []llms.MessageContent) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(msgs))
	for _, m := range msgs {
		if len(m.Parts) <= 1 || (m.Role != llms.ChatMessageTypeAI && m.Role != llms.ChatMessageTypeTool) {
			out = append(out, m)
			continue
		}
		for _, p := range m.Parts {
			out = append(out, llms.MessageContent{Role: m.Role, Parts: []llms.ContentPart{p}})
		}
	}
	return out
}

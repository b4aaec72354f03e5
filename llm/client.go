package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
	"google.golang.org/api/option"
)

// ErrOffline is returned by NewProviderModel for the Offline provider:
// callers branch on Detection.IsOffline before asking for a model.
var ErrOffline = fmt.Errorf("llm: provider is offline: no model")

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
			return nil, fmt.Errorf("llm: anthropic client: %w", err)
		}
		return m, nil
	case OpenAI:
		opts := []openai.Option{openai.WithToken(det.APIKey), openai.WithModel(model), openai.WithHTTPClient(hc)}
		if det.BaseURL != "" {
			opts = append(opts, openai.WithBaseURL(strings.TrimRight(det.BaseURL, "/")))
		}
		m, err := openai.New(opts...)
		if err != nil {
			return nil, fmt.Errorf("llm: openai client: %w", err)
		}
		return m, nil
	case Google:
		// option.WithHTTPClient makes the Google client send no credentials
		// of its own, so the key goes in as a header on our transport.
		keyed := &http.Client{Transport: &headerTransport{base: hc.Transport, key: "x-goog-api-key", value: det.APIKey}, Timeout: hc.Timeout}
		opts := []googleai.Option{googleai.WithRest(), googleai.WithHTTPClient(keyed), googleai.WithDefaultModel(model)}
		if det.BaseURL != "" {
			opts = append(opts, func(o *googleai.Options) {
				o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(strings.TrimRight(det.BaseURL, "/")))
			})
		}
		m, err := googleai.New(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("llm: googleai client: %w", err)
		}
		return m, nil
	case Ollama:
		opts := []ollama.Option{ollama.WithModel(model), ollama.WithHTTPClient(hc)}
		if det.BaseURL != "" {
			opts = append(opts, ollama.WithServerURL(det.BaseURL))
		}
		m, err := ollama.New(opts...)
		if err != nil {
			return nil, fmt.Errorf("llm: ollama client: %w", err)
		}
		return m, nil
	case Offline:
		return nil, ErrOffline
	}
	return nil, fmt.Errorf("llm: unknown provider %q", p)
}

type headerTransport struct {
	base       http.RoundTripper
	key, value string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.value != "" && req.Header.Get(t.key) == "" {
		req = req.Clone(req.Context())
		req.Header.Set(t.key, t.value)
	}
	return base.RoundTrip(req)
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
	opts = append(opts, f.Options...)
	return Wrap(base, role, cfg, opts...), nil
}

package llm

import (
	"fmt"
	"strings"
)

// Provider names a model provider.
type Provider string

// The providers agentgraph knows, and Offline: no model at all (callers use
// heuristics instead).
const (
	Anthropic Provider = "anthropic"
	OpenAI    Provider = "openai"
	Google    Provider = "google"
	Ollama    Provider = "ollama"
	Offline   Provider = "offline"
)

// providerOrder lists the online providers in detection order.
var providerOrder = []Provider{Anthropic, OpenAI, Google, Ollama}

// ParseProvider accepts a provider name (case-insensitive; "gemini" and
// "googleai" mean Google, "none" means Offline).
func ParseProvider(s string) (Provider, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "anthropic", "claude":
		return Anthropic, nil
	case "openai":
		return OpenAI, nil
	case "google", "googleai", "gemini":
		return Google, nil
	case "ollama":
		return Ollama, nil
	case "offline", "none":
		return Offline, nil
	}
	return "", fmt.Errorf("llm: unknown provider %q (want anthropic, openai, google, ollama or offline)", s)
}

// Lookup reads one environment variable; os.LookupEnv fits.
type Lookup func(key string) (string, bool)

// MapEnv is a Lookup over a fixed map, for tests and embedding.
func MapEnv(m map[string]string) Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func get(env Lookup, key string) string {
	if env == nil {
		return ""
	}
	v, _ := env(key)
	return strings.TrimSpace(v)
}

// Environment variables read by Detect.
const (
	EnvProvider        = "AGENTGRAPH_PROVIDER"
	EnvAnthropicKey    = "ANTHROPIC_API_KEY"
	EnvAnthropicURL    = "ANTHROPIC_BASE_URL"
	EnvOpenAIKey       = "OPENAI_API_KEY"
	EnvOpenAIURL       = "OPENAI_BASE_URL"
	EnvGoogleKey       = "GOOGLE_API_KEY"
	EnvGeminiKey       = "GEMINI_API_KEY"
	EnvGoogleURL       = "GOOGLE_AI_BASE_URL"
	EnvOllamaHost      = "OLLAMA_HOST"
	EnvOllamaAPI       = "AGENTGRAPH_OLLAMA_API"
	defaultOllamaHost  = "http://localhost:11434"
	openAINoKeyDefault = "unused" // OpenAI-compatible servers that need no key
)

// detectionOrder is what Detect looks at, in order, for error messages.
var detectionOrder = []string{EnvProvider, EnvAnthropicKey, EnvOpenAIKey + " (+" + EnvOpenAIURL + ")", EnvGoogleKey, EnvGeminiKey, EnvOllamaHost}

// Detection is the outcome of Detect: which provider to use and how to reach it.
type Detection struct {
	Provider Provider
	APIKey   string
	BaseURL  string // "" means the provider's public endpoint
	// Source names the environment variable that decided (or "offline
	// fallback" / "forced offline").
	Source string
	// OllamaNative selects langchaingo's native Ollama client (/api/chat,
	// no tool calling in langchaingo v0.1.14) instead of the default: the
	// OpenAI client against Ollama's OpenAI-compatible /v1 API, which carries
	// tool calls. Set by AGENTGRAPH_OLLAMA_API=native.
	OllamaNative bool
}

// IsOffline reports whether no model should be used.
func (d Detection) IsOffline() bool { return d.Provider == Offline }

// NoProviderError is returned by Detect when nothing in the environment names
// a provider. Looked lists what was looked for, in order.
type NoProviderError struct {
	Looked []string
}

func (e *NoProviderError) Error() string {
	return "llm: no model provider configured: looked for " + strings.Join(e.Looked, ", ") +
		"; set one of them, or " + EnvProvider + "=offline to run without a model"
}

// DetectOption changes Detect.
type DetectOption func(*detectOptions)

type detectOptions struct {
	offlineFallback bool
	forceOffline    bool
	force           Provider
}

// OfflineFallback makes Detect return Offline instead of a *NoProviderError
// when no provider is configured.
func OfflineFallback() DetectOption { return func(o *detectOptions) { o.offlineFallback = true } }

// ForceOffline makes Detect return Offline whatever the environment says.
func ForceOffline() DetectOption { return func(o *detectOptions) { o.forceOffline = true } }

// ForceProvider makes Detect use p whatever else the environment names
// (AGENTGRAPH_PROVIDER included); p's own variables supply key and URL, and
// Detect fails if p's key is not set. ForceOffline still wins.
func ForceProvider(p Provider) DetectOption { return func(o *detectOptions) { o.force = p } }

// Detect chooses a provider from env, in this order:
//
//  1. AGENTGRAPH_PROVIDER (anthropic, openai, google, ollama or offline);
//     the provider's own variables then supply key and URL.
//  2. ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL optional).
//  3. OPENAI_API_KEY, or OPENAI_BASE_URL alone for an OpenAI-compatible server
//     that needs no key.
//  4. GOOGLE_API_KEY, then GEMINI_API_KEY (GOOGLE_AI_BASE_URL optional).
//  5. OLLAMA_HOST.
//
// With nothing set it returns a *NoProviderError listing what it looked for,
// or Offline with the OfflineFallback option.
func Detect(env Lookup, opts ...DetectOption) (Detection, error) {
	var o detectOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.forceOffline {
		return Detection{Provider: Offline, Source: "forced offline"}, nil
	}
	if p := o.force; p != "" {
		if p == Offline {
			return Detection{Provider: Offline, Source: "forced offline"}, nil
		}
		d, ok := fromEnv(env, p, true)
		if !ok {
			return Detection{}, fmt.Errorf("llm: provider %s is forced but %s is not set", p, keyVars(p))
		}
		return d, nil
	}
	if explicit := get(env, EnvProvider); explicit != "" {
		p, err := ParseProvider(explicit)
		if err != nil {
			return Detection{}, fmt.Errorf("%s: %w", EnvProvider, err)
		}
		if p == Offline {
			return Detection{Provider: Offline, Source: EnvProvider}, nil
		}
		d, ok := fromEnv(env, p, true)
		if !ok {
			return Detection{}, fmt.Errorf("llm: %s=%s but %s is not set", EnvProvider, p, keyVars(p))
		}
		d.Source = EnvProvider
		return d, nil
	}
	for _, p := range providerOrder {
		if d, ok := fromEnv(env, p, false); ok {
			return d, nil
		}
	}
	if o.offlineFallback {
		return Detection{Provider: Offline, Source: "offline fallback"}, nil
	}
	return Detection{}, &NoProviderError{Looked: append([]string(nil), detectionOrder...)}
}

func keyVars(p Provider) string {
	switch p {
	case Anthropic:
		return EnvAnthropicKey
	case OpenAI:
		return EnvOpenAIKey + " (or " + EnvOpenAIURL + ")"
	case Google:
		return EnvGoogleKey + " or " + EnvGeminiKey
	case Ollama:
		return EnvOllamaHost
	}
	return string(p)
}

// fromEnv reads p's variables. explicit: the provider was named, so Ollama
// may use its default host.
func fromEnv(env Lookup, p Provider, explicit bool) (Detection, bool) {
	switch p {
	case Anthropic:
		if k := get(env, EnvAnthropicKey); k != "" {
			return Detection{Provider: p, APIKey: k, BaseURL: get(env, EnvAnthropicURL), Source: EnvAnthropicKey}, true
		}
	case OpenAI:
		k, u := get(env, EnvOpenAIKey), get(env, EnvOpenAIURL)
		switch {
		case k != "":
			return Detection{Provider: p, APIKey: k, BaseURL: u, Source: EnvOpenAIKey}, true
		case u != "":
			return Detection{Provider: p, APIKey: openAINoKeyDefault, BaseURL: u, Source: EnvOpenAIURL}, true
		}
	case Google:
		for _, v := range []string{EnvGoogleKey, EnvGeminiKey} {
			if k := get(env, v); k != "" {
				return Detection{Provider: p, APIKey: k, BaseURL: get(env, EnvGoogleURL), Source: v}, true
			}
		}
	case Ollama:
		native := strings.EqualFold(get(env, EnvOllamaAPI), "native")
		if h := get(env, EnvOllamaHost); h != "" {
			return Detection{Provider: p, BaseURL: ollamaURL(h), Source: EnvOllamaHost, OllamaNative: native}, true
		}
		if explicit {
			return Detection{Provider: p, BaseURL: defaultOllamaHost, Source: "default " + defaultOllamaHost, OllamaNative: native}, true
		}
	}
	return Detection{}, false
}

// ollamaURL accepts OLLAMA_HOST as ollama does: "host:port" or a URL.
func ollamaURL(h string) string {
	if strings.Contains(h, "://") {
		return h
	}
	return "http://" + h
}

package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// Model is a langchaingo model set up for one role: it applies the role's
// model name, temperature, output cap and reasoning effort, cuts long inputs
// (Budget), retries transient errors (RetryPolicy) and records token usage
// and cost (Meter). It implements llms.Model, so it can be passed anywhere a
// langchaingo model goes.
//
// Retry needs the HTTP status of failures; build the underlying client with
// NewHTTPClient (New does) so the status and Retry-After are seen.
type Model struct {
	base     llms.Model
	role     Role
	provider Provider
	cfg      RoleConfig
	retry    RetryPolicy
	meter    *Meter
	log      *slog.Logger
	onUsage  func(CallUsage)
	secrets  []string // redacted from provider errors, with Redact's patterns
}

// CallUsage is the usage of one successful call.
type CallUsage struct {
	Role     Role
	Provider Provider
	Model    string
	Attempts int
	Usage    Usage
}

// ModelOption configures a Model.
type ModelOption func(*Model)

// WithRetry sets the retry policy (default DefaultRetry).
func WithRetry(p RetryPolicy) ModelOption { return func(m *Model) { m.retry = p } }

// WithMeter records every call's usage in mt.
func WithMeter(mt *Meter) ModelOption { return func(m *Model) { m.meter = mt } }

// WithLogger logs retries and failures to l (default: discard).
func WithLogger(l *slog.Logger) ModelOption { return func(m *Model) { m.log = l } }

// WithSecrets adds values (the provider's API key) that Redact removes from
// provider error text before it reaches a returned error or a log line.
// Factory.For passes the key it configured.
func WithSecrets(secrets ...string) ModelOption {
	return func(m *Model) { m.secrets = append(m.secrets, secrets...) }
}

// WithUsageHook calls f after each successful call.
func WithUsageHook(f func(CallUsage)) ModelOption { return func(m *Model) { m.onUsage = f } }

// Wrap sets base up for role with cfg. provider is only used in errors and
// usage records.
func Wrap(base llms.Model, role Role, cfg RoleConfig, opts ...ModelOption) *Model {
	m := &Model{base: base, role: role, provider: cfg.Provider, cfg: cfg, retry: DefaultRetry()}
	for _, o := range opts {
		o(m)
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	return m
}

// Role is the role the model was set up for.
func (m *Model) Role() Role { return m.role }

// Config is the resolved role configuration.
func (m *Model) Config() RoleConfig { return m.cfg }

// Base is the wrapped langchaingo model.
func (m *Model) Base() llms.Model { return m.base }

// Call implements llms.Model.
func (m *Model) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

func (m *Model) callOptions() []llms.CallOption {
	var o []llms.CallOption
	if m.cfg.Model != "" {
		o = append(o, llms.WithModel(m.cfg.Model))
	}
	if m.cfg.Temperature != nil {
		o = append(o, llms.WithTemperature(*m.cfg.Temperature))
	}
	if m.cfg.MaxTokens > 0 {
		o = append(o, llms.WithMaxTokens(m.cfg.MaxTokens))
	}
	switch m.cfg.ReasoningEffort {
	case EffortLow:
		o = append(o, llms.WithThinkingMode(llms.ThinkingModeLow))
	case EffortMedium:
		o = append(o, llms.WithThinkingMode(llms.ThinkingModeMedium))
	case EffortHigh:
		o = append(o, llms.WithThinkingMode(llms.ThinkingModeHigh))
	}
	return o
}

// GenerateContent implements llms.Model. The role's options come first, so
// the caller's options override them.
func (m *Model) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	msgs := Budget{PerMessage: m.cfg.InputBudget}.Apply(messages)
	opts := append(m.callOptions(), options...)

	// A stream that already reached the caller cannot be retried without
	// repeating output: track whether it did.
	var streamed atomic.Bool
	var probe llms.CallOptions
	for _, o := range opts {
		o(&probe)
	}
	if f := probe.StreamingFunc; f != nil {
		opts = append(opts, llms.WithStreamingFunc(func(ctx context.Context, chunk []byte) error {
			streamed.Store(true)
			return f(ctx, chunk)
		}))
	}

	p := m.retry.withDefaults()
	var lastErr error
	var status int
	for attempt := 1; ; attempt++ {
		actx, rec := withRecorder(withEffort(ctx, m.cfg.ReasoningEffort))
		resp, err := m.base.GenerateContent(actx, msgs, opts...)
		if err == nil {
			m.record(resp, rec, attempt)
			return resp, nil
		}
		var ra time.Duration
		status, ra = rec.get()
		transient := IsTransient(err, status)
		// Provider text can echo the key: redact it at this boundary, after
		// the error was classified on its original form.
		lastErr = redactErr(err, m.secrets...)
		if !transient || attempt >= p.MaxAttempts || ctx.Err() != nil || streamed.Load() {
			return nil, &CallError{Role: m.role, Provider: m.provider, Model: m.cfg.Model, Status: status,
				Transient: transient, Attempts: attempt, Err: lastErr}
		}
		delay := p.Backoff(attempt - 1)
		if ra > 0 {
			if ra > p.MaxRetryAfter {
				return nil, &CallError{Role: m.role, Provider: m.provider, Model: m.cfg.Model, Status: status, Transient: true, Attempts: attempt,
					Err: fmt.Errorf("Retry-After %v exceeds the %v limit: %w", ra, p.MaxRetryAfter, lastErr)}
			}
			delay = max(delay, ra)
		}
		m.log.LogAttrs(ctx, slog.LevelWarn, "llm: transient error, retrying",
			slog.String("role", string(m.role)), slog.String("model", m.cfg.Model), slog.Int("status", status),
			slog.Int("attempt", attempt), slog.Duration("delay", delay), slog.String("error", lastErr.Error()))
		if err := p.Sleep(ctx, delay); err != nil {
			return nil, &CallError{Role: m.role, Provider: m.provider, Model: m.cfg.Model, Status: status, Transient: true, Attempts: attempt,
				Err: errors.Join(lastErr, err)}
		}
	}
}

func (m *Model) record(resp *llms.ContentResponse, rec *statusRecorder, attempts int) {
	u, ok := rec.rawUsage()
	if ok {
		putUsage(resp, u)
	} else if u, ok = UsageOf(resp); !ok {
		return
	}
	if m.meter != nil {
		u = m.meter.Record(m.role, m.cfg.Model, u)
	} else if c, ok := DefaultPrices().Cost(m.cfg.Model, u); ok {
		u.CostUSD = c
	}
	if m.onUsage != nil {
		m.onUsage(CallUsage{Role: m.role, Provider: m.provider, Model: m.cfg.Model, Attempts: attempts, Usage: u})
	}
}

// putUsage writes u into the first choice's GenerationInfo under the keys
// UsageOf reads first, so callers of UsageOf see the corrected usage.
func putUsage(resp *llms.ContentResponse, u Usage) {
	for _, c := range resp.Choices {
		if c == nil {
			continue
		}
		if c.GenerationInfo == nil {
			c.GenerationInfo = map[string]any{}
		}
		c.GenerationInfo["InputTokens"] = u.InputTokens
		c.GenerationInfo["OutputTokens"] = u.OutputTokens
		c.GenerationInfo["CacheReadInputTokens"] = u.CachedInputTokens
		c.GenerationInfo["ReasoningTokens"] = u.ReasoningTokens
		return
	}
}

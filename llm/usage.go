package llm

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
)

// Usage is the token count of one or more calls, as the provider reported it.
type Usage struct {
	Calls        int
	InputTokens  int
	OutputTokens int
	// CachedInputTokens is the part of InputTokens read from a prompt cache,
	// when the provider reports it.
	CachedInputTokens int
	// ReasoningTokens is the part of OutputTokens spent on reasoning, when
	// the provider reports it.
	ReasoningTokens int
	CostUSD         float64 // from the price table; 0 for unknown models
}

// Add returns u+v.
func (u Usage) Add(v Usage) Usage {
	u.Calls += v.Calls
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CachedInputTokens += v.CachedInputTokens
	u.ReasoningTokens += v.ReasoningTokens
	u.CostUSD += v.CostUSD
	return u
}

// TotalTokens is input plus output tokens.
func (u Usage) TotalTokens() int { return u.InputTokens + u.OutputTokens }

// UsageOf reads the token usage langchaingo put in a response's
// GenerationInfo. The keys differ by provider:
//
//	anthropic: InputTokens, OutputTokens, CacheReadInputTokens
//	openai:    PromptTokens, CompletionTokens, PromptCachedTokens, ReasoningTokens
//	googleai:  PromptTokens, CompletionTokens, CachedTokens
//	ollama:    PromptTokens, CompletionTokens
//
// Anthropic repeats the same usage on every content block's choice, so the
// first choice that reports usage is used. ok is false when none does.
func UsageOf(resp *llms.ContentResponse) (u Usage, ok bool) {
	if resp == nil {
		return Usage{}, false
	}
	for _, c := range resp.Choices {
		if c == nil || c.GenerationInfo == nil {
			continue
		}
		gi := c.GenerationInfo
		in, okIn := firstInt(gi, "InputTokens", "PromptTokens", "input_tokens", "prompt_tokens")
		out, okOut := firstInt(gi, "OutputTokens", "CompletionTokens", "output_tokens", "completion_tokens")
		if !okIn && !okOut {
			continue
		}
		u.Calls = 1
		u.InputTokens, u.OutputTokens = in, out
		u.CachedInputTokens, _ = firstInt(gi, "CacheReadInputTokens", "PromptCachedTokens", "CachedTokens")
		u.ReasoningTokens, _ = firstInt(gi, "ReasoningTokens", "ThinkingTokens")
		return u, true
	}
	return Usage{}, false
}

func firstInt(m map[string]any, keys ...string) (int, bool) {
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		switch n := v.(type) {
		case int:
			return n, true
		case int32:
			return int(n), true
		case int64:
			return int(n), true
		case float64:
			return int(n), true
		case float32:
			return int(n), true
		}
	}
	return 0, false
}

// Price is a model's price in US dollars per million tokens.
type Price struct {
	InputPerM       float64
	OutputPerM      float64
	CachedInputPerM float64 // 0: cached input is priced as input
}

// PriceTable maps a model name to its price. A key ending in "*" matches
// every model name with that prefix; the longest match wins.
type PriceTable map[string]Price

// DefaultPrices is the table agentgraph ships, in USD per million tokens, as
// the providers list them (checked 2025; update for your contracts). Ollama
// and other local models cost 0.
//
//	model                       input   output  cached input
//	claude-3-5-haiku*            0.80     4.00   0.08
//	claude-haiku-4-5*            1.00     5.00   0.10
//	claude-sonnet-4*, claude-3-7-sonnet*, claude-3-5-sonnet*
//	                             3.00    15.00   0.30
//	claude-opus-4*              15.00    75.00   1.50
//	gpt-4o-mini*                 0.15     0.60   0.075
//	gpt-4o*                      2.50    10.00   1.25
//	gpt-4.1-mini*                0.40     1.60   0.10
//	gpt-4.1-nano*                0.10     0.40   0.025
//	gpt-4.1*                     2.00     8.00   0.50
//	o4-mini*, o3-mini*           1.10     4.40   0.275
//	gemini-2.0-flash-lite*       0.075    0.30
//	gemini-2.0-flash*            0.10     0.40   0.025
//	gemini-2.5-flash*            0.30     2.50   0.075
//	gemini-2.5-pro*              1.25    10.00   0.31
func DefaultPrices() PriceTable {
	sonnet := Price{3, 15, 0.30}
	return PriceTable{
		"claude-3-5-haiku*":      {0.80, 4, 0.08},
		"claude-haiku-4-5*":      {1, 5, 0.10},
		"claude-sonnet-4*":       sonnet,
		"claude-3-7-sonnet*":     sonnet,
		"claude-3-5-sonnet*":     sonnet,
		"claude-opus-4*":         {15, 75, 1.50},
		"gpt-4o-mini*":           {0.15, 0.60, 0.075},
		"gpt-4o*":                {2.50, 10, 1.25},
		"gpt-4.1-mini*":          {0.40, 1.60, 0.10},
		"gpt-4.1-nano*":          {0.10, 0.40, 0.025},
		"gpt-4.1*":               {2, 8, 0.50},
		"o4-mini*":               {1.10, 4.40, 0.275},
		"o3-mini*":               {1.10, 4.40, 0.55},
		"gemini-2.0-flash-lite*": {0.075, 0.30, 0},
		"gemini-2.0-flash*":      {0.10, 0.40, 0.025},
		"gemini-2.5-flash*":      {0.30, 2.50, 0.075},
		"gemini-2.5-pro*":        {1.25, 10, 0.31},
	}
}

// Lookup finds model's price: an exact key, else the longest "prefix*" key.
func (t PriceTable) Lookup(model string) (Price, bool) {
	if p, ok := t[model]; ok {
		return p, true
	}
	best, bestLen, found := Price{}, -1, false
	for k, p := range t {
		if pre, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(model, pre) && len(pre) > bestLen {
			best, bestLen, found = p, len(pre), true
		}
	}
	return best, found
}

// Cost prices u for model; unknown models cost 0 (ok false).
func (t PriceTable) Cost(model string, u Usage) (float64, bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	cached := min(u.CachedInputTokens, u.InputTokens)
	cachedPrice := p.CachedInputPerM
	if cachedPrice == 0 {
		cachedPrice = p.InputPerM
	}
	c := float64(u.InputTokens-cached)*p.InputPerM + float64(cached)*cachedPrice + float64(u.OutputTokens)*p.OutputPerM
	return c / 1e6, true
}

// Meter adds up usage per role and per model for one run. It is safe for
// concurrent use; the zero value is ready (and prices with DefaultPrices).
type Meter struct {
	mu      sync.Mutex
	Prices  PriceTable // nil: DefaultPrices
	byRole  map[Role]Usage
	byModel map[string]Usage
	total   Usage
}

// NewMeter returns a meter using prices (nil: DefaultPrices).
func NewMeter(prices PriceTable) *Meter { return &Meter{Prices: prices} }

// Record adds one call's usage, prices it, and returns it priced.
func (m *Meter) Record(role Role, model string, u Usage) Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Prices == nil {
		m.Prices = DefaultPrices()
	}
	if u.CostUSD == 0 {
		u.CostUSD, _ = m.Prices.Cost(model, u)
	}
	if m.byRole == nil {
		m.byRole, m.byModel = map[Role]Usage{}, map[string]Usage{}
	}
	m.byRole[role] = m.byRole[role].Add(u)
	m.byModel[model] = m.byModel[model].Add(u)
	m.total = m.total.Add(u)
	return u
}

// Total is the run's usage so far.
func (m *Meter) Total() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// ByRole is the usage of each role so far (a copy).
func (m *Meter) ByRole() map[Role]Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.byRole)
}

// ByModel is the usage of each model so far (a copy).
func (m *Meter) ByModel() map[string]Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.byModel)
}

// Summary is a readable multi-line report, roles sorted by name.
func (m *Meter) Summary() string {
	roles := m.ByRole()
	names := make([]string, 0, len(roles))
	for r := range roles {
		names = append(names, string(r))
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		u := roles[Role(n)]
		fmt.Fprintf(&b, "%-12s calls=%d in=%d out=%d cost=$%.6f\n", n, u.Calls, u.InputTokens, u.OutputTokens, u.CostUSD)
	}
	t := m.Total()
	fmt.Fprintf(&b, "%-12s calls=%d in=%d out=%d cost=$%.6f\n", "total", t.Calls, t.InputTokens, t.OutputTokens, t.CostUSD)
	return b.String()
}

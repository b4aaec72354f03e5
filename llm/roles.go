package llm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Role names a job a model does. The built-in roles have constants; any other
// non-empty name is a free-form role.
type Role string

// Built-in roles.
const (
	RoleSupervisor Role = "supervisor"
	RolePersona    Role = "persona"
	RoleSummarizer Role = "summarizer"
	RoleReporter   Role = "reporter"
	RoleJudge      Role = "judge"
)

// Effort is a reasoning effort level.
type Effort string

// Reasoning efforts. EffortNone (or "") sends no reasoning option.
const (
	EffortNone   Effort = "none"
	EffortLow    Effort = "low"
	EffortMedium Effort = "medium"
	EffortHigh   Effort = "high"
)

func parseEffort(s string) (Effort, error) {
	switch e := Effort(strings.ToLower(strings.TrimSpace(s))); e {
	case "", EffortNone, EffortLow, EffortMedium, EffortHigh:
		return e, nil
	}
	return "", fmt.Errorf("reasoning effort %q: want none, low, medium or high", s)
}

// RoleConfig is the model set-up of one role. Zero fields inherit: from the
// tiers' default, then from the detected provider and its cheap default model.
type RoleConfig struct {
	Provider        Provider `yaml:"provider"`
	Model           string   `yaml:"model"`
	Temperature     *float64 `yaml:"temperature"`
	ReasoningEffort Effort   `yaml:"reasoning_effort"`
	// MaxTokens caps the output tokens of a call (0: provider default).
	MaxTokens int `yaml:"max_tokens"`
	// InputBudget caps the characters of each input message (0: no cap);
	// longer ones are cut head+tail (see Budget).
	InputBudget int `yaml:"input_budget"`
}

func (c RoleConfig) validate() error {
	if c.Provider != "" {
		if _, err := ParseProvider(string(c.Provider)); err != nil {
			return err
		}
	}
	if c.Temperature != nil && (*c.Temperature < 0 || *c.Temperature > 2) {
		return fmt.Errorf("temperature %v: want 0..2", *c.Temperature)
	}
	if _, err := parseEffort(string(c.ReasoningEffort)); err != nil {
		return err
	}
	if c.MaxTokens < 0 {
		return fmt.Errorf("max_tokens %d: want >= 0", c.MaxTokens)
	}
	if c.InputBudget < 0 {
		return fmt.Errorf("input_budget %d: want >= 0", c.InputBudget)
	}
	return nil
}

// UnmarshalYAML decodes strictly and validates, naming the line.
func (c *RoleConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain RoleConfig
	var p plain
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a role is a mapping (provider, model, temperature, reasoning_effort, max_tokens, input_budget)", n.Line)
	}
	known := map[string]bool{"provider": true, "model": true, "temperature": true, "reasoning_effort": true, "max_tokens": true, "input_budget": true}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !known[k.Value] {
			return fmt.Errorf("line %d: unknown key %q (want provider, model, temperature, reasoning_effort, max_tokens or input_budget)", k.Line, k.Value)
		}
	}
	if err := n.Decode(&p); err != nil {
		return err
	}
	rc := RoleConfig(p)
	if rc.Provider != "" {
		pv, err := ParseProvider(string(rc.Provider))
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		rc.Provider = pv
	}
	if err := rc.validate(); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	rc.ReasoningEffort = Effort(strings.ToLower(string(rc.ReasoningEffort)))
	*c = rc
	return nil
}

// merge returns c with its zero fields taken from base.
func (c RoleConfig) merge(base RoleConfig) RoleConfig {
	if c.Provider == "" {
		c.Provider = base.Provider
	}
	if c.Model == "" {
		c.Model = base.Model
	}
	if c.Temperature == nil {
		c.Temperature = base.Temperature
	}
	if c.ReasoningEffort == "" {
		c.ReasoningEffort = base.ReasoningEffort
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = base.MaxTokens
	}
	if c.InputBudget == 0 {
		c.InputBudget = base.InputBudget
	}
	return c
}

// Tiers gives each role its model set-up.
//
// YAML form (every key optional):
//
//	default:            # applies to every role
//	  provider: openai
//	  temperature: 0.2
//	roles:
//	  supervisor: {model: gpt-4o-mini, temperature: 0}
//	  judge:      {provider: anthropic, reasoning_effort: medium}
//	  my_critic:  {model: llama3.2}   # free-form role
type Tiers struct {
	Default RoleConfig          `yaml:"default"`
	Roles   map[Role]RoleConfig `yaml:"roles"`
}

// ParseTiers decodes a tiers YAML document strictly: unknown keys, bad
// values and wrong types are errors naming the line.
func ParseTiers(r io.Reader) (Tiers, error) {
	var t Tiers
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(&t); err != nil {
		if errors.Is(err, io.EOF) {
			return Tiers{}, nil
		}
		return Tiers{}, fmt.Errorf("llm: tiers: %w", err)
	}
	for name := range t.Roles {
		if strings.TrimSpace(string(name)) == "" {
			return Tiers{}, errors.New("llm: tiers: empty role name")
		}
	}
	return t, nil
}

// EnvRolesFile names the YAML tiers file TiersFromEnv reads.
const EnvRolesFile = "AGENTGRAPH_ROLES_FILE"

// LoadTiers reads a tiers YAML file.
func LoadTiers(path string) (Tiers, error) {
	f, err := os.Open(path)
	if err != nil {
		return Tiers{}, fmt.Errorf("llm: tiers: %w", err)
	}
	defer f.Close()
	t, err := ParseTiers(f)
	if err != nil {
		return Tiers{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// TiersFromEnv loads the file named by AGENTGRAPH_ROLES_FILE, or returns
// empty tiers (every role on defaults and AGENTGRAPH_<ROLE>_* overrides)
// when it is unset.
func TiersFromEnv(env Lookup) (Tiers, error) {
	if p := get(env, EnvRolesFile); p != "" {
		return LoadTiers(p)
	}
	return Tiers{}, nil
}

// ParseTiersBytes is ParseTiers over a byte slice.
func ParseTiersBytes(b []byte) (Tiers, error) { return ParseTiers(bytes.NewReader(b)) }

// EnvVar returns the override variable of a role's key, e.g.
// EnvVar("supervisor", "MODEL") is AGENTGRAPH_SUPERVISOR_MODEL. Role "default"
// gives the AGENTGRAPH_DEFAULT_* variables.
func EnvVar(role Role, key string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(string(role)) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return "AGENTGRAPH_" + b.String() + "_" + key
}

// envOverride applies AGENTGRAPH_<ROLE>_{PROVIDER,MODEL,TEMPERATURE,
// REASONING_EFFORT,MAX_TOKENS,INPUT_BUDGET} to c.
func envOverride(env Lookup, role Role, c RoleConfig) (RoleConfig, error) {
	if v := get(env, EnvVar(role, "PROVIDER")); v != "" {
		p, err := ParseProvider(v)
		if err != nil {
			return c, fmt.Errorf("%s: %w", EnvVar(role, "PROVIDER"), err)
		}
		c.Provider = p
	}
	if v := get(env, EnvVar(role, "MODEL")); v != "" {
		c.Model = v
	}
	if v := get(env, EnvVar(role, "TEMPERATURE")); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 2 {
			return c, fmt.Errorf("%s=%q: want a number 0..2", EnvVar(role, "TEMPERATURE"), v)
		}
		c.Temperature = &f
	}
	if v := get(env, EnvVar(role, "REASONING_EFFORT")); v != "" {
		e, err := parseEffort(v)
		if err != nil {
			return c, fmt.Errorf("%s: %w", EnvVar(role, "REASONING_EFFORT"), err)
		}
		c.ReasoningEffort = e
	}
	for _, k := range []struct {
		key string
		dst *int
	}{{"MAX_TOKENS", &c.MaxTokens}, {"INPUT_BUDGET", &c.InputBudget}} {
		if v := get(env, EnvVar(role, k.key)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return c, fmt.Errorf("%s=%q: want a whole number >= 0", EnvVar(role, k.key), v)
			}
			*k.dst = n
		}
	}
	return c, nil
}

// Resolve gives role's full set-up: env overrides of the role, then the
// role's YAML entry, then env overrides of "default", then the YAML default,
// then the detected provider and that provider's cheap default model for the
// role (DefaultModel). Temperature stays nil when nothing sets it (the
// provider's default applies).
func (t Tiers) Resolve(role Role, det Detection, env Lookup) (RoleConfig, error) {
	if strings.TrimSpace(string(role)) == "" {
		return RoleConfig{}, errors.New("llm: empty role")
	}
	def, err := envOverride(env, "default", t.Default)
	if err != nil {
		return RoleConfig{}, err
	}
	rc, err := envOverride(env, role, t.Roles[role])
	if err != nil {
		return RoleConfig{}, err
	}
	if rc.Provider != "" && rc.Model == "" && rc.Provider != def.Provider {
		// a role moved to another provider does not inherit a model of the default's
		rc.Model = DefaultModel(rc.Provider, role)
	}
	rc = rc.merge(def)
	if rc.Provider == "" {
		rc.Provider = det.Provider
	}
	if rc.Model == "" {
		rc.Model = DefaultModel(rc.Provider, role)
	}
	return rc, rc.validate()
}

// DefaultModel is the cheap model used when no config names one.
//
//	anthropic: claude-3-5-haiku-latest
//	openai:    gpt-4o-mini
//	google:    gemini-2.0-flash
//	ollama:    llama3.2
func DefaultModel(p Provider, _ Role) string {
	switch p {
	case Anthropic:
		return "claude-3-5-haiku-latest"
	case OpenAI:
		return "gpt-4o-mini"
	case Google:
		return "gemini-2.0-flash"
	case Ollama:
		return "llama3.2"
	}
	return ""
}

package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/personas"
)

// What a Go program brings to a run of its own (see "Embedding" in the
// package docs): its team (Config.Personas), its model personas' tools
// (Config.Tools) and its persistence (Config.Checkpointer, Config.Store).

// DefaultToolTimeout bounds one call of a Config.Tools tool when
// Config.ToolTimeout is 0.
const DefaultToolTimeout = 60 * time.Second

// reservedNodes are the team graph's own node names: no persona may take one.
var reservedNodes = []string{NodeSupervisor, NodeSummarizer, graph.Start, graph.End}

// checkEmbed checks Config.Personas and Config.Tools before anything
// starts: every persona valid (personas.Persona.Validate), its name unique
// and no node of the team graph; every tool non-nil, its name one that
// model providers accept, unique and no built-in tool's. Each mistake is an
// ErrUsage error naming the persona or tool.
func (cfg *Config) checkEmbed() error {
	seen := map[string]bool{}
	for i, p := range cfg.Personas {
		if err := p.Validate(); err != nil {
			return fmt.Errorf("%w: Config.Personas[%d] %q: %v", ErrUsage, i, p.Name, err)
		}
		if slices.Contains(reservedNodes, p.Name) {
			return fmt.Errorf("%w: Config.Personas[%d] %q: the name is the team graph's own node; pick another", ErrUsage, i, p.Name)
		}
		if seen[p.Name] {
			return fmt.Errorf("%w: Config.Personas[%d] %q: two personas of the team have that name", ErrUsage, i, p.Name)
		}
		seen[p.Name] = true
	}
	names := map[string]bool{}
	for i, t := range cfg.Tools {
		if t == nil {
			return fmt.Errorf("%w: Config.Tools[%d] is nil", ErrUsage, i)
		}
		n := t.Name()
		switch {
		case !toolNameRE.MatchString(n):
			return fmt.Errorf("%w: Config.Tools[%d] %q: a tool name must match %s", ErrUsage, i, n, toolNameRE)
		case slices.Contains(builtinToolNames, n):
			return fmt.Errorf("%w: Config.Tools[%d] %q: the name of a built-in tool; pick another", ErrUsage, i, n)
		case names[n]:
			return fmt.Errorf("%w: Config.Tools[%d] %q: two tools have that name", ErrUsage, i, n)
		}
		names[n] = true
	}
	return nil
}

// teamOf is the team of mission m: Config.Personas when set, else the
// built-in team the mission names.
func (cfg *Config) teamOf(m mission.Mission) []personas.Persona {
	if len(cfg.Personas) > 0 {
		return slices.Clone(cfg.Personas)
	}
	ps, _ := mission.Team(m.Team) // checked when the missions were resolved
	return ps
}

// teamLabel is how the reports name mission m's team: the built-in team's
// name, or "custom: " and the members of Config.Personas.
func (cfg *Config) teamLabel(m mission.Mission) string {
	if len(cfg.Personas) == 0 {
		return m.Team
	}
	names := make([]string, len(cfg.Personas))
	for i, p := range cfg.Personas {
		names[i] = p.Name
	}
	return "custom: " + strings.Join(names, ", ")
}

// addConfigTools adds Config.Tools to the model personas' extra tools,
// each call bounded by Config.ToolTimeout (their results are redacted
// and observed as every extra tool's, modelturn.go). taken holds the
// names given out so far (built-ins, skills); a clash is an ErrUsage
// error. Names are taken before the MCP servers', so a server's tool
// clashing with one of these is the server's error.
func (x *extraTools) addConfigTools(cfg Config, taken map[string]string) error {
	timeout := cfg.ToolTimeout
	if timeout <= 0 {
		timeout = DefaultToolTimeout
	}
	for _, t := range cfg.Tools {
		if owner, ok := taken[t.Name()]; ok {
			return fmt.Errorf("%w: Config.Tools: tool %q has the name of %s", ErrUsage, t.Name(), owner)
		}
		taken[t.Name()] = "a Config.Tools tool"
		x.tools = append(x.tools, timedTool{Tool: t, timeout: timeout})
		x.custom = append(x.custom, t.Name())
	}
	return nil
}

// openStores gives the run its checkpointer and store: Config.Checkpointer
// and Config.Store when set (left open: their owner closes them), the
// rest from Config.DB.
func (cfg *Config) openStores(ctx context.Context) (graph.Checkpointer, graph.Store, func(), error) {
	if cfg.Checkpointer != nil && cfg.Store != nil {
		return cfg.Checkpointer, cfg.Store, func() {}, nil
	}
	cp, st, closeDB, err := openDB(ctx, cfg.DB)
	if err != nil {
		return nil, nil, nil, err
	}
	if cfg.Checkpointer != nil {
		cp = cfg.Checkpointer
	}
	if cfg.Store != nil {
		st = cfg.Store
	}
	return cp, st, closeDB, nil
}

// persistent says the run's checkpoints outlive it (Config.DB or
// Config.Checkpointer), so a mission keeps its browser state for a resume.
func (cfg *Config) persistent() bool {
	return cfg.DB != "" || cfg.Checkpointer != nil
}

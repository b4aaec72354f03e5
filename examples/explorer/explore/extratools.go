package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/tools"
	"github.com/agentgraph/agentgraph/tools/mcp"
	"github.com/agentgraph/agentgraph/tools/skills"
)

// Bounds of the model personas' MCP tools.
const (
	// mcpConnectTimeout bounds starting (or reaching) one MCP server,
	// its initialization and the listing of its tools.
	mcpConnectTimeout = 30 * time.Second
	// mcpCallTimeout bounds one call of an MCP server's tool.
	mcpCallTimeout = 60 * time.Second
)

// builtinToolNames are the tools every model persona has (modelturn.go);
// no MCP server's tool may take one of these names.
var builtinToolNames = []string{
	"execute_browser_command", "get_dom_snapshot", "capture_screenshot",
	"capture_bug_screenshot", "analyze_visual_state",
	memory.RecallToolName, memory.ObservationToolName,
}

// toolNameRE is what model providers accept as a function name.
var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// extraTools are the tools model personas get besides the browser and
// memory ones: those of every enabled server of Config.MCPConfig (named
// "<server>_<tool>") and, with Config.Skills, the skills tools. They are
// opened once per run and closed at its end.
type extraTools struct {
	tools    []tools.Tool
	servers  []string // the MCP servers connected
	custom   []string // the tools of Config.Tools (embed.go)
	sessions []*mcp.Session
}

// Close stops the MCP servers (nil-safe).
func (x *extraTools) Close() error {
	if x == nil {
		return nil
	}
	var errs []error
	for _, s := range x.sessions {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// names lists the tools' names.
func (x *extraTools) names() []string {
	if x == nil {
		return nil
	}
	out := make([]string, 0, len(x.tools))
	for _, t := range x.tools {
		out = append(out, t.Name())
	}
	return out
}

// openExtraTools connects the MCP servers of cfg.MCPConfig and loads the
// skills of cfg.Skills. A server that fails to start, or a tool whose name
// no model provider accepts, is a warning (on w, when set, and in log): the
// run goes on without it. A bad config file, a bad skills directory, or an
// MCP tool whose name clashes with a built-in or another server's tool is
// an ErrUsage error.
func openExtraTools(ctx context.Context, cfg Config, log *slog.Logger, w io.Writer) (*extraTools, error) {
	x := &extraTools{}
	warn := func(msg string, args ...any) {
		text := fmt.Sprintf(msg, args...)
		log.Warn("explore: " + text)
		if w != nil {
			fmt.Fprintf(w, "warning: %s\n", text)
		}
	}
	taken := map[string]string{}
	for _, n := range builtinToolNames {
		taken[n] = "a built-in tool"
	}
	if cfg.Skills != "" {
		lib, err := skills.Load(cfg.Skills, skills.Options{Timeout: cfg.SkillTimeout})
		if err != nil {
			return nil, fmt.Errorf("%w: skills %s: %v", ErrUsage, cfg.Skills, err)
		}
		for _, t := range lib.Tools() {
			taken[t.Name()] = "a skills tool"
			x.tools = append(x.tools, t)
		}
	}
	if err := x.addConfigTools(cfg, taken); err != nil {
		return nil, err
	}
	if cfg.MCPConfig == "" {
		return x, nil
	}
	mc, err := mcp.LoadConfig(cfg.MCPConfig)
	if err != nil {
		return nil, fmt.Errorf("%w: --mcp-config: %v", ErrUsage, err)
	}
	for _, name := range mc.Names() {
		sc := mc.Servers[name]
		if sc.Disabled {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, mcpConnectTimeout)
		sess, err := mcp.Connect(cctx, name, sc, mcp.Options{Prefix: true, Logger: log})
		var ts []tools.Tool
		if err == nil {
			if ts, err = sess.Tools(cctx); err != nil {
				_ = sess.Close()
			}
		}
		cancel()
		if ctx.Err() != nil {
			return nil, errors.Join(ctx.Err(), x.Close())
		}
		if err != nil {
			warn("MCP server %q left out: %v", name, err)
			continue
		}
		x.sessions = append(x.sessions, sess)
		x.servers = append(x.servers, name)
		for _, t := range ts {
			if !toolNameRE.MatchString(t.Name()) {
				warn("MCP server %q: tool %q left out: a tool name must match %s", name, t.Name(), toolNameRE)
				continue
			}
			if owner, ok := taken[t.Name()]; ok {
				_ = x.Close()
				return nil, fmt.Errorf("%w: --mcp-config: MCP server %q: tool %q has the name of %s; rename the server in %s",
					ErrUsage, name, t.Name(), owner, cfg.MCPConfig)
			}
			taken[t.Name()] = fmt.Sprintf("MCP server %q's tool", name)
			x.tools = append(x.tools, timedTool{Tool: t, timeout: mcpCallTimeout})
		}
	}
	return x, nil
}

// timedTool bounds each call of a tool.
type timedTool struct {
	tools.Tool
	timeout time.Duration
}

func (t timedTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	out, err := t.Tool.Call(ctx, args)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return out, fmt.Errorf("no answer within %v: %w", t.timeout, err)
	}
	return out, err
}

// redactedTool gives the model a tool's result and error with every
// secret value replaced by its reference, as the browser tools do.
type redactedTool struct {
	tools.Tool
	secrets *browser.Secrets
}

func (t redactedTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	out, err := t.Tool.Call(ctx, args)
	if err != nil {
		err = errors.New(t.secrets.Redact(err.Error()))
	}
	return t.secrets.Redact(out), err
}

// extraToolsNote tells the persona about the tools beyond the browser's.
func extraToolsNote(x *extraTools) string {
	if x == nil || len(x.tools) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nBesides the browser you have ")
	var parts []string
	if len(x.servers) > 0 {
		parts = append(parts, "the tools of MCP servers "+strings.Join(x.servers, ", ")+" (named <server>_<tool>)")
	}
	if len(x.custom) > 0 {
		parts = append(parts, "the tools "+strings.Join(x.custom, ", "))
	}
	if slices.Contains(x.names(), skills.ToolList) {
		parts = append(parts, "skills: "+skills.ToolList+" lists them, "+skills.ToolShow+" reads one's instructions, "+
			skills.ToolScripts+" lists its scripts and "+skills.ToolRun+" runs one")
	}
	b.WriteString(strings.Join(parts, ", and "))
	b.WriteString("; they do not count as browser actions.")
	return b.String()
}

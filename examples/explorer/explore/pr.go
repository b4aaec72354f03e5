package explore

import (
	"context"
	"fmt"

	"github.com/agentgraph/agentgraph/examples/explorer/pullreq"
	"github.com/agentgraph/agentgraph/tools/mcp"
)

// prSource picks how to fetch the pull request: Config.PRSource, else the
// MCP server named "github" in Config.MCPConfig, else the gh CLI. The
// returned func closes what it opened.
func (cfg *Config) prSource(ctx context.Context) (pullreq.Source, func(), error) {
	if cfg.PRSource != nil {
		return cfg.PRSource, func() {}, nil
	}
	if cfg.MCPConfig != "" {
		mc, err := mcp.LoadConfig(cfg.MCPConfig)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: --mcp-config: %v", ErrUsage, err)
		}
		if sc, ok := mc.Servers[pullreq.GitHubMCPServer]; ok && !sc.Disabled {
			sess, err := mcp.Connect(ctx, pullreq.GitHubMCPServer, sc, mcp.Options{Logger: cfg.Logger})
			if err != nil {
				return nil, nil, &SetupError{Err: fmt.Errorf("--pr-url: %w", err)}
			}
			return pullreq.MCPSource{Session: sess}, func() { _ = sess.Close() }, nil
		}
	}
	return pullreq.GHCLI{}, func() {}, nil
}

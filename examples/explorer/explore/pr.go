package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/pullreq"
	"github.com/agentgraph/agentgraph/internal/safefile"
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

// prMissions fetches Config.PRURL, cuts it to pullreq.DefaultBudget, plans its
// missions and writes the plan to <ReportDir>/pr_missions.json.
func (cfg *Config) prMissions(ctx context.Context, target string) ([]mission.Mission, error) {
	ref, err := pullreq.ParseURL(cfg.PRURL)
	if err != nil {
		return nil, err
	}
	src, done, err := cfg.prSource(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	pr, err := src.FetchPR(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("explore: --pr-url %s: %w", ref.URL(), err)
	}
	pr = pr.Cut(pullreq.DefaultBudget())
	plan, err := pullreq.PlanPR(ctx, pr, cfg.PlannerModel, target, pullreq.AppLinks(ctx, target), cfg.Logger)
	if err != nil {
		return nil, fmt.Errorf("explore: --pr-url %s: %w", ref.URL(), err)
	}
	cfg.Logger.Info("explore: PR missions", "pr", ref.URL(), "source", pr.Source, "by", plan.By, "missions", len(plan.Missions), "cuts", pr.Cuts)
	if err := os.MkdirAll(cfg.ReportDir, 0o700); err == nil {
		if b, err := json.MarshalIndent(plan, "", "  "); err == nil {
			_ = safefile.WriteFile(filepath.Join(cfg.ReportDir, "pr_missions.json"), b, 0o600)
		}
	}
	return plan.Missions, nil
}

// Command explorer is the autonomous exploratory QA explorer: a supervised
// team of personas explores a web app in a real browser, reports bugs with
// evidence and writes Playwright specs that reproduce them. With no
// arguments it serves the built-in demo app on loopback and explores it
// offline; when the environment configures a provider (llm.Detect: e.g.
// OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY, OLLAMA_HOST) and
// --offline is not given, the supervisor, personas, reporter and reflection
// are model-driven, with role models from llm.NewFactory (role tiers in
// AGENTGRAPH_ROLES_FILE or AGENTGRAPH_<ROLE>_MODEL…). See package explore for
// flags, environment and outputs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/tmc/langchaingo/llms"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, env func(string) (string, bool)) int {
	fs := flag.NewFlagSet("explorer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg      explore.Config
		missions = fs.String("missions", "", "missions YAML file")
		failOn   = fs.String("fail-on", "new", "exit 1 on bugs: new, any or none")
		offline  = fs.Bool("offline", false, "never use a model, even when an API key is set")
		verbose  = fs.Bool("v", false, "log diagnostics to stderr")
		plain    = fs.Bool("plain", false, "plain progress lines even on a terminal")
		quiet    = fs.Bool("quiet", false, "no progress lines")
	)
	fs.StringVar(&cfg.Target, "target", "", "origin of the app to explore (default: serve the demo app on loopback)")
	fs.StringVar(&cfg.Team, "team", "", "team for every mission: standard or advanced (default: by mission keywords)")
	fs.IntVar(&cfg.Budget, "budget", 200, "browser steps per mission")
	fs.IntVar(&cfg.TurnSteps, "turn-steps", 10, "step limit of one persona turn")
	fs.StringVar(&cfg.ReportDir, "reports", "reports", "report directory")
	fs.StringVar(&cfg.DB, "db", "reports/explorer.db", "bbolt file for checkpoints and memory (\"\" for in-memory)")
	fs.StringVar(&cfg.Resume, "resume", "", "resume the mission with this thread id from its checkpoint")
	fs.BoolVar(&cfg.Regression, "regression", false, "missions from the open bugs in memory")
	fs.StringVar(&cfg.Credentials.Email, "user", "", "sign-in email or user name (default: one shown on the page)")
	fs.StringVar(&cfg.Credentials.Password, "password", "", "sign-in password")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the offline personas")
	fs.BoolVar(&cfg.Headed, "headed", false, "show the browser")
	fs.StringVar(&cfg.PRURL, "pr-url", "", "missions from a GitHub pull request (https://github.com/OWNER/REPO/pull/N)")
	fs.StringVar(&cfg.MCPConfig, "mcp-config", "", "mcp_servers.json whose \"github\" server fetches --pr-url (default: ./mcp_servers.json if present, else the gh CLI)")
	fs.IntVar(&cfg.MissionRetries, "mission-retries", 2, "continue a mission from its checkpoint this often after transient model errors (0: never)")
	fs.IntVar(&cfg.MinimizeReplays, "minimize-replays", explore.DefaultMinimizeReplays, "replays to shorten one bug's reproduction (negative: off)")
	fs.DurationVar(&cfg.MinimizeTime, "minimize-time", explore.DefaultMinimizeTime, "time to shorten one mission's reproductions")
	fs.IntVar(&cfg.MinimizeWorkers, "minimize-workers", explore.DefaultMinimizeWorkers, "minimisation replays run at once")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return explore.ExitClean
		}
		return explore.ExitSetup
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "explorer: unexpected arguments %q\n", fs.Args())
		return explore.ExitSetup
	}
	fo, err := explore.ParseFailOn(*failOn)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return explore.ExitSetup
	}
	if cfg.MissionRetries == 0 {
		cfg.MissionRetries = -1 // explore.Config: 0 is the default, negative is never
	}
	if cfg.PRURL != "" {
		if _, err := explore.ParsePRURL(cfg.PRURL); err != nil {
			fmt.Fprintln(stderr, err)
			return explore.ExitSetup
		}
		if cfg.MCPConfig == "" {
			if _, err := os.Stat("mcp_servers.json"); err == nil {
				cfg.MCPConfig = "mcp_servers.json"
			}
		}
	}
	if *missions != "" {
		ms, err := explore.LoadMissions(*missions)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return explore.ExitSetup
		}
		cfg.Missions = ms
	}
	if *verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	factory, err := modelFactory(env, *offline, cfg.Logger)
	if err != nil {
		fmt.Fprintln(stderr, "explorer:", err)
		return explore.ExitSetup
	}
	if factory != nil {
		if cfg.Models, err = explore.ModelsFromFactory(ctx, factory); err != nil {
			fmt.Fprintln(stderr, "explorer:", err)
			return explore.ExitSetup
		}
		summarizer, err := factory.For(ctx, llm.RoleSummarizer)
		if err != nil {
			fmt.Fprintln(stderr, "explorer:", err)
			return explore.ExitSetup
		}
		cfg.Reflector = explore.ModelReflector{Model: summarizer}
		// The planner role writes the --pr-url missions.
		if cfg.PlannerModel, err = factory.For(ctx, llm.Role("planner")); err != nil {
			fmt.Fprintln(stderr, "explorer:", err)
			return explore.ExitSetup
		}
		fmt.Fprintf(stderr, "explorer: model-driven: %s (via %s); %s\n", factory.Detection.Provider, factory.Detection.Source, roleModels(cfg.Models, summarizer))
	} else {
		fmt.Fprintln(stderr, "explorer: offline: heuristic personas and rule supervisor (set an API key, e.g. OPENAI_API_KEY, for a model-driven team)")
	}
	if !*quiet {
		cfg.Progress = stdout
		cfg.TTY = !*plain && isTTY(stdout)
	}
	if v, ok := env("DEMOAPP_FIXED"); ok && cfg.Target == "" {
		cfg.DemoDisabled = []string{v}
	}
	res, err := explore.Run(ctx, cfg)
	if cfg.TTY {
		fmt.Fprintln(stdout)
	}
	explore.PrintTable(stdout, res)
	if u := res.Usage; u != nil {
		fmt.Fprintf(stdout, "model usage: %d calls, %d input + %d output tokens, $%.4f\n", u.Calls, u.InputTokens, u.OutputTokens, u.CostUSD)
	}
	if err != nil {
		fmt.Fprintln(stderr, "explorer:", err)
	}
	return explore.ExitCode(res, err, fo)
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// modelFactory returns the role-model factory of the environment, or nil
// offline (--offline, or no provider configured).
func modelFactory(env func(string) (string, bool), offline bool, log *slog.Logger) (*llm.Factory, error) {
	lookup := llm.Lookup(env)
	opts := []llm.DetectOption{llm.OfflineFallback()}
	if offline {
		opts = append(opts, llm.ForceOffline())
	}
	tiers, err := llm.TiersFromEnv(lookup)
	if err != nil {
		return nil, err
	}
	f, err := llm.NewFactory(lookup, tiers, opts...)
	if err != nil {
		return nil, err
	}
	if f.Detection.IsOffline() {
		return nil, nil
	}
	if log != nil {
		f.Options = append(f.Options, llm.WithLogger(log))
	}
	return f, nil
}

// roleModels names the model of each role.
func roleModels(ms *explore.Models, summarizer llms.Model) string {
	name := func(m llms.Model) string {
		if lm, ok := m.(*llm.Model); ok {
			return lm.Config().Model
		}
		return "custom"
	}
	return fmt.Sprintf("supervisor=%s persona=%s reporter=%s summarizer=%s", name(ms.Supervisor), name(ms.Persona), name(ms.Reporter), name(summarizer))
}

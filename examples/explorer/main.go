// Command explorer is the autonomous exploratory QA explorer: a supervised
// team of personas explores a web app in a real browser, reports bugs with
// evidence and writes Playwright specs that reproduce them. With no
// arguments it serves the built-in demo app on loopback and explores it
// offline; when the environment configures a provider (llm.Detect: e.g.
// OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY, OLLAMA_HOST) and
// --offline is not given, the supervisor, personas, reporter and reflection
// are model-driven, with role models from llm.NewFactory (role tiers in
// AGENTGRAPH_ROLES_FILE or AGENTGRAPH_<ROLE>_MODEL…); --provider forces one.
//
// Settings come from flags, AGENTGRAPH_<KEY> variables, explorer.yaml and
// .env (package config); `explorer config` prints the effective ones and
// `explorer init` writes a commented explorer.yaml; `explorer merge-reports
// [-o DIR] DIR...` merges the report directories of shards (--shard i/n).
// `explorer mcp` serves the browser tools over MCP instead (mcpserve.go).
// See package explore for the outputs.
//
// Exit codes (explore.ExitCode):
//
//	0    clean: no bug the --fail-on policy counts
//	1    bugs the --fail-on policy counts
//	2    usage or set-up error, with the cause on stderr: bad flags or
//	     config, no Chromium, a bad DB, a target that is not http(s), is
//	     unreachable or answers nothing, a mission that crashed
//	130  interrupted by SIGINT or SIGTERM: every browser call is bounded,
//	     so the run stops within seconds and writes the reports of what
//	     it found; a second signal ends the process at once
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
	"strings"
	"syscall"

	"github.com/agentgraph/agentgraph/examples/explorer/config"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/examples/explorer/pullreq"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/tmc/langchaingo/llms"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			// The first signal stops the run and lets it write its reports;
			// the default handling is back for a second one.
			stop()
			fmt.Fprintln(os.Stderr, "explorer: interrupted: stopping and writing the reports of what was found (signal again to quit at once)")
		case <-finished:
		}
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	close(finished)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, env func(string) (string, bool)) int {
	if len(args) > 0 {
		switch args[0] {
		case "init":
			return runInit(args[1:], stdout, stderr)
		case "config":
			return runConfig(args[1:], stdout, stderr, env)
		case "mcp":
			return runMCP(ctx, args[1:], os.Stdin, stdout, stderr)
		case "merge-reports":
			return runMerge(args[1:], stdout, stderr)
		}
	}
	l, code := loadConfig("explorer", args, stderr, env)
	if l == nil {
		return code
	}
	s := l.Settings
	fo, err := explore.ParseFailOn(s.FailOn)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return explore.ExitSetup
	}
	cfg, err := exploreConfig(s, l.Lookup)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return explore.ExitSetup
	}
	if s.Verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		if err := l.Print(stderr); err != nil {
			return explore.ExitSetup
		}
	}
	factory, err := factoryFor(l, cfg.Logger)
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
	if !s.Quiet {
		cfg.Progress = stdout
		cfg.TTY = !s.Plain && isTTY(stdout)
	}
	if s.Events != "" {
		events, err := observe.CreateJSONL(s.Events)
		if err != nil {
			fmt.Fprintln(stderr, "explorer: --events:", err)
			return explore.ExitSetup
		}
		defer func() {
			if err := events.Close(); err != nil {
				fmt.Fprintln(stderr, "explorer: --events:", err)
			}
		}()
		cfg.Observer = events
	}
	if cfg.Target == "" {
		stop, err := onDemoApp(&cfg, l.Lookup)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return explore.ExitSetup
		}
		defer stop()
	}
	res, err := explore.Run(ctx, cfg)
	if cfg.TTY {
		fmt.Fprintln(stdout)
	}
	report.PrintTable(stdout, res)
	if u := res.Usage; u != nil {
		fmt.Fprintf(stdout, "model usage: %d calls, %d input + %d output tokens, $%.4f\n", u.Calls, u.InputTokens, u.OutputTokens, u.CostUSD)
	}
	if err != nil {
		fmt.Fprintln(stderr, "explorer:", err)
	}
	return explore.ExitCode(res, err, fo)
}

// loadConfig parses the command line and loads the effective configuration
// (flag > AGENTGRAPH_* variable > explorer.yaml > default). A nil result
// comes with the exit code: clean for -h, set-up for an error.
func loadConfig(name string, args []string, stderr io.Writer, env func(string) (string, bool)) (*config.Loaded, int) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	scratch := config.Defaults()
	config.RegisterFlags(fs, &scratch)
	var accounts, states listFlag
	fs.Var(&accounts, "account", "a user to explore as, repeatable: name=NAME,email=EMAIL,password-env=VAR[,storage-state=PATH] (the password is read from VAR)")
	fs.Var(&states, "storage-state", "a Playwright storage-state file to start from, repeatable: [NAME=]PATH (a bare path is the default user's)")
	file := fs.String("config", "", "config file (default: ./"+config.DefaultFile+" if present)")
	envFile := fs.String("env-file", "", "file of environment variables (default: ./"+config.DefaultEnvFile+" if present); never overrides the environment")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: explorer [flags]       explore (settings: flag > AGENTGRAPH_<KEY> > %s > default)\n", config.DefaultFile)
		fmt.Fprintln(stderr, "       explorer config [flags] print the effective config, secrets masked")
		fmt.Fprintln(stderr, "       explorer init [--force] [--config FILE] write a commented "+config.DefaultFile)
		fmt.Fprintln(stderr, "       explorer mcp [--http ADDR] [--target URL] [--reports DIR] serve the browser tools over MCP")
		fmt.Fprintln(stderr, "       explorer merge-reports [-o DIR] DIR... merge the report directories of shards (--shard i/n)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, explore.ExitClean
		}
		return nil, explore.ExitSetup
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "explorer: unexpected arguments %q\n", fs.Args())
		return nil, explore.ExitSetup
	}
	flags := map[string]string{}
	fs.Visit(func(f *flag.Flag) {
		if key, ok := config.FlagKey(f.Name); ok {
			flags[key] = f.Value.String()
		}
	})
	l, err := config.Load(config.Options{File: *file, EnvFile: *envFile, Env: env, Flags: flags, Accounts: accounts, StorageStates: states})
	if err != nil {
		fmt.Fprintln(stderr, "explorer:", err)
		return nil, explore.ExitSetup
	}
	return l, explore.ExitClean
}

// listFlag is a repeatable flag: each use appends its value.
type listFlag []string

func (f *listFlag) String() string     { return strings.Join(*f, " ") }
func (f *listFlag) Set(v string) error { *f = append(*f, v); return nil }

// exploreConfig turns the settings into the explorer's configuration,
// reading the missions file. env is the environment (with .env).
func exploreConfig(s config.Settings, env func(string) (string, bool)) (explore.Config, error) {
	shard, err := mission.ParseShard(s.Shard)
	if err != nil {
		return explore.Config{}, fmt.Errorf("explorer: shard %w", err)
	}
	cfg := explore.Config{
		Shard:           shard,
		BrowserWS:       s.BrowserWS,
		Target:          s.Target,
		Team:            s.Team,
		Budget:          s.Budget,
		TurnSteps:       s.TurnSteps,
		ReportDir:       s.Reports,
		DB:              s.DB,
		Resume:          s.Resume,
		Regression:      s.Regression,
		Credentials:     session.Credentials{Email: s.User, Password: s.Password},
		Users:           s.Users,
		UsersShareData:  s.UsersShareData,
		EntryPaths:      splitList(s.EntryPaths),
		NoDiscovery:     s.NoDiscovery,
		JSCoverage:      s.JSCoverage,
		Seed:            s.Seed,
		Headed:          s.Headed,
		PRURL:           s.PRURL,
		MCPConfig:       s.MCPConfig,
		Skills:          s.Skills,
		MissionRetries:  s.MissionRetries,
		MinimizeReplays: s.MinimizeReplays,
		MinimizeTime:    s.MinimizeTime,
		MinimizeWorkers: s.MinimizeWorkers,
	}
	if cfg.MissionRetries == 0 {
		cfg.MissionRetries = -1 // explore.Config: 0 is the default, negative is never
	}
	if cfg.PRURL != "" {
		if _, err := pullreq.ParseURL(cfg.PRURL); err != nil {
			return cfg, err
		}
	}
	// ./mcp_servers.json serves the model personas and the PR missions.
	if cfg.MCPConfig == "" {
		if _, err := os.Stat("mcp_servers.json"); err == nil {
			cfg.MCPConfig = "mcp_servers.json"
		}
	}
	if s.Missions != "" {
		ms, err := mission.LoadMissions(s.Missions)
		if err != nil {
			return cfg, err
		}
		cfg.Missions = ms
	}
	return cfg, nil
}

// onDemoApp serves the embedded demo app for a run without a target (the
// main job) and points cfg at it: its origin, its seeded bugs for the
// score, a fresh copy per minimisation replay, and one memory origin
// whatever its port. DEMOAPP_FIXED turns its bugs off (ids, or "all").
func onDemoApp(cfg *explore.Config, env func(string) (string, bool)) (stop func(), err error) {
	var off []string
	if v, ok := env("DEMOAPP_FIXED"); ok {
		off = []string{v}
	}
	app, err := demoapp.StartFixture(off)
	if err != nil {
		return nil, fmt.Errorf("explorer: demo app: %w", err)
	}
	cfg.Target, cfg.MemoryOrigin = app.URL, demoapp.MemoryOrigin
	cfg.Seeded = &report.Seeded{IDs: app.Seeded, Find: app.Find}
	if cfg.ReplayTarget == nil {
		cfg.ReplayTarget = app.Fresh
	}
	return func() { _ = app.Close() }, nil
}

// runInit writes a commented explorer.yaml with every setting at its default.
func runInit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explorer init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", config.DefaultFile, "file to write")
	force := fs.Bool("force", false, "overwrite an existing file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return explore.ExitClean
		}
		return explore.ExitSetup
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "explorer init: unexpected arguments %q\n", fs.Args())
		return explore.ExitSetup
	}
	if err := config.WriteTemplate(*file, *force); err != nil {
		fmt.Fprintln(stderr, "explorer init:", err)
		return explore.ExitSetup
	}
	fmt.Fprintf(stdout, "explorer: wrote %s\n", *file)
	return explore.ExitClean
}

// runMerge merges the report directories of shards into one.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explorer merge-reports", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "reports-merged", "output directory")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: explorer merge-reports [-o DIR] DIR...")
		fmt.Fprintln(stderr, "merges the report directories of explorer runs (the shards of --shard i/n) into one: every mission's directory,")
		fmt.Fprintln(stderr, "and summary.json, junit.xml, test_report.md and report.html of the whole, one bug per cause")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return explore.ExitClean
		}
		return explore.ExitSetup
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "explorer merge-reports: no report directory given (usage: explorer merge-reports [-o DIR] DIR...)")
		return explore.ExitSetup
	}
	res, err := report.MergeReports(*out, fs.Args()...)
	if err != nil {
		fmt.Fprintln(stderr, "explorer "+strings.TrimPrefix(err.Error(), explore.ErrUsage.Error()+": "))
		return explore.ExitSetup
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "explorer merge-reports: warning:", w)
	}
	fmt.Fprintf(stdout, "explorer: merged %d report directories (%d missions) into %s: %d bugs, one per cause (%d reports of a cause another had)\n",
		len(res.Inputs), res.Missions, res.Dir, res.Bugs, res.Merged)
	if d := res.Demo; d != nil {
		fmt.Fprintf(stdout, "demo app: found %d of %d seeded bugs\n", len(d.Found), len(d.Seeded))
	}
	return explore.ExitClean
}

// runConfig prints the effective configuration, secrets masked, and the
// model provider it selects, without starting a browser.
func runConfig(args []string, stdout, stderr io.Writer, env func(string) (string, bool)) int {
	l, code := loadConfig("explorer config", args, stderr, env)
	if l == nil {
		return code
	}
	if err := l.Print(stdout); err != nil {
		fmt.Fprintln(stderr, "explorer config:", err)
		return explore.ExitSetup
	}
	f, err := factoryFor(l, nil)
	if err != nil {
		fmt.Fprintln(stderr, "explorer config:", err)
		return explore.ExitSetup
	}
	if f == nil {
		fmt.Fprintln(stdout, "# model: offline")
	} else {
		fmt.Fprintf(stdout, "# model: %s (via %s)\n", f.Detection.Provider, f.Detection.Source)
	}
	return explore.ExitClean
}

// factoryFor is modelFactory for the loaded settings: provider forces a
// provider, offline forces none. When both are set, the one from the higher
// layer wins (flag > environment > file); on the same layer offline wins.
// The environment includes the .env file.
func factoryFor(l *config.Loaded, log *slog.Logger) (*llm.Factory, error) {
	s := l.Settings
	var opts []llm.DetectOption
	offline := s.Offline
	if s.Provider != "" {
		p, err := llm.ParseProvider(s.Provider)
		if err != nil {
			return nil, fmt.Errorf("provider (%s): %w", l.Sources["provider"], err)
		}
		if offline && l.Layers["provider"] > l.Layers["offline"] {
			offline = false
		}
		opts = append(opts, llm.ForceProvider(p))
	}
	f, err := modelFactory(l.Lookup, offline, log, opts...)
	if err != nil && s.Provider != "" {
		return nil, fmt.Errorf("provider %s (%s): %w", s.Provider, l.Sources["provider"], err)
	}
	return f, err
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
// offline (--offline, or no provider configured); force adds detect options
// such as llm.ForceProvider.
func modelFactory(env func(string) (string, bool), offline bool, log *slog.Logger, force ...llm.DetectOption) (*llm.Factory, error) {
	lookup := llm.Lookup(env)
	opts := append([]llm.DetectOption{llm.OfflineFallback()}, force...)
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

// splitList splits a comma-separated setting, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Command explorer is the autonomous exploratory QA explorer: a supervised
// team of personas explores a web app in a real browser, reports bugs with
// evidence and writes Playwright specs that reproduce them. With no
// arguments it serves the built-in demo app on loopback and explores it
// offline. See package explore for flags, environment and outputs.
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
	fs.IntVar(&cfg.MinimizeReplays, "minimize-replays", explore.DefaultMinimizeReplays, "replays to shorten one bug's reproduction (negative: off)")
	fs.DurationVar(&cfg.MinimizeTime, "minimize-time", explore.DefaultMinimizeTime, "time to shorten one mission's reproductions")
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
	if *missions != "" {
		ms, err := explore.LoadMissions(*missions)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return explore.ExitSetup
		}
		cfg.Missions = ms
	}
	var opts []llm.DetectOption
	opts = append(opts, llm.OfflineFallback())
	if *offline {
		opts = append(opts, llm.ForceOffline())
	}
	det, err := llm.Detect(llm.Lookup(env), opts...)
	if err != nil {
		fmt.Fprintln(stderr, "explorer:", err)
		return explore.ExitSetup
	}
	if !det.IsOffline() {
		fmt.Fprintf(stderr, "explorer: a model is configured (%s via %s), but this build's team is offline only; exploring offline\n", det.Provider, det.Source)
	}
	if *verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
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

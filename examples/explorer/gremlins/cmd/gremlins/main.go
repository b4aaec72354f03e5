// Command gremlins compares the offline explorer with gremlins.js@2.2.0 on
// the demo app: the explorer with a budget of N browser steps, then a horde
// of gremlins (injected by an init script) for exactly N gremlin actions on
// a fresh demo app with the same seeded bugs, both watched by the same
// page-health collector. It prints, and writes as gremlins.json and
// gremlins.md under -reports, which seeded bugs each side triggered.
//
//	go run ./examples/explorer/gremlins/cmd/gremlins -n 200 -seed 1
//
// Needs the set-up of scripts/setup.sh (Chromium, the Playwright driver and
// gremlins.js in .tools/node). Exit codes: 0 done, 2 usage or set-up error.
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
	"path/filepath"
	"syscall"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/gremlins"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gremlins", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg gremlins.Config
	fs.IntVar(&cfg.Budget, "n", 200, "budget N: explorer steps and gremlin actions")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the explorer's personas and the gremlins' randomizer")
	fs.DurationVar(&cfg.Delay, "delay", 0, "pause between two gremlin actions (default 10ms, gremlins.js's)")
	fs.StringVar(&cfg.ReportDir, "reports", filepath.Join("reports", "gremlins"), "report directory")
	fs.StringVar(&cfg.Script, "script", "", "gremlins.min.js (default: $AGENTGRAPH_GREMLINS_JS or .tools/node/node_modules/gremlins.js/dist/gremlins.min.js)")
	fs.StringVar(&cfg.StartURL, "start", "/", "path both sides start from")
	fs.BoolVar(&cfg.NoSignIn, "no-signin", false, "leave the gremlins signed out")
	fs.BoolVar(&cfg.Minimize, "minimize", false, "shorten the explorer side's reproductions (off: the comparison only counts bugs)")
	verbose := fs.Bool("v", false, "log diagnostics to stderr")
	quiet := fs.Bool("quiet", false, "no progress lines")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return explore.ExitClean
		}
		return explore.ExitSetup
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gremlins: unexpected arguments %q\n", fs.Args())
		return explore.ExitSetup
	}
	if cfg.Budget <= 0 || cfg.Delay < 0 {
		fmt.Fprintln(stderr, "gremlins: -n must be positive and -delay not negative")
		return explore.ExitSetup
	}
	if *verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if !*quiet {
		cfg.Progress = stdout
	}
	if v, ok := os.LookupEnv("DEMOAPP_FIXED"); ok {
		cfg.DemoDisabled = []string{v}
	}
	cmp, err := gremlins.Compare(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "gremlins:", err)
		return explore.ExitSetup
	}
	fmt.Fprint(stdout, "\n"+cmp.Markdown())
	fmt.Fprintf(stdout, "\nreports: %s\n", filepath.Join(cfg.ReportDir, "gremlins.md"))
	return explore.ExitClean
}

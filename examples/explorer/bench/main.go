package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm/drive"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the benchmark could not finish (set-up, cancellation)
	exitUsage = 2
)

// Default flag values: 200 steps per app (the explorer's default budget),
// three apps at once (runs mostly wait on the app and the settle timers).
const (
	defaultBudget   = 200
	defaultParallel = 3
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seedsFlag := fs.String("seeds", "1-20", "bugfarm seeds: ranges and lists, e.g. 1-20, 1,3,5, 101-120")
	budget := fs.Int("budget", defaultBudget, "the explorer's step budget per app (and gremlins.js's actions)")
	gremlins := fs.Bool("gremlins", false, "also run gremlins.js on each buggy app with the same budget")
	parallel := fs.Int("parallel", defaultParallel, "apps explored at once")
	out := fs.String("out", "reports/bench", "output directory: <seed>/buggy, <seed>/fixed, bench.json, bench.md")
	timeout := fs.Duration("timeout", 3*time.Hour, "bound of the whole benchmark")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bench: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	seeds, err := drive.ParseSeeds(*seedsFlag)
	if err != nil {
		fmt.Fprintf(stderr, "bench: -%v\n", err)
		return exitUsage
	}
	switch {
	case *budget < 1 || *budget > 100000:
		fmt.Fprintf(stderr, "bench: -budget %d: want 1..100000\n", *budget)
		return exitUsage
	case *parallel < 1 || *parallel > 16:
		fmt.Fprintf(stderr, "bench: -parallel %d: want 1..16\n", *parallel)
		return exitUsage
	case *out == "":
		fmt.Fprintln(stderr, "bench: -out: empty directory name")
		return exitUsage
	case *timeout <= 0:
		fmt.Fprintf(stderr, "bench: -timeout %s: want a positive duration\n", *timeout)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	b, err := browser.Launch(ctx, browser.LaunchOptions{})
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return exitUsage
	}
	defer b.Close()
	rep, err := Run(ctx, Options{Seeds: seeds, Budget: *budget, Gremlins: *gremlins, Parallel: *parallel, Out: *out, Browser: b, Progress: stdout})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(stderr, "bench: -timeout %s reached\n", *timeout)
		}
		fmt.Fprintln(stderr, "bench:", err)
		return exitError
	}
	fmt.Fprint(stdout, "\n"+rep.Markdown())
	fmt.Fprintf(stdout, "\nwrote %s/bench.json and %s/bench.md\n", *out, *out)
	return exitOK
}

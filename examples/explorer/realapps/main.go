package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the benchmark could not finish (set-up, a trigger that did not prove its mutation, cancellation)
	exitUsage = 2
)

const defaultBudget = 200

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("realapps", flag.ContinueOnError)
	fs.SetOutput(stderr)
	appsFlag := fs.String("apps", "all", "apps to run, comma separated, or all: "+strings.Join(appNames(), ", "))
	budget := fs.Int("budget", defaultBudget, "the explorer's step budget per run")
	out := fs.String("out", "reports/realapps", "output directory: <app>/clean, <app>/mutated, bench.json, bench.md")
	cache := fs.String("cache", "", "install and work directory (default $AGENTGRAPH_REALAPPS_CACHE or <user cache>/agentgraph-realapps)")
	verifyOnly := fs.Bool("verify-only", false, "set up and prove every mutation with its trigger; run no explorer")
	rescoreFlag := fs.Bool("rescore", false, "score the runs in -out/bench.json again with the apps' current patterns and judgements; run nothing")
	jscov := fs.Bool("jscov", false, "collect the apps' JavaScript coverage in the explorer's runs (V8 precise coverage; slower)")
	timeout := fs.Duration("timeout", 3*time.Hour, "bound of the whole benchmark")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "realapps: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	apps, err := pickApps(*appsFlag)
	if err != nil {
		fmt.Fprintln(stderr, "realapps:", err)
		return exitUsage
	}
	switch {
	case *budget < 1 || *budget > 100000:
		fmt.Fprintf(stderr, "realapps: -budget %d: want 1..100000\n", *budget)
		return exitUsage
	case *out == "":
		fmt.Fprintln(stderr, "realapps: -out: empty directory name")
		return exitUsage
	case *timeout <= 0:
		fmt.Fprintf(stderr, "realapps: -timeout %s: want a positive duration\n", *timeout)
		return exitUsage
	}
	if *cache == "" {
		if *cache, err = kit.DefaultCache(); err != nil {
			fmt.Fprintln(stderr, "realapps:", err)
			return exitUsage
		}
	}
	if *rescoreFlag {
		rep, err := rescore(*out)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitError
		}
		fmt.Fprint(stdout, rep.Markdown())
		fmt.Fprintf(stdout, "\nwrote %s/bench.json and %s/bench.md\n", *out, *out)
		return exitOK
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	b, err := browser.Launch(ctx, browser.LaunchOptions{})
	if err != nil {
		fmt.Fprintln(stderr, "realapps:", err)
		return exitUsage
	}
	defer b.Close()
	rep, err := Run(ctx, Options{Apps: apps, Budget: *budget, Out: *out, Cache: *cache, VerifyOnly: *verifyOnly, JSCoverage: *jscov, Browser: b, Progress: stdout})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(stderr, "realapps: -timeout %s reached\n", *timeout)
		}
		fmt.Fprintln(stderr, "realapps:", err)
		return exitError
	}
	fmt.Fprint(stdout, "\n"+rep.Markdown())
	fmt.Fprintf(stdout, "\nwrote %s/bench.json and %s/bench.md\n", *out, *out)
	if !rep.Proved() {
		fmt.Fprintln(stderr, "realapps: some triggers did not prove their mutation (see bench.md)")
		return exitError
	}
	return exitOK
}

func appNames() []string {
	var out []string
	for _, a := range allApps() {
		out = append(out, a.Name)
	}
	return out
}

func pickApps(list string) ([]kit.App, error) {
	all := allApps()
	if list == "" || list == "all" {
		return all, nil
	}
	var out []kit.App
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(strings.ToLower(name))
		if name == "" || seen[name] {
			continue
		}
		found := false
		for _, a := range all {
			if a.Name == name {
				out = append(out, a)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("-apps: no app %q (have %s)", name, strings.Join(appNames(), ", "))
		}
		seen[name] = true
	}
	if len(out) == 0 {
		return nil, errors.New("-apps: no app named")
	}
	return out, nil
}

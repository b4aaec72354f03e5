// Command selfheal runs a self-healing engineering team on the agentgraph
// graph engine: an architect writes a spec and tests, a developer writes
// code, a sandbox runs go test -race, a debugger patches failures, a
// reviewer signs off.
//
// Without a model provider in the environment it runs offline: scripted
// models play the built-in task (a sliding-window rate limiter whose first
// draft has a data race), and the real sandbox catches the race.
//
//	go run ./examples/selfheal
//	OPENAI_API_KEY=… go run ./examples/selfheal -request "a thread-safe LRU cache"
//	go run ./examples/selfheal -tiers tiers.yaml -request-file task.md
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
	"time"

	"github.com/agentgraph/agentgraph/examples/selfheal/team"
	"github.com/agentgraph/agentgraph/llm"
)

// EnvTiers names the role tiers YAML file when -tiers is not given.
const EnvTiers = "SELFHEAL_TIERS"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit code (0 tests pass,
// 1 budget spent with failing tests, 2 error).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, env llm.Lookup) int {
	fs := flag.NewFlagSet("selfheal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		request     = fs.String("request", "", "the task in prose (default: the built-in rate limiter task)")
		requestFile = fs.String("request-file", "", "read the task from this file")
		tiersFile   = fs.String("tiers", "", "role tiers YAML (default: $"+EnvTiers+")")
		offline     = fs.Bool("offline", false, "use the scripted models even when a provider is configured")
		maxIter     = fs.Int("max-iterations", team.DefaultMaxIterations, "debug rounds before the reviewer gets failing code")
		testTimeout = fs.Duration("test-timeout", team.DefaultTestTimeout, "go test -timeout inside the sandbox")
		maxOutput   = fs.Int("max-output", team.DefaultMaxOutput, "bytes of go test output kept before a run is stopped")
		noRace      = fs.Bool("no-race", false, "run the sandbox without -race (needs no cgo)")
		verbose     = fs.Bool("v", false, "print full failure output and debug logs")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "selfheal: %v\n", err)
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	req, err := readRequest(*request, *requestFile)
	if err != nil {
		return fail(err)
	}
	tiers, err := readTiers(*tiersFile, env)
	if err != nil {
		return fail(err)
	}
	dopts := []llm.DetectOption{llm.OfflineFallback()}
	if *offline {
		dopts = append(dopts, llm.ForceOffline())
	}
	factory, err := llm.NewFactory(env, tiers, dopts...)
	if err != nil {
		return fail(err)
	}
	var models team.Models
	if factory.Detection.IsOffline() {
		task := team.RateLimiterTask()
		if req != "" && req != task.Request {
			return fail(errors.New("offline mode plays only the built-in task; set a provider (e.g. OPENAI_API_KEY) to run your own request"))
		}
		req = task.Request
		models = task.ScriptedModels()
	} else {
		if req == "" {
			req = team.RateLimiterTask().Request
		}
		if models, err = team.ModelsFromFactory(ctx, factory); err != nil {
			return fail(err)
		}
	}

	sb, err := team.NewSandbox(ctx, team.SandboxConfig{TestTimeout: *testTimeout, MaxOutput: *maxOutput, NoRace: *noRace, Logger: logger})
	if err != nil {
		return fail(err)
	}
	t, err := team.New(team.Config{Models: models, Sandbox: sb, MaxIterations: *maxIter, Logger: logger})
	if err != nil {
		return fail(err)
	}

	fmt.Fprintf(stdout, "selfheal: provider %s (%s)\n", factory.Detection.Provider, factory.Detection.Source)
	for _, r := range team.Roles() {
		fmt.Fprintf(stdout, "  %-10s %s\n", r, team.ModelName(models.Of(r)))
	}
	race := "-race"
	if *noRace {
		race = "no -race"
	}
	netw := "env only (GOPROXY=off)"
	if sb.NetworkIsolated() {
		netw = "own network namespace"
	}
	fmt.Fprintf(stdout, "  sandbox    go test %s, timeout %s, output cap %d bytes, network: %s\n", race, *testTimeout, *maxOutput, netw)
	fmt.Fprintf(stdout, "\nTASK: %s\n\n", strings.Join(strings.Fields(req), " "))

	p := team.Printer{W: stdout, Verbose: *verbose}
	start := time.Now()
	final, err := t.Run(ctx, req, p.Step)
	if err != nil {
		return fail(err)
	}
	p.Final(final, time.Since(start))
	if !factory.Detection.IsOffline() && factory.Meter != nil {
		fmt.Fprintf(stdout, "\nUSAGE (cost estimated from llm's price table; $0 for unknown models)\n%s", factory.Meter.Summary())
	}
	if final.Status != team.StatusPassed {
		return 1
	}
	return 0
}

func readRequest(text, file string) (string, error) {
	if text != "" && file != "" {
		return "", errors.New("give -request or -request-file, not both")
	}
	if file == "" {
		return strings.TrimSpace(text), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("request file: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func readTiers(file string, env llm.Lookup) (llm.Tiers, error) {
	if file == "" {
		if v, ok := env(EnvTiers); ok {
			file = strings.TrimSpace(v)
		}
	}
	if file == "" {
		return llm.Tiers{}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return llm.Tiers{}, fmt.Errorf("tiers: %w", err)
	}
	defer f.Close()
	t, err := llm.ParseTiers(f)
	if err != nil {
		return llm.Tiers{}, fmt.Errorf("tiers %s: %w", file, err)
	}
	return t, nil
}

// Command webeval grades a browser agent on a 12-task suite against pages it
// serves itself (forms, navigation, tables, pricing, a modal, search).
//
// Offline (no provider configured) it runs a scripted agent — one fixed
// intent list per task, one of which claims success without doing the work,
// so the run shows the lane catching it. With a model configured (see the
// llm package: OPENAI_API_KEY, ANTHROPIC_API_KEY, …) it runs the model
// agent and the LLM judge.
//
//	go run ./examples/webeval                 # offline, scripted agent
//	go run ./examples/webeval -record         # record missing reference screenshots
//	go run ./examples/webeval -agent model -trials 3
//	go run ./examples/webeval -gate           # exit status 2 unless every task passes
//	go run ./examples/webeval -suite my.yaml -base http://localhost:8080   # any suite file
//
// With -suite the tasks come from that file (see eval.ParseSuite); relative
// start URLs resolve against -base, else the file's base_url, else the
// example's own pages. Reference screenshots resolve against the file's
// directory (or -refs). The offline scripted agent knows only the built-in
// suite's tasks: on another suite it claims failure without acting, so use
// -agent model there.
//
// It prints the table and writes report.json and report.md to -out.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/eval"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/tmc/langchaingo/llms"
)

//go:embed suite.yaml
var suiteYAML []byte

type options struct {
	Agent  string // scripted | model | auto
	Trials int
	Record bool
	Out    string
	Refs   string // directory holding refs/ (default: this example's)
	Headed bool
	Gate   bool // exit 2 unless every task passes
	// Suite is a suite file to run instead of the built-in one.
	Suite string
	// Base overrides the base URL relative start URLs resolve against.
	Base string
	// Evidence overrides the suite's gate evidence (any, all, none).
	Evidence string
	// Harness, when set, is used instead of launching Chromium.
	Harness *eval.Harness
	Env     llm.Lookup
	Stdout  io.Writer
	Logger  *slog.Logger
}

func main() {
	var o options
	flag.StringVar(&o.Agent, "agent", "auto", "scripted, model, or auto (model when a provider is configured)")
	flag.IntVar(&o.Trials, "trials", 0, "trials per task (default: the suite's)")
	flag.BoolVar(&o.Record, "record", false, "record missing reference screenshots")
	flag.StringVar(&o.Out, "out", "webeval-report", "directory for report.json and report.md")
	flag.StringVar(&o.Refs, "refs", "", "directory holding refs/ (default: examples/webeval in this checkout)")
	flag.BoolVar(&o.Headed, "headed", false, "show the browser")
	flag.StringVar(&o.Evidence, "evidence", "", "how visual and judge combine after DOM: any (default), all or none")
	flag.BoolVar(&o.Gate, "gate", false, "exit with status 2 unless every task passes (for CI)")
	flag.StringVar(&o.Suite, "suite", "", "run this suite file (YAML) instead of the built-in 12 tasks")
	flag.StringVar(&o.Base, "base", "", "base URL for relative start URLs (default: the suite's base_url, else the built-in pages)")
	flag.Parse()
	o.Env, o.Stdout = os.LookupEnv, os.Stdout
	o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "webeval:", err)
		os.Exit(1)
	}
	if o.Gate && !rep.Total.Pass {
		os.Exit(2)
	}
}

func run(ctx context.Context, o options) (*eval.Report, error) {
	var suite *eval.Suite
	var err error
	if o.Suite != "" {
		suite, err = eval.LoadSuite(o.Suite)
	} else {
		suite, err = eval.ParseSuite(suiteYAML)
	}
	if err != nil {
		return nil, err
	}
	switch ev := eval.Evidence(o.Evidence); ev {
	case "":
	case eval.EvidenceAny, eval.EvidenceAll, eval.EvidenceNone:
		suite.Gate.Evidence = ev
	default:
		return nil, fmt.Errorf("-evidence %q: want any, all or none", o.Evidence)
	}
	if o.Refs != "" || o.Suite == "" {
		suite.Dir = o.Refs
	}
	if suite.Dir == "" {
		wd, _ := os.Getwd()
		if p, ok := browser.FindUp(wd, "examples/webeval/suite.yaml"); ok {
			suite.Dir = filepath.Dir(p)
		} else {
			suite.Dir = wd
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: siteHandler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	base := "http://" + l.Addr().String()
	switch {
	case o.Base != "":
		base = o.Base
	case o.Suite != "" && suite.BaseURL != "":
		base = "" // the suite's own base_url
	}

	agent, judge, meter, err := pickAgent(ctx, o)
	if err != nil {
		return nil, err
	}
	h := o.Harness
	if h == nil {
		if h, err = eval.Launch(ctx, browser.LaunchOptions{Headed: o.Headed, Logger: o.Logger}); err != nil {
			return nil, err
		}
		defer h.Close()
	}
	r := &eval.Runner{Harness: h, Suite: suite, Agent: agent, BaseURL: base, Trials: o.Trials, Judge: judge, Record: o.Record, Logger: o.Logger}
	rep, err := r.Run(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Stdout, "agent %s, judge %v, %d trials\n\n%s\n", rep.Agent, rep.Judge, len(rep.Rows), rep.Table())
	fmt.Fprintf(o.Stdout, "self-reported success that was wrong: %d\n", len(rep.FalseClaims))
	for _, f := range rep.FalseClaims {
		fmt.Fprintf(o.Stdout, "  - %s\n", f)
	}
	if meter != nil {
		fmt.Fprintf(o.Stdout, "model usage: %s\n", meter.Summary())
	}
	if o.Out != "" {
		if err := rep.Write(o.Out); err != nil {
			return rep, err
		}
		fmt.Fprintf(o.Stdout, "reports: %s, %s\n", filepath.Join(o.Out, "report.json"), filepath.Join(o.Out, "report.md"))
	}
	return rep, nil
}

// pickAgent returns the scripted agent offline, else the model agent (role
// persona) and the judge (role judge) sharing one meter.
func pickAgent(ctx context.Context, o options) (eval.Agent, llms.Model, *llm.Meter, error) {
	if o.Agent == "scripted" {
		return scripted(), nil, nil, nil
	}
	if o.Agent != "model" && o.Agent != "auto" {
		return nil, nil, nil, fmt.Errorf("-agent %q: want scripted, model or auto", o.Agent)
	}
	tiers, err := llm.TiersFromEnv(o.Env)
	if err != nil {
		return nil, nil, nil, err
	}
	f, err := llm.NewFactory(o.Env, tiers, llm.OfflineFallback())
	if err != nil {
		return nil, nil, nil, err
	}
	if f.Detection.IsOffline() {
		if o.Agent == "model" {
			return nil, nil, nil, errors.New("-agent model: no model provider configured (set OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY or OLLAMA_HOST)")
		}
		return scripted(), nil, nil, nil
	}
	f.Meter = llm.NewMeter(nil)
	agentModel, err := f.For(ctx, llm.RolePersona)
	if err != nil {
		return nil, nil, nil, err
	}
	judge, err := f.For(ctx, llm.RoleJudge)
	if err != nil {
		return nil, nil, nil, err
	}
	meter := f.Meter
	return &eval.ModelAgent{Model: agentModel, Cost: func() float64 { return meter.ByRole()[llm.RolePersona].CostUSD }}, judge, meter, nil
}

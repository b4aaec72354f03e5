// Command verify checks that every injected bug of the bugfarm apps of a
// seed list fires on the buggy build and not on the fixed one, playing each
// bug's scripted trigger in Chromium (package drive).
//
//	go run ./internal/testapps/bugfarm/drive/cmd/verify -seeds 1-20 -parallel 3
//
// It prints a line per bug and a total. Exit status: 0 when every bug
// passed, 1 when one failed, 2 on bad flags or a set-up problem.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm/drive"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seedsFlag := fs.String("seeds", "1-20", "seeds: ranges and lists, e.g. 1-20, 1,3,5, 101-120")
	parallel := fs.Int("parallel", 3, "bugs reproduced at once (each in its own browser contexts)")
	stepTimeout := fs.Duration("step-timeout", 10*time.Second, "bound of each trigger step")
	jsonOut := fs.String("json", "", "also write the report as JSON to this file")
	timeout := fs.Duration("timeout", 30*time.Minute, "bound of the whole run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "verify: unexpected arguments %q\n", fs.Args())
		return 2
	}
	seeds, err := drive.ParseSeeds(*seedsFlag)
	if err != nil {
		fmt.Fprintln(stderr, "verify: -"+err.Error())
		return 2
	}
	if *parallel < 1 || *parallel > 32 {
		fmt.Fprintf(stderr, "verify: -parallel %d: want 1..32\n", *parallel)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	b, err := browser.Launch(ctx, browser.LaunchOptions{})
	if err != nil {
		fmt.Fprintln(stderr, "verify:", err)
		return 2
	}
	defer b.Close()
	d := drive.New(drive.Options{StepTimeout: *stepTimeout, Progress: stdout})
	rep, err := d.Verify(ctx, b, seeds, *parallel)
	fmt.Fprintln(stdout, rep.Total())
	if *jsonOut != "" {
		raw, jerr := json.MarshalIndent(rep, "", "  ")
		if jerr == nil {
			jerr = os.WriteFile(*jsonOut, raw, 0o644)
		}
		if jerr != nil {
			fmt.Fprintln(stderr, "verify: -json:", jerr)
			return 2
		}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(stderr, "verify: -timeout %s reached\n", *timeout)
		}
		fmt.Fprintln(stderr, "verify:", err)
		return 2
	}
	if rep.Failed > 0 {
		return 1
	}
	return 0
}

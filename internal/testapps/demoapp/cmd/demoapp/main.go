// Command demoapp serves the demo web app with its seeded bugs on loopback,
// for a browser, `npx playwright test` or a manual look.
//
//	go run ./internal/testapps/demoapp/cmd/demoapp [-addr 127.0.0.1:8765] [-fixed BUG-A,BUG-B] [-list]
//
// DEMOAPP_FIXED, DEMOAPP_SLOW_DELAY and DEMOAPP_SESSION_TTL are read from
// the environment; -fixed overrides DEMOAPP_FIXED.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demoapp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8765", "listen address")
	fixed := fs.String("fixed", "", "comma-separated bug ids to turn off, or \"all\" (overrides "+demoapp.EnvFixed+")")
	list := fs.Bool("list", false, "print the seeded bugs and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *list {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tCLASS\tWHERE\tEVIDENCE")
		for _, b := range demoapp.Bugs() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", b.ID, b.Class, b.Where, b.Evidence)
		}
		_ = tw.Flush()
		return 0
	}
	opts, err := demoapp.OptionsFromEnv(os.LookupEnv)
	if err != nil {
		fmt.Fprintln(stderr, "demoapp:", err)
		return 2
	}
	if *fixed != "" {
		if opts.Disabled, err = demoapp.ParseBugList(*fixed); err != nil {
			fmt.Fprintln(stderr, "demoapp: -fixed:", err)
			return 2
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	opts.Logger = log
	s, err := demoapp.Listen(*addr, opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	log.Info("demoapp: serving", "url", s.URL, "bugs_on", len(s.App.EnabledBugs()), "sign_in", demoapp.DemoEmail+" / "+demoapp.DemoPassword)
	fmt.Fprintln(stdout, s.URL)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Close(shutdown); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

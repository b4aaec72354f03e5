// Command bugfarm serves a generated buggy web app, or prints its bugs.
//
//	go run ./internal/testapps/bugfarm/cmd/bugfarm serve -seed 3 [-fixed] [-disable bf3-01,bf3-04] [-addr 127.0.0.1:0] [-slow 3.5s]
//	go run ./internal/testapps/bugfarm/cmd/bugfarm list -seed 3
//
// serve prints the app's URL on stdout (and its sign-in, when it has one,
// on stderr) and serves until interrupted. list prints the app's seed,
// idioms, pages, sign-in and every bug (with its trigger) as JSON.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = "usage: bugfarm serve -seed N [-fixed] [-disable ids] [-addr 127.0.0.1:0] [-slow 3.5s]\n       bugfarm list -seed N [-fixed] [-disable ids]"

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "serve" && args[0] != "list") {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cmd := args[0]
	fs := flag.NewFlagSet("bugfarm "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Int64("seed", 1, "the app's seed")
	fixed := fs.Bool("fixed", false, "turn every bug off (the correct app)")
	disable := fs.String("disable", "", "comma-separated bug ids to turn off")
	addr := fs.String("addr", "127.0.0.1:0", "listen address (serve)")
	slow := fs.Duration("slow", bugfarm.DefaultSlowDelay, "how long slow_response bugs take")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bugfarm %s: unexpected argument %q\n%s\n", cmd, fs.Arg(0), usage)
		return 2
	}
	if *slow <= 0 {
		fmt.Fprintln(stderr, "bugfarm: -slow must be positive")
		return 2
	}
	opts := bugfarm.Options{Fixed: *fixed, SlowDelay: *slow}
	for _, id := range strings.Split(*disable, ",") {
		if id = strings.TrimSpace(strings.ToLower(id)); id != "" {
			opts.Disabled = append(opts.Disabled, id)
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	opts.Logger = log
	app := bugfarm.Generate(*seed, opts)
	if cmd == "list" {
		return list(app, stdout, stderr)
	}
	return serve(ctx, app, *addr, log, stdout, stderr)
}

// listing is what list prints.
type listing struct {
	Seed   int64                `json:"seed"`
	Idioms []bugfarm.Idiom      `json:"idioms"`
	Pages  []string             `json:"pages"`
	SignIn *bugfarm.Credentials `json:"sign_in,omitempty"`
	Bugs   []listedBug          `json:"bugs"`
}

type listedBug struct {
	bugfarm.Bug
	On bool `json:"on"`
}

func list(app *bugfarm.App, stdout, stderr io.Writer) int {
	on := map[string]bool{}
	for _, b := range app.Bugs {
		on[b.ID] = true
	}
	l := listing{Seed: app.Seed, Idioms: app.Idioms, Pages: app.Pages, SignIn: app.SignIn, Bugs: []listedBug{}}
	for _, b := range app.All {
		l.Bugs = append(l.Bugs, listedBug{Bug: b, On: on[b.ID]})
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(l); err != nil {
		fmt.Fprintln(stderr, "bugfarm list:", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, app *bugfarm.App, addr string, log *slog.Logger, stdout, stderr io.Writer) int {
	srv, err := bugfarm.Listen(addr, app)
	if err != nil {
		fmt.Fprintln(stderr, "bugfarm serve:", err)
		return 1
	}
	fmt.Fprintln(stdout, srv.URL)
	attrs := []any{"seed", app.Seed, "bugs_on", len(app.Bugs), "pages", len(app.Pages)}
	if app.SignIn != nil {
		attrs = append(attrs, "user", app.SignIn.User, "password", app.SignIn.Password)
	}
	log.Info("bugfarm: serving", attrs...)
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Close(shutdown); err != nil {
		fmt.Fprintln(stderr, "bugfarm serve:", err)
		return 1
	}
	return 0
}

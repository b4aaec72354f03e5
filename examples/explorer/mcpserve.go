package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/agentgraph/agentgraph/tools/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Names of what `explorer mcp` writes under <reports>/mcp.
const (
	mcpDir      = "mcp"
	mcpTapeFile = "action_tape.jsonl"
	mcpSpecFile = "session.spec.ts"
	mcpUser     = "agent" // the browser user when a call names none
	mcpPath     = "/mcp"
)

// Bounds of `explorer mcp`.
const (
	mcpLaunchTimeout   = 60 * time.Second
	mcpShutdownTimeout = 5 * time.Second
)

// runMCP is `explorer mcp`: it serves the browser tools (browser.Tools:
// execute_browser_command, get_dom_snapshot, capture_screenshot,
// generate_reproduction_spec) over MCP, on stdin/stdout or, with --http,
// over streamable HTTP, in one Chromium whose origin guard allows only the
// target. When the client closes stdin, or on SIGINT/SIGTERM (ctx), it
// writes the session's tape and a Playwright spec of it to <reports>/mcp.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explorer mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("http", "", "serve MCP over streamable HTTP at this address, e.g. 127.0.0.1:8931, path "+mcpPath+" (default: stdio)")
	target := fs.String("target", "", "origin of the app the browser may visit (default: serve the demo app on loopback)")
	reports := fs.String("reports", "reports", "report directory: the session's tape, spec and screenshots go to DIR/"+mcpDir)
	headed := fs.Bool("headed", false, "show the browser")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: explorer mcp [--http ADDR] [--target URL] [--reports DIR] [--headed]")
		fmt.Fprintln(stderr, "serves the browser tools over MCP (stdio, or streamable HTTP with --http); on exit writes DIR/"+mcpDir+"/"+mcpTapeFile+" and "+mcpSpecFile)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return explore.ExitClean
		}
		return explore.ExitSetup
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "explorer mcp: "+format+"\n", a...)
		return explore.ExitSetup
	}
	if fs.NArg() > 0 {
		return fail("unexpected arguments %q", fs.Args())
	}
	if *target != "" {
		u, err := url.Parse(*target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("--target %q: want an http(s) origin such as http://localhost:8080", *target)
		}
		*target = u.Scheme + "://" + u.Host
	}
	if strings.TrimSpace(*reports) == "" {
		return fail("--reports: want a directory")
	}
	// Listen first: a bad or busy address fails before the browser starts.
	var ln net.Listener
	if *addr != "" {
		var err error
		if ln, err = net.Listen("tcp", *addr); err != nil {
			return fail("--http %q: %v", *addr, err)
		}
		defer ln.Close()
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	if *target == "" {
		demo, err := demoapp.Listen("", demoapp.Options{})
		if err != nil {
			return fail("serve the demo app: %v", err)
		}
		defer func() { _ = demo.Close(context.Background()) }()
		*target = demo.URL
	}
	dir := filepath.Join(*reports, mcpDir)
	if err := safefile.MkdirUnder(*reports, filepath.Join(mcpDir, "screenshots"), 0o700); err != nil {
		return fail("%v", err)
	}
	tapePath := filepath.Join(dir, mcpTapeFile)
	if err := os.Remove(tapePath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail("%v", err)
	}
	tape, err := browser.OpenTape(tapePath)
	if err != nil {
		return fail("%v", err)
	}
	defer tape.Close()

	lctx, cancel := context.WithTimeout(ctx, mcpLaunchTimeout)
	b, err := browser.Launch(lctx, browser.LaunchOptions{Headed: *headed, Logger: log})
	cancel()
	if err != nil {
		return fail("launch the browser: %v", err)
	}
	defer b.Close()
	e, err := b.NewEngine(browser.Config{Origins: []string{*target}, Tape: tape, ArtifactDir: filepath.Join(dir, "screenshots"), Logger: log})
	if err != nil {
		return fail("%v", err)
	}
	srv, err := mcp.NewServer("agentgraph-explorer", "0.1.0", browser.Tools(e, mcpUser)...)
	if err != nil {
		_ = e.Close()
		return fail("%v", err)
	}

	code := explore.ExitClean
	if ln == nil {
		fmt.Fprintf(stderr, "explorer mcp: serving the browser tools over stdio; the browser may visit %s\n", *target)
		if err := mcp.ServeStdio(ctx, srv, stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "explorer mcp: stdio:", err)
			code = explore.ExitSetup
		}
	} else {
		code = serveMCPHTTP(ctx, srv, ln, *target, stderr)
	}
	// Close the browser contexts first, so the tape holds every action.
	if err := e.Close(); err != nil {
		log.Warn("explorer mcp: close the engine", "err", err)
	}
	if err := writeMCPSession(tape, *target, e.Secrets(), dir, stderr); err != nil {
		fmt.Fprintln(stderr, "explorer mcp:", err)
		return explore.ExitSetup
	}
	return code
}

// serveMCPHTTP serves srv at ln until ctx ends, then shuts the HTTP server
// down (open streams are cut after mcpShutdownTimeout).
func serveMCPHTTP(ctx context.Context, srv *server.MCPServer, ln net.Listener, target string, stderr io.Writer) int {
	mux := http.NewServeMux()
	mux.Handle(mcpPath, mcp.HTTPHandler(srv, mcpPath))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(stderr, "explorer mcp: serving the browser tools over streamable HTTP at http://%s%s; the browser may visit %s; stop with Ctrl-C\n",
		ln.Addr(), mcpPath, target)
	code := explore.ExitClean
	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintln(stderr, "explorer mcp: http:", err)
		code = explore.ExitSetup
	}
	sctx, cancel := context.WithTimeout(context.Background(), mcpShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	return code
}

// writeMCPSession closes the tape, reads it back and writes a Playwright
// spec of every user's actions (one test per user) beside it.
func writeMCPSession(tape *browser.Tape, target string, secrets *browser.Secrets, dir string, stderr io.Writer) error {
	if err := tape.Close(); err != nil {
		return fmt.Errorf("tape: %w", err)
	}
	entries, _, err := browser.ReadTapeFileWith(tape.Path(), browser.TapeOptions{Origin: target})
	if err != nil {
		return fmt.Errorf("read the tape: %w", err)
	}
	if len(entries) == 0 {
		fmt.Fprintf(stderr, "explorer mcp: no browser actions; empty tape %s, no spec\n", tape.Path())
		return nil
	}
	var users []string
	byUser := map[string][]browser.Entry{}
	for _, en := range entries {
		if _, ok := byUser[en.User]; !ok {
			users = append(users, en.User)
		}
		byUser[en.User] = append(byUser[en.User], en)
	}
	repros := make([]browser.Reproduction, 0, len(users))
	for _, u := range users {
		repros = append(repros, browser.Reproduction{Name: "explorer mcp session: " + u, Entries: byUser[u]})
	}
	src, err := browser.Translate(repros, browser.SpecOptions{BaseURL: target})
	if err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	spec := filepath.Join(dir, mcpSpecFile)
	if err := safefile.WriteFile(spec, []byte(secrets.Redact(src)), 0o600); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	fmt.Fprintf(stderr, "explorer mcp: %d browser actions; tape %s, spec %s\n", len(entries), tape.Path(), spec)
	if len(secrets.Env()) > 0 {
		fmt.Fprintln(stderr, "explorer mcp: the spec types secrets: it reads SECRET_1, SECRET_2… from the environment")
	}
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/internal/demoapp"
)

func TestMCPUsageErrorsExitTwo(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--budget", "3"}, "flag provided but not defined: -budget"},
		{"stray argument", []string{"serve"}, `unexpected arguments ["serve"]`},
		{"bad target", []string{"--target", "ftp://files.example"}, `--target "ftp://files.example": want an http(s) origin`},
		{"bad address", []string{"--http", "no-port"}, `--http "no-port"`},
		{"empty reports", []string{"--reports", " "}, "--reports: want a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errOut lockedBuffer
			code := run(context.Background(), append([]string{"mcp"}, tc.args...), io.Discard, &errOut, mapEnv(nil))
			assert.Equal(t, explore.ExitSetup, code)
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}

// call calls a tool over c and returns its text and whether it is an error.
func call(ctx context.Context, t *testing.T, c *client.Client, name, args string) (string, bool) {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	res, err := c.CallTool(ctx, req)
	require.NoError(t, err, name)
	var parts []string
	for _, p := range res.Content {
		if tc, ok := mcpgo.AsTextContent(p); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

func initialize(ctx context.Context, t *testing.T, c *client.Client) {
	t.Helper()
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "ide-agent", Version: "1"}
	res, err := c.Initialize(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "agentgraph-explorer", res.ServerInfo.Name)
	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	assert.ElementsMatch(t, []string{"execute_browser_command", "get_dom_snapshot", "capture_screenshot", "generate_reproduction_spec"}, names)
}

// readSession reads what `explorer mcp` wrote in reports/mcp.
func readSession(t *testing.T, reports string) ([]browser.Entry, string) {
	t.Helper()
	tape, _, err := browser.ReadTapeFile(filepath.Join(reports, "mcp", "action_tape.jsonl"))
	require.NoError(t, err)
	spec, err := os.ReadFile(filepath.Join(reports, "mcp", "session.spec.ts"))
	require.NoError(t, err)
	return tape, string(spec)
}

// TestMCPServeHTTP: `explorer mcp --http` serves the browser tools over
// streamable HTTP to mcp-go's client, in Chromium on the embedded demo
// app; stopping it (the signal's context) writes the tape and the spec.
func TestMCPServeHTTP(t *testing.T) {
	reports := t.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- runMCP(ctx, []string{"--http", "127.0.0.1:0", "--reports", reports}, strings.NewReader(""), io.Discard, &errOut)
	}()
	addrRE := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp);`)
	var endpoint string
	require.Eventually(t, func() bool {
		if m := addrRE.FindStringSubmatch(errOut.String()); m != nil {
			endpoint = m[1]
			return true
		}
		select {
		case code := <-done:
			t.Fatalf("explorer mcp exited %d: %s", code, errOut.String())
		default:
		}
		return false
	}, 60*time.Second, 50*time.Millisecond, "the serving line: %s", errOut.String())

	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	c, err := client.NewStreamableHttpClient(endpoint)
	require.NoError(t, err)
	require.NoError(t, c.Start(cctx))
	initialize(cctx, t, c)

	out, isErr := call(cctx, t, c, "execute_browser_command", `{"intent":{"action":"navigate","url":"/"}}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "Acme Projects")
	out, isErr = call(cctx, t, c, "execute_browser_command", `{"intent":{"action":"click","target":"testid=nav-release-notes"}}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "/release-notes")
	out, isErr = call(cctx, t, c, "execute_browser_command", `{"intent":{"action":"navigate","url":"https://example.com/"}}`)
	assert.True(t, isErr, "the origin guard refuses other origins: %s", out)
	require.NoError(t, c.Close())

	stopped := time.Now()
	stop() // SIGINT/SIGTERM
	defer func() { t.Logf("stopped in %v", time.Since(stopped)) }()
	select {
	case code := <-done:
		require.Equal(t, explore.ExitClean, code, errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("explorer mcp did not stop: %s", errOut.String())
	}
	tape, spec := readSession(t, reports)
	require.Len(t, tape, 3, "navigate, click, the refused navigation")
	assert.Equal(t, browser.ActNavigate, tape[0].Action)
	assert.Equal(t, browser.ActClick, tape[1].Action)
	assert.True(t, tape[1].OK)
	assert.Contains(t, tape[1].URL, "/release-notes")
	assert.False(t, tape[2].OK)
	for _, e := range tape {
		assert.Equal(t, "agent", e.User)
	}
	assert.Contains(t, spec, "test('explorer mcp session: agent'")
	assert.Contains(t, spec, "page.getByTestId('nav-release-notes').click()")
	assert.Contains(t, errOut.String(), "3 browser actions; tape ")
}

// TestMCPServeStdio runs `explorer mcp` as its own process (the test binary
// re-executed as the explorer) and speaks MCP over its stdin and stdout;
// closing stdin ends it, and it writes the tape and the spec.
func TestMCPServeStdio(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	reports := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), explorerChildEnv+"=mcp\n--reports\n"+reports)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Start())

	c := client.NewClient(transport.NewIO(stdout, stdin, io.NopCloser(strings.NewReader(""))))
	require.NoError(t, c.Start(ctx))
	initialize(ctx, t, c)
	out, isErr := call(ctx, t, c, "execute_browser_command", `{"intent":{"action":"navigate","url":"/signin"}}`)
	require.False(t, isErr, out)
	out, isErr = call(ctx, t, c, "execute_browser_command", `{"intent":{"action":"fill","target":"testid=signin-email","value":"`+demoapp.DemoEmail+`"}}`)
	require.False(t, isErr, out)
	out, isErr = call(ctx, t, c, "get_dom_snapshot", `{}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "[ref=e")
	out, isErr = call(ctx, t, c, "generate_reproduction_spec", `{"name":"sign-in start"}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "getByTestId('signin-email')")

	require.NoError(t, stdin.Close()) // the client goes away
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		require.NoError(t, err, errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("explorer mcp did not exit after stdin closed: %s", errOut.String())
	}
	tape, spec := readSession(t, reports)
	require.Len(t, tape, 3, "navigate, fill, snapshot")
	assert.Equal(t, browser.ActFill, tape[1].Action)
	assert.Contains(t, spec, "await visit(page, '/signin')")
	assert.Contains(t, spec, "page.getByTestId('signin-email').fill('"+demoapp.DemoEmail+"')")
	assert.Contains(t, errOut.String(), "serving the browser tools over stdio")
}

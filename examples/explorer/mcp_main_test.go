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
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
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

// explorerMCP starts `explorer mcp args...` as its own process: the test
// binary re-executed as the explorer (signal_test.go's TestMain).
func explorerMCP(ctx context.Context, t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, io.ReadCloser, *lockedBuffer) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), explorerChildEnv+"="+strings.Join(append([]string{"mcp"}, args...), "\n"))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	errOut := &lockedBuffer{}
	cmd.Stderr = errOut
	require.NoError(t, cmd.Start())
	return cmd, stdin, stdout, errOut
}

// waitExit waits (bounded) for the process to exit 0 after end.
func waitExit(t *testing.T, cmd *exec.Cmd, errOut *lockedBuffer, end time.Time) {
	t.Helper()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		require.NoError(t, err, errOut.String())
		t.Logf("exited %v after the end", time.Since(end).Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		t.Fatalf("explorer mcp did not exit: %s", errOut.String())
	}
}

// TestMCPServeHTTP: `explorer mcp --http` (its own process) serves the
// browser tools over streamable HTTP to mcp-go's client, in Chromium on the
// embedded demo app; SIGTERM stops it, and it writes the tape and the spec.
func TestMCPServeHTTP(t *testing.T) {
	reports := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd, _, _, errOut := explorerMCP(ctx, t, "--http", "127.0.0.1:0", "--reports", reports)
	addrRE := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp);`)
	var endpoint string
	require.Eventually(t, func() bool {
		if m := addrRE.FindStringSubmatch(errOut.String()); m != nil {
			endpoint = m[1]
			return true
		}
		return false
	}, 60*time.Second, 50*time.Millisecond, "the serving line: %s", errOut)

	c, err := client.NewStreamableHttpClient(endpoint)
	require.NoError(t, err)
	require.NoError(t, c.Start(ctx))
	initialize(ctx, t, c)
	out, isErr := call(ctx, t, c, "execute_browser_command", `{"intent":{"action":"navigate","url":"/"}}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "Acme Projects")
	out, isErr = call(ctx, t, c, "execute_browser_command", `{"intent":{"action":"click","target":"testid=nav-release-notes"}}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "/release-notes")
	out, isErr = call(ctx, t, c, "execute_browser_command", `{"intent":{"action":"navigate","url":"https://example.com/"}}`)
	assert.True(t, isErr, "the origin guard refuses other origins: %s", out)
	require.NoError(t, c.Close())

	end := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	waitExit(t, cmd, errOut, end)
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

// TestMCPServeStdio: `explorer mcp` (its own process) speaks MCP over its
// stdin and stdout; closing stdin ends it, and it writes the tape and the
// spec.
func TestMCPServeStdio(t *testing.T) {
	reports := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	t0 := time.Now()
	cmd, stdin, stdout, errOut := explorerMCP(ctx, t, "--reports", reports)

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
	t.Logf("started and drove the server in %v", time.Since(t0).Round(time.Millisecond))

	end := time.Now()
	require.NoError(t, stdin.Close()) // the client goes away
	waitExit(t, cmd, errOut, end)
	tape, spec := readSession(t, reports)
	require.Len(t, tape, 3, "navigate, fill, snapshot")
	assert.Equal(t, browser.ActFill, tape[1].Action)
	assert.Contains(t, spec, "await visit(page, '/signin')")
	assert.Contains(t, spec, "page.getByTestId('signin-email').fill('"+demoapp.DemoEmail+"')")
	assert.Contains(t, errOut.String(), "serving the browser tools over stdio")
	assert.Contains(t, errOut.String(), "3 browser actions; tape ")
}

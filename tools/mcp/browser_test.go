package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/tools/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const page = `<!doctype html><html><head><title>MCP Shop</title></head><body>
<h1>Shop</h1><button data-testid="buy" onclick="document.getElementById('s').textContent='bought'">Buy</button>
<span id="s"></span></body></html>`

// TestBrowserToolsOverMCP serves the browser tools (real Chromium) over
// streamable HTTP and drives them with the mcp-go client through tools.
func TestBrowserToolsOverMCP(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	defer app.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := browser.Launch(ctx, browser.LaunchOptions{})
	require.NoError(t, err, "the browser tools need Chromium and the Playwright driver (make setup)")
	defer b.Close()
	e, err := b.NewEngine(browser.Config{Origins: []string{app.URL}, ArtifactDir: t.TempDir()})
	require.NoError(t, err)
	defer e.Close()

	srv, err := mcp.NewServer("agentgraph-browser", "test", browser.Tools(e, "tester")...)
	require.NoError(t, err)
	hs := httptest.NewServer(mcp.HTTPHandler(srv, "/mcp"))
	defer hs.Close()

	set, err := mcp.ConnectAll(ctx, mcp.Config{Servers: map[string]mcp.ServerConfig{"browser": {URL: hs.URL + "/mcp"}}}, mcp.Options{})
	require.NoError(t, err)
	defer set.Close()
	reg, err := set.Registry()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"execute_browser_command", "get_dom_snapshot", "capture_screenshot", "generate_reproduction_spec"}, reg.Names())

	call := func(name, args string) (string, bool) { return reg.Dispatch(ctx, name, json.RawMessage(args)) }
	out, isErr := call("execute_browser_command", fmt.Sprintf(`{"intent":{"action":"navigate","url":%q}}`, app.URL))
	require.False(t, isErr, out)
	assert.Contains(t, out, "MCP Shop")

	out, isErr = call("execute_browser_command", `{"intent":{"action":"click","target":"testid=buy"}}`)
	require.False(t, isErr, out)
	out, isErr = call("get_dom_snapshot", `{}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "bought")

	out, isErr = call("execute_browser_command", `{"intent":{"action":"teleport"}}`)
	assert.True(t, isErr)
	assert.Contains(t, out, `unknown action "teleport"`)

	out, isErr = call("generate_reproduction_spec", `{"name":"buy works"}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "getByTestId('buy')")
}

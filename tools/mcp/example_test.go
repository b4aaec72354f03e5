package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/agentgraph/agentgraph/tools"
	"github.com/agentgraph/agentgraph/tools/mcp"
)

type upperArgs struct {
	Text string `json:"text"`
}

// Serve a tool over streamable HTTP and call it back through an MCP client.
func Example() {
	upper := tools.New("upper", "Upper-cases text", func(_ context.Context, in upperArgs) (string, error) {
		return strings.ToUpper(in.Text), nil
	})
	srv, err := mcp.NewServer("demo", "1.0", upper)
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(mcp.HTTPHandler(srv, "/mcp"))
	defer hs.Close()

	cfg, err := mcp.ParseConfig([]byte(`{"mcpServers": {"demo": {"url": "` + hs.URL + `/mcp"}}}`))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	set, err := mcp.ConnectAll(ctx, cfg, mcp.Options{})
	if err != nil {
		panic(err)
	}
	defer set.Close()
	reg, _ := set.Registry()
	out, isErr := reg.Dispatch(ctx, "upper", json.RawMessage(`{"text":"hi"}`))
	fmt.Println(reg.Names(), out, isErr)
	// Output: [upper] HI false
}

func ExampleParseConfig() {
	_, err := mcp.ParseConfig([]byte(`{"mcpServers": {"x": {"command": "srv", "url": "http://h"}}}`))
	fmt.Println(err)
	// Output: mcp: config: server "x": set "command" (stdio) or "url" (http), not both
}

// Command testserver is a tiny MCP server over stdio for the tools/mcp tests:
// tools echo, add, fail and env (which reads MCP_TEST_GREETING, to check the
// config's env reaches the process), and cwd.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/agentgraph/agentgraph/tools"
	"github.com/agentgraph/agentgraph/tools/mcp"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"description=text to echo"`
}

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type noArgs struct{}

func main() {
	ts := []tools.Tool{
		tools.New("echo", "Echo the text back", func(_ context.Context, in echoArgs) (string, error) { return in.Text, nil }),
		tools.New("add", "Add two integers", func(_ context.Context, in addArgs) (string, error) { return fmt.Sprint(in.A + in.B), nil }),
		tools.New("fail", "Always fails", func(context.Context, noArgs) (string, error) { return "", errors.New("this tool always fails") }),
		tools.New("env", "Greeting from the environment", func(context.Context, noArgs) (string, error) {
			return os.Getenv("MCP_TEST_GREETING"), nil
		}),
		tools.New("cwd", "Working directory", func(context.Context, noArgs) (string, error) { return os.Getwd() }),
	}
	srv, err := mcp.NewServer("testserver", "1.0.0", ts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := mcp.ServeStdio(ctx, srv, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

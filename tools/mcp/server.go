package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/agentgraph/agentgraph/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// NewServer returns an MCP server exposing ts. Each tool keeps its name,
// description and JSON Schema; a call runs the tool's Call with the raw
// arguments, and an error comes back as a result with isError set (MCP's
// way of telling the model a tool failed), its text the error message.
func NewServer(name, version string, ts ...tools.Tool) (*server.MCPServer, error) {
	srv := server.NewMCPServer(name, version, server.WithToolCapabilities(false), server.WithRecovery())
	seen := map[string]bool{}
	for _, t := range ts {
		if t == nil {
			return nil, errors.New("mcp: server: nil tool")
		}
		if seen[t.Name()] {
			return nil, fmt.Errorf("mcp: server: tool %q registered twice", t.Name())
		}
		seen[t.Name()] = true
		schema := t.Schema()
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if !json.Valid(schema) {
			return nil, fmt.Errorf("mcp: server: tool %q: schema is not valid JSON", t.Name())
		}
		srv.AddTool(mcpgo.NewToolWithRawSchema(t.Name(), t.Description(), schema), handler(t))
	}
	return srv, nil
}

func handler(t tools.Tool) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (res *mcpgo.CallToolResult, err error) {
		var args json.RawMessage
		switch a := req.GetRawArguments().(type) {
		case json.RawMessage:
			args = a
		case nil:
			args = json.RawMessage(`{}`)
		default:
			b, merr := json.Marshal(a)
			if merr != nil {
				return mcpgo.NewToolResultError("arguments: " + merr.Error()), nil
			}
			args = b
		}
		defer func() {
			if p := recover(); p != nil {
				res, err = mcpgo.NewToolResultError(fmt.Sprintf("tool %q panicked: %v", t.Name(), p)), nil
			}
		}()
		out, cerr := t.Call(ctx, args)
		if cerr != nil {
			return mcpgo.NewToolResultError(cerr.Error()), nil
		}
		return mcpgo.NewToolResultText(out), nil
	}
}

// ServeStdio serves srv over in/out (a process's stdin and stdout) until ctx
// ends or in is closed.
func ServeStdio(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer) error {
	err := server.NewStdioServer(srv).Listen(ctx, in, out)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// HTTPHandler serves srv over MCP's streamable HTTP transport at path
// (e.g. "/mcp"). Mount it on any mux or httptest server.
func HTTPHandler(srv *server.MCPServer, path string) http.Handler {
	if path == "" {
		path = "/mcp"
	}
	return server.NewStreamableHTTPServer(srv, server.WithEndpointPath(path))
}

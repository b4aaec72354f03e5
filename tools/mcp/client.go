package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/tools"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// ClientName and ClientVersion are sent in the MCP initialize request.
const (
	ClientName    = "agentgraph"
	ClientVersion = "0.1.0"
)

// Options configure Connect and ConnectAll.
type Options struct {
	// Env expands ${VAR} in the config (nil: os.LookupEnv).
	Env Lookup
	// Prefix names each tool "<server>_<tool>", so that servers with tools
	// of the same name can share a registry.
	Prefix bool
	// Stderr receives stdio servers' stderr (nil: discarded).
	Stderr io.Writer
	// HTTPTimeout bounds each HTTP request (0: 60s).
	HTTPTimeout time.Duration
	Logger      *slog.Logger
}

// Session is a connection to one MCP server.
type Session struct {
	Name   string
	Config ServerConfig
	c      *client.Client
	opts   Options
	cancel context.CancelFunc
	once   sync.Once
	info   mcpgo.Implementation
}

// ServerInfo is what the server said about itself at initialization.
func (s *Session) ServerInfo() mcpgo.Implementation { return s.info }

// Connect starts (stdio) or reaches (http) the server described by sc and
// performs the MCP initialization.
func Connect(ctx context.Context, name string, sc ServerConfig, opts Options) (*Session, error) {
	if opts.Env == nil {
		opts.Env = os.LookupEnv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := sc.validate(); err != nil {
		return nil, fmt.Errorf("mcp: server %q: %w", name, err)
	}
	rc, err := sc.resolved(opts.Env)
	if err != nil {
		return nil, fmt.Errorf("mcp: server %q: %w", name, err)
	}
	// The subprocess lives until Close, not until ctx ends.
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Session{Name: name, Config: rc, opts: opts, cancel: cancel}

	var tr transport.Interface
	switch rc.Transport() {
	case TransportStdio:
		env := make([]string, 0, len(rc.Env))
		for k, v := range rc.Env {
			env = append(env, k+"="+v)
		}
		sort.Strings(env)
		stderr := opts.Stderr
		if stderr == nil {
			stderr = io.Discard
		}
		cwd := rc.Cwd
		tr = transport.NewStdioWithOptions(rc.Command, env, rc.Args,
			transport.WithCommandStderrWriter(stderr),
			transport.WithCommandLogger(opts.Logger),
			transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
				cmd := exec.CommandContext(ctx, command, args...)
				cmd.Env = append(os.Environ(), env...)
				cmd.Dir = cwd
				return cmd, nil
			}))
	default:
		timeout := opts.HTTPTimeout
		if timeout <= 0 {
			timeout = 60 * time.Second
		}
		h, err := transport.NewStreamableHTTP(rc.URL, transport.WithHTTPHeaders(rc.Headers), transport.WithHTTPTimeout(timeout),
			transport.WithHTTPLogger(opts.Logger))
		if err != nil {
			cancel()
			return nil, fmt.Errorf("mcp: server %q: %w", name, err)
		}
		tr = h
	}
	s.c = client.NewClient(tr)
	if err := s.c.Start(life); err != nil {
		cancel()
		return nil, fmt.Errorf("mcp: server %q: start: %w", name, err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: ClientName, Version: ClientVersion}
	res, err := s.c.Initialize(ctx, req)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("mcp: server %q: initialize: %w", name, err)
	}
	s.info = res.ServerInfo
	return s, nil
}

// Close ends the session (and stops a stdio server's process).
func (s *Session) Close() error {
	var err error
	s.once.Do(func() {
		err = s.c.Close()
		s.cancel()
	})
	return err
}

// Tools lists the server's tools, each wrapped as a tools.Tool.
func (s *Session) Tools(ctx context.Context) ([]tools.Tool, error) {
	var out []tools.Tool
	var cursor mcpgo.Cursor
	for page := 0; page < 100; page++ {
		req := mcpgo.ListToolsRequest{}
		req.Params.Cursor = cursor
		res, err := s.c.ListToolsByPage(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("mcp: server %q: list tools: %w", s.Name, err)
		}
		for _, t := range res.Tools {
			schema, err := inputSchema(t)
			if err != nil {
				return nil, fmt.Errorf("mcp: server %q: tool %q: %w", s.Name, t.Name, err)
			}
			name := t.Name
			if s.opts.Prefix {
				name = s.Name + "_" + t.Name
			}
			out = append(out, &remoteTool{s: s, name: name, remote: t.Name, desc: t.Description, schema: schema})
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	return out, nil
}

func inputSchema(t mcpgo.Tool) (json.RawMessage, error) {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema, nil
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// CallError is a tool result the server flagged as an error (isError).
type CallError struct {
	Server, Tool string
	Text         string
}

func (e *CallError) Error() string { return e.Text }

// Call calls a tool of the server by its server-side name.
func (s *Session) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if !json.Valid(args) {
		return "", &tools.ArgumentError{Tool: tool, Msg: "arguments are not valid JSON"}
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("mcp: server %q: call %q: %w", s.Name, tool, err)
	}
	text := resultText(res)
	if res.IsError {
		return "", &CallError{Server: s.Name, Tool: tool, Text: text}
	}
	return text, nil
}

// resultText renders a tool result for a model: text parts as they are,
// other content described, structured content as JSON when there is no text.
func resultText(res *mcpgo.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch v := c.(type) {
		case mcpgo.TextContent:
			parts = append(parts, v.Text)
		case *mcpgo.TextContent:
			parts = append(parts, v.Text)
		case mcpgo.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", v.MIMEType, b64len(v.Data)))
		case mcpgo.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, b64len(v.Data)))
		case mcpgo.EmbeddedResource:
			switch r := v.Resource.(type) {
			case mcpgo.TextResourceContents:
				parts = append(parts, r.Text)
			case mcpgo.BlobResourceContents:
				parts = append(parts, fmt.Sprintf("[resource %s, %s]", r.URI, r.MIMEType))
			}
		case mcpgo.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s]", v.URI))
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

func b64len(s string) int {
	n, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return len(s)
	}
	return len(n)
}

// remoteTool is one MCP tool as a tools.Tool.
type remoteTool struct {
	s      *Session
	name   string
	remote string
	desc   string
	schema json.RawMessage
}

func (t *remoteTool) Name() string            { return t.name }
func (t *remoteTool) Description() string     { return t.desc }
func (t *remoteTool) Schema() json.RawMessage { return t.schema }
func (t *remoteTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	return t.s.Call(ctx, t.remote, args)
}

// Set is the sessions of a Config, with all their tools.
type Set struct {
	Sessions []*Session
	tools    []tools.Tool
}

// ConnectAll connects every enabled server of cfg (in name order) and lists
// their tools. When one fails, the ones already connected are closed and the
// error names the server.
func ConnectAll(ctx context.Context, cfg Config, opts Options) (*Set, error) {
	set := &Set{}
	for _, name := range cfg.Names() {
		sc := cfg.Servers[name]
		if sc.Disabled {
			continue
		}
		s, err := Connect(ctx, name, sc, opts)
		if err != nil {
			return nil, errors.Join(err, set.Close())
		}
		set.Sessions = append(set.Sessions, s)
		ts, err := s.Tools(ctx)
		if err != nil {
			return nil, errors.Join(err, set.Close())
		}
		set.tools = append(set.tools, ts...)
	}
	return set, nil
}

// Tools is every server's tools, in server name order.
func (s *Set) Tools() []tools.Tool { return append([]tools.Tool(nil), s.tools...) }

// Registry returns a registry holding every tool (an error when two tools
// share a name: use Options.Prefix).
func (s *Set) Registry() (*tools.Registry, error) { return tools.NewRegistry(s.tools...) }

// Close closes every session.
func (s *Set) Close() error {
	var errs []error
	for _, sess := range s.Sessions {
		errs = append(errs, sess.Close())
	}
	return errors.Join(errs...)
}

// Package mcp adapts the Model Context Protocol (github.com/mark3labs/mcp-go
// v1.2.1) to the tools.Tool interface, both ways.
//
// # Client
//
// LoadConfig reads an mcp_servers.json file (the format Claude Desktop and
// other MCP hosts use):
//
//	{
//	  "mcpServers": {
//	    "files":  {"command": "mcp-files", "args": ["--root", "."], "env": {"LOG": "info"}, "cwd": "/srv"},
//	    "search": {"type": "http", "url": "https://mcp.example.com/mcp",
//	               "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}},
//	    "old":    {"command": "legacy-server", "disabled": true}
//	  }
//	}
//
// Keys per server: command, args, env, cwd (stdio: the command is started as
// a subprocess, with this process's environment plus env); url, headers
// (streamable HTTP); type ("stdio" or "http", inferred when absent);
// disabled. Unknown keys are errors. ${VAR} in command, args, cwd, env
// values, url and headers is expanded from Options.Env (os.LookupEnv by
// default); an unset variable is an error, so secrets stay out of the file.
// The deprecated HTTP+SSE transport is refused with a clear message.
//
// ConnectAll connects every enabled server, lists its tools and wraps each
// as a tools.Tool whose Call is an MCP tools/call; Set.Registry puts them in
// a tools.Registry (Options.Prefix names them "<server>_<tool>" when two
// servers share tool names). A result the server flags isError comes back as
// a *CallError, which the registry hands to the model as text.
//
// # Server
//
// NewServer exposes any tools.Tool set (for example browser.Tools) as an MCP
// server: ServeStdio serves it over a process's stdin/stdout, HTTPHandler
// over streamable HTTP on any mux. A tool's error becomes a result with
// isError set, a panic is recovered the same way.
package mcp

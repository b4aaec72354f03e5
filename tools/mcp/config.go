package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Config is the content of an mcp_servers.json file:
//
//	{
//	  "mcpServers": {
//	    "files":  {"command": "mcp-files", "args": ["--root", "."], "env": {"LOG": "info"}},
//	    "search": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}}
//	  }
//	}
//
// A server with "command" is started as a subprocess speaking MCP over
// stdio; one with "url" is reached over the streamable HTTP transport.
// "${VAR}" in args, env values, url and headers is replaced from the
// environment given to Load (a missing variable is an error).
type Config struct {
	Servers map[string]ServerConfig `json:"mcpServers"`
}

// ServerConfig is one entry of mcpServers.
type ServerConfig struct {
	// Type is "stdio" or "http" ("streamable-http" and "streamableHttp" are
	// accepted as "http"); empty means: stdio when Command is set, http when
	// URL is.
	Type string `json:"type,omitempty"`

	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`

	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Disabled servers are skipped by Connect.
	Disabled bool `json:"disabled,omitempty"`
}

// Transport names.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Transport reports the transport the entry uses.
func (s ServerConfig) Transport() string {
	switch strings.ToLower(s.Type) {
	case "stdio":
		return TransportStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		return TransportHTTP
	}
	if s.Command != "" {
		return TransportStdio
	}
	return TransportHTTP
}

func (s ServerConfig) validate() error {
	switch t := strings.ToLower(s.Type); t {
	case "", "stdio", "http", "streamable-http", "streamablehttp", "streamable_http":
	case "sse":
		return errors.New(`type "sse" (the deprecated HTTP+SSE transport) is not supported; use streamable HTTP ("http")`)
	default:
		return fmt.Errorf("unknown type %q (want stdio or http)", s.Type)
	}
	switch {
	case s.Command != "" && s.URL != "":
		return errors.New(`set "command" (stdio) or "url" (http), not both`)
	case s.Command == "" && s.URL == "":
		return errors.New(`needs "command" (stdio) or "url" (http)`)
	case s.Transport() == TransportStdio && s.Command == "":
		return errors.New(`type stdio needs "command"`)
	case s.Transport() == TransportHTTP && s.URL == "":
		return errors.New(`type http needs "url"`)
	}
	if s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") && !strings.Contains(s.URL, "${") {
		return fmt.Errorf("url %q: want http:// or https://", s.URL)
	}
	return nil
}

// Lookup reads an environment variable; os.LookupEnv fits.
type Lookup func(string) (string, bool)

// ParseConfig decodes mcp_servers.json strictly (unknown keys are errors,
// with their position) and checks each entry.
func ParseConfig(data []byte) (Config, error) {
	var c Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("mcp: config: %s", describeJSONError(data, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Config{}, errors.New("mcp: config: trailing data after the JSON object")
	}
	if c.Servers == nil {
		return Config{}, errors.New(`mcp: config: no "mcpServers" object`)
	}
	for _, name := range c.Names() {
		if strings.TrimSpace(name) == "" {
			return Config{}, errors.New("mcp: config: a server has an empty name")
		}
		if err := c.Servers[name].validate(); err != nil {
			return Config{}, fmt.Errorf("mcp: config: server %q: %w", name, err)
		}
	}
	return c, nil
}

// LoadConfig reads and parses a mcp_servers.json file.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("mcp: config: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return c, nil
}

// Names returns the server names, sorted.
func (c Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var off int64 = -1
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err.Error()
	}
	line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
	return fmt.Sprintf("line %d: %v", line, err)
}

// expand replaces ${VAR} (and $VAR) from env; unknown variables are an error.
func expand(s string, env Lookup) (string, error) {
	var missing []string
	out := os.Expand(s, func(k string) string {
		if env != nil {
			if v, ok := env(k); ok {
				return v
			}
		}
		missing = append(missing, k)
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set", strings.Join(missing, ", "))
	}
	return out, nil
}

// resolved returns a copy of s with ${VAR} expanded.
func (s ServerConfig) resolved(env Lookup) (ServerConfig, error) {
	var err error
	ex := func(v string) string {
		if err != nil {
			return v
		}
		var r string
		r, err = expand(v, env)
		return r
	}
	out := s
	out.Command, out.URL, out.Cwd = ex(s.Command), ex(s.URL), ex(s.Cwd)
	out.Args = make([]string, len(s.Args))
	for i, a := range s.Args {
		out.Args[i] = ex(a)
	}
	out.Env = make(map[string]string, len(s.Env))
	for k, v := range s.Env {
		out.Env[k] = ex(v)
	}
	out.Headers = make(map[string]string, len(s.Headers))
	for k, v := range s.Headers {
		out.Headers[k] = ex(v)
	}
	return out, err
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// buildTestServer compiles internal/testserver once per test binary.
func buildTestServer(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "mcp-testserver")
		if buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "testserver")
		if runtime.GOOS == "windows" {
			buildBin += ".exe"
		}
		cmd := exec.Command("go", append(append([]string{"build"}, raceFlags...), "-o", buildBin, "./internal/testserver")...)
		cmd.Env = os.Environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build testserver: %v: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return buildBin
}

func env(m map[string]string) Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestStdioServerEndToEnd(t *testing.T) {
	bin := buildTestServer(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "mcp_servers.json")
	cfg := `{"mcpServers": {
		"local": {"command": "${BIN}", "env": {"MCP_TEST_GREETING": "hello from ${WHO}"}, "cwd": "` + dir + `"},
		"off":   {"command": "does-not-exist", "disabled": true}
	}}`
	require.NoError(t, os.WriteFile(cfgPath, []byte(cfg), 0o600))
	c, err := LoadConfig(cfgPath)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	set, err := ConnectAll(ctx, c, Options{Env: env(map[string]string{"BIN": bin, "WHO": "config"})})
	require.NoError(t, err)
	defer func() { assert.NoError(t, set.Close()) }()
	require.Len(t, set.Sessions, 1)
	assert.Equal(t, "testserver", set.Sessions[0].ServerInfo().Name)

	reg, err := set.Registry()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"echo", "add", "fail", "env", "cwd"}, reg.Names())
	echo, ok := reg.Get("echo")
	require.True(t, ok)
	assert.Equal(t, "Echo the text back", echo.Description())
	var schema map[string]any
	require.NoError(t, json.Unmarshal(echo.Schema(), &schema))
	assert.Equal(t, "object", schema["type"])
	assert.Contains(t, schema["properties"], "text")

	tests := []struct {
		tool, args, want string
		wantErr          bool
	}{
		{"echo", `{"text":"hi there"}`, "hi there", false},
		{"add", `{"a":2,"b":40}`, "42", false},
		{"env", `{}`, "hello from config", false},
		{"cwd", ``, dir, false},
		{"fail", `{}`, "this tool always fails", true},
		{"add", `{"a":"two","b":1}`, "a", true}, // the server's typed tool rejects it
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			got, err := reg.Call(ctx, tt.tool, json.RawMessage(tt.args))
			if tt.wantErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
				text, isErr := reg.Dispatch(ctx, tt.tool, json.RawMessage(tt.args))
				assert.True(t, isErr)
				assert.Contains(t, text, tt.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	var ce *CallError
	_, err = set.Sessions[0].Call(ctx, "fail", nil)
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "fail", ce.Tool)
}

func TestStdioServerPrefixAndBadCommand(t *testing.T) {
	bin := buildTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := Config{Servers: map[string]ServerConfig{"a": {Command: bin}, "b": {Command: bin}}}
	set, err := ConnectAll(ctx, c, Options{})
	require.NoError(t, err)
	_, err = set.Registry()
	assert.Error(t, err, "same tool names from two servers clash")
	require.NoError(t, set.Close())

	set, err = ConnectAll(ctx, c, Options{Prefix: true})
	require.NoError(t, err)
	defer set.Close()
	reg, err := set.Registry()
	require.NoError(t, err)
	out, err := reg.Call(ctx, "b_echo", json.RawMessage(`{"text":"from b"}`))
	require.NoError(t, err)
	assert.Equal(t, "from b", out)

	_, err = Connect(ctx, "ghost", ServerConfig{Command: filepath.Join(t.TempDir(), "no-such-binary")}, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `server "ghost"`)
}

type greetArgs struct {
	Name string `json:"name"`
}

func TestHTTPServerEndToEnd(t *testing.T) {
	greet := tools.New("greet", "Greets someone", func(_ context.Context, in greetArgs) (string, error) {
		if in.Name == "" {
			return "", errors.New("name is empty")
		}
		return "hello " + in.Name, nil
	})
	srv, err := NewServer("http-test", "0.1", greet)
	require.NoError(t, err)
	var mu sync.Mutex
	var auth []string
	h := HTTPHandler(srv, "/mcp")
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()

	cfg, err := ParseConfig([]byte(`{"mcpServers":{"web":{"type":"http","url":"` + hs.URL + `/mcp","headers":{"Authorization":"Bearer ${TOKEN}"}}}}`))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	set, err := ConnectAll(ctx, cfg, Options{Env: env(map[string]string{"TOKEN": "s3cret"})})
	require.NoError(t, err)
	defer set.Close()
	reg, err := set.Registry()
	require.NoError(t, err)
	assert.Equal(t, []string{"greet"}, reg.Names())
	got, err := reg.Call(ctx, "greet", json.RawMessage(`{"name":"Ada"}`))
	require.NoError(t, err)
	assert.Equal(t, "hello Ada", got)
	text, isErr := reg.Dispatch(ctx, "greet", json.RawMessage(`{"name":""}`))
	assert.True(t, isErr)
	assert.Contains(t, text, "name is empty")

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, auth)
	for _, a := range auth {
		assert.Equal(t, "Bearer s3cret", a)
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"not json", `{"mcpServers": {`, "mcp: config"},
		{"unknown key", `{"mcpServers": {"a": {"command": "x", "comand": "y"}}}`, `unknown field "comand"`},
		{"no servers key", `{}`, `no "mcpServers"`},
		{"both", `{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`, "not both"},
		{"neither", `{"mcpServers": {"a": {}}}`, `needs "command"`},
		{"sse", `{"mcpServers": {"a": {"type": "sse", "url": "http://h"}}}`, `"sse"`},
		{"bad url", `{"mcpServers": {"a": {"url": "ftp://h"}}}`, "want http"},
		{"wrong type", "{\"mcpServers\": {\"a\": {\n\"args\": \"x\"}}}", "line 2"},
		{"trailing", `{"mcpServers": {}} {}`, "trailing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tt.json))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Connect(context.Background(), "x", ServerConfig{URL: "http://h/${NOPE}"}, Options{Env: env(nil)})
	assert.ErrorContains(t, err, "NOPE is not set")
	_, err = LoadConfig(filepath.Join(t.TempDir(), "missing.json"))
	assert.Error(t, err)
}

func TestConfigTransport(t *testing.T) {
	assert.Equal(t, TransportStdio, ServerConfig{Command: "x"}.Transport())
	assert.Equal(t, TransportHTTP, ServerConfig{URL: "http://x"}.Transport())
	assert.Equal(t, TransportHTTP, ServerConfig{Type: "streamable-http", URL: "http://x"}.Transport())
}

func TestNewServerRejectsBadTools(t *testing.T) {
	e := tools.New("e", "d", func(_ context.Context, in greetArgs) (string, error) { return "", nil })
	_, err := NewServer("s", "1", e, e)
	assert.ErrorContains(t, err, "twice")
	_, err = NewServer("s", "1", nil)
	assert.Error(t, err)
}

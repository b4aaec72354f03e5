package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
)

func TestCheckEndpoint(t *testing.T) {
	for _, tc := range []struct {
		in, err string
	}{
		{"ws://127.0.0.1:3000/", ""},
		{"wss://browsers.example.com/pw?token=abc", ""},
		{"ws://[::1]:3000", ""},
		{"http://127.0.0.1:3000/", "want a ws:// or wss:// URL"},
		{"127.0.0.1:3000", "want a ws:// or wss:// URL"},
		{"ws:///path", "no host"},
		{"ws://host:99999/", `bad port "99999"`},
		{"ws://host:3x/", "want a ws:// or wss:// URL"},
		{"ws://a b/", "want a ws:// or wss:// URL"},
	} {
		err := browser.CheckEndpoint(tc.in)
		if tc.err == "" {
			assert.NoError(t, err, tc.in)
			continue
		}
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.err, tc.in)
	}
}

func TestEndpointForDisplay(t *testing.T) {
	assert.Equal(t, "ws://127.0.0.1:3000/", browser.EndpointForDisplay("ws://127.0.0.1:3000/"))
	got := browser.EndpointForDisplay("wss://qa:hunter2@grid.example.com/pw?token=s3cret")
	assert.NotContains(t, got, "hunter2")
	assert.NotContains(t, got, "s3cret")
	assert.Equal(t, "wss://qa:****@grid.example.com/pw?token=****", got)
}

// TestConnectNoServer: an endpoint where nothing listens is a clear,
// prompt error that says how to start a server, and keeps the endpoint's
// token out of it.
func TestConnectNoServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	start := time.Now()
	b, err := browser.Launch(ctx, browser.LaunchOptions{Endpoint: "ws://" + addr + "/?token=s3cret"})
	if b != nil {
		_ = b.Close()
	}
	require.Error(t, err)
	assert.True(t, errors.Is(err, browser.ErrServer), "%v", err)
	assert.Contains(t, err.Error(), "run-server")
	assert.Contains(t, err.Error(), addr)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Less(t, time.Since(start), 30*time.Second)

	_, err = browser.Launch(ctx, browser.LaunchOptions{Endpoint: "http://" + addr})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "want a ws:// or wss:// URL")
}

// TestRemoteBrowser drives a Chromium that a Playwright browser server
// (run-server, started here) launched from the launch options the client
// sent: the app on this process's loopback is reached through the
// connection, the engine's origin guard, health findings, init scripts and
// screenshots work as with a local browser.
func TestRemoteBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	srv, err := browsertest.StartRunServer(ctx)
	require.NoError(t, err)
	defer func() { assert.NoError(t, srv.Stop()) }()

	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Remote</title></head><body><h1>Remote</h1>
<button onclick="document.title='clicked '+navigator.userAgent.includes('HeadlessChrome')">Go</button>
<script>setTimeout(()=>{throw new Error('kaput far away')},0)</script></body></html>`)
	})
	app := httptest.NewServer(mux)
	defer app.Close()

	b, err := browser.Launch(ctx, browser.LaunchOptions{Endpoint: srv.Endpoint})
	require.NoError(t, err, "server output:\n%s", srv.Output())
	defer func() { assert.NoError(t, b.Close()) }()
	assert.NotEmpty(t, b.Version())

	e, err := b.NewEngine(browser.Config{Origins: []string{app.URL}, SettleTimeout: 2 * time.Second, ActionTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer e.Close()
	s, err := e.User(ctx, "remote")
	require.NoError(t, err)

	r := s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: app.URL + "/"})
	require.True(t, r.OK, r.Error)
	found := false
	for _, f := range r.Findings {
		found = found || (f.Kind == browser.FindPageError && strings.Contains(f.Message, "kaput far away"))
	}
	assert.True(t, found, "the page error of the remote page: %+v", r.Findings)

	r = s.Do(ctx, browser.Intent{Action: browser.ActClick, Target: `role=button[name="Go"]`})
	require.True(t, r.OK, r.Error)
	title, err := s.Evaluate(ctx, "() => document.title", nil)
	require.NoError(t, err)
	assert.Equal(t, "clicked true", title, "headless, as the launch options asked")

	shot := s.Do(ctx, browser.Intent{Action: browser.ActScreenshot})
	require.True(t, shot.OK, shot.Error)
	assert.Greater(t, len(shot.Screenshot), 1000)

	r = s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: "http://other.invalid/"})
	assert.False(t, r.OK)
	assert.Contains(t, r.Error, "outside the allowed origins")
}

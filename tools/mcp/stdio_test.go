package mcp

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/tools"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type panicArgs struct{}

// TestServeStdioInProcess runs ServeStdio over pipes (so the race detector
// sees the server side too) with a tool that panics.
func TestServeStdioInProcess(t *testing.T) {
	boom := tools.New("boom", "Panics", func(context.Context, panicArgs) (string, error) { panic("kaboom") })
	srv, err := NewServer("pipes", "1", boom)
	require.NoError(t, err)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- ServeStdio(ctx, srv, sr, sw) }()

	c := client.NewClient(transport.NewIO(cr, cw, io.NopCloser(&emptyReader{})))
	require.NoError(t, c.Start(ctx))
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "t", Version: "1"}
	_, err = c.Initialize(ctx, req)
	require.NoError(t, err)
	s := &Session{Name: "pipes", c: c, cancel: func() {}}
	ts, err := s.Tools(ctx)
	require.NoError(t, err)
	require.Len(t, ts, 1)
	_, err = ts[0].Call(ctx, json.RawMessage(`{}`))
	var ce *CallError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Text, "kaboom")

	cancel()
	_ = cw.Close()
	_ = sw.Close()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return after cancel")
	}
	_ = c.Close()
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

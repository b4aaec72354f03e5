package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestList(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"list", "-seed", "3", "-disable", "BF3-01"}, &out, &errb), errb.String())
	var l listing
	require.NoError(t, json.Unmarshal(out.Bytes(), &l))
	assert.Equal(t, int64(3), l.Seed)
	assert.NotEmpty(t, l.Idioms)
	require.GreaterOrEqual(t, len(l.Bugs), 10)
	assert.Equal(t, "bf3-01", l.Bugs[0].ID)
	assert.False(t, l.Bugs[0].On, "-disable turns it off (ids are case-insensitive)")
	assert.True(t, l.Bugs[1].On)
}

func TestBadArguments(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no command", nil},
		{"unknown command", []string{"run"}},
		{"bad seed", []string{"list", "-seed", "x"}},
		{"extra argument", []string{"serve", "-seed", "1", "now"}},
		{"bad slow", []string{"serve", "-slow", "-1s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			assert.Equal(t, 2, run(context.Background(), tt.args, &out, &errb))
			assert.NotEmpty(t, errb.String())
		})
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "-seed", "4", "-fixed"}, &out, &errb) }()
	var url string
	require.Eventually(t, func() bool {
		url = strings.TrimSpace(out.String())
		return strings.HasPrefix(url, "http://127.0.0.1:")
	}, 5*time.Second, 20*time.Millisecond)
	c := &http.Client{Timeout: 5 * time.Second}
	res, err := c.Get(url + "/signin")
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(body), `type="password"`)
	assert.Contains(t, errb.String(), "password=", "the sign-in is logged for a person to use")
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

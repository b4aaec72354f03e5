package loopback

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListenServesAndCloses(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
		_, _ = io.WriteString(w, "hello")
	})
	s, err := Listen("", h)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(s.URL, "http://127.0.0.1:"), s.URL)

	res, err := http.Get(s.URL + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	assert.Equal(t, "hello", string(body))

	// A request in flight past Close's deadline is dropped, and Close
	// still returns (with the deadline's error).
	go func() { _, _ = http.Get(s.URL + "/slow") }()
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = s.Close(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	close(release)

	_, err = http.Get(s.URL + "/")
	assert.Error(t, err, "closed")
}

func TestListenErrors(t *testing.T) {
	_, err := Listen("", nil)
	assert.ErrorContains(t, err, "nil handler")
	_, err = Listen("256.0.0.1:0", http.NotFoundHandler())
	assert.ErrorContains(t, err, "listen 256.0.0.1:0")
}

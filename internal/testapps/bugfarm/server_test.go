package bugfarm

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListen(t *testing.T) {
	s, err := Listen("", Generate(3, Options{Fixed: true}))
	require.NoError(t, err)
	c := &http.Client{Timeout: 5 * time.Second}
	res, err := c.Get(s.URL + "/")
	require.NoError(t, err)
	_, err = io.Copy(io.Discard, res.Body)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	assert.Equal(t, http.StatusOK, res.StatusCode)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	_, err = c.Get(s.URL + "/")
	assert.Error(t, err, "closed")

	_, err = Listen("", nil)
	assert.ErrorContains(t, err, "nil app")
	_, err = Listen("256.0.0.1:bad", Generate(3, Options{}))
	assert.ErrorContains(t, err, "bugfarm: listen")
}

// TestConcurrentUse edits, creates and reads records from many goroutines
// at once (run with -race).
func TestConcurrentUse(t *testing.T) {
	s := serve(t, 12, Options{Fixed: true})
	s.signIn(t)
	site := s.app.site
	done := make(chan struct{})
	for i := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := range 5 {
				switch (i + j) % 4 {
				case 0:
					s.get(t, site.coll)
				case 1:
					s.post(t, site.byKind[pEdit].Path, s.validRecord(nil))
				case 2:
					s.create(t, nil, "")
				default:
					s.get(t, site.byKind[pView].Path)
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	assert.GreaterOrEqual(t, len(site.records()), 10)
}

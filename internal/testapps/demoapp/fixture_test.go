package demoapp

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFixture(t *testing.T) {
	f, err := StartFixture([]string{string(BugIDs()[0])})
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	assert.NotContains(t, f.Seeded, string(BugIDs()[0]), "a disabled bug is not seeded")
	assert.Len(t, f.Seeded, len(BugIDs())-1)
	resp, err := http.Get(f.URL + "/")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	// A fresh copy is another server with the same bugs.
	u, stop, err := f.Fresh(context.Background())
	require.NoError(t, err)
	assert.NotEqual(t, f.URL, u)
	stop()

	assert.Equal(t, []string{f.Seeded[0]}, f.Find("the body said "+f.Seeded[0]+" twice: "+f.Seeded[0]))
	assert.Empty(t, f.Find("BUG-NOT-A-REAL-ONE"))

	_, err = StartFixture([]string{"BUG-NO-SUCH"})
	assert.Error(t, err)
}

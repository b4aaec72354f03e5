package browser

import (
	"archive/zip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A session's trace is a trace.zip with its actions, snapshots and
// network, as Playwright writes it.
func TestSessionTrace(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, `<!doctype html><title>t</title><button onclick="this.textContent='done'">Go</button>`)
	}))
	defer app.Close()
	e, err := testBrowser.NewEngine(Config{Origins: []string{app.URL}})
	require.NoError(t, err)
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := e.User(ctx, "tracer")
	require.NoError(t, err)
	require.NoError(t, s.StartTrace(ctx, "bug-01"))
	require.True(t, s.Do(ctx, Intent{Action: ActNavigate, URL: app.URL}).OK)
	require.True(t, s.Do(ctx, Intent{Action: ActClick, Target: "role=button[name=\"Go\"]"}).OK)
	path := filepath.Join(t.TempDir(), "trace.zip")
	require.NoError(t, s.StopTrace(path))
	assert.Error(t, s.StopTrace(""))

	z, err := zip.OpenReader(path)
	require.NoError(t, err)
	defer z.Close()
	var trace string
	for _, f := range z.File {
		if strings.HasSuffix(f.Name, ".trace") && !strings.Contains(f.Name, "/") {
			r, err := f.Open()
			require.NoError(t, err)
			b, _ := io.ReadAll(r)
			r.Close()
			trace += string(b)
		}
	}
	assert.Contains(t, trace, `"title":"bug-01"`)
	assert.Contains(t, trace, "frame-snapshot", "DOM snapshots are in")
	assert.Contains(t, trace, `"method":"click"`)
}

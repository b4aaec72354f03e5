package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
)

// TestStartPageOffOriginIsSetupError: a target whose start page redirects
// to another origin is a set-up error (exit 2, the redirect named on
// stderr), found before any browser starts, not a green run that tested
// nothing; no junit path is printed.
func TestStartPageOffOriginIsSetupError(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<h1>elsewhere</h1>")) }))
	t.Cleanup(other.Close)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			http.Redirect(w, r, "/home", http.StatusFound) // within the origin first
		case "/home":
			http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
		default:
			_, _ = w.Write([]byte("<h1>app</h1>"))
		}
	}))
	t.Cleanup(app.Close)

	dir := inDir(t, nil)
	var out, errOut bytes.Buffer
	start := time.Now()
	code := run(context.Background(), []string{"--target", app.URL, "--offline", "--db", "", "--reports", filepath.Join(dir, "reports")}, &out, &errOut, mapEnv(nil))
	assert.Less(t, time.Since(start), 10*time.Second, "before any browser")
	assert.Equal(t, explore.ExitSetup, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
	assert.Contains(t, errOut.String(), "start page / redirects")
	assert.Contains(t, errOut.String(), other.URL+"/landing")
	assert.NotContains(t, out.String(), "junit:")
}

// TestReadOnlyReportsIsSetupError: a reports folder that cannot be written
// stops the run before its first mission (exit 2, the folder and the cause
// on stderr), and no junit path is printed that was never written.
func TestReadOnlyReportsIsSetupError(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<h1>app</h1>")) }))
	t.Cleanup(app.Close)
	reports := readOnlyDir(t)

	inDir(t, nil)
	var out, errOut bytes.Buffer
	start := time.Now()
	code := run(context.Background(), []string{"--target", app.URL, "--offline", "--db", "", "--reports", reports}, &out, &errOut, mapEnv(nil))
	assert.Less(t, time.Since(start), 10*time.Second, "before any mission")
	assert.Equal(t, explore.ExitSetup, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
	assert.Contains(t, errOut.String(), "reports folder "+reports+" is not writable")
	assert.NotContains(t, out.String(), "junit:")
	assert.NotContains(t, out.String(), "step 1/")
}

// readOnlyDir is an empty folder no file can be created in: a read-only
// tmpfs when the test runs as root (root writes through a folder's mode),
// else a folder of mode 0500.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ro")
	require.NoError(t, os.Mkdir(dir, 0o700))
	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(dir, 0o500))
		t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
		return dir
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("running as root, and a read-only tmpfs cannot be mounted here (%v: %s): root writes any folder", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
)

// explorerChildEnv makes the test binary run the explorer's main with the
// arguments in it (separated by newlines), so a test can signal a real
// explorer process.
const explorerChildEnv = "AGENTGRAPH_TEST_EXPLORER_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(explorerChildEnv); ok {
		os.Args = append([]string{"explorer"}, strings.Split(args, "\n")...)
		main()
		return
	}
	os.Exit(m.Run())
}

// lockedBuffer is a bytes.Buffer a child process writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSignalStopsARun: SIGINT and SIGTERM stop a real explorer process
// within seconds, even with the browser stuck on a page that never answers,
// exit 130 and leave the reports of what was found.
func TestSignalStopsARun(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			stop := make(chan struct{})
			mux := http.NewServeMux()
			mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Slow</title></head><body><main><h1>Slow</h1><a href="/hang">Report</a> <a href="/broken">Stats</a></main></body></html>`)
			})
			mux.HandleFunc("GET /broken", func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "stats down", http.StatusInternalServerError)
			})
			mux.HandleFunc("GET /hang", func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-stop:
				}
			})
			app := httptest.NewServer(mux)
			t.Cleanup(func() { close(stop); app.Close() })
			dir := t.TempDir()
			reports := filepath.Join(dir, "reports")
			args := []string{"--target", app.URL, "--offline", "--budget", "200", "--reports", reports, "--minimize-replays", "-1", "--plain"}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), explorerChildEnv+"="+strings.Join(args, "\n"))
			var out, errOut lockedBuffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Let it start and take its first steps.
			deadline := time.Now().Add(60 * time.Second)
			for !strings.Contains(out.String(), "step 2/") && time.Now().Before(deadline) {
				time.Sleep(200 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(sig))
			signalled := time.Now()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running 20s after %s\nstdout: %s\nstderr: %s", sig, out.String(), errOut.String())
			}
			t.Logf("stopped %s after %s", time.Since(signalled).Round(time.Millisecond), sig)
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "exit: %v\nstderr: %s", err, errOut.String())
			assert.Equal(t, explore.ExitInterrupted, ee.ExitCode(), "stderr: %s", errOut.String())
			assert.Contains(t, errOut.String(), "interrupted")
			b, err := os.ReadFile(filepath.Join(reports, "explore", "summary.json"))
			require.NoError(t, err, "the mission's report is written")
			var sum struct {
				Error string `json:"error"`
				Steps int    `json:"steps"`
			}
			require.NoError(t, json.Unmarshal(b, &sum))
			assert.Contains(t, sum.Error, "interrupted")
			assert.FileExists(t, filepath.Join(reports, "junit.xml"))
		})
	}
}

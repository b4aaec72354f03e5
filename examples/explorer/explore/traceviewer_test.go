package explore

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/clip"
)

// viewTrace opens a trace.zip in Playwright's own trace viewer (`playwright
// show-trace`, served on loopback) in Chromium and returns the viewer's
// page once it shows want, failing the test if it never does.
func viewTrace(t *testing.T, zip, want string) string {
	t.Helper()
	cli := os.Getenv("PLAYWRIGHT_CLI_PATH")
	if cli == "" {
		var ok bool
		cli, ok = browser.FindUp(mustWD(t), ".tools/node/node_modules/playwright-core/cli.js")
		require.True(t, ok, "playwright-core not installed; %s", browser.SetupHint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", cli, "show-trace", "--host", "127.0.0.1", "--port", "0", zip)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "Listening on "); ok {
				lines <- strings.TrimSpace(u)
				return
			}
		}
		close(lines)
	}()
	var viewer string
	select {
	case viewer = <-lines:
	case <-time.After(30 * time.Second):
	}
	require.NotEmpty(t, viewer, "show-trace did not start")
	e, err := testBrowser.NewEngine(browser.Config{Origins: []string{viewer}})
	require.NoError(t, err)
	defer e.Close()
	s, err := e.User(ctx, "viewer")
	require.NoError(t, err)
	r := s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: viewer + "/trace/index.html?trace=" + url.QueryEscape(viewer+"/trace/file?path="+zip)})
	require.True(t, r.OK, r.Error)
	// The viewer has rendered the trace once its page (not only its
	// address, the snapshot's first line, which names the zip) shows want
	// and the DOM snapshot's frame. A loaded machine may take a while.
	var text string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		r = s.Do(ctx, browser.Intent{Action: browser.ActSnapshot})
		if r.Snapshot != nil {
			text = r.Snapshot.Text
			_, body, _ := strings.Cut(text, "\n")
			if strings.Contains(body, want) && strings.Contains(body, "iframe") {
				return text
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("the trace viewer never showed %q:\n%s", want, clip.String(text, 2000))
	return ""
}

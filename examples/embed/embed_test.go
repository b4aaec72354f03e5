package embed

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/memory"
)

// TestEmbedMission: one offline mission of the standard team on a local
// app, embedded in a test in a few lines, finds the app's 500 and its
// uncaught page error, on their pages.
func TestEmbedMission(t *testing.T) {
	app := notesApp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	res, err := explore.Run(ctx, explore.Config{
		Target:          app.URL,
		Budget:          30,
		MinimizeReplays: -1,                        // no shortening of the reproductions: a quick run
		ReportDir:       t.TempDir(),               // reports/<thread>/…, junit.xml
		Browser:         testBrowser,               // the test binary's Chromium, left open
		Checkpointer:    checkpoint.NewMemory(),    // or a bbolt file / PostgreSQL (Config.DB)
		Store:           memory.NewInMemoryStore(), // the bug memory across runs
	})
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	for _, b := range m.Bugs {
		t.Logf("%s %s %s %s: %s", b.ID, b.Kind, b.Persona, b.URL, b.Title)
	}

	server := bugOf(m.Bugs, browser.FindServerError, "/reports")
	require.NotNil(t, server, "the Reports link's 500")
	assert.Equal(t, app.URL+"/reports", server.URL, "the app's own address, not the collector's")
	assert.Contains(t, server.Evidence, "reports query failed", "the 500's body is its evidence")

	thrown := bugOf(m.Bugs, browser.FindPageError, "/")
	require.NotNil(t, thrown, "the Export button's uncaught error")
	assert.Equal(t, app.URL+"/", thrown.URL)
	assert.Contains(t, thrown.Evidence, "rows", "the error's message names what was read of null")

	assert.Positive(t, m.Steps)
	assert.LessOrEqual(t, m.Steps, 30, "the budget")
	assert.Equal(t, explore.ExitBugs, explore.ExitCode(res, err, explore.FailOnNew), "new bugs fail a run by default")
}

// bugOf is the first bug of kind on the page with path p (nil: none).
func bugOf(bugs []findings.Bug, kind browser.FindingKind, p string) *findings.Bug {
	for i, b := range bugs {
		u, err := url.Parse(b.URL)
		if err == nil && b.Kind == string(kind) && u.Path == p {
			return &bugs[i]
		}
	}
	return nil
}

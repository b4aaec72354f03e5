package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/apps/dokuwiki"
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

// TestSmoke asserts the harness on one small app (DokuWiki: Debian
// packages that scripts/setup.sh installs, PHP's built-in server): its
// set-up works, every patch applies on its own to a copy of the pristine
// tree (and the installed system copy stays untouched), and three
// triggers prove their mutations: visible on the mutated build, absent on
// the clean one. It measures no recall.
func TestSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	app := dokuwiki.App()
	require.NoError(t, app.Validate())
	cache := t.TempDir()
	require.NoError(t, kit.Setup(ctx, app, cache, nil), "set-up of %s", app.Name)
	pristine := kit.PristineDir(cache, app)
	require.FileExists(t, filepath.Join(pristine, "doku.php"))

	// Each patch applies on its own to a fresh copy; the pristine tree and
	// the installed system copy are never patched.
	for _, m := range app.Mutations {
		dir := filepath.Join(t.TempDir(), "app")
		out, err := exec.CommandContext(ctx, "cp", "-a", pristine, dir).CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.NoError(t, kit.ApplyPatch(ctx, app.Files, m.Patch(), dir), m.ID)
	}
	for _, m := range app.Mutations {
		require.Error(t, kit.ApplyPatch(ctx, app.Files, m.Patch(), t.TempDir()), "%s applies to an empty directory", m.ID)
	}
	unpatched, err := os.ReadFile(filepath.Join(pristine, "inc/Action/Save.php"))
	require.NoError(t, err)
	assert.NotContains(t, string(unpatched), "ra-dw-01", "the pristine tree was patched")
	if sys, err := os.ReadFile("/usr/share/dokuwiki/inc/Action/Save.php"); err == nil {
		assert.NotContains(t, string(sys), "ra-dw-01", "the installed system copy was patched")
	}

	b, err := browser.Launch(ctx, browser.LaunchOptions{})
	require.NoError(t, err, "the smoke test needs Chromium and the Playwright driver: %s", browser.SetupHint)
	defer b.Close()
	ids := []string{"ra-dw-01", "ra-dw-03", "ra-dw-06"} // a 500, a dead control, a stored XSS
	proofs, err := verify(ctx, app, cache, b, ids, testWriter{t})
	require.NoError(t, err)
	require.Len(t, proofs, len(ids))
	for i, p := range proofs {
		assert.Equal(t, ids[i], p.ID)
		assert.Empty(t, p.MutatedErr, "%s: trigger on the mutated build", p.ID)
		assert.Empty(t, p.CleanErr, "%s: trigger on the clean build", p.ID)
		assert.True(t, p.Mutated.Visible, "%s: not visible on the mutated build: %s", p.ID, p.Mutated.Evidence)
		assert.False(t, p.Clean.Visible, "%s: visible on the clean build: %s", p.ID, p.Clean.Evidence)
		assert.True(t, p.OK())
	}
	// The instances are gone: only the pristine tree and the files stay.
	runs, err := os.ReadDir(filepath.Join(cache, app.Name, "runs"))
	require.NoError(t, err)
	assert.Empty(t, runs, "instance directories left behind")
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

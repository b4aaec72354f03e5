package browser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFindChromium: a headless run takes the headless shell before a full
// build, a headed one never takes a shell (not even one named by
// AGENTGRAPH_CHROMIUM), and a named binary that is missing is an error.
func TestFindChromium(t *testing.T) {
	dir := t.TempDir()
	exe := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
		return p
	}
	shell, full := exe("chromium-headless-shell"), exe("chromium")
	missing := filepath.Join(dir, "nope")
	shells, fulls := []string{missing, shell}, []string{missing, full}

	for _, tc := range []struct {
		name, explicit, env string
		headed              bool
		want                string
	}{
		{"headless prefers the shell", "", "", false, shell},
		{"headed takes the full build", "", "", true, full},
		{"the variable wins", "", full, false, full},
		{"an explicit path wins over the variable", shell, full, false, shell},
		{"headed skips a shell the variable names", "", shell, true, full},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := findChromiumIn(tc.explicit, tc.env, tc.headed, shells, fulls)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := findChromiumIn("", missing, false, shells, fulls)
	assert.ErrorIs(t, err, ErrSetup)
	_, err = findChromiumIn("", "", true, shells, []string{missing})
	require.ErrorIs(t, err, ErrSetup)
	assert.Contains(t, err.Error(), "headed run cannot use the headless shell")
	_, err = findChromiumIn("", "", false, []string{missing}, []string{missing})
	assert.ErrorIs(t, err, ErrSetup)

	assert.True(t, IsHeadlessShell("/usr/lib/chromium/chromium-headless-shell"))
	assert.True(t, IsHeadlessShell("/opt/chrome-headless-shell-linux64/chrome-headless-shell"))
	assert.False(t, IsHeadlessShell("/usr/bin/chromium"))
}

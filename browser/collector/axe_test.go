package collector

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFindAxe(t *testing.T) {
	p, err := FindAxe()
	require.NoError(t, err, "axe-core is installed by make setup")
	assert.True(t, strings.HasSuffix(p, filepath.FromSlash(AxeRelPath)))

	t.Setenv(AxeEnv, filepath.Join(t.TempDir(), "missing.js"))
	_, err = FindAxe()
	require.ErrorIs(t, err, ErrAxeMissing)
	assert.Contains(t, err.Error(), AxeEnv)

	t.Setenv(AxeEnv, "")
	t.Chdir(t.TempDir())
	_, err = FindAxe()
	require.ErrorIs(t, err, ErrAxeMissing)
	assert.Contains(t, err.Error(), "make setup")
}

func TestNewRejectsBadTargets(t *testing.T) {
	for _, target := range []string{"ftp://x", "http://", "::", ""} {
		_, err := New(target, 0, slog.New(slog.DiscardHandler))
		require.ErrorContains(t, err, "want http(s)", target)
	}
}

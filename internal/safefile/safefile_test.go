package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plant makes dir/name a symlink to a file outside dir holding "victim"
// with mode 0644, and returns that file's path.
func plant(t *testing.T, dir, name string) string {
	t.Helper()
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("victim"), 0o644))
	require.NoError(t, os.Symlink(victim, filepath.Join(dir, name)))
	return victim
}

func assertUntouched(t *testing.T, victim string) {
	t.Helper()
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "victim", string(b), "the file behind the planted link is untouched")
	fi, err := os.Stat(victim)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
}

func TestWriteFileReplacesPlantedSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := plant(t, dir, "summary.json")
	path := filepath.Join(dir, "summary.json")
	require.NoError(t, WriteFile(path, []byte("{}\n"), 0o600))
	assertUntouched(t, victim)
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "the link was replaced by a file")
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(b))
	left, err := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file left behind")
}

func TestWriteFileOverwritesAndRefusesAFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.md")
	require.NoError(t, WriteFile(path, []byte("one"), 0o600))
	require.NoError(t, WriteFile(path, []byte("two"), 0o600))
	b, _ := os.ReadFile(path)
	assert.Equal(t, "two", string(b))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o700))
	require.Error(t, WriteFile(filepath.Join(dir, "d"), []byte("x"), 0o600))
}

func TestOpenAppend(t *testing.T) {
	t.Run("refuses a planted link when appending", func(t *testing.T) {
		dir := t.TempDir()
		victim := plant(t, dir, "action_tape.jsonl")
		_, err := OpenAppend(filepath.Join(dir, "action_tape.jsonl"), 0o600, false)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "symlink")
		assertUntouched(t, victim)
	})
	t.Run("replaces a planted link when fresh", func(t *testing.T) {
		dir := t.TempDir()
		victim := plant(t, dir, "traces.log")
		f, err := OpenAppend(filepath.Join(dir, "traces.log"), 0o600, true)
		require.NoError(t, err)
		_, err = f.WriteString("line\n")
		require.NoError(t, err)
		require.NoError(t, f.Close())
		assertUntouched(t, victim)
		fi, err := os.Lstat(filepath.Join(dir, "traces.log"))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular())
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	})
	t.Run("appends to a regular file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "j.jsonl")
		for _, s := range []string{"a\n", "b\n"} {
			f, err := OpenAppend(path, 0o600, false)
			require.NoError(t, err)
			_, err = f.WriteString(s)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}
		b, _ := os.ReadFile(path)
		assert.Equal(t, "a\nb\n", string(b))
	})
	t.Run("refuses a FIFO without hanging", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "fifo")
		require.NoError(t, syscall.Mkfifo(path, 0o600))
		_, err := OpenAppend(path, 0o600, false)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not a regular file")
	})
}

func TestMkdirUnder(t *testing.T) {
	root := filepath.Join(t.TempDir(), "reports")
	require.NoError(t, MkdirUnder(root, filepath.Join("explore", "screenshots"), 0o700))
	fi, err := os.Stat(filepath.Join(root, "explore", "screenshots"))
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	require.NoError(t, MkdirUnder(root, filepath.Join("explore", "screenshots"), 0o700), "again: nothing to do")

	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "planted")))
	err = MkdirUnder(root, filepath.Join("planted", "screenshots"), 0o700)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symlink")
	_, err = os.Stat(filepath.Join(outside, "screenshots"))
	assert.True(t, os.IsNotExist(err), "nothing created behind the link")
	require.Error(t, MkdirUnder(root, "../x", 0o700))

	// The root itself may be a link (the user's choice).
	link := filepath.Join(t.TempDir(), "reports-link")
	require.NoError(t, os.Symlink(root, link))
	require.NoError(t, MkdirUnder(link, "other", 0o700))
}

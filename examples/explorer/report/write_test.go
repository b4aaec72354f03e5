package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWritersReplacePlantedLinks: with each report file a symlink to a file
// outside the reports folder (mode 0644), every writer replaces the link
// with a 0600 file of its own and leaves the file behind it untouched.
func TestWritersReplacePlantedLinks(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	r := MissionResult{Mission: mission.DefaultMission(), Team: "standard", Target: "http://app.test", Steps: 3}
	res := Result{Missions: []MissionResult{r}}
	writers := map[string]func(path string) error{
		"summary.json":       func(p string) error { return WriteJSON(p, MissionSummary(r)) },
		"report.html":        func(p string) error { return WriteHTML(p, r) },
		"junit.xml":          func(p string) error { return WriteJUnit(p, res) },
		"batch_summary.json": func(p string) error { return WriteBatchSummary(p, res) },
	}
	for name, write := range writers {
		victim := filepath.Join(outside, name)
		require.NoError(t, os.WriteFile(victim, []byte("victim"), 0o644))
		path := filepath.Join(dir, name)
		require.NoError(t, os.Symlink(victim, path))
		require.NoError(t, write(path), name)

		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, "victim", string(b), "%s: written through the planted link", name)
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular(), "%s: the link is replaced by a file", name)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), name)
	}
}

// TestMergeRefusesPlantedFolderLink: a mission folder of the merged report
// planted as a symlink to a folder elsewhere is refused, and nothing is
// copied there.
func TestMergeRefusesPlantedFolderLink(t *testing.T) {
	shard := t.TempDir()
	r := MissionResult{Mission: mission.DefaultMission(), Team: "standard", Target: "http://app.test", Steps: 1}
	require.NoError(t, WriteBatchSummary(filepath.Join(shard, "summary.json"), Result{Missions: []MissionResult{r}}))
	require.NoError(t, os.MkdirAll(filepath.Join(shard, r.Mission.ThreadID), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(shard, r.Mission.ThreadID, "test_report.md"), []byte("# r\n"), 0o600))

	out := t.TempDir()
	elsewhere := t.TempDir()
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(out, r.Mission.ThreadID)))
	_, err := MergeReports(out, shard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symlink")
	left, err := os.ReadDir(elsewhere)
	require.NoError(t, err)
	assert.Empty(t, left, "nothing written behind the link")
}

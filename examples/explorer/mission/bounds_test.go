package mission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/internal/xerr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile builds the missions files of the bounds test.
func manyMissions(n int, extra string) string {
	var b strings.Builder
	b.WriteString("missions:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - thread_id: m%d\n    prompt: p\n%s", i, extra)
	}
	return b.String()
}

// TestParseMissionsBounds: every number and size of a missions file is
// bounded, and YAML aliases may share text but not multiply it; each
// refusal names its line, quickly and without expanding the file.
func TestParseMissionsBounds(t *testing.T) {
	big := strings.Repeat("x", 100_000)
	// The probe's file: one 100 KB prompt behind an anchor, 20,001
	// missions that alias it (829 KB on disk, ~2 GB of prompts).
	var bomb strings.Builder
	bomb.WriteString("missions:\n  - thread_id: m0\n    prompt: &p " + big + "\n")
	for i := 1; i <= 20_000; i++ {
		fmt.Fprintf(&bomb, "  - {thread_id: m%d, prompt: *p}\n", i)
	}
	// Nested aliases: each level doubles the one below (billion laughs).
	var laughs strings.Builder
	laughs.WriteString("x0: &x0 [" + strings.Repeat("lol,", 8) + "lol]\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&laughs, "x%d: &x%d [*x%d, *x%d]\n", i, i, i-1, i-1)
	}
	laughs.WriteString("missions:\n  - thread_id: a\n    prompt: p\n")

	tests := []struct {
		name, yaml string
		want       string
	}{
		{"budget", "missions:\n  - thread_id: a\n    prompt: p\n  - thread_id: b\n    prompt: p\n    budget: 99999999999\n", "line 4: mission 2: budget 99999999999: at most 100000 steps"},
		{"budget overflowing int", "missions:\n  - thread_id: a\n    prompt: p\n    budget: 99999999999999999999999\n", "line 4: cannot unmarshal"},
		{"prompt", "missions:\n  - thread_id: a\n    prompt: " + strings.Repeat("y", MaxPrompt+1) + "\n", "line 2: mission 1: prompt of 16385 bytes: at most 16384"},
		{"start URL", "missions:\n  - thread_id: a\n    prompt: p\n    start_url: /" + strings.Repeat("a", MaxStartURL) + "\n", "line 2: mission 1: start_url of 2049 bytes: at most 2048"},
		{"too many missions", manyMissions(MaxMissions+1, ""), fmt.Sprintf("line %d: mission 1001: more than 1000 missions (1001)", 2+2*MaxMissions)},
		{"file size", "missions:\n  - thread_id: a\n    prompt: p\n# " + strings.Repeat("z", MaxMissionsFile) + "\n", "line 4: the file passes 1048576 bytes (1 MiB) here"},
		{"alias multiplying a prompt", bomb.String(), "line 13: column 30: alias *p: with its aliases expanded the file passes 1048576 bytes"},
		{"nested aliases", laughs.String(), "alias *x"},
		{"alias inside its own anchor", "missions: &m\n  - thread_id: a\n    prompt: p\n  - *m\n", "line 4: column 5: alias *m refers to an anchor that contains it"},
		{"template budget", "missions:\n  - template: full_seed\n    params: {budget: 99999999999}\n", "budget 99999999999: at most 100000 steps"},
		{"template users", "missions:\n  - template: simulate_all_users\n    params:\n      users: [" + strings.TrimSuffix(strings.Repeat("{name: u},", 1), ",") + manyUsers(MaxMissions+1) + "]\n", "more than 1000 missions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			ms, err := ParseMissions("m.yaml", []byte(tc.yaml))
			assert.Less(t, time.Since(start), 5*time.Second)
			require.Error(t, err)
			assert.Nil(t, ms)
			var me *MissionsError
			require.True(t, errors.As(err, &me), "%T: %v", err, err)
			assert.ErrorIs(t, err, xerr.ErrUsage)
			require.NotEmpty(t, me.Problems)
			assert.Contains(t, me.Problems[0], tc.want, "%.300q", me.Problems)
			assert.Less(t, len(err.Error()), 8000, "the error lists at most a few problems")
		})
	}
}

func manyUsers(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, ", {name: u%d}", i)
	}
	return b.String()
}

// TestParseMissionsAliasesShareText: an alias that shares a prompt among a
// few missions is fine, as are the largest numbers and sizes allowed.
func TestParseMissionsAliasesShareText(t *testing.T) {
	y := "missions:\n  - thread_id: a\n    prompt: &p " + strings.Repeat("y", MaxPrompt) + "\n    budget: 100000\n" +
		"  - {thread_id: b, prompt: *p}\n  - {thread_id: c, prompt: *p}\n"
	ms, err := ParseMissions("m.yaml", []byte(y))
	require.NoError(t, err)
	require.Len(t, ms, 3)
	assert.Equal(t, ms[0].Prompt, ms[2].Prompt)
	ms, err = ParseMissions("m.yaml", []byte(manyMissions(MaxMissions, "")))
	require.NoError(t, err)
	assert.Len(t, ms, MaxMissions)
}

// TestLoadMissionsReadsABoundedPrefix: a huge file is refused after its
// first MiB is read.
func TestLoadMissionsReadsABoundedPrefix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.yaml")
	require.NoError(t, os.WriteFile(path, []byte("missions:\n"+strings.Repeat("# comment\n", 300_000)), 0o600))
	_, err := LoadMissions(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 104858: the file passes 1048576 bytes")
}

// TestMissionsErrorCapsItsList: a file of many bad missions says the first
// problems and how many more there are.
func TestMissionsErrorCapsItsList(t *testing.T) {
	_, err := ParseMissions("m.yaml", []byte(manyMissions(200, "    budget: -1\n")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "… and 180 more problems")
	assert.Equal(t, maxProblems+1, strings.Count(err.Error(), "\n"))
}

package explore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/internal/pgtest"
)

// TestPostgresStoppedMidRunStepsMatchTape: a PostgreSQL server stopped in
// the middle of a mission fails it (exit 2 territory), and its report
// counts the steps its tape holds, not 0.
func TestPostgresStoppedMidRunStepsMatchTape(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := pgtest.Start(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	dsn, err := srv.CreateDatabase(ctx)
	require.NoError(t, err)

	app := fixtureApp(t)
	dir := t.TempDir()
	var once sync.Once
	cfg := Config{Target: app.URL, Budget: 40, TurnSteps: 4, ReportDir: dir, DB: dsn, Browser: testBrowser, MissionRetries: -1,
		Missions: []mission.Mission{{ThreadID: "notes", Prompt: "Explore the notes app"}},
		faultHook: func(_ context.Context, _, _ string, steps int) error {
			if steps >= 8 {
				once.Do(func() { require.NoError(t, srv.Stop()) })
			}
			return nil
		}}
	res, err := Run(ctx, cfg)
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	m := res.Missions[0]
	require.NotEmpty(t, m.Err, "the mission fails once its database is gone")
	assert.Equal(t, ExitSetup, ExitCode(res, nil, FailOnNone))

	tape, _, err := browser.ReadTapeFile(filepath.Join(dir, "notes", "action_tape.jsonl"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(tape), 8)
	var sum struct {
		Steps int    `json:"steps"`
		Error string `json:"error"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "notes", "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))
	assert.Equal(t, len(tape), sum.Steps, "the report counts the steps on the tape (error: %s)", sum.Error)
	assert.Equal(t, len(tape), m.Steps)
}

// TestResumeSaysBadTapeLines: resuming a mission whose tape holds a line
// that is not JSON and an entry with a forged seq says both (on the
// progress output) and trusts neither; the report folder's planted
// summary.json link is replaced, not written through.
func TestResumeSaysBadTapeLines(t *testing.T) {
	app := fixtureApp(t)
	dir := t.TempDir()
	mdir := filepath.Join(dir, "notes")
	require.NoError(t, os.MkdirAll(mdir, 0o700))
	lines := []string{
		`{"seq":1,"action":"navigate","ok":true,"url":"` + app.URL + `/","params":{"action":"navigate","url":"/"}}`,
		`{"seq":2,"action":"navigate","ok":true,"url":"` + app.URL + `/new","params":{"action":"navigate","url":"/new"}}`,
		`this line is not JSON`,
		`{"seq":999999,"action":"navigate","ok":true,"url":"` + app.URL + `/stats","params":{"action":"navigate","url":"/stats"}}`,
	}
	require.NoError(t, os.WriteFile(filepath.Join(mdir, "action_tape.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	victim := filepath.Join(t.TempDir(), "victim.json")
	require.NoError(t, os.WriteFile(victim, []byte("victim"), 0o644))
	require.NoError(t, os.Symlink(victim, filepath.Join(mdir, "summary.json")))

	var progress strings.Builder
	cfg := Config{Target: app.URL, Budget: 4, ReportDir: dir, Browser: testBrowser, Resume: "notes", NoDiscovery: true, Progress: &progress,
		Missions: []mission.Mission{{ThreadID: "notes", Prompt: "Explore the notes app"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	m := res.Missions[0]
	assert.Contains(t, m.Err, "no run of it", "no checkpoint to resume from here: only the tape is read")
	out := progress.String()
	assert.Contains(t, out, "resume notes: tape lines left out: 1 lines are not JSON (lines 3)")
	assert.Contains(t, out, "tape line 4 (seq 999999): seq 999999 jumps past its line 4")
	var seqs []int64
	for _, e := range m.Timeline {
		seqs = append(seqs, e.Entry.Seq)
	}
	assert.Equal(t, []int64{1, 2}, seqs, "the forged entry is not trusted")

	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "victim", string(b), "summary.json written through a planted link")
	fi, err := os.Lstat(filepath.Join(mdir, "summary.json"))
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular())
}

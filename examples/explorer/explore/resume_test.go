package explore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/memory"
)

// TestResumeKilledMission cancels a mission mid-way (what a kill leaves:
// the last step's checkpoint in the bbolt file) and resumes it: it finishes,
// the tape continues without a gap, and memory holds each bug once.
func TestResumeKilledMission(t *testing.T) {
	app := fixtureApp(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "explorer.db")
	cfg := Config{Target: app.URL, Budget: 30, TurnSteps: 4, ReportDir: dir, DB: db, Browser: testBrowser, MinimizeReplays: -1,
		Missions: []Mission{{ThreadID: "notes", Prompt: "Explore the notes app"}}}

	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	first, err := Run(ctx, cfg)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Len(t, first.Missions, 1)
	require.NotEmpty(t, first.Missions[0].Err, "killed mid-mission")

	cfg.Resume = "notes"
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel2()
	res, err := Run(ctx2, cfg)
	require.NoError(t, err)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	assert.Positive(t, m.Steps)
	t.Logf("killed after %d tape entries; resumed to %d steps, %d bugs", len(first.Missions[0].Timeline), m.Steps, len(m.Bugs))

	entries, rep, err := browser.ReadTapeFile(filepath.Join(dir, "notes", "action_tape.jsonl"))
	require.NoError(t, err)
	assert.Zero(t, rep.Skipped)
	require.NotEmpty(t, first.Missions[0].Timeline, "the first run acted before it was killed")
	assert.Greater(t, len(entries), len(first.Missions[0].Timeline), "the resumed run went on")
	for i, e := range entries {
		assert.Equal(t, int64(i+1), e.Seq, "no gap in the tape")
	}

	bdb, err := checkpoint.OpenBoltDB(db, nil)
	require.NoError(t, err)
	defer bdb.Close()
	st, err := memory.NewBoltStore(bdb)
	require.NoError(t, err)
	qa, err := memory.NewQA(st, app.URL)
	require.NoError(t, err)
	bugs, err := qa.Bugs(context.Background(), "")
	require.NoError(t, err)
	require.NotEmpty(t, bugs)
	seen := map[string]bool{}
	for _, b := range bugs {
		key := b.Kind + " " + b.Page
		assert.False(t, seen[b.Fingerprint], "one entry per fingerprint: %s", key)
		seen[b.Fingerprint] = true
	}
}

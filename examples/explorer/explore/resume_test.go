package explore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/memory"
)

// TestResumeKilledMission cancels a mission mid-way (what a kill leaves:
// the last step's checkpoint in the bbolt file) and resumes it: it finishes,
// the tape continues without a gap, and memory holds each bug once.
func TestResumeKilledMission(t *testing.T) {
	app := fixtureApp(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "explorer.db")
	cfg := Config{Target: app.URL, Budget: 30, TurnSteps: 4, ReportDir: dir, DB: db, Browser: testBrowser,
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

// TestMissionRetryTransient fails a persona's node mid-mission, the way a
// model call does after its own retries (an overloaded provider), and
// checks the mission loop: a transient error continues the mission from
// its last checkpoint on the same graph thread (steps go on from there, the
// tape has no gap or duplicate, bugs reach memory once); a permanent error
// fails it at once; a transient error that persists fails it after
// MissionRetries continuations.
func TestMissionRetryTransient(t *testing.T) {
	overloaded := &llm.CallError{Provider: "anthropic", Status: 529, Transient: true, Attempts: 4, Err: errors.New("overloaded")}
	denied := &llm.CallError{Provider: "anthropic", Status: 401, Attempts: 1, Err: errors.New("invalid x-api-key")}
	tests := []struct {
		name        string
		failures    int // how many persona steps fail, from the 6th step on
		err         error
		wantRetries int
		wantErr     string
	}{
		{"transient once: continued", 1, overloaded, 1, ""},
		{"permanent: fails at once", 1, denied, 0, "invalid x-api-key"},
		{"transient every time: gives up", 100, overloaded, 2, "overloaded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := fixtureApp(t)
			dir := t.TempDir()
			var (
				mu    sync.Mutex
				calls []int // mission steps at each persona step
				fails []int // steps at each injected failure
			)
			cfg := Config{Target: app.URL, Budget: 24, TurnSteps: 4, ReportDir: dir, DB: filepath.Join(dir, "explorer.db"), Browser: testBrowser,
				MissionRetries: 2, RetryBackoff: 20 * time.Millisecond,
				Missions: []Mission{{ThreadID: "notes", Prompt: "Explore the notes app"}},
				faultHook: func(_ context.Context, thread, _ string, steps int) error {
					mu.Lock()
					defer mu.Unlock()
					assert.Equal(t, "notes", thread)
					calls = append(calls, steps)
					if steps >= 6 && len(fails) < tc.failures {
						fails = append(fails, steps)
						return fmt.Errorf("persona model: %w", tc.err)
					}
					return nil
				}}
			var progress strings.Builder
			cfg.Progress = &progress
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := Run(ctx, cfg)
			require.NoError(t, err)
			require.Len(t, res.Missions, 1)
			m := res.Missions[0]
			assert.Equal(t, tc.wantRetries, m.Retries)
			require.NotEmpty(t, fails)
			if tc.wantErr != "" {
				assert.Contains(t, m.Err, tc.wantErr)
				assert.Equal(t, ExitSetup, ExitCode(res, nil, FailOnNone), "a failed mission exits 2")
				assert.Len(t, fails, 1+tc.wantRetries, "one attempt plus the retries")
			} else {
				require.Empty(t, m.Err)
				// Continued, not restarted: the first persona step after
				// the failure starts from the checkpoint's step count (a
				// restart would begin at 1), and the mission went further.
				mu.Lock()
				at := slices.Index(calls, fails[0])
				after := calls[at+1:]
				mu.Unlock()
				require.NotEmpty(t, after, "the mission went on after the failure")
				assert.Greater(t, after[0], 1, "resumed from the checkpoint, not from the start")
				assert.LessOrEqual(t, after[0], fails[0], "the failed turn's steps are not in the checkpoint")
				assert.Greater(t, m.Steps, fails[0], "the steps continue")
				assert.Contains(t, progress.String(), "transient error at step")
			}

			entries, rep, err := browser.ReadTapeFile(filepath.Join(dir, "notes", "action_tape.jsonl"))
			require.NoError(t, err)
			assert.Zero(t, rep.Skipped)
			require.NotEmpty(t, entries)
			for i, e := range entries {
				require.Equal(t, int64(i+1), e.Seq, "no gap or duplicate in the tape")
			}
			assert.Len(t, m.Timeline, len(entries))
			assertOneMemoryEntryPerBug(t, filepath.Join(dir, "explorer.db"), app.URL)
			ids := map[string]bool{}
			for _, b := range m.Bugs {
				assert.False(t, ids[b.ID], "bug ids unique: %s", b.ID)
				ids[b.ID] = true
				assert.True(t, b.New, "a fresh memory: every bug is new, even if first seen before the retry")
			}
		})
	}
}

// assertOneMemoryEntryPerBug opens the bbolt file and checks that the app's
// bug catalog holds each fingerprint once; it returns the catalog size.
func assertOneMemoryEntryPerBug(t *testing.T, db, origin string) int {
	t.Helper()
	bdb, err := checkpoint.OpenBoltDB(db, nil)
	require.NoError(t, err)
	defer bdb.Close()
	st, err := memory.NewBoltStore(bdb)
	require.NoError(t, err)
	qa, err := memory.NewQA(st, origin)
	require.NoError(t, err)
	bugs, err := qa.Bugs(context.Background(), "")
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, b := range bugs {
		assert.False(t, seen[b.Fingerprint], "one memory entry per fingerprint: %s %s", b.Kind, b.Page)
		seen[b.Fingerprint] = true
	}
	return len(bugs)
}

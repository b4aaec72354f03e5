package explore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser/browsertest"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/pgtest"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/agentgraph/agentgraph/memory"
	mempg "github.com/agentgraph/agentgraph/memory/postgres"
)

// TestShardedDemoRun runs a batch of two missions as two shards at once,
// sharing one PostgreSQL memory: shard 1/2 gets the main job's mission
// ("explore", 80 steps here) in the test binary's Chromium; shard 2/2 gets
// a shorter second mission (50 steps) and drives a Chromium that a
// Playwright browser server (run-server, started here) launched. Merged,
// the report holds every seeded bug either shard found, each cause once;
// the remote shard finds bugs that only the collector (console, 5xx bodies,
// timings) and the in-page oracles (axe-core, which the collector injects;
// XSS probes) see.
// Minimisation is off in the shards: it shortens specs and changes nothing
// about what is found. (That a sharded batch at the main job's budget
// finds what one run finds was measured once, at 200 steps, and is in the
// README; here the budget is cut to keep the suite short.)
func TestShardedDemoRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	dsn := pgtest.DSN(t)
	srv, err := browsertest.StartRunServer(ctx)
	require.NoError(t, err)
	defer func() { assert.NoError(t, srv.Stop()) }()

	first := mission.DefaultMission()
	first.Budget = 80
	missions := []mission.Mission{first,
		{ThreadID: "checkout", Prompt: "Sign in, create a project and go through its pages as a power user.", Budget: 80}}
	require.Equal(t, 1, mission.ShardOf("explore", 2))
	require.Equal(t, 2, mission.ShardOf("checkout", 2))
	root := t.TempDir()
	dirs := []string{filepath.Join(root, "shard-1"), filepath.Join(root, "shard-2")}
	results := make([]report.Result, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range 2 {
		shard, err := mission.ParseShard([]string{"1/2", "2/2"}[i])
		require.NoError(t, err)
		cfg := onDemo(t, Config{Missions: missions, Shard: shard, Budget: 200, ReportDir: dirs[i], DB: dsn, MinimizeReplays: -1})
		if i == 1 {
			cfg.BrowserWS = srv.Endpoint
		} else {
			cfg.Browser = testBrowser
		}
		wg.Go(func() { results[i], errs[i] = Run(ctx, cfg) })
	}
	wg.Wait()
	t.Logf("two shards in %s", time.Since(start).Round(time.Second))
	for i, r := range results {
		require.NoError(t, errs[i], "shard %d/2 (run-server output: %s)", i+1, srv.Output())
		require.Len(t, r.Missions, 1)
		require.Empty(t, r.Missions[0].Err)
		assert.Equal(t, []string{"1/2", "2/2"}[i], r.Shard)
	}
	local, remote := results[0], results[1]
	assert.Equal(t, "explore", local.Missions[0].Mission.ThreadID)
	assert.Equal(t, "checkout", remote.Missions[0].Mission.ThreadID)
	t.Logf("remote shard: %d steps, %d bugs, found %v", remote.Missions[0].Steps, remote.Bugs(), remote.Demo.Found)
	t.Logf("local shard: %d steps, %d bugs, found %v", local.Missions[0].Steps, local.Bugs(), local.Demo.Found)

	// Through the remote browser: the collector's oracles (console,
	// page errors, 5xx bodies, slow answers) and the in-page ones (axe-core,
	// which the collector injects; XSS probes) each find a seeded bug. Which
	// ones depends on where 80 steps lead, so the test asks for one of each
	// kind.
	sees := func(ids ...demoapp.BugID) bool {
		return slices.ContainsFunc(ids, func(id demoapp.BugID) bool { return slices.Contains(remote.Demo.Found, string(id)) })
	}
	assert.True(t, sees(demoapp.BugConsoleSettings, demoapp.BugConsoleListPage2, demoapp.BugPageErrorWizard, demoapp.Bug5xxSort, demoapp.BugSlowReports),
		"the collector's oracles through the remote browser: %v", remote.Demo.Found)
	assert.True(t, sees(demoapp.BugA11yIconButton, demoapp.BugA11ySettingsLabel, demoapp.BugXSSSearch, demoapp.BugXSSProjectName),
		"the in-page oracles through the remote browser: %v", remote.Demo.Found)

	out := filepath.Join(root, "merged")
	mres, err := report.MergeReports(out, dirs...)
	require.NoError(t, err)
	assert.Empty(t, mres.Warnings)
	var sum report.MergedSummary
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))

	// Every seeded bug a shard found, in the merged report, and nothing
	// else.
	var union []string
	for _, r := range results {
		for _, id := range r.Demo.Found {
			if !slices.Contains(union, id) {
				union = append(union, id)
			}
		}
	}
	t.Logf("merged shards found %d %v (%d causes, %d reports merged)", len(sum.Demo.Found), sum.Demo.Found, sum.Bugs, sum.Merged)
	assert.ElementsMatch(t, union, sum.Demo.Found)
	assert.GreaterOrEqual(t, len(sum.Demo.Found), 8, "two short missions find most seeded bugs")

	// Each cause once: distinct fingerprints, the reports of both shards
	// merged, about one report per seeded bug.
	fps := map[string]bool{}
	for _, c := range sum.Causes {
		assert.False(t, fps[c.Fingerprint], "cause %s twice", c.Fingerprint)
		fps[c.Fingerprint] = true
	}
	assert.Equal(t, remote.Bugs()+local.Bugs(), sum.Bugs+sum.Merged)
	assert.Positive(t, sum.Merged, "the two missions share causes")
	assert.LessOrEqual(t, sum.Bugs, len(sum.Demo.Found)+5, "about one report per seeded bug")

	// One shared memory: a cause both shards reported is new in exactly
	// one of them, and memory counts both.
	st, pool, err := mempg.Open(ctx, dsn)
	require.NoError(t, err)
	defer pool.Close()
	qa, err := memory.NewQA(st, demoapp.MemoryOrigin)
	require.NoError(t, err)
	newIn := map[string]int{}
	for _, r := range results {
		for _, b := range r.Missions[0].Bugs {
			if b.New {
				newIn[b.Fingerprint]++
			}
		}
	}
	for _, c := range sum.Causes {
		assert.Equal(t, 1, newIn[c.Fingerprint], "%s is new in exactly one shard", c.ID)
		e, err := qa.Bug(ctx, c.Fingerprint)
		if assert.NoError(t, err, "%s in memory", c.ID) {
			assert.Equal(t, len(c.Missions), e.SeenCount, "%s: memory saw it once per mission that reported it", c.ID)
		}
	}
	assertAppAddressesOnly(t, filepath.Join(out, "checkout"), remote.Missions[0].Target)
}

package explore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
	"github.com/agentgraph/agentgraph/internal/pgtest"
)

// testBrowser is the one Chromium of this test binary.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	if os.Getenv(testMCPServerEnv) == "1" {
		// Re-executed as the MCP server of TestModelPersonaMCPAndSkills.
		os.Exit(serveTestMCP())
	}
	browsertest.Main(m, browsertest.Launch, &testBrowser, func() {
		if demo.dir != "" {
			_ = os.RemoveAll(demo.dir)
		}
	}, func() {
		// The PostgreSQL cluster of the scale-out tests, if one started.
		if err := pgtest.StopShared(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	})
}

// demo is one explorer run on the demo app at the defaults of the main job
// (budget 200, minimisation on, memory in a bbolt file), shared by the
// tests that read its results: the costliest run of the package, made once.
var demo struct {
	once sync.Once
	dir  string
	res  Result
	err  error
}

// demoRun runs (once) and returns the shared demo app run and its report
// directory. The tests that use it only read it.
func demoRun(t *testing.T) (string, Result) {
	t.Helper()
	demo.once.Do(func() {
		dir, err := os.MkdirTemp("", "explore-demo-")
		if err != nil {
			demo.err = err
			return
		}
		demo.dir = dir
		ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
		defer cancel()
		start := time.Now()
		// The main job's defaults, but for minimisation's time bound: the
		// suite runs packages side by side, and under that load the
		// default 2 minutes ran out before the replays shortened the specs
		// the other tests read (a bound, not a wait: a quiet run takes
		// well under it).
		demo.res, demo.err = Run(ctx, Config{Budget: 200, ReportDir: dir, DB: filepath.Join(dir, "explorer.db"), Browser: testBrowser,
			MinimizeTime: 6 * time.Minute})
		t.Logf("the shared demo app run took %s", time.Since(start).Round(time.Second))
	})
	require.NoError(t, demo.err)
	require.Len(t, demo.res.Missions, 1)
	require.Empty(t, demo.res.Missions[0].Err)
	return demo.dir, demo.res
}

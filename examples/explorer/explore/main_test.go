package explore

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/pgtest"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
)

// testBrowser is the one Chromium of this test binary.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	if os.Getenv(testMCPServerEnv) == "1" {
		// Re-executed as the MCP server of TestModelPersonaMCPAndSkills.
		os.Exit(serveTestMCP())
	}
	flag.Parse()
	launch := func(ctx context.Context) (*browser.Browser, error) {
		b, err := browsertest.Launch(ctx)
		if err == nil && flag.Lookup("test.run").Value.String() == "" {
			// The whole package runs: the shared demo run starts now, in
			// the background, beside the tests that do not need it
			// (it mostly waits on the browser and the app).
			demo.start(b)
		}
		return b, err
	}
	browsertest.Main(m, launch, &testBrowser, func() {
		demo.stop()
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
// A whole-package run starts it in the background as the browser comes up;
// otherwise the first test that needs it runs it.
var demo demoShared

// demoReaders runs the tests that read the shared run one at a time.
var demoReaders sync.Mutex

type demoShared struct {
	once   sync.Once
	done   chan struct{}
	cancel context.CancelFunc
	dir    string
	res    report.Result
	took   time.Duration
	err    error
}

// start begins the run (once) in the background with browser b.
func (d *demoShared) start(b *browser.Browser) {
	d.once.Do(func() {
		d.done = make(chan struct{})
		ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
		d.cancel = cancel
		go func() {
			defer close(d.done)
			defer cancel()
			d.run(ctx, b)
		}()
	})
}

// stop cancels a run still going (the tests ended without it) and waits
// for it.
func (d *demoShared) stop() {
	if d.done == nil {
		return
	}
	d.cancel()
	<-d.done
}

func (d *demoShared) run(ctx context.Context, b *browser.Browser) {
	dir, err := os.MkdirTemp("", "explore-demo-")
	if err != nil {
		d.err = err
		return
	}
	d.dir = dir
	start := time.Now()
	// The main job's defaults, but for minimisation's time bound: the
	// suite runs packages side by side, and under that load the default
	// 2 minutes ran out before the replays shortened the specs the other
	// tests read (a bound, not a wait: a quiet run takes well under it).
	app, err := demoapp.StartFixture(nil)
	if err != nil {
		d.err = err
		return
	}
	defer func() { _ = app.Close() }()
	d.res, d.err = Run(ctx, withDemo(Config{Budget: 200, ReportDir: dir, DB: filepath.Join(dir, "explorer.db"), Browser: b,
		MinimizeTime: 6 * time.Minute}, app))
	d.took = time.Since(start)
}

// demoRun returns the shared demo app run and its report directory,
// waiting for it (or running it) first. The tests that use it only read it.
// They are parallel tests, so that they run once every other test of the
// package has (beside the background run, instead of idly waiting for it),
// and one at a time (demoReaders): two of them run specs.
func demoRun(t *testing.T) (string, report.Result) {
	t.Helper()
	t.Parallel()
	demoReaders.Lock()
	t.Cleanup(demoReaders.Unlock)
	demo.start(testBrowser)
	<-demo.done
	t.Logf("the shared demo app run took %s", demo.took.Round(time.Second))
	require.NoError(t, demo.err)
	require.Len(t, demo.res.Missions, 1)
	require.Empty(t, demo.res.Missions[0].Err)
	return demo.dir, demo.res
}

package explore

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
)

// onDemo points cfg at a demo app served for the test (the bugs named in
// off turned off), as the explorer's command does without --target.
func onDemo(t testing.TB, cfg Config, off ...string) Config {
	t.Helper()
	f, err := demoapp.StartFixture(off)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return withDemo(cfg, f)
}

// withDemo is cfg pointed at the demo app f: its origin, its seeded bugs
// for the score, a fresh copy per replay, and the demo's memory origin.
func withDemo(cfg Config, f *demoapp.Fixture) Config {
	cfg.Target, cfg.MemoryOrigin = f.URL, demoapp.MemoryOrigin
	cfg.Seeded = &report.Seeded{IDs: f.Seeded, Find: f.Find}
	cfg.ReplayTarget = f.Fresh
	return cfg
}

package explore

import (
	"context"
	"strings"

	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/clip"
)

// TB is the part of testing.TB the harness helper uses.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
}

// Check runs the missions of cfg from a go test harness: start your app
// (httptest.NewServer), set cfg.Target to its URL and call Check. It logs
// the final table and reports an error on tb for every bug that failOn
// counts (new ones by default), naming its kind, page, evidence and the
// reproduction spec. A run that cannot start is an error too.
//
//	func TestExploreMyApp(t *testing.T) {
//		srv := httptest.NewServer(myapp.Handler())
//		defer srv.Close()
//		explore.Check(t, context.Background(), explore.Config{Target: srv.URL, ReportDir: t.TempDir()}, explore.FailOnNew)
//	}
func Check(tb TB, ctx context.Context, cfg Config, failOn FailOn) report.Result {
	tb.Helper()
	res, err := Run(ctx, cfg)
	var table strings.Builder
	report.PrintTable(&table, res)
	tb.Logf("explorer:\n%s", table.String())
	if err != nil {
		tb.Errorf("explorer: %v", err)
		return res
	}
	for _, m := range res.Missions {
		if m.Err != "" {
			tb.Errorf("explorer: mission %s: %s", m.Mission.ThreadID, m.Err)
		}
		for _, b := range m.Bugs {
			if failOn == FailOnNone || failOn == FailOnNew && !b.New {
				continue
			}
			tb.Errorf("explorer: %s: %s (%s) at %s\n  evidence: %s\n  reproduction: %s", m.Mission.ThreadID, b.Title, b.Kind, b.URL, clip.String(b.Evidence, 300), b.Spec)
		}
	}
	return res
}

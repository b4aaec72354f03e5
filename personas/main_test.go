package personas

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/stretchr/testify/require"
)

// testBrowser is the one Chromium shared by every test of this binary.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	browsertest.Main(m, browsertest.Launch, &testBrowser)
}

// rig is one fixture app behind the page-health collector, with an engine
// scoped to the collector.
type rig struct {
	app, front *httptest.Server
	collector  *collector.Collector
	engine     *browser.Engine
	page       *browser.Session
}

// newRig serves h, behind a collector when collected, and opens a browser
// user.
func newRig(t *testing.T, h http.Handler, collected bool) *rig {
	t.Helper()
	r := &rig{app: httptest.NewServer(h)}
	t.Cleanup(r.app.Close)
	origin := r.app.URL
	if collected {
		c, err := collector.New(r.app.URL, 0, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		r.collector = c
		r.front = httptest.NewServer(c)
		t.Cleanup(r.front.Close)
		origin = r.front.URL
	}
	e, err := testBrowser.NewEngine(browser.Config{Origins: []string{origin}, SettleTimeout: 2 * time.Second, SpinnerTimeout: time.Second, ActionTimeout: 3 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	r.engine = e
	s, err := e.User(context.Background(), "tester")
	require.NoError(t, err)
	r.page = s
	return r
}

func (r *rig) origin() string {
	if r.front != nil {
		return r.front.URL
	}
	return r.app.URL
}

// run runs persona p on the rig.
func (r *rig) run(t *testing.T, p Persona, start string, steps int, seed uint64, oc OracleConfig) Report {
	t.Helper()
	rep, err := Run(context.Background(), r.page, p, RunOptions{
		Start: r.origin() + start, Steps: steps, Seed: seed, Collector: r.collector, // nil without one
		Oracles: DefaultOracles(oc), ScreenshotDir: t.TempDir(), Window: r.engine.Window(),
	})
	require.NoError(t, err)
	return rep
}

func html(w http.ResponseWriter, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title></head><body><main>%s</main></body></html>`, title, body)
}

func page(title, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { html(w, title, body) }
}

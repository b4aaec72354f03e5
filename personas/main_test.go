package personas

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
	"github.com/stretchr/testify/require"
)

// testBrowser is the one Chromium shared by every test of this binary.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	browsertest.Main(m, browsertest.Launch, &testBrowser)
}

// rig is one fixture app behind a probe, with an engine scoped to the probe.
type rig struct {
	app, front *httptest.Server
	probe      *Probe
	engine     *browser.Engine
	page       *browser.Session
}

// newRig serves h, behind a probe when withProbe, and opens a browser user.
func newRig(t *testing.T, h http.Handler, withProbe bool) *rig {
	t.Helper()
	r := &rig{app: httptest.NewServer(h)}
	t.Cleanup(r.app.Close)
	origin := r.app.URL
	if withProbe {
		p, err := NewProbe(r.app.URL, ProbeOptions{})
		require.NoError(t, err)
		r.probe = p
		r.front = httptest.NewServer(p)
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
		Start: r.origin() + start, Steps: steps, Seed: seed, Probe: r.probe,
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

package explore

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
)

// The collector's accessibility oracle is axe-core in the page: serious and
// critical violations come back once per element with the rule id, and an
// XSS probe of ours that rendered is left to the XSS finding. Content added
// later is scanned when the page stops changing.
func TestCollectorAxe(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><title>Form</title></head><body><main>
<h1>Settings</h1>
<label for="name">Name</label><input id="name" data-testid="name">
<input id="tz" data-testid="tz">
<button type="button" data-testid="icon"><img src="data:," alt=""></button>
<button type="button">Save</button>
<p>` + XSSPayload + `</p>
<script>setTimeout(() => { const i = document.createElement('input'); i.dataset.testid = 'late'; document.querySelector('main').append(i); }, 800);</script>
</main></body></html>`))
	}))
	defer app.Close()
	col, err := newCollector(app.URL, 3*time.Second, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: col, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer func() { _ = hs.Close() }()
	origin := "http://" + ln.Addr().String()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng, err := testBrowser.NewEngine(browser.Config{Origins: []string{origin}})
	require.NoError(t, err)
	defer func() { _ = eng.Close() }()
	s, err := eng.User(ctx, "axe")
	require.NoError(t, err)
	res := s.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: origin + "/"})
	require.True(t, res.OK, res.Error)
	raw := res.Findings
	// axe-core runs at load, and again once the page stops changing.
	deadline := time.Now().Add(10 * time.Second)
	var a11y []browser.Finding
	for time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
		raw = append(raw, s.TakeFindings()...)
		a11y = slices.DeleteFunc(pageFindings(slices.Clone(raw)), func(f browser.Finding) bool { return f.Kind != FindA11y })
		if len(a11y) >= 3 {
			break
		}
	}
	time.Sleep(700 * time.Millisecond)
	raw = append(raw, s.TakeFindings()...)
	a11y = slices.DeleteFunc(pageFindings(raw), func(f browser.Finding) bool { return f.Kind != FindA11y })
	var rules []string
	for _, f := range a11y {
		switch {
		case reRule.MatchString(f.Message):
			rules = append(rules, reRule.FindStringSubmatch(f.Message)[1]+" "+cssFor(f.Evidence))
		default:
			t.Errorf("a11y finding without a rule id: %+v", f)
		}
		assert.NotContains(t, f.Evidence, "__agxss", "our own probe is the XSS finding's")
	}
	slices.Sort(rules)
	// The field added later is scanned once the page stops changing.
	assert.Equal(t, []string{`button-name button[data-testid="icon"]`, `label input[data-testid="late"]`, `label input[data-testid="tz"]`}, rules, "each violation once: %v", a11y)
}

package browser_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
)

// TestHostileTapeSpecRunsNoPayload records a session on a page whose test
// ids, texts and typed values are code that would write a file (quotes,
// backticks, ${}, */, a backslash before a quote, a newline), reads the tape
// back, translates it and runs the spec with `npx playwright test`. The
// spec replays every step and passes, and no payload file exists; a control
// spec that runs the same code does write its file, so the check can fail.
func TestHostileTapeSpecRunsNoPayload(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, browsertest.SpecDir(dir))
	payload := func(i int) string {
		p := filepath.Join(dir, fmt.Sprintf("pwned-%d", i))
		return []string{
			`x'); require('fs').writeFileSync('` + p + `', 'x'); ('`,
			`x"); require("fs").writeFileSync("` + p + `", "x"); ("`,
			"x`); ${require('fs').writeFileSync('" + p + "', 'x')} `",
			`x */ require('fs').writeFileSync('` + p + `', 'x'); /*`,
			`x\'); require('fs').writeFileSync('` + p + `', 'x'); ('`,
			"x\n require('fs').writeFileSync('" + p + "', 'x'); //",
		}[i]
	}
	const n = 6
	mux := http.NewServeMux()
	mux.HandleFunc("/p", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString(`<!doctype html><html><head><title>Hostile</title></head><body><input id="q" aria-label="Query"><p id="out"></p>`)
		for i := range n {
			fmt.Fprintf(&b, `<button data-testid="%s" onclick="document.getElementById('out').textContent = this.dataset.testid">Go %d</button>`, html.EscapeString(payload(i)), i)
		}
		b.WriteString(`</body></html>`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, b.String())
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	tapePath := filepath.Join(dir, "tape.jsonl")
	tape, err := browser.OpenTape(tapePath)
	require.NoError(t, err)
	eng, err := browser.SharedTestBrowser(t).NewEngine(browser.Config{Origins: []string{srv.URL}, Tape: tape, ActionTimeout: 3 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close() })
	ctx := context.Background()
	s, err := eng.User(ctx, "mallory")
	require.NoError(t, err)
	do := func(in browser.Intent) {
		t.Helper()
		res := s.Do(ctx, in)
		require.True(t, res.OK, "%s: %s", in.JSON(), res.Error)
	}
	for i := range n {
		p := payload(i)
		do(browser.Intent{Action: browser.ActNavigate, URL: "/p?q=" + url.QueryEscape(p)})
		do(browser.Intent{Action: browser.ActFill, Target: "#q", Value: &p})
		do(browser.Intent{Action: browser.ActPress, Target: "#q", Key: "End"})
		if !strings.Contains(p, "\n") { // a test id target is one line
			do(browser.Intent{Action: browser.ActClick, Target: "testid=" + p})
			do(browser.Intent{Action: browser.ActWaitFor, Text: p})
		}
	}
	require.NoError(t, tape.Close())

	ents, rep, err := browser.ReadTapeFile(tapePath)
	require.NoError(t, err)
	require.Empty(t, rep.Invalid)
	src, err := browser.Translate([]browser.Reproduction{{Name: payload(0), Entries: ents}}, browser.SpecOptions{BaseURL: srv.URL})
	require.NoError(t, err)
	require.Contains(t, src, "getByTestId(")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hostile.spec.ts"), []byte(src), 0o644))
	control := filepath.Join(dir, "control")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "control.spec.ts"), []byte(
		"import { test } from '@playwright/test';\ntest('control', async () => { require('fs').writeFileSync('"+control+"', 'x'); });\n"), 0o644))

	rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	outs, out, err := browsertest.RunSpecs(rctx, dir, []string{"AGENTGRAPH_BASE_URL=" + srv.URL})
	require.NoError(t, err, out)
	require.Len(t, outs, 2, out)
	for _, o := range outs {
		assert.Equal(t, "expected", o.Status, "%s: %v\n%s", o.Title, o.Errors, src)
	}
	assert.FileExists(t, control, "the control spec runs its code, so the check below can fail")
	for i := range n {
		assert.NoFileExists(t, filepath.Join(dir, fmt.Sprintf("pwned-%d", i)), "payload %d ran:\n%s", i, src)
	}
}

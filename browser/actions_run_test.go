package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
)

// actionsHTML has one control per action; each writes a line to #log.
const actionsHTML = `<!doctype html><html><head><title>Actions</title></head><body>
<div id="dbl" ondblclick="out('double clicked')">Double me</div>
<input id="focusme" aria-label="Focus me" onfocus="out('focused')">
<label><input type="checkbox" id="agree" onchange="out(this.checked ? 'box on' : 'box off')"> I agree</label>
<input id="keys" aria-label="Keys" onkeydown="out('key ' + event.key)">
<div data-testid="card" draggable="true" ondragstart="event.dataTransfer.setData('text/plain', 'card 7')">Card</div>
<div data-testid="bin" style="width:200px;height:60px;border:1px solid" ondragover="event.preventDefault()" ondrop="event.preventDefault(); out('dropped ' + event.dataTransfer.getData('text/plain'))">Bin</div>
<input type="file" id="up" aria-label="Upload" onchange="const f = this.files[0]; f.text().then((t) => out('file ' + f.name + ' ' + f.type + ' ' + t.trim()))">
<div id="log"></div>
<script>function out(s) { const p = document.createElement('p'); p.textContent = s; document.getElementById('log').appendChild(p); }</script>
</body></html>`

// TestNewActionsInChromium runs dblclick, focus, check, uncheck, press on
// an element (Escape, ArrowDown, Tab), drag and set_input_files as JSON
// intents on a page where each leaves a line in a log, checks the lines
// and the recorded locators, then translates the tape and runs the spec
// with `npx playwright test`: the replay produces the same lines.
func TestNewActionsInChromium(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, actionsHTML)
	})
	srv, dir, tapePath, tape, s, run := tapedUser(t, mux)
	ctx := context.Background()
	waitFor := func(text string) {
		t.Helper()
		run(fmt.Sprintf(`{"action":"wait_for","text":%q,"timeout_ms":3000}`, text))
	}
	run(fmt.Sprintf(`{"action":"navigate","url":%q}`, srv.URL+"/"))
	snap, err := s.Snapshot(ctx)
	require.NoError(t, err)
	agree := regexp.MustCompile(`checkbox "I agree" \[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)
	require.NotNil(t, agree, snap.Text)

	r := run(`{"action":"dblclick","target":"#dbl"}`)
	assert.Equal(t, "getByText('Double me')", r.Locator, "recorded as Playwright's own locator")
	waitFor("double clicked")
	run(`{"action":"focus","target":"label=Focus me"}`)
	waitFor("focused")
	r = run(fmt.Sprintf(`{"action":"check","target":%q}`, agree[1]))
	assert.Equal(t, "getByRole('checkbox', { name: 'I agree' })", r.Locator)
	waitFor("box on")
	run(`{"action":"check","target":"label=I agree"}`) // already ticked: no change
	run(`{"action":"uncheck","target":"label=I agree"}`)
	waitFor("box off")
	for _, k := range []string{"Escape", "ArrowDown", "Tab"} {
		run(fmt.Sprintf(`{"action":"press","target":"label=Keys","key":%q}`, k))
		waitFor("key " + k)
	}
	r = run(`{"action":"drag","target":"testid=card","to":"testid=bin"}`)
	assert.Equal(t, "getByTestId('card')", r.Locator)
	assert.Equal(t, "getByTestId('bin')", r.DropLocator)
	waitFor("dropped card 7")
	r = run(`{"action":"set_input_files","target":"label=Upload","file_name":"notes.csv","file_content":"a,b"}`)
	assert.Contains(t, r.Output, "notes.csv (text/csv, 3 bytes)")
	waitFor("file notes.csv text/csv a,b")

	log := run(`{"action":"extract_text","target":"#log"}`).Output
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	assert.Equal(t, []string{"double clicked", "focused", "box on", "box off", "key Escape", "key ArrowDown", "key Tab", "dropped card 7", "file notes.csv text/csv a,b"}, lines)
	require.NoError(t, tape.Close())

	ents, _, err := browser.ReadTapeFile(tapePath)
	require.NoError(t, err)
	src, err := browser.Translate([]browser.Reproduction{{Name: "every new action", Entries: ents}}, browser.SpecOptions{BaseURL: srv.URL})
	require.NoError(t, err)
	for _, m := range []string{".dblclick();", ".focus();", ".check();", ".uncheck();", ".press('Escape');", ".dragTo(page.getByTestId('bin'));", ".setInputFiles({ name: 'notes.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b') });"} {
		require.Contains(t, src, m)
	}
	require.NoError(t, browsertest.SpecDir(dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "actions.spec.ts"), []byte(src), 0o644))
	rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	outs, out, err := browsertest.RunSpecs(rctx, dir, []string{"AGENTGRAPH_BASE_URL=" + srv.URL})
	require.NoError(t, err, out)
	require.Len(t, outs, 1, out)
	assert.Equal(t, "expected", outs[0].Status, "%v\n%s", outs[0].Errors, src)
}

// TestClearSiteData: clear_site_data drops the context's cookies and the
// page's storage (the app sees no session on the next load) and goes on
// the tape as its own entry, which a spec replays as clearCookies and
// cleared storage.
func TestClearSiteData(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		session := "none"
		if c, err := r.Cookie("sid"); err == nil {
			session = c.Value
		} else {
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s1", Path: "/"})
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Who</title><p id="who">server saw %s; stored <span id="st"></span></p>
<script>document.getElementById('st').textContent = String(localStorage.getItem('k')); localStorage.setItem('k', 'v');</script>`, session)
	})
	srv, _, tapePath, tape, _, run := tapedUser(t, mux)
	who := func() string { return run(`{"action":"extract_text","target":"#who"}`).Output }
	run(fmt.Sprintf(`{"action":"navigate","url":%q}`, srv.URL+"/"))
	run(`{"action":"reload"}`)
	assert.Equal(t, "server saw s1; stored v", who(), "a session and storage before")
	assert.Equal(t, "cookies and storage cleared", run(`{"action":"clear_site_data"}`).Output)
	run(`{"action":"reload"}`)
	assert.Equal(t, "server saw none; stored null", who(), "neither after")
	require.NoError(t, tape.Close())

	ents, _, err := browser.ReadTapeFile(tapePath)
	require.NoError(t, err)
	require.True(t, slicesContainsAction(ents, browser.ActClearSiteData))
	src, err := browser.Translate([]browser.Reproduction{{Name: "session dropped", Entries: ents}}, browser.SpecOptions{BaseURL: srv.URL})
	require.NoError(t, err)
	assert.Contains(t, src, "await page.context().clearCookies();")
	assert.Contains(t, src, "localStorage.clear(); sessionStorage.clear();")
}

func slicesContainsAction(es []browser.Entry, a browser.Action) bool {
	for _, e := range es {
		if e.Action == a {
			return true
		}
	}
	return false
}

// tapedUser serves mux and gives a user of an engine on it that records
// to a tape in a temporary directory, and run, which does an intent and
// requires it to succeed.
func tapedUser(t *testing.T, mux http.Handler) (*httptest.Server, string, string, *browser.Tape, *browser.Session, func(string) browser.Result) {
	t.Helper()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	tapePath := filepath.Join(dir, "tape.jsonl")
	tape, err := browser.OpenTape(tapePath)
	require.NoError(t, err)
	eng, err := browser.SharedTestBrowser(t).NewEngine(browser.Config{Origins: []string{srv.URL}, Tape: tape, ActionTimeout: 3 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close() })
	s, err := eng.User(context.Background(), "ada")
	require.NoError(t, err)
	run := func(intent string) browser.Result {
		t.Helper()
		r := s.Run(context.Background(), json.RawMessage(intent))
		require.True(t, r.OK, "%s: %s", intent, r.Error)
		return r
	}
	return srv, dir, tapePath, tape, s, run
}

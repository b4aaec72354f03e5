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

// idiomHTML has one control per idiom a snapshot must not miss; acting on
// each appends to #log.
const idiomHTML = `<!doctype html><html><head><title>Idioms</title><style>.row .del{display:none}.row:hover .del{display:inline} .fw .tip{display:none} .fw:focus-within .tip{display:inline} .vrow .pin{visibility:hidden} .vrow:hover .pin{visibility:visible}</style></head><body>
<p id="log"></p>
<div id="h1" onclick="out('div onclick')">Div with onclick</div>
<span id="h2">Span with listener</span>
<div id="h3" ondblclick="out('dbl')">Double div</div>
<div role="button" tabindex="0" onclick="out('role button')">Role button</div>
<span role="link" onclick="out('role link')">Role link</span>
<div role="checkbox" aria-checked="false" onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') === 'true' ? 'false' : 'true'); out('role checkbox')">Role checkbox</div>
<div role="switch" aria-checked="true">Role switch</div>
<div role="tab">Role tab</div>
<div contenteditable="true" id="ce" aria-label="Notes" oninput="out('ce ' + this.textContent)"></div>
<div id="ce2" contenteditable>Edit me</div>
<a href="#" onclick="out('hash link'); return false">Hash link</a>
<host-el></host-el>
<iframe name="inner" srcdoc="<div onclick=&quot;parent.out('frame div')&quot;>Frame div</div><button onclick=&quot;parent.out('frame button')&quot;>Frame button</button><input aria-label='Frame field' oninput=&quot;parent.out('frame '+this.value)&quot;>"></iframe>
<ul><li class="row">Row 1 <button class="del" onclick="out('row delete')">Delete</button></li></ul>
<div class="fw"><input aria-label="Focus field"><button class="tip" onclick="out('tip')">Clear</button></div>
<label>Email <input type="email"></label> <label>Birthday <input type="date"></label> <label>Upload <input type="file"></label>
<label>Title <input required maxlength="80"></label> <label>Story <textarea></textarea></label> <label>Copies <input type="number" min="1" max="50"></label>
<select aria-label="Plan" onchange="out('plan ' + this.value)"><option>Free</option><option>Pro</option></select>
<ul role="listbox" aria-label="Colour"><li role="option" aria-selected="false" onclick="out('colour red')">Red</li><li role="option" aria-selected="false" onclick="out('colour blue')">Blue</li></ul>
<main><ul><li class="vrow">Row 2 <button class="pin" onclick="out('row pin')">Pin</button></li></ul><div id="m1" onclick="out('main div')">Main div</div></main>
<script>
function out(s) { document.getElementById('log').textContent += s + ';'; }
document.getElementById('h2').addEventListener('click', () => out('span listener'));
customElements.define('host-el', class extends HTMLElement { connectedCallback() { const r = this.attachShadow({mode: 'open'}); r.innerHTML = '<span id=sp>Shadow span</span><button>Shadow button</button><input aria-label="Shadow field">'; r.querySelector('button').onclick = () => out('shadow button'); r.querySelector('#sp').addEventListener('click', () => out('shadow span')); } });
</script></body></html>`

// TestSnapshotFindsEveryIdiom: on a page with script-only controls
// (onclick, addEventListener, ondblclick), ARIA widgets, contenteditable,
// <a href="#">, an open shadow root, a same-origin iframe, a hover-revealed
// and a focus-revealed control a select and a custom listbox, every control has a ref whose
// line says its kind, acting through each ref works (the log shows it), and
// the recorded tape replays as a spec under `npx playwright test` with the
// same log.
func TestSnapshotFindsEveryIdiom(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, idiomHTML)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	eng, err := browser.SharedTestBrowser(t).NewEngine(browser.Config{Origins: []string{srv.URL}, ActionTimeout: 3 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close() })
	ctx := context.Background()
	s, err := eng.User(ctx, "ida")
	require.NoError(t, err)
	run := func(intent string) browser.Result {
		t.Helper()
		r := s.Run(ctx, json.RawMessage(intent))
		require.True(t, r.OK, "%s: %s", intent, r.Error)
		return r
	}
	run(fmt.Sprintf(`{"action":"navigate","url":%q}`, srv.URL+"/"))
	snap, err := s.Snapshot(ctx)
	require.NoError(t, err)
	refOf := func(line string) string {
		t.Helper()
		m := regexp.MustCompile(regexp.QuoteMeta(line) + `.*?\[ref=((?:f\d+)?e\d+|[hx]\d+)\]`).FindStringSubmatch(snap.Text)
		require.NotNil(t, m, "no ref for %q in:\n%s", line, snap.Text)
		return m[1]
	}
	kind := func(pattern string) {
		t.Helper()
		assert.Regexp(t, regexp.MustCompile(`(?m)^\s*`+pattern+`$`), snap.Text)
	}
	kind(`- clickable "Div with onclick" \[ref=x\d+\] \(handler only: click\)`)
	kind(`- clickable "Span with listener" \[ref=x\d+\] \(handler only: click\)`)
	kind(`- clickable "Double div" \[ref=x\d+\] \(handler only: dblclick\)`)
	kind(`- textbox "Notes" \[ref=x\d+\] \(contenteditable\)`)
	kind(`- textbox "Edit me" \[ref=x\d+\] \(contenteditable\)`)
	kind(`- clickable "Shadow span" \[ref=x\d+\] \(handler only: click; in shadow root\)`)
	kind(`- clickable "Frame div" \[ref=x\d+\] \(handler only: click; in frame iframe\[name="inner"\]\)`)
	kind(`- button "Delete" \[ref=h\d+\] \(hover "Row 1"\)`)
	kind(`- button "Clear" \[ref=h\d+\] \(focus "Focus field" first\)`)
	// In the main landmark, the supplements say so; a hidden control is
	// named by its text.
	kind(`- button "Pin" \[ref=h\d+\] \(hover "Row 2"; in main\)`)
	kind(`- clickable "Main div" \[ref=x\d+\] \(handler only: click; in main\)`)
	kind(`- checkbox "Role checkbox" \[ref=e\d+\]`)
	kind(`- switch "Role switch" \[checked\] \[ref=e\d+\]`)
	kind(`- tab "Role tab" \[ref=e\d+\]`)
	kind(`- link "Hash link" \[ref=e\d+\] → #`)
	kind(`- combobox "Plan" \[ref=e\d+\]:`)
	kind(`- option "Pro"`) // a native select's option: no ref, its select takes it
	// A listbox of the page's own making: each option is an element.
	kind(`- listbox "Colour" \[ref=e\d+\]:`)
	kind(`- option "Red" \[ref=e\d+\]`)
	kind(`- button "Frame button" \[ref=f\d+e\d+\]`)
	kind(`- button "Shadow button" \[ref=e\d+\] \(in shadow root\)`)
	kind(`- textbox "Shadow field" \[ref=e\d+\] \(in shadow root\)`)
	kind(`- textbox "Email" \[ref=e\d+\] \(type=email\)`)
	kind(`- textbox "Birthday" \[ref=e\d+\] \(type=date\)`)
	kind(`- textbox "Title" \[ref=e\d+\] \(required; maxlength=80\)`)
	kind(`- spinbutton "Copies" \[ref=e\d+\] \(min=1; max=50\)`)
	kind(`- textbox "Story" \[ref=e\d+\] \(multiline\)`)
	kind(`- button "Upload" \[ref=e\d+\] \(file input\)`)
	assert.Equal(t, 8, snap.Actionable)

	steps := []struct{ action, line, extra, logs string }{
		{"click", `clickable "Div with onclick"`, "", "div onclick;"},
		{"click", `clickable "Span with listener"`, "", "span listener;"},
		{"dblclick", `clickable "Double div"`, "", "dbl;"},
		{"click", `button "Role button"`, "", "role button;"},
		{"click", `link "Role link"`, "", "role link;"},
		{"click", `checkbox "Role checkbox"`, "", "role checkbox;"},
		{"fill", `textbox "Notes"`, `,"value":"hello"`, "ce hello;"},
		{"click", `link "Hash link"`, "", "hash link;"},
		{"click", `button "Shadow button"`, "", "shadow button;"},
		{"click", `clickable "Shadow span"`, "", "shadow span;"},
		{"click", `button "Frame button"`, "", "frame button;"},
		{"fill", `textbox "Frame field"`, `,"value":"abc"`, "frame abc;"},
		{"click", `clickable "Frame div"`, "", "frame div;"},
		{"click", `button "Delete"`, "", "row delete;"},
		{"click", `button "Clear"`, "", "tip;"},
		{"click", `button "Pin"`, "", "row pin;"},
		{"click", `clickable "Main div"`, "", "main div;"},
		{"select_option", `combobox "Plan"`, `,"value":"Pro"`, "plan Pro;"},
		{"click", `option "Red"`, "", "colour red;"},
	}
	refs := map[string]string{}
	for _, st := range steps {
		refs[st.line] = refOf(st.line)
	}
	want := ""
	for _, st := range steps {
		r := run(fmt.Sprintf(`{"action":%q,"target":%q%s}`, st.action, refs[st.line], st.extra))
		want += st.logs
		assert.NotContains(t, r.Locator, "data-ag-", "%s: the recorded locator replays without the engine's marks", st.line)
		got := run(`{"action":"extract_text","target":"#log"}`).Output
		require.Equal(t, want, strings.TrimSpace(got), "after %s %s (%s)", st.action, st.line, refs[st.line])
	}
	run(fmt.Sprintf(`{"action":"wait_for","text":%q}`, want))

	src, err := browser.Translate([]browser.Reproduction{{Name: "every idiom", Entries: eng.Window().Entries()}}, browser.SpecOptions{BaseURL: srv.URL})
	require.NoError(t, err)
	for _, m := range []string{".contentFrame().getByText('Frame div').click();", ".focus();\n  await page.getByRole('button', { name: 'Clear' }).click();", ".hover();\n  await page.getByRole('button', { name: 'Delete' }).click();"} {
		require.Contains(t, src, m)
	}
	dir := t.TempDir()
	require.NoError(t, browsertest.SpecDir(dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "idioms.spec.ts"), []byte(src), 0o644))
	rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	outs, out, err := browsertest.RunSpecs(rctx, dir, []string{"AGENTGRAPH_BASE_URL=" + srv.URL})
	require.NoError(t, err, out)
	require.Len(t, outs, 1, out)
	assert.Equal(t, "expected", outs[0].Status, "%v\n%s", outs[0].Errors, src)
}

package drive

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

// slowDelay is how long the fixture's slow report takes on the buggy build.
const slowDelay = 3300 * time.Millisecond

// fixtureApp is a hand-made app with one bug per signal; fixed turns them
// all off and keeps the same pages and controls. Its triggers use every op.
func fixtureApp(fixed bool) http.Handler {
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html lang=en><head><title>%s</title></head><body><main><h1>%s</h1>%s</main></body></html>", title, title, body)
	}
	bug := func(on, off string) string {
		if fixed {
			return off
		}
		return on
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Home", `<a href="/upload">Upload</a> <a href="/widgets">Widgets</a> <a href="/help-links">Help</a>`)
	})
	// page_error: a file picked in a same-origin iframe throws (set_file, Frame).
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Upload", `<iframe id="picker" src="/upload/frame" title="Picker"></iframe>`)
	})
	mux.HandleFunc("GET /upload/frame", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Picker", `<label>File <input type="file" id="file"></label><p id="out"></p><script>
document.getElementById('file').addEventListener('change', (e) => {
  const f = e.target.files[0];
  `+bug(`throw new Error('bf9-01: cannot parse ' + f.name);`, `document.getElementById('out').textContent = 'got ' + f.name;`)+`
});</script>`)
	})
	// console: hovering the help icon logs an error (reload, hover).
	// unhandled_rejection: focusing a field inside an open shadow root
	// rejects a promise (focus, shadow DOM).
	// dead_control: the export button does nothing (dead); so does the
	// row's unpin button, shown on hover (its click ends the trigger).
	mux.HandleFunc("GET /widgets", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Widgets", `<span id="help" tabindex="0">Help ?</span><p id="tip"></p>
<div id="host"></div>
<button id="export" data-bug="bf9-10">Export</button><p id="status"></p>
<style>.row .reveal{display:none} .row:hover .reveal{display:inline}</style>
<ul><li class="row" id="row-milk">Milk <button class="reveal" id="unpin-milk" data-bug="bf9-12">Unpin</button></li></ul>
<script>
document.getElementById('help').addEventListener('mouseenter', () => {
  `+bug(`console.error('bf9-02: tooltip text missing');`, `document.getElementById('tip').textContent = 'Hover help';`)+`
});
const root = document.getElementById('host').attachShadow({mode: 'open'});
root.innerHTML = '<label>Email <input id="email"></label><span id="hint"></span>';
root.getElementById('email').addEventListener('focus', () => {
  `+bug(`Promise.reject(new Error('bf9-03: hint service down'));`, `root.getElementById('hint').textContent = 'we never share it';`)+`
});
`+bug(``, `document.getElementById('export').addEventListener('click', () => { document.getElementById('status').textContent = 'Exported'; });
document.getElementById('unpin-milk').addEventListener('click', () => { document.getElementById('row-milk').remove(); });`)+`
</script>`)
	})
	// server_error: a quote in the search (fill, select, check, uncheck, press).
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		if !fixed && strings.Contains(q, "'") && r.URL.Query().Get("kind") == "b" && r.URL.Query().Get("agree") == "on" && r.URL.Query().Get("news") == "" {
			http.Error(w, "bf9-04: SQL syntax error near '"+q+"'", http.StatusInternalServerError)
			return
		}
		page(w, "Search", `<form action="/search"><label>Query <input id="q" name="q"></label>
<label>Kind <select id="kind" name="kind"><option value="a">A</option><option value="b">B</option></select></label>
<label><input type="checkbox" id="agree" name="agree"> Agree</label>
<label><input type="checkbox" id="news" name="news" checked> News</label><button>Go</button></form>
<p>Results for `+html.EscapeString(q)+`</p>`)
	})
	// broken_link: the help link answers 404 (click).
	mux.HandleFunc("GET /help-links", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Help", `<a id="guide" href="`+bug("/docs/guide-bf9-05", "/docs/guide")+`">Guide</a>`)
	})
	mux.HandleFunc("GET /docs/guide", func(w http.ResponseWriter, r *http.Request) { page(w, "Guide", `<p>The guide.</p>`) })
	// slow_response: the report answers after 3.3 s (click, wait).
	mux.HandleFunc("GET /reports", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Reports", `<button id="run">Run report</button><p id="rows"></p><script>
document.getElementById('run').onclick = async () => {
  const r = await fetch('/api/report');
  document.getElementById('rows').textContent = await r.text();
};</script>`)
	})
	mux.HandleFunc("GET /api/report", func(w http.ResponseWriter, r *http.Request) {
		if !fixed {
			w.Header().Set("X-Bugfarm-Bug", "bf9-06")
			t := time.NewTimer(slowDelay)
			defer t.Stop()
			select {
			case <-r.Context().Done():
				return
			case <-t.C:
			}
		}
		fmt.Fprint(w, "3 rows")
	})
	// reflected_xss: the query is echoed unescaped.
	mux.HandleFunc("GET /echo", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		shown := html.EscapeString(q)
		if !fixed {
			shown = q
		}
		page(w, "Echo", `<p class="echo" data-bug="bf9-07">You searched: `+shown+`</p>`)
	})
	// a11y: an unlabelled field (axe "label").
	mux.HandleFunc("GET /profile", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Profile", `<form><input id="nick" data-bug="bf9-08" `+bug(``, `aria-label="Nickname"`)+`></form>`)
	})
	// double_submit: a double click adds the row twice (dblclick, dom).
	mux.HandleFunc("GET /list", func(w http.ResponseWriter, r *http.Request) {
		page(w, "List", `<button id="add">Add row</button><ul id="rows"></ul><script>
let n = 0;
document.getElementById('add').addEventListener('click', (e) => {
  `+bug(``, `if (n > 0) return;`)+`
  n++;
  const li = document.createElement('li');
  li.textContent = 'Row';
  if (n > 1) { li.className = 'dup'; li.dataset.bug = 'bf9-09'; }
  document.getElementById('rows').appendChild(li);
});</script>`)
	})
	// session_loss: the account page fails once the session is gone
	// (clear_cookies).
	mux.HandleFunc("GET /signin", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s1", Path: "/"})
		page(w, "Signed in", `<a href="/account">Account</a>`)
	})
	mux.HandleFunc("GET /account", func(w http.ResponseWriter, r *http.Request) {
		if _, err := r.Cookie("sid"); err != nil {
			if !fixed {
				http.Error(w, "bf9-11: NullPointerException: session.user is null", http.StatusInternalServerError)
				return
			}
			http.Redirect(w, r, "/signin", http.StatusSeeOther)
			return
		}
		page(w, "Account", `<p>You</p>`)
	})
	return mux
}

// fixtureBugs are the fixture's bugs, one per signal.
func fixtureBugs() []bugfarm.Bug {
	return []bugfarm.Bug{
		{ID: "bf9-01", Class: bugfarm.ClassPageError, Page: "/upload", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/upload"},
			{Op: bugfarm.OpSetFile, Frame: "#picker", Selector: "#file", Value: "notes.csv"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalPageError}},
		{ID: "bf9-02", Class: bugfarm.ClassConsole, Page: "/widgets", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/widgets"},
			{Op: bugfarm.OpReload},
			{Op: bugfarm.OpHover, Selector: "#help"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalConsole}},
		{ID: "bf9-03", Class: bugfarm.ClassRejection, Page: "/widgets", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/widgets"},
			{Op: bugfarm.OpFocus, Selector: "#email"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalPageError}},
		{ID: "bf9-04", Class: bugfarm.ClassServerError, Input: bugfarm.InputQuote, Page: "/search", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/search"},
			{Op: bugfarm.OpFill, Selector: "#q", Value: "o'brien"},
			{Op: bugfarm.OpSelect, Selector: "#kind", Value: "b"},
			{Op: bugfarm.OpCheck, Selector: "#agree"},
			{Op: bugfarm.OpUncheck, Selector: "#news"},
			{Op: bugfarm.OpPress, Selector: "#q", Key: "Enter"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalResponse, Status: 500}},
		{ID: "bf9-05", Class: bugfarm.ClassBrokenLink, Page: "/help-links", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/help-links"},
			{Op: bugfarm.OpClick, Selector: "#guide"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalResponse, Status: 404}},
		{ID: "bf9-06", Class: bugfarm.ClassSlow, Page: "/reports", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/reports"},
			{Op: bugfarm.OpWait, Value: "50"},
			{Op: bugfarm.OpClick, Selector: "#run"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalSlow}},
		{ID: "bf9-07", Class: bugfarm.ClassReflected, Page: "/echo", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: `/echo?q=%3Cimg%20src%3Dx%20onerror%3D%22__bfxss(this)%22%3E`},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalScript}},
		{ID: "bf9-08", Class: bugfarm.ClassA11y, Page: "/profile", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/profile"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalAxe, Rule: "label"}},
		{ID: "bf9-09", Class: bugfarm.ClassDouble, Page: "/list", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/list"},
			{Op: bugfarm.OpDblClick, Selector: "#add"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalDOM, Selector: "li.dup"}},
		{ID: "bf9-10", Class: bugfarm.ClassDead, Page: "/widgets", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/widgets"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalDead, Selector: "#export"}},
		{ID: "bf9-12", Class: bugfarm.ClassDead, Page: "/widgets", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/widgets"},
			{Op: bugfarm.OpHover, Selector: "#row-milk"},
			{Op: bugfarm.OpClick, Selector: "#unpin-milk"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalDead, Selector: "#unpin-milk"}},
		{ID: "bf9-11", Class: bugfarm.ClassSession, Page: "/account", Trigger: []bugfarm.Step{
			{Op: bugfarm.OpGoto, Path: "/signin"},
			{Op: bugfarm.OpClearCookies},
			{Op: bugfarm.OpClick, Selector: "a[href='/account']"},
		}, Expect: bugfarm.Expect{Signal: bugfarm.SignalResponse, Status: 500}},
	}
}

package explore

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listAppPage is a single-page list app in a common idiom, written for
// this test (the explorer was not built beside it): an input in the
// header that adds an item on Enter (no button), items completed by a
// checkbox, filtered by hash routes, edited by double-clicking their text
// (Enter saves), deleted by a button shown only on hover. Every change is
// reported to /api/event, so the test sees what the explorer managed.
const listAppPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lists</title>
<style>
li .destroy{display:none} li:hover .destroy{display:inline} li.done span{text-decoration:line-through}
</style></head><body>
<header><h1>lists</h1><input id="new" aria-label="What needs doing?" placeholder="What needs doing?" autofocus></header>
<main><ul id="items"></ul>
<footer><span id="count"></span>
<a href="#/">All</a> <a href="#/active">Active</a> <a href="#/completed">Completed</a></footer></main>
<script>
let items = [{t: 'Water the plants', done: false}, {t: 'Read a book', done: true}];
const tell = (e) => fetch('/api/event?e=' + e, {method: 'POST'});
const filter = () => (location.hash.replace('#/', '') || 'all');
function render() {
  const ul = document.getElementById('items');
  ul.textContent = '';
  const f = filter();
  items.forEach((it, i) => {
    if (f === 'active' && it.done || f === 'completed' && !it.done) return;
    const li = document.createElement('li');
    if (it.done) li.className = 'done';
    const box = document.createElement('input');
    box.type = 'checkbox'; box.checked = it.done; box.setAttribute('aria-label', 'Toggle ' + it.t);
    box.addEventListener('change', () => { it.done = box.checked; tell(box.checked ? 'complete' : 'reopen'); render(); });
    const span = document.createElement('span');
    span.textContent = it.t;
    span.addEventListener('dblclick', () => {
      const ed = document.createElement('input');
      ed.value = it.t; ed.setAttribute('aria-label', 'Edit ' + it.t);
      ed.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' && ed.value.trim()) { it.t = ed.value.trim(); tell('edit'); render(); }
        if (ev.key === 'Escape') render();
      });
      li.replaceChild(ed, span); ed.focus();
    });
    const del = document.createElement('button');
    del.className = 'destroy'; del.textContent = 'Delete'; del.setAttribute('aria-label', 'Delete ' + it.t);
    del.addEventListener('click', () => { items.splice(i, 1); tell('delete'); render(); });
    li.append(box, ' ', span, ' ', del);
    ul.append(li);
  });
  document.getElementById('count').textContent = items.filter((x) => !x.done).length + ' left';
}
document.getElementById('new').addEventListener('keydown', (ev) => {
  const v = ev.target.value.trim();
  if (ev.key === 'Enter' && v) { items.push({t: v, done: false}); ev.target.value = ''; tell('add'); render(); }
});
addEventListener('hashchange', () => { tell('filter-' + filter()); render(); });
render();
</script></body></html>`

// The explorer adds, completes, filters, edits and deletes items of a
// single-page list app within its budget.
func TestExploreListApp(t *testing.T) {
	var mu sync.Mutex
	events := map[string]int{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(listAppPage))
	})
	mux.HandleFunc("POST /api/event", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		events[r.URL.Query().Get("e")]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	app := httptest.NewServer(mux)
	t.Cleanup(app.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{Target: app.URL, Budget: 80, ReportDir: t.TempDir(), Browser: testBrowser, MinimizeReplays: -1, JSCoverage: true,
		Missions: []mission.Mission{{ThreadID: "lists", Prompt: "Explore the list app"}}})
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d steps; events %v; coverage %+v", m.Steps, events, m.Coverage.Stats)
	for _, e := range []string{"add", "complete", "edit", "delete"} {
		assert.Positive(t, events[e], "the explorer never did %q: %v", e, events)
	}
	assert.Positive(t, events["filter-active"]+events["filter-completed"], "no filter used: %v", events)
	for _, b := range m.Bugs {
		t.Errorf("a correct app, yet: %s %s: %s", b.Kind, b.URL, clip.String(b.Evidence, 200))
	}
	require.NotNil(t, m.Coverage)
	assert.NotEmpty(t, m.Coverage.Stopped)
	assert.Positive(t, m.Coverage.Tried)

	// The app's script is inline: one entry, most of it run by a team
	// that added, completed, edited, filtered and deleted.
	js := m.Coverage.JS
	require.NotNil(t, js, "JavaScript coverage collected")
	t.Logf("javascript: %s", js)
	assert.Equal(t, 1, js.Scripts, "the page's inline script, the collector's own left out")
	assert.LessOrEqual(t, js.Executed, js.Bytes)
	assert.Greater(t, js.Percent, 50.0)
}

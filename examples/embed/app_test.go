package embed

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// maxNote is the longest note the notes app stores; a longer one fails
// its insert with HTTP 500 (the bug a long-text persona finds).
const maxNote = 100

// notesApp is a small app with three bugs: the start page's Export button
// throws an uncaught TypeError, its Reports link answers 500, and a note
// longer than maxNote characters answers 500. /about is a plain page.
func notesApp(t *testing.T) *httptest.Server {
	t.Helper()
	var (
		mu    sync.Mutex
		notes []string
	)
	page := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title></head>
<body><nav><a href="/">Home</a> <a href="/notes">Notes</a> <a href="/reports">Reports</a> <a href="/about">About</a></nav>
<main><h1>%s</h1>%s</main></body></html>`, title, title, body)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page(w, "Home", `<p>Welcome.</p><button type="button" id="export" onclick="exportAll()">Export</button>
<script>function exportAll() { const table = null; return table.rows.length; }</script>`)
	})
	mux.HandleFunc("GET /reports", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "internal error: reports query failed", http.StatusInternalServerError)
	})
	mux.HandleFunc("GET /about", func(w http.ResponseWriter, r *http.Request) {
		page(w, "About", `<p>A small notes app.</p>`)
	})
	mux.HandleFunc("GET /notes", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		var items strings.Builder
		for _, n := range notes {
			items.WriteString("<li>" + html.EscapeString(n) + "</li>")
		}
		mu.Unlock()
		page(w, "Notes", `<form method="post" action="/notes"><label for="note">Note</label> <input id="note" name="note" type="text">
<button type="submit">Save</button></form><ul>`+items.String()+`</ul>`)
	})
	mux.HandleFunc("POST /notes", func(w http.ResponseWriter, r *http.Request) {
		note := strings.TrimSpace(r.FormValue("note"))
		if len(note) > maxNote {
			http.Error(w, "internal error: value too long for column note", http.StatusInternalServerError)
			return
		}
		if note != "" {
			mu.Lock()
			notes = append(notes, note)
			mu.Unlock()
		}
		http.Redirect(w, r, "/notes", http.StatusSeeOther)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

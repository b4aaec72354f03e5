package bugfarm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	sessionCookie = "bf_session"
	maxBody       = 1 << 20
	maxQuery      = 200
)

// routes builds the app's handler.
func (s *site) routes() http.Handler {
	mux := http.NewServeMux()
	for _, pg := range s.pages {
		switch pg.Kind {
		case pHome:
			mux.HandleFunc("GET /{$}", s.page(pg, s.serveHome))
		case pList:
			mux.HandleFunc("GET "+pg.Path, s.page(pg, s.serveList))
			mux.HandleFunc("POST "+pg.Path+"/export", s.page(nil, s.serveExport))
		case pNew:
			mux.HandleFunc("GET "+pg.Path, s.page(pg, s.serveNew))
			mux.HandleFunc("POST "+pg.Path, s.page(nil, s.serveCreate))
		case pView:
			mux.HandleFunc("GET "+s.coll+"/{id}", s.page(pg, s.serveView))
			mux.HandleFunc("POST /api/records/{id}", s.page(nil, s.serveInlineSave))
		case pEdit:
			mux.HandleFunc("GET "+s.coll+"/{id}/edit", s.page(pg, s.serveEdit))
			mux.HandleFunc("POST "+s.coll+"/{id}/edit", s.page(nil, s.serveUpdate))
		case pSearch:
			mux.HandleFunc("GET "+pg.Path, s.page(pg, s.serveSearch))
		case pSignIn:
			mux.HandleFunc("GET /signin", s.serveSignIn)
			mux.HandleFunc("POST /signin", s.serveSignIn)
			mux.HandleFunc("POST /signout", s.serveSignOut)
		case pBoard:
			mux.HandleFunc("GET "+pg.Path, s.page(pg, s.serveSection))
			mux.HandleFunc("GET "+pg.Path+"/{view}", s.page(pg, s.serveBoardView))
		default:
			mux.HandleFunc("GET "+pg.Path, s.page(pg, s.serveSection))
		}
	}
	mux.HandleFunc("GET /api/{wid}", s.page(nil, s.serveAPI))
	mux.HandleFunc("GET /embed/{wid}", s.page(nil, s.serveEmbed))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /", s.serveNotFound)
	return mux
}

// page wraps a handler with the sign-in guard and the page's slow bug.
func (s *site) page(pg *page, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.creds != nil && !s.signedIn(r) {
			if pg != nil && pg.session.fires() != "" {
				s.fail(w, r, pg.session, fmt.Sprintf("Internal Server Error\n\nAttributeError: 'NoneType' object has no attribute 'display_name'\n  File \"app/views/%s.py\", line 41, in render\n    greeting = request.user.display_name\n[%s]\n", pg.Kind, pg.session.ID))
				return
			}
			if strings.HasPrefix(r.URL.Path, "/api/") {
				// 200, not 401: Chromium logs every 4xx load as a console
				// error, and the fixed build must have none
				writeJSON(w, http.StatusOK, map[string]string{"signin": "/signin", "invalid": "Your session has ended. Sign in again."})
				return
			}
			next := r.URL.RequestURI()
			if r.Method != http.MethodGet {
				next = r.URL.Path
			}
			http.Redirect(w, r, "/signin?next="+url.QueryEscape(next), http.StatusSeeOther)
			return
		}
		// only the page itself is slow (for the record page: record 1), so
		// the records other triggers create answer at once
		if pg != nil && pg.slow.fires() != "" && r.URL.Path == pg.Path {
			w.Header().Set(BugHeader, pg.slow.ID)
			if !s.sleep(r.Context()) {
				return
			}
		}
		h(w, r)
	}
}

// sleep waits the slow delay; false when the request went away first.
func (s *site) sleep(ctx context.Context) bool {
	t := time.NewTimer(s.opts.SlowDelay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// fail answers 500 for a server-side bug.
func (s *site) fail(w http.ResponseWriter, r *http.Request, p *placed, body string) {
	s.log.Warn("bugfarm: bug fired", "bug", p.ID, "class", p.Class, "method", r.Method, "path", r.URL.Path)
	w.Header().Set(BugHeader, p.ID)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte(body))
}

// problem answers a 4xx page with a message.
func (s *site) problem(w http.ResponseWriter, status int, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = s.tmpl.ExecuteTemplate(w, "plain", map[string]string{"Title": title, "Text": text})
}

func (s *site) signedIn(r *http.Request) bool {
	c, err := r.Cookie(sessionCookie)
	return err == nil && s.hasSession(c.Value)
}

func (s *site) serveNotFound(w http.ResponseWriter, r *http.Request) {
	for _, p := range s.bugs {
		if p.Class == ClassBrokenLink && p.fires() != "" && r.URL.Path == p.msg {
			w.Header().Set(BugHeader, p.ID)
		}
	}
	s.problem(w, http.StatusNotFound, "Page not found", "There is no page at "+r.URL.Path+".")
}

func (s *site) serveSignIn(w http.ResponseWriter, r *http.Request) {
	next := r.FormValue("next")
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || len(next) > 500 {
		next = "/"
	}
	data := map[string]string{"Next": next}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := r.ParseForm(); err != nil {
			s.problem(w, http.StatusBadRequest, "Bad request", "The form could not be read.")
			return
		}
		user, pass := r.PostFormValue("user"), r.PostFormValue("password")
		if user == s.creds.User && pass == s.creds.Password {
			http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: s.newSession(), Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		data["User"] = user
		data["Error"] = "Email or password is incorrect."
	}
	s.render(w, r, s.byKind[pSignIn], "Sign in", "signin", data, nil)
}

func (s *site) serveSignOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.endSession(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1})
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

// recordID reads the {id} path value.
func (s *site) recordID(w http.ResponseWriter, r *http.Request) (record, bool) {
	raw := r.PathValue("id")
	id, err := strconv.Atoi(raw)
	if err != nil || id < 1 {
		s.problem(w, http.StatusNotFound, "Not found", fmt.Sprintf("There is no %s %q.", s.one, raw))
		return record{}, false
	}
	rec, ok := s.recordByID(id)
	if !ok {
		s.problem(w, http.StatusNotFound, "Not found", fmt.Sprintf("There is no %s with id %d.", s.one, id))
	}
	return rec, ok
}

func (s *site) serveBoardView(w http.ResponseWriter, r *http.Request) {
	pg := s.byKind[pBoard]
	for _, o := range pg.Widgets[0].Options {
		if o.Value == r.PathValue("view") {
			s.serveSection(w, r)
			return
		}
	}
	s.problem(w, http.StatusNotFound, "Not found", "There is no such view.")
}

// widgetByID finds a widget of kind k.
func (s *site) widgetByID(id string, k wkind) *widget {
	for _, pg := range s.pages {
		for _, w := range pg.Widgets {
			if w.ID == id && w.Kind == k {
				return w
			}
		}
	}
	return nil
}

func (s *site) serveAPI(w http.ResponseWriter, r *http.Request) {
	wd := s.widgetByID(r.PathValue("wid"), wFetch)
	if wd == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"invalid": "No such action."})
		return
	}
	if wd.Param != nil {
		v := r.URL.Query().Get("n")
		if p := wd.bug; p.fires() != "" && p.Class == ClassServerError && trips(p.Input, *wd.Param, v) {
			s.fail(w, r, p, serverMsg(p.Input, *wd.Param, strings.TrimPrefix(s.coll, "/"), p.ID))
			return
		}
		if msg := validate(*wd.Param, v); msg != "" {
			writeJSON(w, http.StatusOK, map[string]string{"invalid": msg})
			return
		}
	}
	if p := wd.bug; p.fires() != "" {
		switch p.Class {
		case ClassSlow:
			w.Header().Set(BugHeader, p.ID)
			if !s.sleep(r.Context()) {
				return
			}
		case ClassBanner:
			w.Header().Set(BugHeader, p.ID)
			writeJSON(w, http.StatusOK, map[string]string{"error": p.msg})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"text": fmt.Sprintf("%s: done, %d %s checked.", wd.Label, len(s.records()), s.many)})
}

func (s *site) serveEmbed(w http.ResponseWriter, r *http.Request) {
	wd := s.widgetByID(r.PathValue("wid"), wFrame)
	if wd == nil {
		s.problem(w, http.StatusNotFound, "Not found", "There is no such widget.")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = s.tmpl.ExecuteTemplate(w, "embed", map[string]any{"Label": wd.Label, "Accent": s.accent, "Fault": faultJS(wd.bug)})
}

func (s *site) serveInlineSave(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.recordID(w, r)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"invalid": "The request could not be read."})
		return
	}
	key, v := r.PostFormValue("field"), r.PostFormValue("value")
	f := s.field(key)
	if !f.textual() {
		writeJSON(w, http.StatusBadRequest, map[string]string{"invalid": "That value cannot be edited here."})
		return
	}
	if msg := validate(f, v); msg != "" {
		writeJSON(w, http.StatusOK, map[string]string{"invalid": msg})
		return
	}
	s.update(rec.ID, map[string]string{key: v})
	writeJSON(w, http.StatusOK, map[string]string{"value": v})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// readForm parses a form body (multipart when the app takes files).
func (s *site) readForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		if err := r.ParseMultipartForm(maxBody); err != nil && !errors.Is(err, http.ErrNotMultipart) {
			return err
		}
		return nil
	}
	return r.ParseForm()
}

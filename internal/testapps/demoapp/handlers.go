package demoapp

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

var (
	owners    = []string{"Ada", "Grace", "Linus", "Margaret", "Ken"}
	statuses  = []string{"active", "paused", "archived"}
	plans     = []plan{{"starter", "Starter", 9}, {"team", "Team", 29}, {"enterprise", "Enterprise", 99}}
	countries = []string{"Germany", "France", "Japan", "United States", "Brazil"}
	sortKeys  = []sortOption{
		{"-created", "Newest first"}, {"created", "Oldest first"}, {"name", "Name A–Z"},
		{"-name", "Name Z–A"}, {"status", "Status"}, {"budget", "Budget (low to high)"},
		{"-budget", "Budget (high to low)"},
	}
)

type plan struct {
	ID    string
	Name  string
	Price int
}

type sortOption struct {
	Key   string
	Label string
}

const brokenReleaseNotes = "/release-notes/" + string(Bug404ReleaseNotes)

func (a *App) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", a.home)
	m.HandleFunc("GET /signin", a.signinForm)
	m.HandleFunc("POST /signin", a.signin)
	m.HandleFunc("POST /signout", a.signout)
	m.HandleFunc("GET /release-notes", a.releaseNotes)
	m.Handle("GET /static/", a.staticHandler())

	m.HandleFunc("GET /dashboard", a.auth(a.dashboard))
	m.HandleFunc("GET /projects", a.auth(a.projectList))
	m.HandleFunc("GET /projects/new", a.auth(a.projectNew))
	m.HandleFunc("POST /projects", a.auth(a.projectCreate))
	m.HandleFunc("GET /projects/export", a.auth(a.projectExport))
	m.HandleFunc("GET /projects/{id}", a.auth(a.projectShow))
	m.HandleFunc("GET /projects/{id}/edit", a.auth(a.projectEdit))
	m.HandleFunc("POST /projects/{id}", a.auth(a.projectUpdate))
	m.HandleFunc("POST /projects/{id}/delete", a.auth(a.projectDelete))
	m.HandleFunc("GET /search", a.auth(a.search))
	m.HandleFunc("GET /settings", a.auth(a.settingsForm))
	m.HandleFunc("POST /settings", a.auth(a.settingsSave))
	m.HandleFunc("GET /reports", a.auth(a.reports))
	m.HandleFunc("GET /checkout", a.auth(func(w http.ResponseWriter, r *http.Request, _ *session) {
		http.Redirect(w, r, "/checkout/1", http.StatusSeeOther)
	}))
	m.HandleFunc("GET /checkout/done", a.auth(a.checkoutDone))
	m.HandleFunc("GET /checkout/{step}", a.auth(a.checkoutStep))
	m.HandleFunc("POST /checkout/draft", a.auth(a.checkoutDraft))
	m.HandleFunc("POST /checkout/{step}", a.auth(a.checkoutSubmit))
	m.HandleFunc("/", a.notFound)
	a.mux = m
}

// ---- sessions ----

func (a *App) currentSession(r *http.Request) *session {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[c.Value]
	if !ok {
		return nil
	}
	if !a.now().Before(s.expires) {
		delete(a.sessions, c.Value)
		return nil
	}
	return s
}

type authedHandler func(http.ResponseWriter, *http.Request, *session)

// auth guards a signed-in page. Without a valid session the fixed app
// redirects to the sign-in page; with BUG-SESSION-EXPIRED on it answers with
// a raw error.
func (a *App) auth(h authedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := a.currentSession(r)
		if s != nil {
			h(w, r, s)
			return
		}
		if a.enabled[BugSessionExpired] {
			a.trigger(w, r, BugSessionExpired, "no valid session")
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "runtime error: invalid memory address or nil pointer dereference\n"+
				"%s: session lookup returned nil for %s %s\n\n"+
				"goroutine 42 [running]:\nacme/projects.(*Server).currentUser(0x0)\n\t/srv/acme/session.go:88 +0x1d\n"+
				"acme/projects.(*Server).ServeHTTP(0xc0001a2000, {0x7f3e, 0xc0002b4000})\n\t/srv/acme/server.go:141 +0x2f4\n",
				BugSessionExpired, r.Method, r.URL.Path)
			return
		}
		next := "/dashboard"
		if r.Method == http.MethodGet {
			next = r.URL.RequestURI()
		}
		http.Redirect(w, r, "/signin?next="+url.QueryEscape(next), http.StatusSeeOther)
	}
}

func (a *App) newSession(email string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextSession++
	s := &session{
		id:      fmt.Sprintf("sess-%06d", a.nextSession),
		email:   email,
		expires: a.now().Add(a.sessionTTL),
	}
	a.sessions[s.id] = s
	return s
}

func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsFunc(next, func(r rune) bool { return r == '\\' || r < 0x20 || r == 0x7f }) {
		return "/dashboard"
	}
	return next
}

// parseForm parses a bounded urlencoded body.
func parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// ---- public pages ----

func (a *App) home(w http.ResponseWriter, r *http.Request) {
	if a.currentSession(r) != nil {
		http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
		return
	}
	a.render(w, r, http.StatusOK, "home", view{Title: "Acme Projects"})
}

type signinPage struct {
	Email, Next, Error   string
	DemoEmail, DemoPass  string
	SessionExpiredNotice bool
}

func (a *App) signinForm(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", Page: signinPage{
		Next: safeNext(r.URL.Query().Get("next")), DemoEmail: DemoEmail, DemoPass: DemoPassword,
	}})
}

func (a *App) signin(w http.ResponseWriter, r *http.Request) {
	if !parseForm(w, r) {
		return
	}
	email := strings.TrimSpace(r.PostForm.Get("email"))
	pass := r.PostForm.Get("password")
	next := safeNext(r.PostForm.Get("next"))
	if !strings.EqualFold(email, DemoEmail) || pass != DemoPassword {
		a.render(w, r, http.StatusUnauthorized, "signin", view{Title: "Sign in", Page: signinPage{
			Email: truncate(email, 200), Next: next, Error: "Invalid email or password.",
			DemoEmail: DemoEmail, DemoPass: DemoPassword,
		}})
		return
	}
	s := a.newSession(DemoEmail)
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: s.id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
	})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (a *App) signout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		a.mu.Lock()
		delete(a.sessions, c.Value)
		a.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1})
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

func (a *App) releaseNotes(w http.ResponseWriter, r *http.Request) {
	user := ""
	if s := a.currentSession(r); s != nil {
		user = a.displayName()
	}
	a.render(w, r, http.StatusOK, "release_notes", view{Title: "Release notes", User: user})
}

type notFoundPage struct{ Path string }

func (a *App) notFound(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == brokenReleaseNotes && a.enabled[Bug404ReleaseNotes] {
		a.trigger(w, r, Bug404ReleaseNotes, "link to missing page")
	}
	user := ""
	if a.currentSession(r) != nil {
		user = a.displayName()
	}
	a.render(w, r, http.StatusNotFound, "not_found", view{Title: "Page not found", User: user,
		Page: notFoundPage{Path: truncate(r.URL.Path, 300)}})
}

type errorPage struct {
	Status  int
	Heading string
	Message string
}

func (a *App) errorPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	user := ""
	if a.currentSession(r) != nil {
		user = a.displayName()
	}
	a.render(w, r, status, "error", view{Title: http.StatusText(status), User: user, Page: errorPage{
		Status: status, Heading: http.StatusText(status), Message: msg,
	}})
}

func (a *App) displayName() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.settings.DisplayName
}

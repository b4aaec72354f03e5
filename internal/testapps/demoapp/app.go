package demoapp

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// The demo account shown on the sign-in page.
const (
	DemoEmail    = "demo@example.com"
	DemoPassword = "demo1234"
)

const (
	sessionCookie  = "demoapp_session"
	pageSize       = 10
	maxNameLen     = 100
	maxFieldLen    = 2000
	maxQueryLen    = 500
	seededProjects = 27
)

// Trigger records one server-side firing of a seeded bug.
type Trigger struct {
	Bug    BugID
	Method string
	Path   string
	Detail string
}

// Project is one record of the demo app's list.
type Project struct {
	ID          int
	Name        string
	Owner       string
	Status      string
	Budget      int
	Description string
	Created     time.Time
	// DuplicateOf is the id of the project this one duplicates when it was
	// made by a double submit (BUG-DOUBLE-SUBMIT), else 0.
	DuplicateOf int
	token       string
}

type checkout struct {
	Plan    string
	Company string
	Email   string
	Country string
	Step    int // highest completed step
	Draft   bool
	Orders  int
}

type session struct {
	id       string
	email    string
	expires  time.Time
	checkout checkout
}

type settings struct {
	DisplayName string
	Timezone    string
	Theme       string
	Notify      bool
}

// App is the demo web app. It is an http.Handler; every App has its own
// state, so parallel tests may each make their own.
type App struct {
	enabled    map[BugID]bool
	slowDelay  time.Duration
	sessionTTL time.Duration
	log        *slog.Logger
	now        func() time.Time
	mux        *http.ServeMux
	pages      map[string]*template.Template

	mu          sync.Mutex
	projects    []*Project
	nextProject int
	sessions    map[string]*session
	nextSession int
	nextToken   int
	tokens      map[string]int // form token -> id of the project it created
	settings    settings
	triggered   []Trigger
}

var pageNames = []string{
	"home", "signin", "dashboard", "projects", "project", "project_form",
	"search", "settings", "reports", "checkout1", "checkout2", "checkout3",
	"checkout_done", "release_notes", "error", "not_found", "export",
}

// New builds an App. It fails on unknown ids in opts.Disabled or a
// negative duration.
func New(opts Options) (*App, error) {
	known := BugIDs()
	enabled := make(map[BugID]bool, len(known))
	for _, id := range known {
		enabled[id] = true
	}
	for id, off := range opts.Disabled {
		if !slices.Contains(known, id) {
			return nil, fmt.Errorf("demoapp: options: disabled %q: %w", id, ErrUnknownBug)
		}
		if off {
			enabled[id] = false
		}
	}
	if opts.SlowDelay < 0 || opts.SessionTTL < 0 {
		return nil, fmt.Errorf("demoapp: options: negative duration")
	}
	a := &App{
		enabled:    enabled,
		slowDelay:  opts.SlowDelay,
		sessionTTL: opts.SessionTTL,
		log:        opts.Logger,
		now:        opts.Now,
		sessions:   map[string]*session{},
		tokens:     map[string]int{},
		settings:   settings{DisplayName: "Demo User", Timezone: "UTC", Theme: "light", Notify: true},
	}
	if a.slowDelay == 0 {
		a.slowDelay = DefaultSlowDelay
	}
	if a.sessionTTL == 0 {
		a.sessionTTL = DefaultSessionTTL
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.now == nil {
		a.now = time.Now
	}
	if err := a.parseTemplates(); err != nil {
		return nil, err
	}
	a.seed()
	a.routes()
	return a, nil
}

// Enabled reports whether the seeded bug id is on in this App.
func (a *App) Enabled(id BugID) bool { return a.enabled[id] }

// EnabledBugs returns the ids of the bugs that are on, in catalogue order.
func (a *App) EnabledBugs() []BugID {
	var out []BugID
	for _, id := range BugIDs() {
		if a.enabled[id] {
			out = append(out, id)
		}
	}
	return out
}

// Triggered returns a copy of the server-side bug firings so far, oldest
// first. Browser-side bugs (JS errors, a11y, dead controls) are not here.
func (a *App) Triggered() []Trigger {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.triggered)
}

// Projects returns a copy of the current projects, ordered by id.
func (a *App) Projects() []Project {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Project, len(a.projects))
	for i, p := range a.projects {
		out[i] = *p
	}
	return out
}

// ServeHTTP implements http.Handler. A panic in a handler is recovered and
// answered with a plain 500, so no input can crash the server.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			a.log.Error("demoapp: handler panic", "path", r.URL.Path, "panic", fmt.Sprint(v))
			http.Error(w, "internal server error", http.StatusInternalServerError)
		}
	}()
	a.mux.ServeHTTP(w, r)
}

func (a *App) parseTemplates() error {
	funcs := template.FuncMap{
		"bug": func(id string) (bool, error) {
			on, ok := a.enabled[BugID(id)]
			if !ok {
				return false, fmt.Errorf("template: unknown bug %q", id)
			}
			return on, nil
		},
		"money": func(n int) string { return "$" + strconv.Itoa(n) },
		"date":  func(t time.Time) string { return t.Format("2006-01-02") },
		"add":   func(a, b int) int { return a + b },
	}
	a.pages = make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return fmt.Errorf("demoapp: parse template %s: %w", name, err)
		}
		a.pages[name] = t
	}
	return nil
}

// seed fills the deterministic fixtures.
func (a *App) seed() {
	names := []string{
		"Apollo Billing", "Borealis CRM", "Cobalt Search", "Delta Onboarding", "Ember Mobile",
		"Fjord Analytics", "Granite API", "Harbor Payments", "Iris Design System", "Juniper Docs",
		"Kestrel Checkout", "Lumen Dashboard", "Meridian Sync", "Nimbus Storage", "Onyx Auth",
		"Pioneer Reports", "Quartz Scheduler", "Raven Alerts", "Sierra Inventory", "Tundra Export",
		"Umbra Notifications", "Vertex Pricing", "Willow Support", "Xenon Ledger", "Yarrow Forms",
		"Zephyr Chat", "Atlas Migration",
	}
	base := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := range seededProjects {
		a.nextProject++
		a.projects = append(a.projects, &Project{
			ID:          a.nextProject,
			Name:        names[i%len(names)],
			Owner:       owners[i%len(owners)],
			Status:      statuses[(i*7)%len(statuses)],
			Budget:      1000 + (i*3719)%50000,
			Description: "Seeded demo project number " + strconv.Itoa(i+1) + ".",
			Created:     base.Add(time.Duration(i) * 36 * time.Hour),
		})
	}
}

// trigger records a server-side bug firing, logs it and marks the response.
func (a *App) trigger(w http.ResponseWriter, r *http.Request, id BugID, detail string) {
	w.Header().Add(BugHeader, string(id))
	a.mu.Lock()
	a.triggered = append(a.triggered, Trigger{Bug: id, Method: r.Method, Path: r.URL.Path, Detail: detail})
	a.mu.Unlock()
	a.log.Warn("demoapp: seeded bug triggered", "bug", string(id), "method", r.Method, "path", r.URL.Path, "detail", detail)
}

// view is what every page template receives.
type view struct {
	Title  string
	User   string
	Active string
	Flash  string
	Page   any
}

// render executes a page into a buffer first so that a template error
// becomes a clean 500 instead of a half-written page.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	t, ok := a.pages[name]
	if !ok {
		a.log.Error("demoapp: no template", "name", name)
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		a.log.Error("demoapp: render", "name", name, "err", err)
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (a *App) staticHandler() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		// The embed directive guarantees the directory; keep a clear failure anyway.
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "static files unavailable", http.StatusInternalServerError)
		})
	}
	return http.StripPrefix("/static/", http.FileServerFS(sub))
}

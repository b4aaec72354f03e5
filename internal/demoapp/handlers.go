package demoapp

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
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

// ---- dashboard ----

type dashboardPage struct {
	Counts          []statusCount
	Total           int
	Recent          []Project
	ReleaseNotesURL string
	Orders          int
}

type statusCount struct {
	Status string
	Count  int
}

func (a *App) dashboard(w http.ResponseWriter, r *http.Request, s *session) {
	all := a.Projects()
	p := dashboardPage{Total: len(all), ReleaseNotesURL: "/release-notes"}
	if a.enabled[Bug404ReleaseNotes] {
		p.ReleaseNotesURL = brokenReleaseNotes
	}
	for _, st := range statuses {
		n := 0
		for _, pr := range all {
			if pr.Status == st {
				n++
			}
		}
		p.Counts = append(p.Counts, statusCount{st, n})
	}
	slices.SortStableFunc(all, func(x, y Project) int { return y.Created.Compare(x.Created) })
	p.Recent = all[:min(5, len(all))]
	a.mu.Lock()
	p.Orders = s.checkout.Orders
	a.mu.Unlock()
	a.render(w, r, http.StatusOK, "dashboard", view{Title: "Dashboard", User: a.displayName(), Active: "dashboard", Page: p})
}

// ---- projects list ----

type listQuery struct {
	Status string
	Owner  string
	Sort   string
	Page   int
}

type listRow struct {
	Project
	Duplicate bool
}

type listPage struct {
	Query      listQuery
	Rows       []listRow
	Total      int
	Pages      int
	PrevURL    string
	NextURL    string
	PageLinks  []pageLink
	Statuses   []string
	Owners     []string
	SortKeys   []sortOption
	FirstIndex int
	LastIndex  int
}

type pageLink struct {
	N       int
	URL     string
	Current bool
}

// errBadQuery is a client error in the list's query string.
type errBadQuery struct{ param, value string }

func (e *errBadQuery) Error() string {
	return fmt.Sprintf("invalid value %q for %s", truncate(e.value, 60), e.param)
}

func parseListQuery(q url.Values) (listQuery, error) {
	lq := listQuery{Status: q.Get("status"), Owner: q.Get("owner"), Sort: q.Get("sort"), Page: 1}
	if lq.Status == "all" {
		lq.Status = ""
	}
	if lq.Status != "" && !slices.Contains(statuses, lq.Status) {
		return lq, &errBadQuery{"status", lq.Status}
	}
	if lq.Owner != "" && !slices.Contains(owners, lq.Owner) {
		return lq, &errBadQuery{"owner", lq.Owner}
	}
	if lq.Sort == "" {
		lq.Sort = "-created"
	}
	if !slices.ContainsFunc(sortKeys, func(o sortOption) bool { return o.Key == lq.Sort }) {
		return lq, &errBadQuery{"sort", lq.Sort}
	}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return lq, &errBadQuery{"page", v}
		}
		lq.Page = n
	}
	return lq, nil
}

func (q listQuery) url(page int) string {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if q.Owner != "" {
		v.Set("owner", q.Owner)
	}
	if q.Sort != "-created" {
		v.Set("sort", q.Sort)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return "/projects"
	}
	return "/projects?" + v.Encode()
}

func (a *App) projectList(w http.ResponseWriter, r *http.Request, _ *session) {
	q, err := parseListQuery(r.URL.Query())
	if err != nil {
		a.errorPage(w, r, http.StatusBadRequest, "Invalid filter: "+err.Error()+".")
		return
	}
	if strings.TrimPrefix(q.Sort, "-") == "budget" && a.enabled[Bug5xxSort] {
		a.trigger(w, r, Bug5xxSort, "sort="+q.Sort)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "500 Internal Server Error\n\n%s: sort key %q has no comparator (nil func)\n", Bug5xxSort, q.Sort)
		return
	}
	var rows []Project
	for _, p := range a.Projects() {
		if (q.Status == "" || p.Status == q.Status) && (q.Owner == "" || p.Owner == q.Owner) {
			rows = append(rows, p)
		}
	}
	sortProjects(rows, q.Sort)
	pages := max(1, (len(rows)+pageSize-1)/pageSize)
	q.Page = min(q.Page, pages)
	from := (q.Page - 1) * pageSize
	to := min(from+pageSize, len(rows))
	lp := listPage{
		Query: q, Total: len(rows), Pages: pages, Statuses: statuses, Owners: owners, SortKeys: sortKeys,
		FirstIndex: from + 1, LastIndex: to,
	}
	for _, p := range rows[from:to] {
		lp.Rows = append(lp.Rows, listRow{Project: p, Duplicate: p.DuplicateOf != 0})
	}
	if q.Page > 1 {
		lp.PrevURL = q.url(q.Page - 1)
	}
	if q.Page < pages {
		lp.NextURL = q.url(q.Page + 1)
	}
	for n := 1; n <= pages; n++ {
		lp.PageLinks = append(lp.PageLinks, pageLink{N: n, URL: q.url(n), Current: n == q.Page})
	}
	flash := ""
	if r.URL.Query().Get("deleted") == "1" {
		flash = "Project deleted."
	}
	a.render(w, r, http.StatusOK, "projects", view{Title: "Projects", User: a.displayName(), Active: "projects", Flash: flash, Page: lp})
}

func sortProjects(ps []Project, key string) {
	desc := strings.HasPrefix(key, "-")
	var f func(x, y Project) int
	switch strings.TrimPrefix(key, "-") {
	case "name":
		f = func(x, y Project) int { return cmp.Compare(strings.ToLower(x.Name), strings.ToLower(y.Name)) }
	case "status":
		f = func(x, y Project) int { return cmp.Compare(x.Status, y.Status) }
	case "budget":
		f = func(x, y Project) int { return cmp.Compare(x.Budget, y.Budget) }
	default:
		f = func(x, y Project) int { return x.Created.Compare(y.Created) }
	}
	slices.SortStableFunc(ps, func(x, y Project) int {
		c := f(x, y)
		if desc {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(x.ID, y.ID)
		}
		return c
	})
}

type exportPage struct {
	Stack string
}

func (a *App) projectExport(w http.ResponseWriter, r *http.Request, _ *session) {
	if a.enabled[BugBannerExport] {
		a.trigger(w, r, BugBannerExport, "export failed")
		a.render(w, r, http.StatusOK, "export", view{Title: "Export", User: a.displayName(), Active: "projects", Page: exportPage{
			Stack: "TypeError: Cannot read properties of null (reading 'budget')\n" +
				"    at serializeRow (/srv/acme/export/csv.js:41:22)\n" +
				"    at Array.map (<anonymous>)\n" +
				"    at exportProjects (/srv/acme/export/csv.js:17:30)\n" +
				"    at Layer.handle (/srv/acme/node_modules/router/lib/layer.js:95:5)",
		}})
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="projects.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "name", "owner", "status", "budget", "created"})
	for _, p := range a.Projects() {
		_ = cw.Write([]string{strconv.Itoa(p.ID), p.Name, p.Owner, p.Status, strconv.Itoa(p.Budget), p.Created.Format(time.DateOnly)})
	}
	cw.Flush()
}

// ---- project forms ----

type projectForm struct {
	ID          int
	Name        string
	Owner       string
	Status      string
	Budget      string
	Description string
	Token       string
	Errors      map[string]string
	Owners      []string
	Statuses    []string
	Action      string
	Submit      string
	Heading     string
	// MaxName is the maxlength attribute of the name field, 0 for none.
	MaxName int
}

func (a *App) newToken() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextToken++
	return fmt.Sprintf("ft-%06d", a.nextToken)
}

func (a *App) formDefaults(f projectForm) projectForm {
	f.Owners, f.Statuses = owners, statuses
	if !a.enabled[BugLongName] {
		f.MaxName = maxNameLen
	}
	return f
}

func (a *App) projectNew(w http.ResponseWriter, r *http.Request, _ *session) {
	f := a.formDefaults(projectForm{
		Owner: owners[0], Status: statuses[0], Token: a.newToken(),
		Action: "/projects", Submit: "Create project", Heading: "New project",
	})
	a.render(w, r, http.StatusOK, "project_form", view{Title: "New project", User: a.displayName(), Active: "projects", Page: f})
}

// validate checks a submitted project form. It returns the parsed project
// fields, the field errors, and whether the name was over-long (which the
// caller turns into BUG-LONG-NAME when that bug is on).
func validateProject(f *projectForm) (p Project, tooLong bool) {
	f.Errors = map[string]string{}
	p.Name = strings.TrimSpace(f.Name)
	switch {
	case p.Name == "":
		f.Errors["name"] = "Name is required."
	case utf8.RuneCountInString(p.Name) > maxNameLen:
		tooLong = true
		f.Errors["name"] = fmt.Sprintf("Name must be %d characters or fewer.", maxNameLen)
	}
	p.Owner = f.Owner
	if !slices.Contains(owners, p.Owner) {
		f.Errors["owner"] = "Choose an owner from the list."
	}
	p.Status = f.Status
	if !slices.Contains(statuses, p.Status) {
		f.Errors["status"] = "Choose a status from the list."
	}
	if b := strings.TrimSpace(f.Budget); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 0 || n > 10_000_000 {
			f.Errors["budget"] = "Budget must be a whole number between 0 and 10000000."
		}
		p.Budget = n
	}
	p.Description = f.Description
	if utf8.RuneCountInString(p.Description) > maxFieldLen {
		f.Errors["description"] = fmt.Sprintf("Description must be %d characters or fewer.", maxFieldLen)
	}
	return p, tooLong
}

func formFromRequest(r *http.Request) projectForm {
	return projectForm{
		Name: r.PostForm.Get("name"), Owner: r.PostForm.Get("owner"), Status: r.PostForm.Get("status"),
		Budget: r.PostForm.Get("budget"), Description: r.PostForm.Get("description"), Token: r.PostForm.Get("form_token"),
	}
}

func (a *App) longName(w http.ResponseWriter, r *http.Request, name string) {
	a.trigger(w, r, BugLongName, fmt.Sprintf("name of %d characters", utf8.RuneCountInString(name)))
	a.errorPage(w, r, http.StatusInternalServerError, fmt.Sprintf(
		"%s: value too long for column name (character varying(%d)): got %d characters",
		BugLongName, maxNameLen, utf8.RuneCountInString(name)))
}

func (a *App) projectCreate(w http.ResponseWriter, r *http.Request, _ *session) {
	if !parseForm(w, r) {
		return
	}
	f := formFromRequest(r)
	f.Action, f.Submit, f.Heading = "/projects", "Create project", "New project"
	p, tooLong := validateProject(&f)
	if tooLong && a.enabled[BugLongName] {
		a.longName(w, r, p.Name)
		return
	}
	if len(f.Errors) > 0 {
		a.render(w, r, http.StatusUnprocessableEntity, "project_form", view{Title: "New project", User: a.displayName(), Active: "projects", Page: a.formDefaults(f)})
		return
	}
	a.mu.Lock()
	prev, seen := a.tokens[f.Token]
	if seen && f.Token != "" && !a.enabled[BugDoubleSubmit] {
		a.mu.Unlock()
		http.Redirect(w, r, "/projects/"+strconv.Itoa(prev)+"?created=1", http.StatusSeeOther)
		return
	}
	a.nextProject++
	p.ID = a.nextProject
	p.Created = a.now().UTC()
	p.token = f.Token
	if seen && f.Token != "" {
		p.DuplicateOf = prev
	} else if f.Token != "" {
		a.tokens[f.Token] = p.ID
	}
	a.projects = append(a.projects, &p)
	a.mu.Unlock()
	if p.DuplicateOf != 0 {
		a.trigger(w, r, BugDoubleSubmit, fmt.Sprintf("project %d duplicates project %d (form token %s)", p.ID, p.DuplicateOf, f.Token))
	}
	http.Redirect(w, r, "/projects/"+strconv.Itoa(p.ID)+"?created=1", http.StatusSeeOther)
}

func (a *App) findProject(r *http.Request) (Project, bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		return Project{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.projects {
		if p.ID == id {
			return *p, true
		}
	}
	return Project{}, false
}

type projectPage struct {
	Project
	RawName template.HTML
	Raw     bool
}

func (a *App) projectShow(w http.ResponseWriter, r *http.Request, _ *session) {
	p, ok := a.findProject(r)
	if !ok {
		a.notFound(w, r)
		return
	}
	pp := projectPage{Project: p}
	if a.enabled[BugXSSProjectName] {
		pp.Raw = true
		pp.RawName = template.HTML(p.Name) //nolint:gosec // seeded stored XSS (BUG-XSS-PROJECT-NAME)
		if strings.ContainsAny(p.Name, "<>") {
			a.trigger(w, r, BugXSSProjectName, "markup in stored project name")
		}
	}
	flash := ""
	switch {
	case r.URL.Query().Get("created") == "1":
		flash = "Project created."
	case r.URL.Query().Get("updated") == "1":
		flash = "Project saved."
	}
	a.render(w, r, http.StatusOK, "project", view{Title: "Project " + strconv.Itoa(p.ID), User: a.displayName(), Active: "projects", Flash: flash, Page: pp})
}

func (a *App) projectEdit(w http.ResponseWriter, r *http.Request, _ *session) {
	p, ok := a.findProject(r)
	if !ok {
		a.notFound(w, r)
		return
	}
	f := a.formDefaults(projectForm{
		ID: p.ID, Name: p.Name, Owner: p.Owner, Status: p.Status, Budget: strconv.Itoa(p.Budget), Description: p.Description,
		Action: "/projects/" + strconv.Itoa(p.ID), Submit: "Save changes", Heading: "Edit project",
	})
	a.render(w, r, http.StatusOK, "project_form", view{Title: "Edit project", User: a.displayName(), Active: "projects", Page: f})
}

func (a *App) projectUpdate(w http.ResponseWriter, r *http.Request, _ *session) {
	old, ok := a.findProject(r)
	if !ok {
		a.notFound(w, r)
		return
	}
	if !parseForm(w, r) {
		return
	}
	f := formFromRequest(r)
	f.ID, f.Action, f.Submit, f.Heading = old.ID, "/projects/"+strconv.Itoa(old.ID), "Save changes", "Edit project"
	p, tooLong := validateProject(&f)
	if tooLong && a.enabled[BugLongName] {
		a.longName(w, r, p.Name)
		return
	}
	if len(f.Errors) > 0 {
		a.render(w, r, http.StatusUnprocessableEntity, "project_form", view{Title: "Edit project", User: a.displayName(), Active: "projects", Page: a.formDefaults(f)})
		return
	}
	a.mu.Lock()
	for _, q := range a.projects {
		if q.ID == old.ID {
			q.Name, q.Owner, q.Status, q.Budget, q.Description = p.Name, p.Owner, p.Status, p.Budget, p.Description
		}
	}
	a.mu.Unlock()
	http.Redirect(w, r, "/projects/"+strconv.Itoa(old.ID)+"?updated=1", http.StatusSeeOther)
}

func (a *App) projectDelete(w http.ResponseWriter, r *http.Request, _ *session) {
	p, ok := a.findProject(r)
	if !ok {
		a.notFound(w, r)
		return
	}
	a.mu.Lock()
	a.projects = slices.DeleteFunc(a.projects, func(q *Project) bool { return q.ID == p.ID })
	a.mu.Unlock()
	http.Redirect(w, r, "/projects?deleted=1", http.StatusSeeOther)
}

// ---- search ----

type searchPage struct {
	Query    string
	RawQuery template.HTML
	Raw      bool
	Results  []Project
	Searched bool
}

func (a *App) search(w http.ResponseWriter, r *http.Request, _ *session) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	q = truncate(q, maxQueryLen)
	sp := searchPage{Query: q, Searched: q != ""}
	if q != "" {
		needle := strings.ToLower(q)
		for _, p := range a.Projects() {
			if strings.Contains(strings.ToLower(p.Name), needle) || strings.Contains(strings.ToLower(p.Owner), needle) {
				sp.Results = append(sp.Results, p)
			}
		}
		if a.enabled[BugXSSSearch] {
			sp.Raw = true
			sp.RawQuery = template.HTML(q) //nolint:gosec // seeded reflected XSS (BUG-XSS-SEARCH)
			if strings.ContainsAny(q, "<>") {
				a.trigger(w, r, BugXSSSearch, "markup in search query")
			}
		}
	}
	a.render(w, r, http.StatusOK, "search", view{Title: "Search", User: a.displayName(), Active: "search", Page: sp})
}

// ---- settings ----

type settingsPage struct {
	settings
	Errors map[string]string
	Themes []string
}

func (a *App) settingsForm(w http.ResponseWriter, r *http.Request, _ *session) {
	a.mu.Lock()
	st := a.settings
	a.mu.Unlock()
	flash := ""
	if r.URL.Query().Get("saved") == "1" {
		flash = "Settings saved."
	}
	a.render(w, r, http.StatusOK, "settings", view{Title: "Settings", User: st.DisplayName, Active: "settings", Flash: flash,
		Page: settingsPage{settings: st, Themes: []string{"light", "dark"}}})
}

func (a *App) settingsSave(w http.ResponseWriter, r *http.Request, _ *session) {
	if !parseForm(w, r) {
		return
	}
	st := settings{
		DisplayName: strings.TrimSpace(r.PostForm.Get("display_name")),
		Timezone:    strings.TrimSpace(r.PostForm.Get("timezone")),
		Theme:       r.PostForm.Get("theme"),
		Notify:      r.PostForm.Get("notify") == "on",
	}
	errs := map[string]string{}
	if st.DisplayName == "" || utf8.RuneCountInString(st.DisplayName) > 60 {
		errs["display_name"] = "Display name must be 1 to 60 characters."
	}
	if utf8.RuneCountInString(st.Timezone) > 64 {
		errs["timezone"] = "Time zone must be 64 characters or fewer."
	}
	if st.Theme != "light" && st.Theme != "dark" {
		errs["theme"] = "Choose a theme."
	}
	if len(errs) > 0 {
		st.DisplayName = truncate(st.DisplayName, 200)
		st.Timezone = truncate(st.Timezone, 200)
		a.render(w, r, http.StatusUnprocessableEntity, "settings", view{Title: "Settings", User: a.displayName(), Active: "settings",
			Page: settingsPage{settings: st, Errors: errs, Themes: []string{"light", "dark"}}})
		return
	}
	a.mu.Lock()
	a.settings = st
	a.mu.Unlock()
	http.Redirect(w, r, "/settings?saved=1", http.StatusSeeOther)
}

// ---- reports ----

type reportsPage struct {
	Rows []reportRow
}

type reportRow struct {
	Owner    string
	Projects int
	Budget   int
}

func (a *App) reports(w http.ResponseWriter, r *http.Request, _ *session) {
	if a.enabled[BugSlowReports] {
		a.trigger(w, r, BugSlowReports, "delay "+a.slowDelay.String())
		t := time.NewTimer(a.slowDelay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	var rp reportsPage
	all := a.Projects()
	for _, o := range owners {
		row := reportRow{Owner: o}
		for _, p := range all {
			if p.Owner == o {
				row.Projects++
				row.Budget += p.Budget
			}
		}
		rp.Rows = append(rp.Rows, row)
	}
	a.render(w, r, http.StatusOK, "reports", view{Title: "Reports", User: a.displayName(), Active: "reports", Page: rp})
}

// ---- checkout wizard ----

type checkoutPage struct {
	checkout
	Plans     []plan
	Countries []string
	Errors    map[string]string
	PlanName  string
	Price     int
}

func (a *App) checkoutView(s *session) checkoutPage {
	a.mu.Lock()
	c := s.checkout
	a.mu.Unlock()
	cp := checkoutPage{checkout: c, Plans: plans, Countries: countries}
	for _, p := range plans {
		if p.ID == c.Plan {
			cp.PlanName, cp.Price = p.Name, p.Price
		}
	}
	return cp
}

func parseStep(r *http.Request) (int, bool) {
	switch r.PathValue("step") {
	case "1":
		return 1, true
	case "2":
		return 2, true
	case "3":
		return 3, true
	}
	return 0, false
}

func (a *App) checkoutStep(w http.ResponseWriter, r *http.Request, s *session) {
	step, ok := parseStep(r)
	if !ok {
		a.notFound(w, r)
		return
	}
	cp := a.checkoutView(s)
	if step > cp.Step+1 {
		http.Redirect(w, r, "/checkout/"+strconv.Itoa(cp.Step+1), http.StatusSeeOther)
		return
	}
	a.render(w, r, http.StatusOK, "checkout"+strconv.Itoa(step), view{Title: fmt.Sprintf("Checkout – step %d of 3", step), User: a.displayName(), Active: "checkout", Page: cp})
}

func (a *App) checkoutSubmit(w http.ResponseWriter, r *http.Request, s *session) {
	step, ok := parseStep(r)
	if !ok {
		a.notFound(w, r)
		return
	}
	if !parseForm(w, r) {
		return
	}
	cp := a.checkoutView(s)
	if step > cp.Step+1 {
		http.Redirect(w, r, "/checkout/"+strconv.Itoa(cp.Step+1), http.StatusSeeOther)
		return
	}
	errs := map[string]string{}
	a.mu.Lock()
	c := s.checkout
	switch step {
	case 1:
		c.Plan = r.PostForm.Get("plan")
		if !slices.ContainsFunc(plans, func(p plan) bool { return p.ID == c.Plan }) {
			errs["plan"] = "Choose a plan."
		}
	case 2:
		c.Company = truncate(strings.TrimSpace(r.PostForm.Get("company")), 200)
		c.Email = truncate(strings.TrimSpace(r.PostForm.Get("email")), 200)
		c.Country = r.PostForm.Get("country")
		if c.Company == "" {
			errs["company"] = "Company is required."
		}
		if !strings.Contains(c.Email, "@") {
			errs["email"] = "Enter a valid email address."
		}
		if !slices.Contains(countries, c.Country) {
			errs["country"] = "Choose a country."
		}
	}
	if len(errs) == 0 {
		if step == 3 {
			c = checkout{Orders: c.Orders + 1}
		} else {
			c.Step = max(c.Step, step)
		}
		s.checkout = c
	}
	a.mu.Unlock()
	if len(errs) > 0 {
		cp := a.checkoutView(s)
		cp.checkout = c
		cp.Errors = errs
		a.render(w, r, http.StatusUnprocessableEntity, "checkout"+strconv.Itoa(step), view{Title: fmt.Sprintf("Checkout – step %d of 3", step), User: a.displayName(), Active: "checkout", Page: cp})
		return
	}
	if step == 3 {
		http.Redirect(w, r, "/checkout/done", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/checkout/"+strconv.Itoa(step+1), http.StatusSeeOther)
}

type draftResponse struct {
	Saved   bool   `json:"saved"`
	Message string `json:"message"`
}

func (a *App) checkoutDraft(w http.ResponseWriter, r *http.Request, s *session) {
	if !parseForm(w, r) {
		return
	}
	a.mu.Lock()
	s.checkout.Company = truncate(strings.TrimSpace(r.PostForm.Get("company")), 200)
	s.checkout.Email = truncate(strings.TrimSpace(r.PostForm.Get("email")), 200)
	if c := r.PostForm.Get("country"); slices.Contains(countries, c) {
		s.checkout.Country = c
	}
	s.checkout.Draft = true
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(draftResponse{Saved: true, Message: "Draft saved."})
}

func (a *App) checkoutDone(w http.ResponseWriter, r *http.Request, s *session) {
	a.render(w, r, http.StatusOK, "checkout_done", view{Title: "Order confirmed", User: a.displayName(), Active: "checkout", Page: a.checkoutView(s)})
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

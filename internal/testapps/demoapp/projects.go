package demoapp

import (
	"cmp"
	"encoding/csv"
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

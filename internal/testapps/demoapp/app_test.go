package demoapp

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPagesRender(t *testing.T) {
	for _, name := range []string{"bugs on", "bugs off"} {
		t.Run(name, func(t *testing.T) {
			opts := Options{SlowDelay: time.Millisecond}
			if name == "bugs off" {
				opts.Disabled = allOff()
			}
			_, srv := startApp(t, opts)
			c := newClient(t, srv)
			public := []struct{ path, want string }{
				{"/", "Sign in to get started"},
				{"/signin", DemoEmail},
				{"/release-notes", "Version 2.4"},
				{"/static/app.js", "data-submit-once"},
				{"/static/app.css", "font-family"},
				{"/static/refresh.svg", "<svg"},
			}
			for _, p := range public {
				r := c.get(p.path)
				assert.Equal(t, http.StatusOK, r.Status, p.path)
				assert.Contains(t, r.Body, p.want, p.path)
			}
			c.signIn()
			checkoutToStep3(c)
			private := []struct{ path, want string }{
				{"/dashboard", "Recent projects"},
				{"/projects", "Showing 1–10 of 27"},
				{"/projects?page=3", "Showing 21–27 of 27"},
				{"/projects?status=archived&sort=name", "Projects, page 1 of 1"},
				{"/projects/new", "New project"},
				{"/projects/1", "Apollo Billing"},
				{"/projects/1/edit", `value="Apollo Billing"`},
				{"/search?q=apollo", "Apollo Billing"},
				{"/settings", "Display name"},
				{"/reports", "Budget by owner"},
				{"/checkout/1", "Step 1 of 3"},
				{"/checkout/2", "Step 2 of 3"},
				{"/checkout/3", "Step 3 of 3"},
			}
			for _, p := range private {
				r := c.get(p.path)
				assert.Equal(t, http.StatusOK, r.Status, p.path)
				assert.Contains(t, r.Body, p.want, p.path)
				assert.Contains(t, r.Body, `<html lang="en">`, p.path)
				assert.Contains(t, r.Body, `<main id="main">`, p.path)
			}
			r := c.get("/does-not-exist")
			assert.Equal(t, http.StatusNotFound, r.Status)
			assert.Contains(t, r.Body, "/does-not-exist")
		})
	}
}

func TestSignIn(t *testing.T) {
	_, srv := startApp(t, Options{Disabled: allOff()})
	c := newClient(t, srv)
	tests := []struct {
		name, email, pass, next string
		status                  int
		location                string
	}{
		{"wrong password", DemoEmail, "nope", "", http.StatusUnauthorized, ""},
		{"unknown user", "x@example.com", DemoPassword, "", http.StatusUnauthorized, ""},
		{"ok, default next", DemoEmail, DemoPassword, "", http.StatusSeeOther, "/dashboard"},
		{"ok, case-insensitive email", "DEMO@example.com", DemoPassword, "/settings", http.StatusSeeOther, "/settings"},
		{"open redirect blocked", DemoEmail, DemoPassword, "//evil.test/", http.StatusSeeOther, "/dashboard"},
		{"absolute url blocked", DemoEmail, DemoPassword, "https://evil.test/", http.StatusSeeOther, "/dashboard"},
		{"tab trick blocked", DemoEmail, DemoPassword, "/\t/evil.test/", http.StatusSeeOther, "/dashboard"},
		{"backslash blocked", DemoEmail, DemoPassword, "/\\evil.test/", http.StatusSeeOther, "/dashboard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.post("/signin", url.Values{"email": {tt.email}, "password": {tt.pass}, "next": {tt.next}})
			assert.Equal(t, tt.status, r.Status)
			assert.Equal(t, tt.location, r.Location)
			if tt.status == http.StatusUnauthorized {
				assert.Contains(t, r.Body, "Invalid email or password.")
			}
		})
	}
	// Home redirects a signed-in user; sign-out ends the session.
	assert.Equal(t, "/dashboard", c.get("/").Location)
	r := c.post("/signout", nil)
	assert.Equal(t, "/signin", r.Location)
	assert.Equal(t, http.StatusSeeOther, c.get("/dashboard").Status)
	assert.Equal(t, http.StatusOK, c.get("/").Status)
}

func TestProjectCRUD(t *testing.T) {
	app, srv := startApp(t, Options{Disabled: allOff()})
	c := newClient(t, srv)
	c.signIn()

	form := c.get("/projects/new")
	tok := formToken(t, form.Body)
	bad := c.post("/projects", url.Values{"name": {"  "}, "owner": {"Nobody"}, "status": {"done"}, "budget": {"-3"}, "form_token": {tok}})
	assert.Equal(t, http.StatusUnprocessableEntity, bad.Status)
	for _, msg := range []string{"Name is required.", "Choose an owner", "Choose a status", "Budget must be"} {
		assert.Contains(t, bad.Body, msg)
	}
	assert.Contains(t, bad.Body, tok, "the token survives a failed submit")

	r := c.post("/projects", url.Values{"name": {"Rocket <Launch> & Co"}, "owner": {"Grace"}, "status": {"active"}, "budget": {"4200"}, "form_token": {tok}})
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	assert.Equal(t, "/projects/28?created=1", r.Location)
	show := c.get(r.Location)
	assert.Contains(t, show.Body, "Project created.")
	assert.Contains(t, show.Body, "Rocket &lt;Launch&gt; &amp; Co", "escaped when fixed")
	assert.Contains(t, show.Body, "$4200")
	list := c.get("/projects")
	assert.Contains(t, tag(list.Body, "project-link-28"), `href="/projects/28"`, "newest first on page 1")

	up := c.post("/projects/28", url.Values{"name": {"Rocket"}, "owner": {"Ken"}, "status": {"paused"}, "budget": {""}})
	require.Equal(t, "/projects/28?updated=1", up.Location)
	assert.Contains(t, c.get(up.Location).Body, "Project saved.")
	p := app.Projects()[27]
	assert.Equal(t, Project{ID: 28, Name: "Rocket", Owner: "Ken", Status: "paused", Budget: 0, Created: p.Created, token: tok}, p)

	assert.Contains(t, show.Body, `data-open-dialog="delete-dialog"`)
	assert.Contains(t, show.Body, `<dialog id="delete-dialog"`)
	del := c.post("/projects/28/delete", nil)
	assert.Equal(t, "/projects?deleted=1", del.Location)
	assert.Contains(t, c.get(del.Location).Body, "Project deleted.")
	assert.Len(t, app.Projects(), seededProjects)
	assert.Equal(t, http.StatusNotFound, c.get("/projects/28").Status)
	assert.Equal(t, http.StatusNotFound, c.post("/projects/28/delete", nil).Status)
	assert.Equal(t, http.StatusNotFound, c.get("/projects/abc/edit").Status)
}

func TestProjectListFilterSortPage(t *testing.T) {
	_, srv := startApp(t, Options{Disabled: allOff()})
	c := newClient(t, srv)
	c.signIn()
	rowsOf := func(body string) int { return strings.Count(body, `data-testid="project-row"`) }
	tests := []struct {
		query  string
		status int
		rows   int
		first  string
	}{
		{"", 200, 10, "Atlas Migration"},
		{"page=3", 200, 7, ""},
		{"page=99", 200, 7, ""},
		{"sort=name", 200, 10, "Apollo Billing"},
		{"sort=-name", 200, 10, "Zephyr Chat"},
		{"sort=budget", 200, 10, ""},
		{"status=active", 200, 9, ""},
		{"owner=Ada&status=all", 200, 6, ""},
		{"status=paused&owner=Ken&sort=created", 200, -1, ""},
		{"status=gone", 400, 0, ""},
		{"owner=Eve", 400, 0, ""},
		{"sort=price", 400, 0, ""},
		{"page=0", 400, 0, ""},
		{"page=two", 400, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := c.get("/projects?" + tt.query)
			require.Equal(t, tt.status, r.Status, r.Body)
			if tt.rows >= 0 {
				assert.Equal(t, tt.rows, rowsOf(r.Body))
			}
			if tt.first != "" {
				i := strings.Index(r.Body, `data-testid="project-row"`)
				require.Positive(t, i)
				assert.Contains(t, r.Body[i:i+300], tt.first)
			}
		})
	}
	// Budget sort really sorts, across pages.
	var budgets []int
	for page := 1; page <= 3; page++ {
		r := c.get("/projects?sort=-budget&page=" + strconv.Itoa(page))
		for _, m := range budgetRE.FindAllStringSubmatch(r.Body, -1) {
			n, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			budgets = append(budgets, n)
		}
	}
	require.Len(t, budgets, seededProjects)
	assert.True(t, slices.IsSortedFunc(budgets, func(a, b int) int { return b - a }), budgets)
	var r response
	// Pagination keeps the filters.
	r = c.get("/projects?status=active&sort=name")
	assert.NotContains(t, r.Body, `data-testid="page-next"`, "9 rows fit one page")
	r = c.get("/projects?sort=name")
	assert.Contains(t, tag(r.Body, "page-next"), `href="/projects?page=2&amp;sort=name"`)
}

var budgetRE = regexp.MustCompile(`<td>\$(\d+)</td>`)

func TestCheckoutWizard(t *testing.T) {
	_, srv := startApp(t, Options{Disabled: allOff()})
	c := newClient(t, srv)
	c.signIn()
	// Later steps are guarded.
	assert.Equal(t, "/checkout/1", c.get("/checkout/3").Location)
	assert.Equal(t, "/checkout/1", c.get("/checkout").Location)
	assert.Equal(t, http.StatusNotFound, c.get("/checkout/4").Status)
	bad := c.post("/checkout/1", url.Values{"plan": {"gold"}})
	assert.Equal(t, http.StatusUnprocessableEntity, bad.Status)
	assert.Contains(t, bad.Body, "Choose a plan.")
	require.Equal(t, "/checkout/2", c.post("/checkout/1", url.Values{"plan": {"enterprise"}}).Location)
	bad = c.post("/checkout/2", url.Values{"company": {""}, "email": {"nope"}, "country": {"Mars"}})
	assert.Equal(t, http.StatusUnprocessableEntity, bad.Status)
	for _, msg := range []string{"Company is required.", "Enter a valid email address.", "Choose a country."} {
		assert.Contains(t, bad.Body, msg)
	}
	require.Equal(t, "/checkout/3", c.post("/checkout/2", url.Values{"company": {"Acme"}, "email": {"a@b.test"}, "country": {"Brazil"}}).Location)
	review := c.get("/checkout/3")
	assert.Contains(t, review.Body, "Enterprise")
	assert.Contains(t, review.Body, "$99 per month")
	require.Equal(t, "/checkout/done", c.post("/checkout/3", nil).Location)
	done := c.get("/checkout/done")
	assert.Contains(t, done.Body, "placed 1 order(s)")
	assert.Equal(t, "/checkout/1", c.get("/checkout/3").Location, "the wizard starts over")
	assert.Contains(t, c.get("/dashboard").Body, `data-testid="orders-count">1<`)
}

func TestSettingsSave(t *testing.T) {
	_, srv := startApp(t, Options{Disabled: allOff()})
	c := newClient(t, srv)
	c.signIn()
	bad := c.post("/settings", url.Values{"display_name": {""}, "timezone": {strings.Repeat("z", 65)}, "theme": {"neon"}})
	assert.Equal(t, http.StatusUnprocessableEntity, bad.Status)
	assert.Contains(t, bad.Body, "Display name must be 1 to 60 characters.")
	assert.Contains(t, bad.Body, "Time zone must be 64 characters or fewer.")
	ok := c.post("/settings", url.Values{"display_name": {"Grace H."}, "timezone": {"Europe/Berlin"}, "theme": {"dark"}})
	require.Equal(t, "/settings?saved=1", ok.Location)
	page := c.get(ok.Location)
	assert.Contains(t, page.Body, "Settings saved.")
	assert.Contains(t, page.Body, `value="Europe/Berlin"`)
	assert.Contains(t, tag(page.Body, "theme-dark"), "checked")
	assert.NotContains(t, tag(page.Body, "settings-notify"), "checked")
	assert.Contains(t, page.Body, `data-testid="current-user">Grace H.<`)
}

func TestSlowPageHonoursCancellation(t *testing.T) {
	app, err := New(Options{SlowDelay: time.Hour})
	require.NoError(t, err)
	srv := newTestServer(t, app)
	c := newClient(t, srv)
	c.signIn()
	c.http.Timeout = 100 * time.Millisecond
	start := time.Now()
	_, err = c.http.Get(srv.URL + "/reports")
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
}

func TestLoggerGetsBugID(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	h := slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, nil)
	_, srv := startApp(t, Options{Logger: slog.New(h)})
	c := newClient(t, srv)
	c.signIn()
	form := c.get("/projects/new")
	vals := url.Values{"name": {"Twice"}, "owner": {"Ada"}, "status": {"active"}, "form_token": {formToken(t, form.Body)}}
	c.post("/projects", vals)
	c.post("/projects", vals)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, buf.String(), `"bug":"BUG-DOUBLE-SUBMIT"`)
	assert.Contains(t, buf.String(), `project 29 duplicates project 28 (form token ft-000001)`)
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestAppsAreIndependent runs two apps side by side: state never leaks.
func TestAppsAreIndependent(t *testing.T) {
	a1, s1 := startApp(t, Options{})
	a2, s2 := startApp(t, Options{})
	c1, c2 := newClient(t, s1), newClient(t, s2)
	c1.signIn()
	c2.signIn()
	form := c1.get("/projects/new")
	c1.post("/projects", url.Values{"name": {"Only here"}, "owner": {"Ada"}, "status": {"active"}, "form_token": {formToken(t, form.Body)}})
	assert.Len(t, a1.Projects(), seededProjects+1)
	assert.Len(t, a2.Projects(), seededProjects)
	assert.NotContains(t, c2.get("/projects").Body, "Only here")
	// Both apps hand out the same deterministic ids.
	assert.Equal(t, formToken(t, c2.get("/projects/new").Body), "ft-000001")
}

func TestListenErrors(t *testing.T) {
	_, err := Listen("", Options{Disabled: map[BugID]bool{"BUG-NOPE": true}})
	require.ErrorIs(t, err, ErrUnknownBug)
	_, err = Listen("256.0.0.1:bad", Options{})
	require.Error(t, err)
}

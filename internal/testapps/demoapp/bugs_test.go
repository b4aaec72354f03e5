package demoapp

import (
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalog(t *testing.T) {
	bugs := Bugs()
	require.GreaterOrEqual(t, len(bugs), 12)
	seen := map[BugID]bool{}
	classes := map[Class]bool{}
	for _, b := range bugs {
		assert.Truef(t, strings.HasPrefix(string(b.ID), "BUG-"), "id %s", b.ID)
		assert.Falsef(t, seen[b.ID], "duplicate id %s", b.ID)
		seen[b.ID] = true
		classes[b.Class] = true
		assert.NotEmpty(t, b.Title, b.ID)
		assert.NotEmpty(t, b.Where, b.ID)
		assert.NotEmpty(t, b.Trigger, b.ID)
		assert.NotEmpty(t, b.Evidence, b.ID)
		assert.Positive(t, b.Depth, b.ID)
		got, ok := Lookup(b.ID)
		assert.True(t, ok)
		assert.Equal(t, b, got)
	}
	for _, c := range []Class{ClassPageError, ClassConsoleError, ClassHTTP5xx, ClassBrokenLink, ClassErrorBanner,
		ClassXSS, ClassLongInput, ClassA11y, ClassDoubleSubmit, ClassExpiredSession, ClassSlowPage, ClassDeadControl} {
		assert.Truef(t, classes[c], "no bug of class %s", c)
	}
	deep := 0
	for _, b := range bugs {
		if b.Depth >= 3 {
			deep++
		}
	}
	assert.GreaterOrEqual(t, deep, 4, "some bugs must be a few steps deep")
	_, ok := Lookup("BUG-NOPE")
	assert.False(t, ok)

	// Bugs returns a copy.
	bugs[0].Title = "changed"
	assert.NotEqual(t, "changed", Bugs()[0].Title)
}

func TestDocListsEveryBug(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	for _, b := range Bugs() {
		assert.Containsf(t, string(doc), "| "+string(b.ID)+" ", "doc.go table lacks %s", b.ID)
	}
}

func TestParseBugList(t *testing.T) {
	all := map[BugID]bool{}
	for _, id := range BugIDs() {
		all[id] = true
	}
	tests := []struct {
		in      string
		want    map[BugID]bool
		wantErr bool
	}{
		{"", map[BugID]bool{}, false},
		{"none", map[BugID]bool{}, false},
		{"BUG-XSS-SEARCH", map[BugID]bool{BugXSSSearch: true}, false},
		{" bug-xss-search , BUG-5XX-SORT ", map[BugID]bool{BugXSSSearch: true, Bug5xxSort: true}, false},
		{"BUG-XSS-SEARCH BUG-SLOW-REPORTS", map[BugID]bool{BugXSSSearch: true, BugSlowReports: true}, false},
		{"all", all, false},
		{"BUG-XSS-SEARCH,BUG-NOPE", nil, true},
		{"xss", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseBugList(tt.in)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrUnknownBug)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestOptionsFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
	}
	o, err := OptionsFromEnv(env(nil))
	require.NoError(t, err)
	assert.Equal(t, Options{}, o)

	o, err = OptionsFromEnv(env(map[string]string{EnvFixed: "BUG-XSS-SEARCH", EnvSlowDelay: "50ms", EnvSessionTTL: "2m"}))
	require.NoError(t, err)
	assert.Equal(t, map[BugID]bool{BugXSSSearch: true}, o.Disabled)
	assert.Equal(t, 50*time.Millisecond, o.SlowDelay)
	assert.Equal(t, 2*time.Minute, o.SessionTTL)

	for _, bad := range []map[string]string{
		{EnvFixed: "BUG-NOPE"}, {EnvSlowDelay: "soon"}, {EnvSessionTTL: "-1s"},
	} {
		_, err := OptionsFromEnv(env(bad))
		assert.Error(t, err, bad)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	_, err := New(Options{Disabled: map[BugID]bool{"BUG-NOPE": true}})
	require.ErrorIs(t, err, ErrUnknownBug)
	_, err = New(Options{SlowDelay: -time.Second})
	require.Error(t, err)

	a, err := New(Options{Disabled: map[BugID]bool{BugXSSSearch: true, BugSlowReports: false}})
	require.NoError(t, err)
	assert.False(t, a.Enabled(BugXSSSearch))
	assert.True(t, a.Enabled(BugSlowReports))
	assert.Len(t, a.EnabledBugs(), len(Bugs())-1)
	assert.NotContains(t, a.EnabledBugs(), BugXSSSearch)
}

// checkout completes steps 1 and 2 of the wizard and returns step 3.
func checkoutToStep3(c *client) response {
	c.t.Helper()
	r := c.post("/checkout/1", url.Values{"plan": {"team"}})
	require.Equal(c.t, http.StatusSeeOther, r.Status, r.Body)
	r = c.post("/checkout/2", url.Values{"company": {"Acme"}, "email": {"billing@acme.test"}, "country": {"Japan"}})
	require.Equal(c.t, http.StatusSeeOther, r.Status, r.Body)
	require.Equal(c.t, "/checkout/3", r.Location)
	r = c.get("/checkout/3")
	require.Equal(c.t, http.StatusOK, r.Status)
	return r
}

const xssProbe = `<img src=x onerror="window.__xss=1">`

// bugCase says how to drive one seeded bug and whether it fired.
type bugCase struct {
	id BugID
	// fire drives the app to the bug and reports whether its evidence shows.
	fire func(t *testing.T, c *client) bool
	// server reports whether the bug fires on the server (Triggered/header).
	server bool
}

var bugCases = []bugCase{
	{id: BugPageErrorWizard, fire: func(t *testing.T, c *client) bool {
		r := checkoutToStep3(c)
		return strings.Contains(r.Body, `throw new Error("BUG-PAGEERR-WIZARD:`)
	}},
	{id: BugConsoleSettings, fire: func(t *testing.T, c *client) bool {
		r := c.get("/settings")
		require.Equal(t, http.StatusOK, r.Status)
		return strings.Contains(r.Body, `console.error("BUG-CONSOLE-SETTINGS:`)
	}},
	{id: BugConsoleListPage2, fire: func(t *testing.T, c *client) bool {
		p1 := c.get("/projects")
		require.Equal(t, http.StatusOK, p1.Status)
		assert.NotContains(t, p1.Body, "console.error", "page 1 is clean")
		next := tag(p1.Body, "page-next")
		require.Contains(t, next, `href="/projects?page=2"`)
		r := c.get("/projects?page=2")
		require.Equal(t, http.StatusOK, r.Status)
		return strings.Contains(r.Body, `console.error("BUG-CONSOLE-LIST-PAGE2:`)
	}},
	{id: Bug5xxSort, server: true, fire: func(t *testing.T, c *client) bool {
		list := c.get("/projects")
		require.Contains(t, list.Body, `<option value="budget"`, "the sort is offered in the UI")
		r := c.get("/projects?status=all&owner=&sort=budget")
		if r.Status == http.StatusInternalServerError {
			assert.Contains(t, r.Body, string(Bug5xxSort))
			return true
		}
		require.Equal(t, http.StatusOK, r.Status)
		return false
	}},
	{id: Bug404ReleaseNotes, server: true, fire: func(t *testing.T, c *client) bool {
		d := c.get("/dashboard")
		m := hrefRE.FindStringSubmatch(tag(d.Body, "whats-new"))
		require.NotNil(t, m)
		r := c.get(m[1])
		if r.Status == http.StatusNotFound {
			assert.Contains(t, m[1], string(Bug404ReleaseNotes))
			return true
		}
		require.Equal(t, http.StatusOK, r.Status)
		return false
	}},
	{id: BugBannerExport, server: true, fire: func(t *testing.T, c *client) bool {
		list := c.get("/projects")
		require.Contains(t, tag(list.Body, "export-csv"), `href="/projects/export"`)
		r := c.get("/projects/export")
		require.Equal(t, http.StatusOK, r.Status)
		if strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
			assert.Contains(t, r.Body, "Apollo Billing")
			return false
		}
		return strings.Contains(tag(r.Body, "error-banner"), `role="alert"`) &&
			strings.Contains(r.Body, "Export failed: BUG-BANNER-EXPORT")
	}},
	{id: BugXSSSearch, server: true, fire: func(t *testing.T, c *client) bool {
		r := c.get("/search?q=" + url.QueryEscape(xssProbe))
		require.Equal(t, http.StatusOK, r.Status)
		return strings.Contains(r.Body, xssProbe) && strings.Contains(tag(r.Body, "search-summary"), `data-bug="BUG-XSS-SEARCH"`)
	}},
	{id: BugXSSProjectName, server: true, fire: func(t *testing.T, c *client) bool {
		form := c.get("/projects/new")
		r := c.post("/projects", url.Values{"name": {xssProbe}, "owner": {"Ada"}, "status": {"active"}, "budget": {"10"},
			"form_token": {formToken(t, form.Body)}})
		require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
		show := c.get(r.Location)
		require.Equal(t, http.StatusOK, show.Status)
		list := c.get("/projects")
		assert.NotContains(t, list.Body, xssProbe, "the list escapes the name")
		return strings.Contains(show.Body, xssProbe)
	}},
	{id: BugLongName, server: true, fire: func(t *testing.T, c *client) bool {
		form := c.get("/projects/new")
		long := strings.Repeat("N", 300)
		r := c.post("/projects", url.Values{"name": {long}, "owner": {"Ada"}, "status": {"active"},
			"form_token": {formToken(t, form.Body)}})
		if r.Status == http.StatusInternalServerError {
			assert.Contains(t, r.Body, "BUG-LONG-NAME: value too long for column name")
			assert.NotContains(t, tag(form.Body, "project-name-input"), "maxlength")
			return true
		}
		require.Equal(t, http.StatusUnprocessableEntity, r.Status)
		assert.Contains(t, r.Body, "Name must be 100 characters or fewer.")
		assert.Contains(t, tag(form.Body, "project-name-input"), `maxlength="100"`)
		// Editing takes the same path.
		e := c.post("/projects/1", url.Values{"name": {long}, "owner": {"Ada"}, "status": {"active"}})
		assert.Equal(t, http.StatusUnprocessableEntity, e.Status)
		return false
	}},
	{id: BugA11yIconButton, fire: func(t *testing.T, c *client) bool {
		r := c.get("/projects")
		b := tag(r.Body, "refresh-list")
		require.NotEmpty(t, b)
		return !strings.Contains(b, "aria-label=") && strings.Contains(b, `data-bug="BUG-A11Y-ICON-BUTTON"`)
	}},
	{id: BugA11ySettingsLabel, fire: func(t *testing.T, c *client) bool {
		r := c.get("/settings")
		in := tag(r.Body, "settings-timezone")
		require.NotEmpty(t, in)
		return !strings.Contains(r.Body, `<label for="s-tz">`) && strings.Contains(in, `data-bug="BUG-A11Y-SETTINGS-LABEL"`)
	}},
	{id: BugDoubleSubmit, server: true, fire: func(t *testing.T, c *client) bool {
		form := c.get("/projects/new")
		guarded := strings.Contains(tag(form.Body, "project-form"), "data-submit-once")
		vals := url.Values{"name": {"Twice clicked"}, "owner": {"Ken"}, "status": {"paused"}, "budget": {"5"},
			"form_token": {formToken(t, form.Body)}}
		first := c.post("/projects", vals)
		second := c.post("/projects", vals)
		require.Equal(t, http.StatusSeeOther, first.Status)
		require.Equal(t, http.StatusSeeOther, second.Status)
		list := c.get("/projects")
		n := strings.Count(list.Body, ">Twice clicked</a>")
		dupRow := strings.Contains(list.Body, `data-bug="BUG-DOUBLE-SUBMIT"`)
		assert.Equal(t, n == 2, dupRow, "the duplicate row is flagged")
		assert.Equal(t, n == 1, guarded, "the client-side guard is there exactly when fixed")
		assert.Equal(t, n == 1, first.Location == second.Location)
		return n == 2
	}},
	{id: BugSessionExpired, server: true, fire: func(t *testing.T, c *client) bool {
		c.clearCookies()
		r := c.get("/projects?page=2")
		if r.Status == http.StatusInternalServerError {
			assert.Contains(t, r.Body, string(BugSessionExpired))
			return true
		}
		require.Equal(t, http.StatusSeeOther, r.Status)
		require.Equal(t, "/signin?next="+url.QueryEscape("/projects?page=2"), r.Location)
		// Signing in again lands on the page asked for.
		s := c.post("/signin", url.Values{"email": {DemoEmail}, "password": {DemoPassword}, "next": {"/projects?page=2"}})
		require.Equal(t, "/projects?page=2", s.Location)
		return false
	}},
	{id: BugSlowReports, server: true, fire: func(t *testing.T, c *client) bool {
		start := time.Now()
		r := c.get("/reports")
		took := time.Since(start)
		require.Equal(t, http.StatusOK, r.Status)
		assert.Contains(t, r.Body, "Margaret")
		slow := took >= testSlowDelay
		assert.Equal(t, slow, strings.Contains(r.Body, `data-bug="BUG-SLOW-REPORTS"`))
		return slow
	}},
	{id: BugDeadSaveDraft, fire: func(t *testing.T, c *client) bool {
		require.Equal(t, http.StatusSeeOther, c.post("/checkout/1", url.Values{"plan": {"starter"}}).Status)
		r := c.get("/checkout/2")
		require.Equal(t, http.StatusOK, r.Status)
		b := tag(r.Body, "save-draft")
		require.NotEmpty(t, b)
		if strings.Contains(b, `data-action="save-draft"`) {
			d := c.post("/checkout/draft", url.Values{"company": {"Draft Co"}})
			assert.Equal(t, http.StatusOK, d.Status)
			assert.JSONEq(t, `{"saved":true,"message":"Draft saved."}`, d.Body)
			assert.Contains(t, c.get("/checkout/2").Body, `value="Draft Co"`)
			return false
		}
		return strings.Contains(b, `data-bug="BUG-DEAD-SAVE-DRAFT"`)
	}},
}

const testSlowDelay = 400 * time.Millisecond

func TestEveryBugHasACase(t *testing.T) {
	var ids []BugID
	for _, c := range bugCases {
		ids = append(ids, c.id)
	}
	assert.ElementsMatch(t, BugIDs(), ids)
}

// TestSeededBugs drives every bug with only that bug on (it must fire) and
// with only that bug off (it must not).
func TestSeededBugs(t *testing.T) {
	for _, bc := range bugCases {
		t.Run(string(bc.id), func(t *testing.T) {
			t.Parallel()
			for _, on := range []bool{true, false} {
				disabled := allOff(bc.id)
				if !on {
					disabled = map[BugID]bool{bc.id: true}
				}
				app, srv := startApp(t, Options{Disabled: disabled, SlowDelay: testSlowDelay})
				c := newClient(t, srv)
				c.signIn()
				fired := bc.fire(t, c)
				assert.Equalf(t, on, fired, "bug on=%v", on)
				var trig bool
				for _, tr := range app.Triggered() {
					if tr.Bug == bc.id {
						trig = true
					}
				}
				if bc.server {
					assert.Equalf(t, on, trig, "server-side trigger recorded, on=%v", on)
				} else {
					assert.False(t, trig, "browser-side bugs are not server triggers")
				}
			}
		})
	}
}

func TestBugHeaderMarksTheTriggeringResponse(t *testing.T) {
	_, srv := startApp(t, Options{SlowDelay: time.Millisecond})
	c := newClient(t, srv)
	c.signIn()
	tests := []struct {
		path string
		want BugID
	}{
		{"/projects?sort=budget", Bug5xxSort},
		{"/projects/export", BugBannerExport},
		{"/search?q=" + url.QueryEscape(xssProbe), BugXSSSearch},
		{"/reports", BugSlowReports},
		{brokenReleaseNotes, Bug404ReleaseNotes},
	}
	for _, tt := range tests {
		r := c.get(tt.path)
		assert.Equal(t, []string{string(tt.want)}, r.Header.Values(BugHeader), tt.path)
	}
	for _, clean := range []string{"/projects", "/search?q=apollo", "/dashboard", "/settings"} {
		assert.Empty(t, c.get(clean).Header.Values(BugHeader), clean)
	}
	c.clearCookies()
	assert.Equal(t, []string{string(BugSessionExpired)}, c.get("/settings").Header.Values(BugHeader))
}

func TestSessionExpiresWithClock(t *testing.T) {
	for _, on := range []bool{true, false} {
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		disabled := map[BugID]bool{}
		if !on {
			disabled[BugSessionExpired] = true
		}
		app, err := New(Options{Disabled: disabled, SessionTTL: time.Minute, Now: func() time.Time { return now }})
		require.NoError(t, err)
		srv := newTestServer(t, app)
		c := newClient(t, srv)
		c.signIn()
		assert.Equal(t, http.StatusOK, c.get("/dashboard").Status)
		now = now.Add(2 * time.Minute)
		r := c.get("/dashboard")
		if on {
			assert.Equal(t, http.StatusInternalServerError, r.Status)
			assert.Contains(t, r.Body, string(BugSessionExpired))
		} else {
			assert.Equal(t, http.StatusSeeOther, r.Status)
			assert.True(t, strings.HasPrefix(r.Location, "/signin"), r.Location)
		}
	}
}

// TestFixedAppIsClean crawls every same-origin link of the app with all
// bugs off: nothing is broken and no bug id shows anywhere.
func TestFixedAppIsClean(t *testing.T) {
	app, srv := startApp(t, Options{Disabled: allOff()})
	c := newClient(t, srv)
	c.signIn()
	checkoutToStep3(c)
	visited := crawl(t, c, "/dashboard", func(path string, r response) {
		assert.Lessf(t, r.Status, 400, "GET %s", path)
		assert.NotContainsf(t, r.Body, "BUG-", "GET %s", path)
		assert.Emptyf(t, r.Header.Values(BugHeader), "GET %s", path)
	})
	assert.GreaterOrEqual(t, len(visited), 20)
	assert.Empty(t, app.Triggered())
}

// TestBuggyAppCrawl crawls with every bug on and finds the broken link.
func TestBuggyAppCrawl(t *testing.T) {
	app, srv := startApp(t, Options{SlowDelay: time.Millisecond})
	c := newClient(t, srv)
	c.signIn()
	var notFound []string
	crawl(t, c, "/dashboard", func(path string, r response) {
		if r.Status == http.StatusNotFound {
			notFound = append(notFound, path)
		}
	})
	assert.Equal(t, []string{brokenReleaseNotes}, notFound)
	var ids []BugID
	for _, tr := range app.Triggered() {
		if !slices.Contains(ids, tr.Bug) {
			ids = append(ids, tr.Bug)
		}
	}
	assert.Subset(t, ids, []BugID{Bug404ReleaseNotes, BugBannerExport, BugSlowReports})
}

// crawl visits same-origin GET links breadth first, at most 200 pages.
func crawl(t *testing.T, c *client, start string, check func(path string, r response)) []string {
	t.Helper()
	queue := []string{start}
	seen := map[string]bool{start: true}
	var visited []string
	for len(queue) > 0 && len(visited) < 200 {
		p := queue[0]
		queue = queue[1:]
		r := c.get(p)
		visited = append(visited, p)
		check(p, r)
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			continue
		}
		for _, l := range links(r.Body) {
			if !strings.HasPrefix(l, "/") || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/static/") || seen[l] {
				continue
			}
			seen[l] = true
			queue = append(queue, l)
		}
	}
	return visited
}

func TestFindIDs(t *testing.T) {
	tests := []struct {
		in   string
		want []BugID
	}{
		{"", nil},
		{"no ids here", nil},
		{"BUG-XSS-SEARCH", []BugID{BugXSSSearch}},
		{"x BUG-5XX-SORT: y; again BUG-5XX-SORT", []BugID{Bug5xxSort}},
		{`<p data-bug="BUG-XSS-SEARCH">` + "\nX-Demoapp-Bug: BUG-SLOW-REPORTS", []BugID{BugXSSSearch, BugSlowReports}},
		{"BUG-XSS-SEARCHING BUG-UNKNOWN bug-xss-search", nil},
		{"/release-notes/BUG-404-RELEASE-NOTES?x=1", []BugID{Bug404ReleaseNotes}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FindIDs(tt.in), tt.in)
	}
	// Every bug's own evidence description names it.
	for _, b := range Bugs() {
		if strings.Contains(b.Evidence, string(b.ID)) {
			assert.Contains(t, FindIDs(b.Evidence), b.ID)
		}
	}
}

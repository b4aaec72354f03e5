package demoapp

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signedInRequest builds a request carrying a fresh session of app.
func signedInRequest(app *App, method, target string, body string) *http.Request {
	s := app.newSession(DemoEmail)
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: s.id})
	return r
}

// checkResponse fails on a response only a handler panic (recovered into a
// bare 500) or an unseeded server error can produce.
func checkResponse(t *testing.T, rec *httptest.ResponseRecorder, what string) {
	t.Helper()
	if rec.Code >= 500 {
		assert.Containsf(t, rec.Body.String(), "BUG-", "%s: unseeded %d: %s", what, rec.Code, rec.Body.String())
		assert.NotEmptyf(t, rec.Header().Values(BugHeader), "%s: 5xx without a seeded bug", what)
	}
}

func FuzzProjectListQuery(f *testing.F) {
	for _, s := range []string{
		"", "page=2", "page=0", "page=-1", "page=999999999999999999999", "page=abc", "sort=budget", "sort=-budget",
		"sort=name&status=active&owner=Ada", "status=nope", "owner=%00", "sort=%ff%fe", "page=3&sort=-name",
		"status=all&owner=&sort=status&page=2", "%zz", "a=b;c=d", strings.Repeat("page=1&", 200),
	} {
		f.Add(s)
	}
	app, err := New(Options{})
	require.NoError(f, err)
	fixed, err := New(Options{Disabled: allOff()})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, rawQuery string) {
		for _, a := range []*App{app, fixed} {
			req := signedInRequest(a, http.MethodGet, "/projects", "")
			req.URL.RawQuery = rawQuery
			rec := httptest.NewRecorder()
			a.ServeHTTP(rec, req)
			assert.Contains(t, []int{http.StatusOK, http.StatusBadRequest, http.StatusInternalServerError}, rec.Code)
			checkResponse(t, rec, "GET /projects?"+rawQuery)
			if a == fixed {
				assert.Less(t, rec.Code, 500, rawQuery)
			}
		}
	})
}

// FuzzAnyRequest sends arbitrary paths, queries and form bodies to every
// route of the fixed app: nothing may answer 5xx.
func FuzzAnyRequest(f *testing.F) {
	routes := []string{
		"GET /", "GET /signin", "POST /signin", "GET /dashboard", "GET /projects", "GET /projects/new",
		"POST /projects", "GET /projects/1", "GET /projects/1/edit", "POST /projects/1", "POST /projects/2/delete",
		"GET /search", "GET /settings", "POST /settings", "GET /reports", "GET /checkout/1", "POST /checkout/1",
		"POST /checkout/2", "POST /checkout/3", "POST /checkout/draft", "GET /checkout/done", "GET /release-notes",
		"GET /projects/x", "GET /nope",
	}
	for i := range routes {
		f.Add(uint8(i), "", "")
	}
	f.Add(uint8(6), "", "name="+strings.Repeat("x", 400)+"&owner=Ada&status=active")
	f.Add(uint8(6), "", "name=%3Cscript%3E&owner=Ada&status=active&budget=-5")
	f.Add(uint8(12), "", "display_name=&timezone="+strings.Repeat("z", 100)+"&theme=neon")
	f.Add(uint8(16), "", "plan=gold")
	f.Add(uint8(11), "q=%3Cimg%20src%3Dx%3E", "")
	f.Add(uint8(2), "", "email=demo%40example.com&password=demo1234&next=%2F%2Fevil.test")
	f.Add(uint8(9), "", "%zz")

	fixed, err := New(Options{Disabled: allOff(), SlowDelay: time.Millisecond})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, route uint8, rawQuery, body string) {
		method, path, _ := strings.Cut(routes[int(route)%len(routes)], " ")
		req := signedInRequest(fixed, method, path, body)
		req.URL.RawQuery = rawQuery
		rec := httptest.NewRecorder()
		fixed.ServeHTTP(rec, req)
		assert.Lessf(t, rec.Code, 500, "%s %s?%s body %q: %s", method, path, rawQuery, body, rec.Body.String())
		if rec.Code == http.StatusSeeOther {
			loc, err := url.Parse(rec.Header().Get("Location"))
			require.NoError(t, err)
			assert.Empty(t, loc.Host, "redirects stay on the site")
		}
	})
}

package bugfarm

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzRequests throws arbitrary paths, queries and form bodies at a fixed
// app (signed in) and a buggy one: no panic, no unseeded 5xx.
func FuzzRequests(f *testing.F) {
	for _, c := range []struct{ method, path, query, body string }{
		{"GET", "/", "", ""},
		{"GET", "/books", "q=%ff&page=-1", ""},
		{"GET", "/search", "q=' OR 1=1 --", ""},
		{"POST", "/tickets/new", "", "step=2&subject=%00&estimate=1e9&token=x"},
		{"POST", "/tickets/1/edit", "", "subject=" + strings.Repeat("é", 300)},
		{"POST", "/api/records/1", "", "field=title&value=<b>"},
		{"GET", "/api/nothing", "n=NaN", ""},
		{"GET", "/board/../../etc/passwd", "", ""},
	} {
		f.Add(c.method, c.path, c.query, c.body)
	}
	fixed := Generate(16, Options{Fixed: true})
	buggy := Generate(16, Options{SlowDelay: fastSlow})
	session := func(app *App) *http.Cookie {
		rec := httptest.NewRecorder()
		form := url.Values{"user": {app.SignIn.User}, "password": {app.SignIn.Password}}
		req := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		app.ServeHTTP(rec, req)
		for _, c := range rec.Result().Cookies() {
			return c
		}
		return nil
	}
	f.Fuzz(func(t *testing.T, method, path, query, body string) {
		if method != http.MethodGet && method != http.MethodPost {
			method = http.MethodGet
		}
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#%") || len(path) > 300 {
			return
		}
		for _, app := range []*App{fixed, buggy} {
			req, err := http.NewRequest(method, "http://bf.test"+path, strings.NewReader(body))
			if err != nil {
				return
			}
			req.URL.RawQuery = query
			if method == http.MethodPost {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			if c := session(app); c != nil {
				req.AddCookie(c)
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if rec.Code >= 500 && (app == fixed || rec.Header().Get(BugHeader) == "") {
				t.Fatalf("%s %s?%s: unseeded %d: %s", method, path, query, rec.Code, rec.Body.String())
			}
		}
	})
}

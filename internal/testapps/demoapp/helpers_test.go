package demoapp

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// client is a browser-like HTTP client for one test server.
type client struct {
	t    *testing.T
	srv  *httptest.Server
	http *http.Client
}

type response struct {
	Status   int
	Header   http.Header
	Body     string
	Location string
}

func startApp(t *testing.T, opts Options) (*App, *httptest.Server) {
	t.Helper()
	app, err := New(opts)
	require.NoError(t, err)
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	return app, srv
}

// allOff disables every bug except the given ones.
func allOff(except ...BugID) map[BugID]bool {
	m := map[BugID]bool{}
	for _, id := range BugIDs() {
		m[id] = true
	}
	for _, id := range except {
		delete(m, id)
	}
	return m
}

func newClient(t *testing.T, srv *httptest.Server) *client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &client{t: t, srv: srv, http: &http.Client{
		Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}
}

func (c *client) do(req *http.Request) response {
	c.t.Helper()
	res, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return response{Status: res.StatusCode, Header: res.Header, Body: string(b), Location: res.Header.Get("Location")}
}

func (c *client) get(path string) response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.srv.URL+path, nil)
	require.NoError(c.t, err)
	return c.do(req)
}

// follow GETs path and follows redirects (at most 10).
func (c *client) follow(path string) (response, string) {
	c.t.Helper()
	for range 10 {
		r := c.get(path)
		if r.Status < 300 || r.Status >= 400 {
			return r, path
		}
		path = r.Location
	}
	c.t.Fatalf("too many redirects at %s", path)
	return response{}, ""
}

func (c *client) post(path string, form url.Values) response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

func (c *client) signIn() {
	c.t.Helper()
	r := c.post("/signin", url.Values{"email": {DemoEmail}, "password": {DemoPassword}, "next": {"/dashboard"}})
	require.Equal(c.t, http.StatusSeeOther, r.Status, r.Body)
	require.Equal(c.t, "/dashboard", r.Location)
}

func (c *client) clearCookies() {
	c.t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(c.t, err)
	c.http.Jar = jar
}

// tag returns the first start tag carrying data-testid=id, or "".
func tag(body, testID string) string {
	re := regexp.MustCompile(`<[a-z0-9]+\b[^>]*\bdata-testid="` + regexp.QuoteMeta(testID) + `"[^>]*>`)
	return re.FindString(body)
}

var hrefRE = regexp.MustCompile(`\bhref="([^"]*)"`)

// links returns the unescaped hrefs of a page.
func links(body string) []string {
	var out []string
	for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
		out = append(out, strings.ReplaceAll(m[1], "&amp;", "&"))
	}
	return out
}

var tokenRE = regexp.MustCompile(`name="form_token" value="([^"]*)"`)

func formToken(t *testing.T, body string) string {
	t.Helper()
	m := tokenRE.FindStringSubmatch(body)
	require.NotNil(t, m, "form token in page")
	return m[1]
}

func newTestServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

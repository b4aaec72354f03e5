package bugfarm

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fastSlow keeps slow_response bugs short in tests that do not measure them.
const fastSlow = 60 * time.Millisecond

// served is an app under httptest with a cookie-keeping client that does
// not follow redirects.
type served struct {
	app *App
	srv *httptest.Server
	c   *http.Client
}

func serve(t *testing.T, seed int64, opts Options) *served {
	t.Helper()
	if opts.SlowDelay == 0 {
		opts.SlowDelay = fastSlow
	}
	app := Generate(seed, opts)
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &http.Client{Jar: jar, Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &served{app: app, srv: srv, c: c}
}

// resp is a read response.
type resp struct {
	status int
	body   string
	header http.Header
	took   time.Duration
}

func (s *served) do(t *testing.T, req *http.Request) resp {
	t.Helper()
	start := time.Now()
	res, err := s.c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return resp{status: res.StatusCode, body: string(b), header: res.Header, took: time.Since(start)}
}

func (s *served) get(t *testing.T, path string) resp {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
	require.NoError(t, err)
	return s.do(t, req)
}

func (s *served) post(t *testing.T, path string, form url.Values) resp {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return s.do(t, req)
}

// signIn starts a session when the app has a sign-in.
func (s *served) signIn(t *testing.T) {
	t.Helper()
	if s.app.SignIn == nil {
		return
	}
	r := s.post(t, "/signin", url.Values{"user": {s.app.SignIn.User}, "password": {s.app.SignIn.Password}, "next": {"/"}})
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
}

// validRecord is a valid value for every field, with over applied.
func (s *served) validRecord(over map[string]string) url.Values {
	v := url.Values{}
	for _, f := range s.app.site.fields {
		if f.Kind == kCheckbox {
			continue
		}
		v.Set(f.Key, f.Sample)
	}
	for k, x := range over {
		v.Set(k, x)
	}
	return v
}

// create posts a new record in one request (the wizard's last step holds
// every field), with token.
func (s *served) create(t *testing.T, over map[string]string, token string) resp {
	t.Helper()
	v := s.validRecord(over)
	v.Set("token", token)
	v.Set("step", "3")
	return s.post(t, s.app.site.byKind[pNew].Path, v)
}

func bugsOf(app *App, c Class) []Bug {
	var out []Bug
	for _, b := range app.All {
		if b.Class == c {
			out = append(out, b)
		}
	}
	return out
}

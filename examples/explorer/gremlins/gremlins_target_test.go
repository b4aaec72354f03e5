package gremlins

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signInApp shows its dashboard, whose widget logs a console error naming
// bf4-02, only after a sign-in with an account it does not show.
func signInApp(t *testing.T) *httptest.Server {
	t.Helper()
	page := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Board</title></head><body><main>%s</main></body></html>`, body)
	}
	form := `<h1>Sign in</h1><form method="post" action="/login"><label>Username <input name="user"></label>
<label>Password <input type="password" name="pw"></label><button type="submit">Sign in</button></form>`
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("sid"); err != nil || c.Value != "ok" {
			page(w, form)
			return
		}
		page(w, `<h1>Dashboard</h1><button type="button" onclick="this.textContent='Refreshed'">Refresh</button>
<script>console.error('bf4-02: dashboard widget failed')</script>`)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("user") != "tester" || r.FormValue("pw") != "s3cret-pw" {
			page(w, `<p role="alert">Wrong account</p>`+form)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "ok", Path: "/"})
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

var reTestIDs = regexp.MustCompile(`bf\d+-\d+`)

// TestRunGremlinsOnTarget: the gremlins side runs on any origin, signs in
// with the given account, spends exactly its budget and is scored with the
// caller's seeded ids and matcher.
func TestRunGremlinsOnTarget(t *testing.T) {
	app := signInApp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const n = 15
	side, err := Run(ctx, Config{Budget: n, Seed: 2, Target: app.URL, Browser: testBrowser,
		Credentials: session.Credentials{Email: "tester", Password: "s3cret-pw"},
		Seeded:      []string{"bf4-01", "bf4-02"}, FindIDs: func(s string) []string { return reTestIDs.FindAllString(s, -1) }})
	require.NoError(t, err)
	t.Logf("found %v, own %v, pages %v, sign-ins %d, actions %d", side.Found, side.OwnOracles, side.Pages, side.SignIns, side.Actions)
	assert.Equal(t, n, side.Actions)
	assert.GreaterOrEqual(t, side.SignIns, 1)
	assert.Equal(t, []string{"bf4-02"}, side.Found, "signed in with the given account, the dashboard's console error is found")
	assert.Equal(t, []string{"bf4-02"}, side.OwnOracles, "a console error is one of gremlins' own oracles")

	// Without a matcher there is no score; a bad target is a usage error.
	side, err = Run(ctx, Config{Budget: 5, Target: app.URL, Browser: testBrowser, NoSignIn: true})
	require.NoError(t, err)
	assert.Empty(t, side.Found)
	_, err = Run(ctx, Config{Budget: 5, Target: "ftp://x", Browser: testBrowser})
	assert.ErrorIs(t, err, explore.ErrUsage)
	_, err = Compare(ctx, Config{Budget: 5, Target: app.URL, Browser: testBrowser})
	assert.ErrorIs(t, err, explore.ErrUsage)
}

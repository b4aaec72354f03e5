package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fetchForm posts in the background, then follows the redirect with
// location.assign, as the demo app's data-fetch-submit forms do.
const fetchForm = `<!doctype html><html><head><title>Form</title></head><body>
<form method="post" action="/items" id="f"><label>Name <input name="name" value="A"></label><button type="submit">Create</button></form>
<script>
document.getElementById('f').addEventListener('submit', (ev) => {
  ev.preventDefault();
  fetch('/items', { method: 'POST', body: new URLSearchParams(new FormData(ev.target)).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })
    .then((res) => { if (res.redirected) window.location.assign(res.url); else ev.target.submit(); });
});
</script></body></html>`

// TestSettleAfterRedirectedFetch: Chromium never reports the end of a
// redirected fetch's answer when the page navigates away before reading
// it. The settle wait must not count it (it used to wait out its whole
// timeout after every such form, and every later action did too).
func TestSettleAfterRedirectedFetch(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /form", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, fetchForm) })
	mux.HandleFunc("POST /items", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/items/1?created=1", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Item</title></head><body><h1>Item</h1></body></html>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	const timeout = 10 * time.Second
	e, err := testBrowser.NewEngine(Config{Origins: []string{srv.URL}, SettleTimeout: timeout})
	require.NoError(t, err)
	defer e.Close()
	ctx := context.Background()
	s, err := e.User(ctx, "u")
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		res := s.Do(ctx, Intent{Action: ActNavigate, URL: srv.URL + "/form"})
		require.True(t, res.OK, res.Error)
		res = s.Do(ctx, Intent{Action: ActClick, Target: `role=button[name="Create"]`})
		require.True(t, res.OK, res.Error)
		assert.Equal(t, srv.URL+"/items/1?created=1", res.URL)
		assert.Zero(t, s.net.len(), "no request of the form page is still counted")
		assert.Less(t, res.Duration, timeout, "the settle saw the page idle before its timeout")
	}
}

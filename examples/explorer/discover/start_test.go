package discover

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckStarts(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(other.Close)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			http.Redirect(w, r, "/login", http.StatusFound)
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusMovedPermanently)
		case "/scheme":
			http.Redirect(w, r, "https://"+r.Host+"/x", http.StatusFound)
		case "/error":
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(app.Close)
	ctx := context.Background()

	require.NoError(t, CheckStarts(ctx, app.URL, []string{"", "/", "/error", "/login?next=%2F"}, 5*time.Second), "within the origin, any status")

	for start, want := range map[string]string{"/away": other.URL + "/x", "/scheme": "https://"} {
		err := CheckStarts(ctx, app.URL+"/", []string{"/", start}, 5*time.Second)
		var oe *OffOriginError
		require.True(t, errors.As(err, &oe), "%s: %v", start, err)
		assert.Equal(t, start, oe.Start)
		assert.Contains(t, oe.Location, want)
		assert.Contains(t, err.Error(), "another origin")
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, CheckStarts(cctx, app.URL, []string{"/"}, 5*time.Second), context.Canceled)
}

package explore

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
)

// A request that fails at the connection level is the app's bug only when
// the app's answer broke off; when the collector relayed it whole, it broke
// between the collector and the browser, and is no finding.
func TestBrokeAfterApp(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/whole":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, "<!doctype html><title>ok</title><p>saved</p>")
		case "/cut":
			// Promises 100 bytes, sends 10, and the connection closes.
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "100")
			_, _ = io.WriteString(w, `{"items":[`)
		}
	}))
	defer app.Close()
	col, err := collector.New(app.URL, 0, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	front := httptest.NewServer(col)
	defer front.Close()

	for _, p := range []string{"/whole", "/cut"} {
		resp, err := http.Post(front.URL+p, "application/x-www-form-urlencoded", strings.NewReader("name=x"))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
	}
	// The collector records after the proxy returns.
	require.Eventually(t, func() bool { return col.RelayedWhole("POST", "/whole", time.Minute) }, 5*time.Second, 20*time.Millisecond)

	mr := &missionRun{col: col}
	finding := func(path, msg string) browser.Finding {
		return browser.Finding{Kind: browser.FindRequestFailed, URL: front.URL + path, Message: msg}
	}
	assert.True(t, mr.brokeAfterApp(finding("/whole", "POST request failed: net::ERR_CONTENT_LENGTH_MISMATCH")), "the app answered whole")
	assert.False(t, mr.brokeAfterApp(finding("/cut", "POST request failed: net::ERR_CONTENT_LENGTH_MISMATCH")), "the app's own answer broke off: its bug")
	assert.False(t, mr.brokeAfterApp(finding("/whole", "GET request failed: net::ERR_CONTENT_LENGTH_MISMATCH")), "another method is another request")
	assert.False(t, mr.brokeAfterApp(finding("/whole", "POST request failed: net::ERR_NAME_NOT_RESOLVED")), "not a failure of the connection")
	assert.False(t, mr.brokeAfterApp(browser.Finding{Kind: browser.FindPageError, URL: front.URL + "/whole", Message: "POST request failed: net::ERR_EMPTY_RESPONSE"}))
	assert.False(t, col.RelayedWhole("POST", "/whole", 0), "only within the window")

	// An app that does not answer: the collector's own 502 is no relay.
	app.Close()
	resp, err := http.Post(front.URL+"/gone", "text/plain", strings.NewReader("x"))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.False(t, col.RelayedWhole("POST", "/gone", time.Minute))
}

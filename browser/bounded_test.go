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

func TestPendingWait(t *testing.T) {
	var p pending
	assert.True(t, p.wait(time.Millisecond), "nothing running")

	a, b := p.start(), p.start()
	go func() {
		time.Sleep(20 * time.Millisecond)
		p.end(a)
	}()
	assert.False(t, p.wait(100*time.Millisecond), "b never ends")
	p.end(b)
	assert.True(t, p.wait(time.Second))
	assert.Empty(t, p.set)

	var none *pending // tracks nothing
	none.end(none.start())
	v, err := boundedOn(none, context.Background(), time.Second, "x", func() (int, error) { return 7, nil })
	require.NoError(t, err)
	assert.Equal(t, 7, v)
}

// TestCloseAfterAbandonedSettle: an action whose settle was abandoned (its
// context cancelled while the page was still loading) leaves a load-state
// wait running inside playwright-go; closing the session right after must
// wait for it rather than close the page under it (a data race in
// playwright-go that `go test -race` reports), and must still end in
// bounded time.
func TestCloseAfterAbandonedSettle(t *testing.T) {
	stop := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Start</title><button onclick="location.href='/partial'">go</button>`)
	})
	// Sends the start of a document and never its end: DOMContentLoaded
	// never fires.
	mux.HandleFunc("/partial", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>Partial</title><p>loading")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { close(stop); srv.Close() })

	settle := 2 * time.Second
	e, err := testBrowser.NewEngine(Config{Origins: []string{srv.URL}, ActionTimeout: 2 * time.Second, SettleTimeout: settle, SpinnerTimeout: time.Second})
	require.NoError(t, err)
	s := mustUser(t, e, "abandon")
	require.True(t, s.Do(context.Background(), Intent{Action: ActNavigate, URL: srv.URL + "/"}).OK)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(400*time.Millisecond, cancel)
	r := s.Do(ctx, Intent{Action: ActClick, Target: "role=button[name=\"go\"]"})
	t.Logf("click: ok=%v err=%q", r.OK, r.Error)

	start := time.Now()
	require.NoError(t, e.Close())
	took := time.Since(start)
	assert.Less(t, took, settle+callSlack+10*time.Second, "close is bounded")
}

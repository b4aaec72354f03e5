package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeReply is one scripted HTTP answer of a fake provider.
type fakeReply struct {
	status      int
	header      map[string]string
	body        string   // whole body (non-streaming)
	chunks      []string // streamed body pieces, flushed one by one
	contentType string
}

// recorded is one request a fake provider received.
type recorded struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   map[string]any
	Raw                    string
}

// fakeProvider is an httptest server answering with queued replies, in order,
// and recording the requests.
type fakeProvider struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []fakeReply
	reqs    []recorded
}

func newFakeProvider(t *testing.T, replies ...fakeReply) *fakeProvider {
	t.Helper()
	f := &fakeProvider{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeProvider) URL() string { return f.srv.URL }

func (f *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rec := recorded{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Raw: string(raw)}
	_ = json.Unmarshal(raw, &rec.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, rec)
	if len(f.replies) == 0 {
		f.mu.Unlock()
		http.Error(w, `{"error":"fake provider: no reply queued"}`, http.StatusTeapot)
		return
	}
	rep := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()

	ct := rep.contentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if rep.chunks == nil {
		body := rep.body
		if strings.HasSuffix(r.URL.Path, ":generateContent") && strings.HasPrefix(body, "[") {
			// Google: the same response as the non-streaming method sends it
			var arr []json.RawMessage
			require.NoError(f.t, json.Unmarshal([]byte(body), &arr))
			require.Len(f.t, arr, 1)
			body = string(arr[0])
		}
		_, _ = io.WriteString(w, body)
		return
	}
	fl, _ := w.(http.Flusher)
	for _, c := range rep.chunks {
		_, _ = io.WriteString(w, c)
		if fl != nil {
			fl.Flush()
		}
	}
}

func (f *fakeProvider) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

func (f *fakeProvider) last() recorded {
	f.t.Helper()
	rs := f.requests()
	require.NotEmpty(f.t, rs, "fake provider got no request")
	return rs[len(rs)-1]
}

// sse formats server-sent events: pairs of event name ("" for none) and data.
func sse(events ...[2]string) []string {
	out := make([]string, 0, len(events))
	for _, e := range events {
		s := ""
		if e[0] != "" {
			s = "event: " + e[0] + "\n"
		}
		out = append(out, s+"data: "+e[1]+"\n\n")
	}
	return out
}

// sleepRecorder is a RetryPolicy.Sleep that records delays and does not wait.
type sleepRecorder struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleepRecorder) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return nil
}

func (s *sleepRecorder) get() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.delays...)
}

func jsonPath(t *testing.T, v any, path ...any) any {
	t.Helper()
	cur := v
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			require.Truef(t, ok, "at %v: not an object: %v", k, cur)
			cur = m[k]
		case int:
			a, ok := cur.([]any)
			require.Truef(t, ok && k < len(a), "at [%d]: not an array long enough: %v", k, cur)
			cur = a[k]
		default:
			panic(fmt.Sprintf("bad path element %T", p))
		}
	}
	return cur
}

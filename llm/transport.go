package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Transport is an http.RoundTripper that lets the retry logic see what
// langchaingo hides: the HTTP status and Retry-After header of failed
// provider calls. langchaingo's clients turn a non-200 response into a plain
// error string (and Ollama's into an internal type), so status codes and
// headers cannot be read from the returned error.
//
// Transport records each response of status >= 400 into the recorder the
// calling Model put in the request's context; without one it is a plain
// pass-through. NewHTTPClient builds a client that uses it.
type Transport struct {
	Base http.RoundTripper // nil: http.DefaultTransport
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if rec, ok := req.Context().Value(recorderKey{}).(*statusRecorder); ok && resp != nil && resp.StatusCode >= 400 {
		rec.set(resp.StatusCode, parseRetryAfter(resp.Header, time.Now()))
	}
	return resp, err
}

// NewHTTPClient returns an HTTP client whose transport is a Transport over
// base's (or the default) transport. timeout 0 means none (streams may be long;
// cancel through the context).
func NewHTTPClient(base *http.Client, timeout time.Duration) *http.Client {
	var rt http.RoundTripper
	if base != nil {
		rt = base.Transport
	}
	c := &http.Client{Transport: &Transport{Base: rt}, Timeout: timeout}
	if base != nil {
		c.CheckRedirect, c.Jar = base.CheckRedirect, base.Jar
		if timeout == 0 {
			c.Timeout = base.Timeout
		}
	}
	return c
}

type recorderKey struct{}

// statusRecorder holds the last failed status seen during one attempt.
type statusRecorder struct {
	mu         sync.Mutex
	status     int
	retryAfter time.Duration
	// usage, when set, reads the attempt's usage from the raw response
	// (Google streams; see googleTransport).
	usage func() (Usage, bool)
}

func (r *statusRecorder) setUsage(f func() (Usage, bool)) {
	r.mu.Lock()
	r.usage = f
	r.mu.Unlock()
}

func (r *statusRecorder) rawUsage() (Usage, bool) {
	r.mu.Lock()
	f := r.usage
	r.mu.Unlock()
	if f == nil {
		return Usage{}, false
	}
	return f()
}

func (r *statusRecorder) set(status int, ra time.Duration) {
	r.mu.Lock()
	r.status, r.retryAfter = status, ra
	r.mu.Unlock()
}

func (r *statusRecorder) get() (int, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.retryAfter
}

func withRecorder(ctx context.Context) (context.Context, *statusRecorder) {
	rec := &statusRecorder{}
	return context.WithValue(ctx, recorderKey{}, rec), rec
}

// parseRetryAfter reads Retry-After (seconds or an HTTP date) and the
// retry-after-ms header some providers send. 0 means absent or unreadable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if f, err := strconv.ParseFloat(ms, 64); err == nil && f > 0 {
			return time.Duration(f * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

type effortKey struct{}

// withEffort marks ctx so that openAITransport adds reasoning_effort.
func withEffort(ctx context.Context, e Effort) context.Context {
	if e == "" || e == EffortNone {
		return ctx
	}
	return context.WithValue(ctx, effortKey{}, e)
}

// openAITransport adds "reasoning_effort" to chat completion requests when
// the role sets a reasoning effort: langchaingo v0.1.14's OpenAI client
// never sends it (the code is commented out there). Set an effort only for
// models that accept it (o-series, gpt-5…): others answer HTTP 400.
type openAITransport struct {
	base http.RoundTripper
}

func (t *openAITransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	e, ok := req.Context().Value(effortKey{}).(Effort)
	if !ok || req.Body == nil || req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		return base.RoundTrip(req)
	}
	raw, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	var body map[string]json.RawMessage
	if json.Unmarshal(raw, &body) == nil {
		if _, set := body["reasoning_effort"]; !set {
			body["reasoning_effort"], _ = json.Marshal(string(e))
			if b, err := json.Marshal(body); err == nil {
				raw = b
			}
		}
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(raw))
	req.ContentLength = int64(len(raw))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
	return base.RoundTrip(req)
}

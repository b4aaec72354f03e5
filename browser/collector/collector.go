package collector

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// Paths the collector serves on the app's origin.
const (
	Prefix = "/__explorer/"
	// ClearSiteDataPath answers with Clear-Site-Data, so navigating to it
	// drops the session of the origin the way an expired or cleared
	// browser does.
	ClearSiteDataPath = Prefix + "clear-site-data"
	collectorJSPath   = Prefix + "collector.js"
	axeJSPath         = Prefix + "axe.js"
)

// axeScript is axe-core's source (FindAxe: what `make setup` installs, or
// $AGENTGRAPH_AXE_PATH), read once.
var axeScript = sync.OnceValues(func() ([]byte, error) {
	p, err := FindAxe()
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
})

// Extra finding kinds of the collector, next to browser.FindingKind's.
const (
	FindXSS          browser.FindingKind = "xss"              // an injected script ran
	FindA11y         browser.FindingKind = "a11y"             // a serious or critical axe-core violation
	FindDeadControl  browser.FindingKind = "dead_control"     // a click changed nothing
	FindSlow         browser.FindingKind = "slow_response"    // a response slower than the threshold
	FindDuplicate    browser.FindingKind = "duplicate_submit" // the same form post accepted twice
	FindDuplicateRow browser.FindingKind = "duplicate_record" // two identical rows in a table
)

// XSSMarker starts what the catalogue's markup payloads (personas' input
// catalogue and XSS payloads) log with console.error when they run:
// "agentgraph-xss:" followed by the payload's token.
const XSSMarker = "agentgraph-xss:"

// XSSPayload is the probe the adversarial personas type: when it is
// rendered unescaped, the collector's hook reports the element it landed in.
const XSSPayload = `<img src=x onerror="__agxss(this)">`

// Collector is a reverse proxy in front of the app under test: the page
// health collector that watches from outside the page. It times every
// response, keeps 5xx bodies, notices accepted duplicate posts, injects
// axe-core and a small recorder (executed XSS probes, axe-core's serious
// and critical violations, dead controls, duplicate rows) into every HTML
// page, and can hold a response to play a slow network.
type Collector struct {
	target *url.URL
	proxy  *httputil.ReverseProxy
	slow   time.Duration
	log    *slog.Logger
	axe    []byte // axe-core's source

	mu       sync.Mutex
	findings []browser.Finding
	seen     map[string]bool
	posts    map[string]time.Time // path+body -> last post
	answers  map[string][]answer  // path+body -> answers to recent posts
	hold     time.Duration        // next POST response is held this long
	noAxe    bool                 // pages get no axe-core
	requests int                  // requests relayed so far
	reqLog   []Request            // the latest of them (MaxRequests)
	violated map[string]bool      // violations Violations returned: rule, page, elements
	// relayed: when the collector last relayed a whole answer of the app
	// to "METHOD /path" (the proxy wrote every byte the app sent).
	relayed map[string]time.Time
}

func New(target string, slow time.Duration, log *slog.Logger) (*Collector, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("collector: target %q: want http(s)://host[:port]", target)
	}
	axe, err := axeScript()
	if err != nil {
		return nil, fmt.Errorf("collector: accessibility checks need axe-core: %w", err)
	}
	c := &Collector{target: u, slow: slow, log: log, axe: axe, seen: map[string]bool{}, posts: map[string]time.Time{}, answers: map[string][]answer{}, relayed: map[string]time.Time{}, violated: map[string]bool{}}
	c.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = u.Host
			r.Out.Header.Del("Accept-Encoding")
		},
		ModifyResponse: c.inject,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// The collector's own failures are not the app's answers: a request
		// the browser gave up on is dropped, and a failed upstream call is
		// a 502 marked as the collector's (never reported as an app bug).
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				panic(http.ErrAbortHandler)
			}
			log.Warn("collector: upstream request failed", "url", r.URL.String(), "err", err)
			if rec, ok := w.(*recorder); ok {
				rec.failed = true
			}
			http.Error(w, FailurePrefix+err.Error(), http.StatusBadGateway)
		},
	}
	return c, nil
}

// FailurePrefix starts the body of a 502 the collector itself answers
// when the app could not be reached.
const FailurePrefix = "agentgraph collector: the app did not answer: "

// RelayedWhole reports whether the collector relayed a whole answer of
// the app to method and path within the last d: a request the browser then
// saw fail at the network level (a length mismatch, a reset) broke between
// the collector and the browser, not in the app.
func (c *Collector) RelayedWhole(method, path string, d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.relayed[method+" "+path]
	return ok && time.Since(t) <= d
}

// HoldNextPost makes the collector hold the response of the next POST for
// d after the app answered: a slow network, so that an impatient second
// click lands while the first is in flight. The time held is the
// network's: it never makes the answer a slow response. A d shorter than
// the browser's settle lets the action that sent the post wait for its
// answer; a longer one lets the page change after the action returned.
func (c *Collector) HoldNextPost(d time.Duration) {
	c.mu.Lock()
	c.hold = d
	c.mu.Unlock()
}

func (c *Collector) add(f browser.Finding) {
	if f.Time.IsZero() {
		f.Time = time.Now()
	}
	key := string(f.Kind) + "\x00" + urlx.Path(f.URL) + "\x00" + f.Evidence
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.findings = append(c.findings, f)
}

// Take returns the findings collected since the last call.
func (c *Collector) Take() []browser.Finding {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.findings
	c.findings = nil
	return out
}

func (c *Collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case collectorJSPath:
		w.Header().Set("Content-Type", "application/javascript")
		_, _ = io.WriteString(w, collectorJS)
		return
	case axeJSPath:
		w.Header().Set("Content-Type", "application/javascript")
		w.Header().Set("Cache-Control", "max-age=3600")
		_, _ = w.Write(c.axe)
		return
	case ClearSiteDataPath:
		w.Header().Set("Clear-Site-Data", `"cookies", "storage"`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><title>Site data cleared</title></head><body><main><p>Cookies and storage of this site were cleared.</p><a href="/">Back to the app</a></main></body></html>`)
		return
	}
	key := ""
	if r.Method == http.MethodPost && r.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		if len(body) > 0 {
			key = r.URL.Path + "\x00" + postKey(r.Header.Get("Content-Type"), body)
			c.mu.Lock()
			if prev, ok := c.posts[key]; !ok || time.Since(prev) > 10*time.Second {
				delete(c.answers, key)
			}
			c.posts[key] = time.Now()
			c.mu.Unlock()
		}
	}
	start := time.Now()
	rec := &recorder{ResponseWriter: w, status: http.StatusOK, c: c, post: r.Method == http.MethodPost}
	c.proxy.ServeHTTP(rec, r) // panics (http.ErrAbortHandler) when the app's answer broke off
	took := time.Since(start) - rec.held
	c.mu.Lock()
	c.logRequest(Request{Method: r.Method, Path: r.URL.RequestURI(), Status: rec.status, Duration: took})
	if !rec.failed {
		c.relayed[r.Method+" "+r.URL.Path] = time.Now()
	}
	c.log.Debug("collector: relayed", "method", r.Method, "path", r.URL.Path, "status", rec.status, "failed", rec.failed, "content_length", rec.Header().Get("Content-Length"))
	c.mu.Unlock()
	c.observe(r, rec, took, key)
}

// recorder keeps the status, headers and the start of the body of a
// response, and holds a POST response when asked to.
type recorder struct {
	http.ResponseWriter
	c      *Collector
	status int
	post   bool
	body   bytes.Buffer
	wrote  bool
	failed bool // the collector answered for an app that did not
	// held is how long the collector itself held the answer back
	// (HoldNextPost): the network's time, not the app's.
	held time.Duration
}

func (r *recorder) WriteHeader(code int) {
	if r.wrote {
		return
	}
	r.wrote = true
	r.status = code
	if r.post {
		r.c.mu.Lock()
		d := r.c.hold
		r.c.hold = 0
		r.c.mu.Unlock()
		if d > 0 {
			time.Sleep(d)
			r.held = d
		}
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	if r.body.Len() < 4096 {
		r.body.Write(p[:min(len(p), 4096-r.body.Len())])
	}
	return r.ResponseWriter.Write(p)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

var (
	reTags   = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]+>`)
	reSpaces = regexp.MustCompile(`\s+`)
)

// appHeaders renders the response's non-standard headers (X-…), which a
// HAR-style collector keeps as part of the evidence.
func appHeaders(h http.Header) string {
	var keys []string
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "x-") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "; %s: %s", k, strings.Join(h.Values(k), ", "))
	}
	return b.String()
}

// answer is the outcome of one post, to compare with a duplicate's.
type answer struct {
	status   int
	location string
	headers  string
}

func (c *Collector) observe(r *http.Request, rec *recorder, took time.Duration, postKey string) {
	u := c.target.ResolveReference(&url.URL{Path: r.URL.Path, RawQuery: r.URL.RawQuery}).String()
	line := fmt.Sprintf("%s %s → %d", r.Method, r.URL.RequestURI(), rec.status)
	hdr := appHeaders(rec.Header())
	if rec.status >= 500 {
		text := strings.TrimSpace(reSpaces.ReplaceAllString(reTags.ReplaceAllString(rec.body.String(), " "), " "))
		c.add(browser.Finding{Kind: browser.FindServerError, Status: rec.status, URL: u,
			Message:  fmt.Sprintf("server error %d on %s %s", rec.status, r.Method, r.URL.Path),
			Evidence: clip.String(line+hdr+"; body: "+text, 1500)})
	}
	if c.slow > 0 && took > c.slow && rec.status < 400 {
		c.add(browser.Finding{Kind: FindSlow, Status: rec.status, URL: u,
			Message:  fmt.Sprintf("%s %s took %s (threshold %s)", r.Method, r.URL.Path, took.Round(10*time.Millisecond), c.slow),
			Evidence: clip.String(line+fmt.Sprintf(" in %s", took.Round(10*time.Millisecond))+hdr, 1500)})
	}
	if postKey != "" && rec.status < 400 {
		// The same form posted twice made two different things (two
		// redirects to different records): the second was not refused.
		a := answer{status: rec.status, location: rec.Header().Get("Location"), headers: hdr}
		c.mu.Lock()
		prev := c.answers[postKey]
		c.answers[postKey] = append(prev, a)
		c.mu.Unlock()
		for _, p := range prev {
			if p.location != a.location || a.status == http.StatusCreated {
				c.add(browser.Finding{Kind: FindDuplicate, Status: rec.status, URL: u,
					Message:  fmt.Sprintf("the same %s %s was accepted twice and made two records (%s and %s)", r.Method, r.URL.Path, p.location, a.location),
					Evidence: clip.String(fmt.Sprintf("%s → %d Location %s%s | %s → %d Location %s%s", r.URL.Path, p.status, p.location, p.headers, r.URL.Path, a.status, a.location, a.headers), 1500)})
				break
			}
		}
	}
}

var reToken = regexp.MustCompile(`(^|&)[a-z_]*(token|csrf|nonce)[a-z_]*=[^&]*`)

// stripToken drops form tokens, so two submissions of one form compare equal.
func stripToken(body string) string { return reToken.ReplaceAllString(body, "") }

// reTokenName is a form field name that carries a per-form token.
var reTokenName = regexp.MustCompile(`(?i)token|csrf|nonce`)

// postKey is what makes two posts of a form the same submission: its
// fields and values in a canonical order, the form's token left out (it is
// the same in both when a double click sent them). A multipart body (a
// fetch() of FormData) is read field by field, since each request has a
// boundary of its own; a file part counts by its name and size.
func postKey(contentType string, body []byte) string {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return stripToken(string(body))
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var fields []string
	for {
		part, err := mr.NextPart()
		if err != nil {
			if err != io.EOF {
				return stripToken(string(body))
			}
			break
		}
		name := part.FormName()
		data, _ := io.ReadAll(io.LimitReader(part, 1<<20))
		if reTokenName.MatchString(name) {
			continue
		}
		if part.FileName() != "" {
			fields = append(fields, fmt.Sprintf("%s=file:%s:%d", name, part.FileName(), len(data)))
			continue
		}
		fields = append(fields, name+"="+string(data))
	}
	slices.Sort(fields)
	return strings.Join(fields, "&")
}

const (
	injectTag      = `<script src="` + axeJSPath + `"></script>` + injectTagNoAxe
	injectTagNoAxe = `<script src="` + collectorJSPath + `"></script>`
)

// WithoutAxe stops injecting axe-core: no accessibility findings, and
// pages load and settle faster (a replay that looks for other findings).
func (c *Collector) WithoutAxe() {
	c.mu.Lock()
	c.noAxe = true
	c.mu.Unlock()
}

// rewriteLocation keeps redirects on the collector: a Location (or a
// Refresh header's URL) on the app's own origin becomes a path, so the
// browser comes back through the collector instead of leaving for the
// app's origin; a Location on another origin is left as it is and
// recorded: the browser engine's origin guard refuses it before any
// request leaves (the tape says so), and the collector never follows it.
func (c *Collector) rewriteLocation(resp *http.Response) {
	for _, h := range []string{"Location", "Content-Location"} {
		loc := resp.Header.Get(h)
		if loc == "" {
			continue
		}
		if p, ok := c.onTarget(loc); ok {
			resp.Header.Set(h, p)
		} else if h == "Location" {
			c.log.Info("collector: the app redirects off its origin; the browser will refuse it", "from", resp.Request.URL.Path, "to", loc)
		}
	}
	if r := resp.Header.Get("Refresh"); r != "" {
		if i := strings.Index(strings.ToLower(r), "url="); i >= 0 {
			if p, ok := c.onTarget(strings.Trim(r[i+4:], `'" `)); ok {
				resp.Header.Set("Refresh", r[:i+4]+p)
			}
		}
	}
}

// onTarget returns ref as a path (with query and fragment) when it is
// relative or on the app's origin.
func (c *Collector) onTarget(ref string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return "", false
	}
	if !u.IsAbs() && u.Host == "" {
		return ref, true // relative: already on the collector
	}
	if u.Scheme == "" {
		u.Scheme = c.target.Scheme // scheme-relative
	}
	if u.Scheme != c.target.Scheme || !strings.EqualFold(u.Host, c.target.Host) {
		return "", false
	}
	p := *u
	p.Scheme, p.Host, p.User = "", "", nil
	if p.Path == "" {
		p.Path = "/"
	}
	return p.String(), true
}

func (c *Collector) inject(resp *http.Response) error {
	c.rewriteLocation(resp)
	c.mu.Lock()
	tag := injectTag
	if c.noAxe {
		tag = injectTagNoAxe
	}
	c.mu.Unlock()
	// Pages over 20 MiB are relayed whole but not instrumented.
	if err := browser.InjectHTML(resp, tag, 20<<20); err != nil && !errors.Is(err, browser.ErrTooLarge) {
		return fmt.Errorf("collector: read %s: %w", resp.Request.URL.Path, err)
	}
	return nil
}

type pageReport struct {
	Kind     string `json:"kind"`
	URL      string `json:"url"`
	Message  string `json:"message"`
	Evidence string `json:"evidence"`
	Selector string `json:"selector"`
	// Cut: markup the team typed, cut by the app, whose handler did not
	// compile (its page error is this report's symptom).
	Cut bool `json:"cut"`
}

// WaitQuiet gives the in-page recorder a moment to report after an action.
func (c *Collector) WaitQuiet(ctx context.Context, d time.Duration) { pause(ctx, d) }

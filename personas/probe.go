package personas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
)

// Paths the probe serves on the app's origin.
const (
	probePrefix = "/__agentgraph/"
	// ClearSiteDataPath answers with Clear-Site-Data: "cookies", "storage",
	// so navigating to it expires the session and empties the storage of
	// the origin, the way a returning user's browser may.
	ClearSiteDataPath = probePrefix + "clear-site-data"
	axeScriptPath     = probePrefix + "axe.js"
	probeScriptPath   = probePrefix + "probe.js"
	reportPath        = probePrefix + "report"
)

// ProbeOptions configures a Probe.
type ProbeOptions struct {
	// AxePath is axe.min.js (default: collector.FindAxe).
	AxePath string
	// Logger (default slog.Default()).
	Logger *slog.Logger
}

// Probe is a reverse proxy in front of the app under test. Point the
// browser engine at the probe's address instead of the app's: every HTML
// page it relays gets axe-core and a small recorder injected, which runs
// axe after each load and DOM change and posts the serious and critical
// violations back to the probe. The probe also times every request and
// serves ClearSiteDataPath. It is an http.Handler; serve it with
// httptest.NewServer or an http.Server.
type Probe struct {
	target *url.URL
	proxy  *httputil.ReverseProxy
	axe    []byte
	log    *slog.Logger

	mu       sync.Mutex
	cond     chan struct{} // closed and replaced on every report
	loads    map[string]*pageLoad
	latest   string
	axeSeen  map[string]bool
	axeNew   []AxeViolation
	requests []RequestTiming
	reqCount int
}

type pageLoad struct {
	pending bool
	runs    int
}

// AxeViolation is one accessibility rule failing on one page: an
// axe-core rule, or FocusInvisibleRule.
type AxeViolation struct {
	URL     string   `json:"url"`
	Rule    string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
	HTML    string   `json:"html"`
}

// RequestTiming is one request the probe relayed.
type RequestTiming struct {
	Method   string
	Path     string
	Status   int
	Duration time.Duration
}

// NewProbe proxies target (an http(s) origin). It fails when axe-core is
// missing.
func NewProbe(target string, opts ProbeOptions) (*Probe, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("personas: probe target %q: want http(s)://host[:port]", target)
	}
	if opts.AxePath == "" {
		if opts.AxePath, err = collector.FindAxe(); err != nil {
			return nil, err
		}
	}
	axe, err := os.ReadFile(opts.AxePath)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", collector.ErrAxeMissing, err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	p := &Probe{target: u, axe: axe, log: opts.Logger, cond: make(chan struct{}), loads: map[string]*pageLoad{}, axeSeen: map[string]bool{}}
	p.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = u.Host
			r.Out.Header.Del("Accept-Encoding") // bodies must be readable to inject
		},
		ModifyResponse: p.inject,
		ErrorLog:       slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
	}
	return p, nil
}

// Target is the proxied origin.
func (p *Probe) Target() string { return p.target.String() }

// ServeHTTP relays to the target, or serves the probe's own paths.
func (p *Probe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case axeScriptPath:
		w.Header().Set("Content-Type", "application/javascript")
		w.Header().Set("Cache-Control", "max-age=3600")
		_, _ = w.Write(p.axe)
		return
	case probeScriptPath:
		w.Header().Set("Content-Type", "application/javascript")
		_, _ = io.WriteString(w, probeJS)
		return
	case reportPath:
		p.report(w, r)
		return
	case ClearSiteDataPath:
		w.Header().Set("Clear-Site-Data", `"cookies", "storage"`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><html><head><title>Site data cleared</title></head><body><p>Cookies and storage of this site were cleared.</p><a href="/">Back to the app</a></body></html>`)
		return
	}
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	p.proxy.ServeHTTP(sw, r)
	p.mu.Lock()
	p.reqCount++
	p.requests = append(p.requests, RequestTiming{Method: r.Method, Path: r.URL.RequestURI(), Status: sw.status, Duration: time.Since(start)})
	if len(p.requests) > 1000 {
		p.requests = slices.Delete(p.requests, 0, len(p.requests)-1000)
	}
	p.mu.Unlock()
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }

// Flush keeps streaming responses streaming.
func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

const injectTags = `<script src="` + axeScriptPath + `"></script><script src="` + probeScriptPath + `"></script>`

// maxInject is the largest HTML page the probe instruments; bigger ones
// pass through unchanged.
const maxInject = 20 << 20

func (p *Probe) inject(resp *http.Response) error {
	// redirects to the app's own origin stay on the probe's
	if loc := resp.Header.Get("Location"); loc != "" {
		if u, err := url.Parse(loc); err == nil && u.Scheme == p.target.Scheme && u.Host == p.target.Host {
			u.Scheme, u.Host = "", ""
			resp.Header.Set("Location", u.String())
		}
	}
	err := browser.InjectHTML(resp, injectTags, maxInject)
	if errors.Is(err, browser.ErrTooLarge) {
		p.log.Warn("page too large to instrument; relayed unchanged", "path", resp.Request.URL.Path)
		return nil
	}
	if err != nil {
		return fmt.Errorf("personas: probe: read %s: %w", resp.Request.URL.Path, err)
	}
	return nil
}

// probeReport is what the recorder script posts.
type probeReport struct {
	Kind       string         `json:"kind"` // "dirty" or "axe"
	Load       string         `json:"load"`
	URL        string         `json:"url"`
	Error      string         `json:"error"`
	Violations []AxeViolation `json:"violations"`
	Focus      *focusReport   `json:"focus"`
}

type focusReport struct {
	Target  string `json:"target"`
	HTML    string `json:"html"`
	Visible bool   `json:"visible"`
}

// FocusInvisibleRule is the rule id of the probe's own accessibility check:
// keyboard focus moved to an element that is off screen, transparent or
// smaller than 2×2 pixels (WCAG 2.4.7 Focus Visible).
const FocusInvisibleRule = "agentgraph-focus-invisible"

func (p *Probe) report(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var rep probeReport
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&rep); err != nil || rep.Load == "" {
		http.Error(w, "bad report", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
	p.mu.Lock()
	defer p.mu.Unlock()
	ld := p.loads[rep.Load]
	if ld == nil {
		ld = &pageLoad{}
		p.loads[rep.Load] = ld
		p.latest = rep.Load
	}
	switch rep.Kind {
	case "dirty":
		ld.pending = true
	case "focus":
		if rep.Focus != nil && !rep.Focus.Visible {
			p.addViolation(AxeViolation{URL: rep.URL, Rule: FocusInvisibleRule, Impact: "serious",
				Help: "Keyboard focus lands on an element the user cannot see", Targets: []string{rep.Focus.Target}, HTML: rep.Focus.HTML})
		}
	case "axe":
		ld.pending = false
		ld.runs++
		if rep.Error != "" {
			p.log.Warn("axe-core run failed in the page", "url", rep.URL, "err", rep.Error)
		}
		for _, v := range rep.Violations {
			v.URL = rep.URL
			p.addViolation(v)
		}
	}
	close(p.cond)
	p.cond = make(chan struct{})
}

// addViolation records v once per (rule, page, elements); p.mu is held.
func (p *Probe) addViolation(v AxeViolation) {
	key := v.Rule + "\x00" + pathQuery(v.URL) + "\x00" + strings.Join(v.Targets, ",")
	if p.axeSeen[key] {
		return
	}
	p.axeSeen[key] = true
	p.axeNew = append(p.axeNew, v)
}

// Settle waits, at most timeout, until the latest page load has finished
// its axe run.
func (p *Probe) Settle(ctx context.Context, timeout time.Duration) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		ld := p.loads[p.latest]
		busy := ld == nil || ld.pending || ld.runs == 0
		ch := p.cond
		p.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// TakeViolations returns the violations reported since the last call, each
// (rule, page, elements) once per probe.
func (p *Probe) TakeViolations() []AxeViolation {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.axeNew
	p.axeNew = nil
	return out
}

// Requests is the number of requests relayed so far (probe paths excluded).
func (p *Probe) Requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reqCount
}

// RequestsSince returns the timings of the requests after the n-th.
func (p *Probe) RequestsSince(n int) []RequestTiming {
	p.mu.Lock()
	defer p.mu.Unlock()
	skip := len(p.requests) - (p.reqCount - n)
	if skip < 0 {
		skip = 0
	}
	if skip > len(p.requests) {
		return nil
	}
	return slices.Clone(p.requests[skip:])
}

// probeJS runs axe-core after load and after DOM changes (debounced) and
// posts serious and critical violations to the probe.
const probeJS = `(() => {
  if (window.__agentgraphProbe) return;
  window.__agentgraphProbe = true;
  const load = Date.now().toString(36) + Math.random().toString(36).slice(2);
  const post = (body) => fetch('` + reportPath + `', {method: 'POST', keepalive: true, headers: {'content-type': 'application/json'},
    body: JSON.stringify(Object.assign({load, url: location.href}, body))}).catch(() => {});
  let timer = null, running = false, again = false, dirty = false, pressed = false, retries = 0;
  // A press during a run draws the pressed element in its :active colours
  // (a link turns red): colour rules measured then are not the page's own,
  // so they are dropped and the page scanned again.
  const press = () => { if (running) pressed = true; };
  addEventListener('pointerdown', press, true);
  addEventListener('mousedown', press, true);
  const colour = new Set(['color-contrast', 'color-contrast-enhanced', 'link-in-text-block']);
  const run = async () => {
    if (running) { again = true; return; }
    running = true;
    pressed = !!document.querySelector(':active');
    try {
      const r = await axe.run(document, {resultTypes: ['violations']});
      if ((pressed || document.querySelector(':active')) && retries < 3) {
        retries++;
        r.violations = r.violations.filter(v => !colour.has(v.id));
        again = true;
      } else {
        retries = 0;
      }
      const violations = r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        targets: v.nodes.slice(0, 5).map(n => [].concat(n.target).join(' ')),
        html: v.nodes.length ? String(v.nodes[0].html).slice(0, 300) : ''}));
      dirty = false;
      post({kind: 'axe', violations});
    } catch (e) {
      dirty = false;
      post({kind: 'axe', error: String(e), violations: []});
    }
    running = false;
    if (again) { again = false; schedule(); }
  };
  const schedule = () => {
    if (!dirty) { dirty = true; post({kind: 'dirty'}); }
    clearTimeout(timer);
    timer = setTimeout(run, 80);
  };
  const start = () => {
    if (typeof axe === 'undefined') { post({kind: 'axe', error: 'axe-core did not load', violations: []}); return; }
    new MutationObserver(schedule).observe(document.documentElement, {subtree: true, childList: true, characterData: true,
      attributes: true, attributeFilter: ['alt', 'aria-label', 'aria-labelledby', 'role', 'hidden', 'aria-hidden', 'for', 'id', 'title', 'disabled', 'type', 'style', 'class']});
    schedule();
  };
  document.addEventListener('focusin', (e) => {
    const el = e.target;
    if (!(el instanceof Element)) return;
    requestAnimationFrame(() => {
      if (document.activeElement !== el) return;
      const r = el.getBoundingClientRect();
      let opaque = true;
      for (let n = el; n instanceof Element; n = n.parentElement) if (getComputedStyle(n).opacity === '0') { opaque = false; break; }
      const visible = opaque && r.width >= 2 && r.height >= 2 && r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight;
      const name = (el.getAttribute('aria-label') || el.innerText || el.getAttribute('name') || '').trim().replace(/\s+/g, ' ').slice(0, 40);
      const target = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (name ? ' "' + name + '"' : '');
      post({kind: 'focus', focus: {target, visible, html: el.outerHTML.slice(0, 200)}});
    });
  }, true);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();`

package drive

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// xssBinding is the function the driver exposes to every document;
// xssInitJS defines window.__bfxss on top of it.
const xssBinding = "__bfxssReport"

const xssInitJS = `(() => {
  if (window.__bfxss) return;
  const report = (el) => {
    let html = '';
    try {
      if (el && el.nodeType === 1) {
        const root = el.getRootNode && el.getRootNode();
        const p = el.parentElement || (root && root.host) || el;
        html = p.outerHTML || '';
      } else {
        html = String(el);
      }
    } catch (e) { html = String(el); }
    try { window.__bfxssReport(html.slice(0, 4000)); } catch (e) {}
  };
  try { Object.defineProperty(window, '__bfxss', {value: report, configurable: false, writable: false}); }
  catch (e) { window.__bfxss = report; }
})();`

// response is one answer the page received.
type response struct {
	method, url string
	status      int
	headers     string
	body        string
	dur         time.Duration // request sent to response headers (or finished, when later)
}

// recorder watches one page: errors, console, responses, requests,
// navigations, dialogs, and the __bfxss calls.
type recorder struct {
	id    *regexp.Regexp
	idSrc string // id's pattern for the page (case-insensitive)

	mu            sync.Mutex
	pageErrors    []string
	consoleErrors []string
	responses     map[playwright.Request]*response
	order         []playwright.Request
	started       map[playwright.Request]time.Time
	inflight      map[playwright.Request]bool
	navInflight   map[playwright.Request]bool
	lastNet       time.Time
	requests      int
	navigations   int
	dialogs       int
	scripts       []string
}

func newRecorder(id string) *recorder {
	return &recorder{id: idPattern(id), idSrc: idSource(id), responses: map[playwright.Request]*response{}, started: map[playwright.Request]time.Time{},
		inflight: map[playwright.Request]bool{}, navInflight: map[playwright.Request]bool{}, lastNet: time.Now()}
}

var reFailedLoad = regexp.MustCompile(`^Failed to load resource`)

func (r *recorder) listen(p playwright.Page) {
	p.OnPageError(func(err error) {
		msg := err.Error()
		var pe *playwright.Error
		if errors.As(err, &pe) {
			msg = pe.Message
			if pe.Stack != "" && !strings.Contains(msg, pe.Stack) {
				msg += "\n" + pe.Stack
			}
		}
		r.mu.Lock()
		r.pageErrors = append(r.pageErrors, clip(msg, 2000))
		r.mu.Unlock()
	})
	p.OnConsole(func(m playwright.ConsoleMessage) {
		if m.Type() != "error" || reFailedLoad.MatchString(m.Text()) {
			return
		}
		r.mu.Lock()
		r.consoleErrors = append(r.consoleErrors, clip(m.Text(), 2000))
		r.mu.Unlock()
	})
	p.OnFrameNavigated(func(f playwright.Frame) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.navigations++
		if f.ParentFrame() == nil {
			// A new document: the old one's requests, and navigations it
			// replaced, are over (Chromium does not always end them).
			clear(r.inflight)
			clear(r.navInflight)
		}
	})
	p.OnDialog(func(d playwright.Dialog) {
		r.mu.Lock()
		r.dialogs++
		r.mu.Unlock()
		_ = d.Dismiss()
	})
	p.OnPopup(func(pop playwright.Page) {
		r.mu.Lock()
		r.dialogs++
		r.mu.Unlock()
		go func() { _ = pop.Close() }()
	})
	p.OnRequest(func(q playwright.Request) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.requests++
		r.started[q] = time.Now()
		r.inflight[q] = true
		if q.IsNavigationRequest() {
			r.navInflight[q] = true
		}
		r.lastNet = time.Now()
	})
	done := func(q playwright.Request) {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.inflight, q)
		delete(r.navInflight, q)
		r.lastNet = time.Now()
		if resp, ok := r.responses[q]; ok {
			if t, ok := r.started[q]; ok {
				resp.dur = max(resp.dur, time.Since(t))
			}
		}
	}
	p.OnRequestFinished(done)
	p.OnRequestFailed(done)
	p.OnResponse(func(resp playwright.Response) {
		q := resp.Request()
		rec := &response{method: q.Method(), url: resp.URL(), status: resp.Status()}
		hs := resp.Headers()
		keys := make([]string, 0, len(hs))
		for k := range hs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var hb strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&hb, "%s: %s\n", k, hs[k])
		}
		rec.headers = hb.String()
		r.mu.Lock()
		if t, ok := r.started[q]; ok {
			rec.dur = time.Since(t)
		}
		r.responses[q] = rec
		r.order = append(r.order, q)
		r.mu.Unlock()
		if rec.status >= 400 {
			// The body is read here, while the document is alive.
			body, err := resp.Text()
			r.mu.Lock()
			if err == nil {
				rec.body = clip(body, 4000)
			} else {
				rec.body = "(body unavailable: " + clip(err.Error(), 200) + ")"
			}
			r.mu.Unlock()
		}
	})
}

func (r *recorder) addScript(html string) {
	r.mu.Lock()
	r.scripts = append(r.scripts, html)
	r.mu.Unlock()
}

// quietFor reports whether no request is in flight and none started or
// ended within d.
func (r *recorder) quietFor(d time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.inflight) == 0 && time.Since(r.lastNet) >= d
}

// navigating reports whether a navigation request is in flight.
func (r *recorder) navigating() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.navInflight) > 0
}

// counters is what SignalDead compares before and after a click.
type counters struct{ requests, navigations, dialogs int }

func (r *recorder) counters() counters {
	r.mu.Lock()
	defer r.mu.Unlock()
	return counters{r.requests, r.navigations, r.dialogs}
}

func (r *recorder) responsesSnapshot() []response {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]response, 0, len(r.order))
	for _, q := range r.order {
		out = append(out, *r.responses[q])
	}
	return out
}

func (r *recorder) problems() (pageErrors, consoleErrors, serverErrors []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pageErrors = append(pageErrors, r.pageErrors...)
	consoleErrors = append(consoleErrors, r.consoleErrors...)
	for _, q := range r.order {
		resp := r.responses[q]
		if resp.status >= 500 {
			serverErrors = append(serverErrors, fmt.Sprintf("%s %s → %d: %s", resp.method, resp.url, resp.status, clip(resp.body, 300)))
		}
	}
	return pageErrors, consoleErrors, serverErrors
}

// matchText returns the first of texts holding the id.
func (r *recorder) matchText(texts func(*recorder) []string) (string, bool) {
	r.mu.Lock()
	ts := append([]string(nil), texts(r)...)
	r.mu.Unlock()
	for _, t := range ts {
		if r.id.MatchString(t) {
			return t, true
		}
	}
	return "", false
}

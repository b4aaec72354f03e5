package browser

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// FindingKind classifies a page-health signal.
type FindingKind string

// Health signals. IsBug says which ones point at a defect of the app.
const (
	FindPageError     FindingKind = "page_error"         // uncaught exception in the page
	FindConsoleError  FindingKind = "console_error"      // console.error
	FindRequestFailed FindingKind = "request_failed"     // network failure (not one the engine blocked)
	FindServerError   FindingKind = "http_5xx"           // response status >= 500
	FindNotFound      FindingKind = "not_found"          // same-origin navigation answered 404
	FindErrorBanner   FindingKind = "error_banner"       // visible error message on the page
	FindStackTrace    FindingKind = "stack_trace"        // visible stack trace on the page
	FindSpinner       FindingKind = "spinner"            // loading indicator that never settled
	FindDialog        FindingKind = "dialog"             // alert/confirm/prompt, handled by policy
	FindBlockedNav    FindingKind = "blocked_navigation" // navigation outside the allowed origins
	FindBlockedPopup  FindingKind = "blocked_popup"      // popup outside the allowed origins, closed
	FindBlockedReq    FindingKind = "blocked_request"    // sub-resource outside the allowed origins, refused
	FindUnresponsive  FindingKind = "page_unresponsive"  // the page's scripts stopped yielding; the page was replaced
	FindDropped       FindingKind = "findings_dropped"   // more findings in one action than the engine keeps
)

// IsBug reports whether the kind is evidence of an application defect
// rather than information (dialogs, blocked navigations).
func (k FindingKind) IsBug() bool {
	switch k {
	case FindDialog, FindBlockedNav, FindBlockedPopup, FindBlockedReq, FindDropped:
		return false
	}
	return true
}

// Finding is one page-health observation.
type Finding struct {
	Kind     FindingKind `json:"kind"`
	Message  string      `json:"message"`
	URL      string      `json:"url,omitempty"`
	Status   int         `json:"status,omitempty"`
	Evidence string      `json:"evidence,omitempty"`
	// Selector is a CSS selector of the element the finding is about,
	// when its oracle knows one (the page may have changed since).
	Selector string    `json:"selector,omitempty"`
	Time     time.Time `json:"time"`
}

// String is a one-line description for the model.
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(string(f.Kind))
	b.WriteString(": ")
	b.WriteString(f.Message)
	if f.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", f.Status)
	}
	if f.URL != "" {
		b.WriteString(" at " + f.URL)
	}
	if f.Evidence != "" && f.Evidence != f.Message {
		b.WriteString(" — " + clip(f.Evidence, 300))
	}
	return b.String()
}

// HasBug reports whether any finding is a bug signal.
func HasBug(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Kind.IsBug() })
}

// health collects findings for one page, continuously (event listeners) and
// on demand (DOM probe). Pending findings are handed to the next action.
type health struct {
	mu      sync.Mutex
	pending []Finding
	all     []Finding // bounded history of the current session
	seen    map[string]bool
	max     int
	dropped int // findings left out of a full pending list
	dialogs int // dialogs since the last drain
}

// maxPending caps the findings waiting for the next action: a page that
// logs an error in a tight loop cannot grow them without bound.
const maxPending = 200

// maxDialogFindings is how many dialogs of one action are findings of
// their own; the rest are counted in one storm finding.
const maxDialogFindings = 5

// stormDialogs is how many dialogs in one action make a dialog storm, a
// reason to check that the page still answers.
const stormDialogs = 20

func newHealth() *health { return &health{seen: map[string]bool{}, max: 500} }

func (h *health) add(f Finding) {
	if f.Time.IsZero() {
		f.Time = time.Now().UTC()
	}
	f.Message = clip(f.Message, MaxMessage)
	f.Evidence = clip(f.Evidence, 2000)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.pending) >= maxPending {
		h.dropped++
		return
	}
	h.pending = append(h.pending, f)
	h.all = append(h.all, f)
	if len(h.all) > h.max {
		h.all = slices.Delete(h.all, 0, len(h.all)-h.max)
	}
}

// addOnce records DOM-derived findings once per page URL, so a banner that
// stays visible is reported once.
func (h *health) addOnce(f Finding) {
	key := string(f.Kind) + "\x00" + f.URL + "\x00" + f.Evidence
	h.mu.Lock()
	if h.seen[key] {
		h.mu.Unlock()
		return
	}
	h.seen[key] = true
	h.mu.Unlock()
	h.add(f)
}

func (h *health) drain() []Finding {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.pending
	if h.dropped > 0 {
		out = append(out, Finding{Kind: FindDropped, Message: fmt.Sprintf("%d more findings of this action left out (over %d)", h.dropped, maxPending), Time: time.Now().UTC()})
	}
	if h.dialogs > maxDialogFindings {
		out = append(out, Finding{Kind: FindDialog, Message: fmt.Sprintf("dialog storm: %d dialogs in one action (each handled by the dialog policy; %d reported one by one)", h.dialogs, maxDialogFindings), Time: time.Now().UTC()})
	}
	h.pending, h.dropped, h.dialogs = nil, 0, 0
	return out
}

// dialog counts a dialog and reports whether it is still a finding of its
// own (the first maxDialogFindings of an action).
func (h *health) dialog() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dialogs++
	return h.dialogs <= maxDialogFindings
}

// stormy reports whether the action saw a dialog storm.
func (h *health) stormy() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dialogs >= stormDialogs
}

func (h *health) history() []Finding {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.all)
}

// MaxMessage is the most bytes of a finding's message the engine keeps
// (a console message, a page error's text); a longer one is cut and ends
// with "…".
const MaxMessage = 500

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// BannerSelector is the CSS that marks error banners, both for the engine's
// probe and in generated specs.
const BannerSelector = `[role="alert"], .error, .alert-danger, .alert-error, .error-banner, .error-message, [data-testid*="error"], [data-test-subj*="error"]`

// SpinnerSelector marks loading indicators.
const SpinnerSelector = `[aria-busy="true"], .spinner, .loading, .loader, [role="progressbar"], [data-testid*="spinner"], [data-testid*="loading"]`

// stackTraceRE is the JavaScript regular expression that finds a stack
// trace (JS, Python, Go) in a page's text, for the probe and generated specs.
const stackTraceRE = `/(Traceback \(most recent call last\)[\s\S]{0,300}|(?:^|\n)\s*(?:[A-Za-z]*Error|Exception)[^\n]{0,200}\n(?:\s+at [^\n]+\n?){2,}|(?:^|\n)\s*at [\w.$<>]+ \([^)\n]*:\d+:\d+\)(?:\n\s*at [^\n]+){1,}|panic: [^\n]+\n+goroutine \d+)/`

// probeJS inspects the page for visible error banners, stack traces and
// spinners. It returns {banners: [text], traces: [text], spinners: n}.
const probeJS = `([bannerSel, spinnerSel]) => {
  const vis = el => el.checkVisibility ? el.checkVisibility({visibilityProperty: true, opacityProperty: true}) : !!el.offsetParent;
  const banners = [];
  for (const el of document.querySelectorAll(bannerSel)) {
    const t = (el.innerText || '').trim();
    if (t && vis(el)) banners.push(t.slice(0, 300));
    if (banners.length >= 5) break;
  }
  const body = document.body ? document.body.innerText || '' : '';
  const traces = [];
  const re = ` + stackTraceRE + `;
  const m = body.match(re);
  if (m) traces.push(m[0].trim().slice(0, 600));
  let spinners = 0;
  for (const el of document.querySelectorAll(spinnerSel)) if (vis(el)) spinners++;
  return {banners, traces, spinners};
}`

type probeResult struct {
	Banners  []string
	Traces   []string
	Spinners int
}

func parseProbe(v any) probeResult {
	var r probeResult
	m, ok := v.(map[string]any)
	if !ok {
		return r
	}
	for _, key := range []string{"banners", "traces"} {
		arr, _ := m[key].([]any)
		for _, x := range arr {
			if s, ok := x.(string); ok {
				if key == "banners" {
					r.Banners = append(r.Banners, s)
				} else {
					r.Traces = append(r.Traces, s)
				}
			}
		}
	}
	switch n := m["spinners"].(type) {
	case int:
		r.Spinners = n
	case float64:
		r.Spinners = int(n)
	}
	return r
}

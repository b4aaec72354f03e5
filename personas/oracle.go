package personas

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
)

// Finding kinds the personas' oracles add to the browser's health kinds
// (browser.FindPageError, FindConsoleError, FindServerError, FindNotFound,
// FindErrorBanner, FindStackTrace, …).
const (
	KindXSS         browser.FindingKind = "xss_executed"  // an injected probe ran as script
	KindA11y        browser.FindingKind = "a11y"          // axe-core serious or critical violation
	KindSlow        browser.FindingKind = "slow_response" // an action or request over the threshold
	KindDeadControl browser.FindingKind = "dead_control"  // a click changed nothing
)

// Finding is one bug signal with its evidence. Its fields map one to one
// onto memory.BugReport.
type Finding struct {
	Kind     browser.FindingKind `json:"kind"`
	Severity string              `json:"severity"` // low, medium, high, critical
	// URL is the page the finding was made on.
	URL      string `json:"url"`
	Title    string `json:"title"`
	Evidence string `json:"evidence"`
	// Payload is the input that triggered it, if any.
	Payload string `json:"payload,omitempty"`
	Persona string `json:"persona"`
	Oracle  string `json:"oracle"`
	// TapeIndex is the index of the action in Report.Tape; Seq is that
	// entry's engine sequence number when known.
	TapeIndex int   `json:"tape_index"`
	Seq       int64 `json:"seq,omitempty"`
	// Screenshot is the path of a PNG taken right after the action.
	Screenshot string `json:"screenshot,omitempty"`
}

// Key identifies a finding across runs and ports: kind, page path and a
// normalised evidence line.
func (f Finding) Key() string {
	ev := strings.ReplaceAll(f.Evidence, hostOf(f.URL), "")
	ev = reDigits.ReplaceAllString(firstLine(ev), "#")
	if len(ev) > 120 {
		ev = ev[:120]
	}
	return string(f.Kind) + " " + pathQuery(f.URL) + " " + ev
}

// Observation is what an oracle judges: one action with the page before
// and after it.
type Observation struct {
	Step      int
	TapeIndex int
	Intent    browser.Intent
	Result    browser.Result
	Before    browser.Snapshot
	After     browser.Snapshot
	// Requests are the requests the collector relayed during the action
	// (nil without a collector).
	Requests []collector.Request
	// Violations are the accessibility violations the page reported that
	// the collector had not handed over before: axe-core's serious and
	// critical ones and the focus check's (nil without a collector).
	Violations []collector.Violation
	// Collector is the run's collector, or nil; RequestMark is its Mark
	// before the action (see collector.Collector.RequestsSince).
	Collector   Collector
	RequestMark int
	// Tape is the run's tape up to and including this action.
	Tape []browser.Entry
	// Recheck re-takes the after snapshot after a pause, with the health
	// findings that arrived meanwhile (for oracles that must rule out late
	// effects). The driver reports those findings too.
	Recheck func(ctx context.Context, wait time.Duration) (browser.Snapshot, []browser.Finding, error)
}

// Oracle judges observations without a model.
type Oracle interface {
	Name() string
	Check(ctx context.Context, o Observation) []Finding
}

// OracleConfig tunes the built-in oracles.
type OracleConfig struct {
	// SlowThreshold is the longest an action or request may take (default 2s).
	SlowThreshold time.Duration
	// DeadControlWait is how long a click may take to show its effect
	// before the control counts as dead (default 600ms).
	DeadControlWait time.Duration
}

// DefaultOracles are the health oracle (page errors, console errors, HTTP
// ≥ 500, same-origin 404s, error banners, stack traces, failed requests,
// stuck spinners, from the browser's health collector), the XSS marker,
// axe-core, slow response and dead control oracles.
func DefaultOracles(cfg OracleConfig) []Oracle {
	if cfg.SlowThreshold <= 0 {
		cfg.SlowThreshold = 2 * time.Second
	}
	if cfg.DeadControlWait <= 0 {
		cfg.DeadControlWait = 600 * time.Millisecond
	}
	return []Oracle{healthOracle{}, xssOracle{}, axeOracle{}, slowOracle{cfg.SlowThreshold}, deadControlOracle{cfg.DeadControlWait}}
}

// healthOracle turns the browser's health findings into findings. XSS
// markers are left to xssOracle.
type healthOracle struct{}

func (healthOracle) Name() string { return "health" }

func (healthOracle) Check(_ context.Context, o Observation) []Finding {
	var out []Finding
	for _, h := range o.Result.Findings {
		if !h.Kind.IsBug() || h.Kind == collector.FindXSS || strings.Contains(h.Message, collector.XSSMarker) {
			continue
		}
		ev := h.Message
		if h.Evidence != "" && h.Evidence != h.Message {
			ev += "\n" + h.Evidence
		}
		page := o.Result.URL
		if h.Kind == browser.FindNotFound && h.URL != "" {
			page = h.URL
		}
		out = append(out, Finding{Kind: h.Kind, Severity: healthSeverity(h.Kind), URL: page, Title: firstLine(h.Message), Evidence: ev})
	}
	return out
}

func healthSeverity(k browser.FindingKind) string {
	switch k {
	case browser.FindServerError, browser.FindPageError, browser.FindStackTrace:
		return "high"
	case browser.FindConsoleError, browser.FindSpinner, browser.FindRequestFailed:
		return "low"
	}
	return "medium"
}

// xssOracle reports a script the persona typed in that the page ran: the
// collector's XSS finding (its recorder saw the payload's marker logged,
// or the payload run in an element) or, without a collector, a console
// message carrying collector.XSSMarker.
type xssOracle struct{}

func (xssOracle) Name() string { return "xss" }

// reXSSToken is a payload's marker and token.
var reXSSToken = regexp.MustCompile(regexp.QuoteMeta(collector.XSSMarker) + `([A-Za-z0-9_-]*)`)

func (xssOracle) Check(_ context.Context, o Observation) []Finding {
	var out []Finding
	for _, h := range o.Result.Findings {
		if h.Kind != collector.FindXSS && !strings.Contains(h.Message, collector.XSSMarker) {
			continue
		}
		ev := h.Message
		if h.Evidence != "" && h.Evidence != h.Message {
			ev += "\n" + h.Evidence
		}
		token, title := "", "injected script executed"
		if m := reXSSToken.FindStringSubmatch(ev); m != nil && m[1] != "" {
			token, title = m[1], title+" (probe "+m[1]+")"
			if !strings.HasPrefix(ev, m[0]) {
				ev = m[0] + ": " + ev // the probe first: the finding's key tells probes apart
			}
		}
		out = append(out, Finding{Kind: KindXSS, Severity: "critical", URL: o.Result.URL,
			Title: title, Evidence: ev, Payload: payloadFor(o, token)})
	}
	return out
}

// payloadFor finds the fill that typed the token (the latest one with a
// marker when the token is not known), in this action or earlier.
func payloadFor(o Observation, token string) string {
	for _, v := range append(o.Intent.Typed(), o.Intent.ValueOrEmpty()) {
		if strings.Contains(v, collector.XSSMarker+token) {
			return v
		}
	}
	for i := len(o.Tape) - 1; i >= 0; i-- {
		for _, f := range o.Tape[i].Filled() {
			if f.Kind == browser.FieldFill && strings.Contains(f.Value, collector.XSSMarker+token) {
				return f.Value
			}
		}
	}
	return collector.XSSMarker + token
}

// axeOracle reports the collector's new accessibility violations:
// axe-core's serious and critical ones and invisible keyboard focus. The
// elements one rule fails on in one page, within one action, are one
// finding (at most five of them named, three quoted).
type axeOracle struct{}

func (axeOracle) Name() string { return "axe" }

func (axeOracle) Check(_ context.Context, o Observation) []Finding {
	type group struct {
		v       collector.Violation
		targets []string
		html    []string
	}
	var groups []*group
	at := map[string]*group{}
	for _, v := range o.Violations {
		k := v.Rule + "\x00" + v.URL
		g := at[k]
		if g == nil {
			g = &group{v: v}
			at[k] = g
			groups = append(groups, g)
		}
		if len(g.targets) < 5 {
			g.targets = append(g.targets, strings.Join(v.Targets, " "))
		}
		if len(g.html) < 3 && v.HTML != "" {
			g.html = append(g.html, v.HTML)
		}
	}
	var out []Finding
	for _, g := range groups {
		v := g.v
		sev := "high"
		if v.Impact == "critical" {
			sev = "critical"
		}
		out = append(out, Finding{Kind: KindA11y, Severity: sev, URL: v.URL,
			Title:    fmt.Sprintf("axe %s (%s): %s", v.Rule, v.Impact, v.Help),
			Evidence: fmt.Sprintf("%s %s on %s\n%s", v.Rule, v.Impact, strings.Join(g.targets, ", "), strings.Join(g.html, "\n"))})
	}
	return out
}

// slowOracle reports requests (with a collector) or page actions over the threshold.
type slowOracle struct{ threshold time.Duration }

func (slowOracle) Name() string { return "slow" }

func (s slowOracle) Check(_ context.Context, o Observation) []Finding {
	var out []Finding
	if o.Requests != nil {
		for _, r := range o.Requests {
			if r.Duration > s.threshold {
				out = append(out, Finding{Kind: KindSlow, Severity: "medium", URL: o.Result.URL,
					Title:    fmt.Sprintf("%s %s took %s", r.Method, r.Path, r.Duration.Round(time.Millisecond)),
					Evidence: fmt.Sprintf("%s %s took %s (HTTP %d); threshold %s", r.Method, r.Path, r.Duration.Round(time.Millisecond), r.Status, s.threshold)})
			}
		}
		return out
	}
	switch o.Intent.Action {
	case browser.ActNavigate, browser.ActClick, browser.ActPress, browser.ActReload, browser.ActGoBack, browser.ActSelectOption:
		if d := o.Result.Duration; o.Result.OK && d > s.threshold {
			out = append(out, Finding{Kind: KindSlow, Severity: "medium", URL: o.Result.URL,
				Title:    fmt.Sprintf("%s took %s", o.Intent.Action, d.Round(time.Millisecond)),
				Evidence: fmt.Sprintf("%s %s took %s until the page settled; threshold %s", o.Intent.Action, o.Result.Locator+o.Intent.URL, d.Round(time.Millisecond), s.threshold)})
		}
	}
	return out
}

// deadControlOracle reports a successful click on a button, link or
// similar control after which neither URL, title, page content, health nor
// (with a collector) the network changed, even after a pause.
type deadControlOracle struct{ wait time.Duration }

func (deadControlOracle) Name() string { return "dead_control" }

func (d deadControlOracle) Check(ctx context.Context, o Observation) []Finding {
	if o.Intent.Action != browser.ActClick || !o.Result.OK || len(o.Result.Findings) > 0 || len(o.Requests) > 0 || o.Before.URL == "" {
		return nil
	}
	if !sameScreen(o.Before, o.After) {
		return nil
	}
	el, ok := elementByRef(o.Before, o.Intent.Target)
	if !ok {
		el = Element{Role: locatorRole(o.Result.Locator), Name: o.Intent.Target}
	}
	switch el.Role {
	case "button", "link", "menuitem", "tab":
	default:
		return nil // checkboxes and the like show their state in the snapshot; fields only focus
	}
	if o.Recheck != nil {
		later, late, err := o.Recheck(ctx, d.wait)
		if err != nil || len(late) > 0 || !sameScreen(o.Before, later) {
			return nil
		}
	}
	if o.Collector != nil && len(o.Collector.RequestsSince(o.RequestMark)) > 0 {
		return nil // a request that started late
	}
	name := el.Name
	if name == "" {
		name = o.Result.Locator
	}
	return []Finding{{Kind: KindDeadControl, Severity: "medium", URL: o.Result.URL,
		Title:    fmt.Sprintf("%s %q does nothing", el.Role, name),
		Evidence: fmt.Sprintf("click on %s %q (%s) changed neither the page, its URL, its title, the network nor its health", el.Role, name, o.Result.Locator)}}
}

var reLocatorRole = regexp.MustCompile(`^getByRole\('([a-z]+)'`)

// locatorRole is the role of a getByRole locator, or "".
func locatorRole(loc string) string {
	if m := reLocatorRole.FindStringSubmatch(loc); m != nil {
		return m[1]
	}
	return ""
}

func elementByRef(snap browser.Snapshot, ref string) (Element, bool) {
	for _, e := range ParseElements(snap) {
		if e.Ref == ref {
			return e, true
		}
	}
	return Element{}, false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func pathQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "\x00"
	}
	return u.Scheme + "://" + u.Host
}

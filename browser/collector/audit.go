package collector

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/internal/urlx"
)

// Request is one request the collector relayed to the app (its own paths
// under Prefix are not relayed and not logged).
type Request struct {
	Method string
	// Path is the request's path and query.
	Path   string
	Status int
	// Duration is the app's time: from the request to the end of the
	// answer, less what HoldNextPost held back.
	Duration time.Duration
}

// MaxRequests is how many of the latest requests the log keeps.
const MaxRequests = 10000

// logRequest appends r to the log; c.mu is held.
func (c *Collector) logRequest(r Request) {
	c.requests++
	c.reqLog = append(c.reqLog, r)
	if len(c.reqLog) > MaxRequests+MaxRequests/10 { // trimmed in batches, not on every request
		c.reqLog = slices.Delete(c.reqLog, 0, len(c.reqLog)-MaxRequests)
	}
}

// Mark is the number of requests the collector has relayed so far: pass
// it to RequestsSince to get the requests relayed after it.
func (c *Collector) Mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// RequestsSince returns the requests relayed after mark (a value of
// Mark), oldest first: those the log still holds, so at most MaxRequests.
// A request is logged once its answer is relayed whole.
func (c *Collector) RequestsSince(mark int) []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.requests - max(mark, 0)
	if n <= 0 {
		return nil
	}
	skip := max(len(c.reqLog)-n, 0)
	return slices.Clone(c.reqLog[skip:])
}

// Violation is one accessibility rule failing on one element of a page:
// an axe-core rule of serious or critical impact, or FocusInvisibleRule.
type Violation struct {
	// URL is the page's address as the browser saw it.
	URL    string `json:"url"`
	Rule   string `json:"rule"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	// Targets are axe-core's selectors of the element (one, or a path
	// through frames and shadow roots), or the focus check's description
	// of the element that had focus.
	Targets []string `json:"targets"`
	// HTML is the start of the element's markup.
	HTML string `json:"html"`
}

// FocusInvisibleRule is the rule id of the recorder's own accessibility
// check: keyboard focus moved to an element that is off screen,
// transparent or smaller than 2×2 pixels (WCAG 2.4.7 Focus Visible).
const FocusInvisibleRule = "agentgraph-focus-invisible"

// Evaluator runs a script in the page a browser user has open;
// *browser.Session is one.
type Evaluator interface {
	Evaluate(ctx context.Context, expression string, arg any) (any, error)
}

// maxAuditWait caps the wait of one Violations call, whatever it is given.
const maxAuditWait = 30 * time.Second

// Violations waits, at most wait, until the recorder in page's document
// has no accessibility scan running or due (a DOM change schedules one),
// and returns the violations the page found that this collector has not
// returned before, each (rule, page, elements) once. The recorder keeps
// what it finds in the page until a call takes it, so violations of a
// document left before the call are not seen. A page without the recorder
// (not served through the collector, not HTML) has none.
//
// The explorer reads accessibility findings from the recorder's console
// reports instead (PageFindings); this is the structured form for callers
// that judge each violation themselves, such as the personas' oracles.
func (c *Collector) Violations(ctx context.Context, page Evaluator, wait time.Duration) ([]Violation, error) {
	wait = min(max(wait, 0), maxAuditWait)
	ctx, cancel := context.WithTimeout(ctx, wait+5*time.Second)
	defer cancel()
	v, err := page.Evaluate(ctx, `(ms) => typeof window.__agAudit === 'function' ? window.__agAudit(ms) : ''`, wait.Milliseconds())
	if err != nil {
		return nil, fmt.Errorf("collector: violations: %w", err)
	}
	s, _ := v.(string)
	if s == "" {
		return nil, nil
	}
	var got struct {
		Violations []Violation `json:"violations"`
	}
	if err := json.Unmarshal([]byte(s), &got); err != nil {
		return nil, fmt.Errorf("collector: violations: the recorder's answer: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Violation
	for _, v := range got.Violations {
		key := v.Rule + "\x00" + urlx.PathQuery(v.URL) + "\x00" + strings.Join(v.Targets, ",")
		if v.Rule == "" || c.violated[key] {
			continue
		}
		c.violated[key] = true
		out = append(out, v)
	}
	return out, nil
}

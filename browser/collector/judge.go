package collector

import (
	"context"
	"time"

	"github.com/agentgraph/agentgraph/browser"
)

// DeadWindow is how long the recorder gives a clicked button to visibly
// do something (change the page, send a request, throw) before it reports
// the control dead. A caller that wants every click judged before its
// next action waits a little longer (see AwaitJudgement).
const DeadWindow = 400 * time.Millisecond

// ReportLag is the moment a recorder's report (a console message) takes
// to reach the browser's listeners once the recorder posted it.
const ReportLag = 60 * time.Millisecond

// AwaitJudgement waits, at most wait, until the recorder in page's
// document has judged every click made so far (a click that visibly did
// something is judged at once, a dead one when its DeadWindow ends), then
// ReportLag more when a dead-control report was posted, so that the report
// is among the page's findings when it returns. A page without the
// recorder (not served through a collector, or one that was left) cannot
// be asked: the whole wait is spent.
func AwaitJudgement(ctx context.Context, page Evaluator, wait time.Duration) {
	wait = min(max(wait, 0), maxAuditWait)
	deadline := time.Now().Add(wait)
	cctx, cancel := context.WithDeadline(ctx, deadline.Add(ReportLag))
	v, err := page.Evaluate(cctx, `(ms) => typeof window.__agJudged === 'function' ? window.__agJudged(ms) : null`, wait.Milliseconds())
	cancel()
	pause(ctx, afterJudgement(v, err, time.Until(deadline)))
}

// afterJudgement is how long to wait once the recorder answered v (or
// failed with err) with left of the wait remaining: nothing when no dead
// report is on its way, ReportLag when one is, all that is left when the
// recorder could not be asked.
func afterJudgement(v any, err error, left time.Duration) time.Duration {
	r, ok := v.(map[string]any)
	if err != nil || !ok {
		return max(left, 0)
	}
	if dead, ok := browser.JSNumber(r["dead"]); ok && dead == 0 {
		return 0
	}
	return ReportLag
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

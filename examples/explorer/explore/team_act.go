package explore

import (
	"context"
	"slices"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// act runs one intent, records it and turns its findings into bugs. The
// offline personas and the model's browser tools both act through it.
func (mr *missionRun) act(ctx context.Context, m *member, st step, out *State) (browser.Result, []findings.Bug) {
	mr.use(m)
	if st.before != nil {
		st.before()
	}
	if v := mr.lastView; v != nil && st.in.Target != "" {
		if i := personas.IndexOf(v.Els, st.in.Target); i >= 0 && reDestroy.MatchString(v.Els[i].Name) {
			mr.cov.destroyedAt = mr.steps + 1
		}
	}
	res := mr.sess.Do(ctx, st.in)
	if mr.sw != nil && res.OK {
		for _, typed := range st.in.Typed() {
			mr.sw.typed.add(typed)
			mr.noteTyped(typed)
		}
	}
	if mr.sw != nil && res.OK && mr.sw.pend == nil {
		mr.sw.credit(mr.lastView, st.in)
	}
	mr.sw.submitted(st.in, res.OK, mr.lastView, res.URL)
	if mr.sw != nil && mr.sw.acted(res.OK) {
		m.q = nil
	}
	bugs := mr.afterAction(ctx, m, st, res, out)
	return res, bugs
}

// afterAction is what follows every browser action of a persona, offline or
// model-driven: the entry goes on the mission tape and into the state, the
// page-health findings of the engine and the collector become bugs (the new
// ones are returned and appended to out.Bugs).
func (mr *missionRun) afterAction(ctx context.Context, m *member, st step, res browser.Result, out *State) []findings.Bug {
	mr.steps++
	if st.cat && mr.cov != nil {
		mr.cov.catSteps++
	}
	if mr.takeJS(ctx) {
		// Code ran that had not run before: the action's target found
		// something new.
		mr.sw.newCode()
	}
	entry, ok := mr.lastEntry()
	if !ok {
		entry = browser.Entry{Time: time.Now(), Action: st.in.Action, Params: st.in, OK: res.OK, URL: res.URL, Error: res.Error}
	}
	entry = mr.record(entry, m.p.Name)
	out.Tape = append(out.Tape, entry)
	mr.leaveHostile(st.in, res)
	wait := st.watch
	if wait == 0 && st.in.Action == browser.ActClick {
		wait = 150 * time.Millisecond
	}
	start := time.Now()
	if mr.judged(st.in, res) {
		// The recorder tells a dead button deadWindow after its click;
		// the next action must not come first (its click, or leaving the
		// page, would leave the first one undecided).
		mr.awaitJudgement(ctx)
	}
	if left := wait - time.Since(start); left > 0 {
		mr.awaitCalm(ctx, left)
	}
	mr.progress(m.p.Name, st, res)
	// Findings that arrived while the page was watched (the recorder's
	// dead-control and late a11y reports) belong to this action too.
	fs := collector.PageFindings(append(slices.Clip(res.Findings), mr.sess.TakeFindings()...))
	fs = append(fs, mr.col.Take()...)
	fs = append(fs, mr.crossCheck(ctx, res, fs)...)
	if slices.ContainsFunc(fs, func(f browser.Finding) bool { return f.Kind == browser.FindServerError }) {
		mr.sw.serverFailed()
	}
	mr.prevActor, mr.prevEntry = m, entry
	return mr.report(ctx, m, entry, fs, out)
}

// deadWatch is the wait after a button's click that stayed on its page:
// longer than the in-page recorder's collector.DeadWindow, so that a click
// that changed nothing is reported before the next action.
const deadWatch = collector.DeadWindow + 50*time.Millisecond

// awaitJudgement waits, at most deadWatch, until the in-page recorder has
// judged every click, and for a dead control's report to arrive.
func (mr *missionRun) awaitJudgement(ctx context.Context) {
	collector.AwaitJudgement(ctx, mr.sess, deadWatch)
}

// awaitCalm waits, at most d, for what a click may still do: until the page
// has nothing in flight and none of its timer callbacks due within d
// (browser.Session.AwaitCalm), then a moment for the reports of callbacks
// that ran meanwhile. A page that cannot be asked gets the whole wait.
func (mr *missionRun) awaitCalm(ctx context.Context, d time.Duration) {
	start := time.Now()
	calm, ran, err := mr.sess.AwaitCalm(ctx, d)
	switch {
	case err != nil:
		if left := d - time.Since(start); left > 0 {
			mr.col.WaitQuiet(ctx, left)
		}
	case ran > 0 || !calm:
		mr.col.WaitQuiet(ctx, collector.ReportLag)
	}
}

// judged: the action clicked a button and the browser stayed on the page,
// so the recorder is judging whether the click did anything.
func (mr *missionRun) judged(in browser.Intent, res browser.Result) bool {
	if !res.OK || (in.Action != browser.ActClick && in.Action != browser.ActDblclick) || mr.lastView == nil ||
		urlx.PathQuery(res.URL) != urlx.PathQuery(mr.lastView.URL) {
		return false
	}
	for _, e := range mr.lastView.Els {
		if e.Ref == in.Target {
			return e.Role == "button"
		}
	}
	return false
}

func (mr *missionRun) lastEntry() (browser.Entry, bool) {
	es := mr.engine.Window().Entries()
	if len(es) == 0 {
		return browser.Entry{}, false
	}
	return es[len(es)-1], true
}

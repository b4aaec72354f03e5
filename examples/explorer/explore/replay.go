package explore

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/minimize"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// replayer replays entries of a mission in fresh browser contexts, each
// behind its own collector (the mission's oracles, no shared state), in
// front of a fresh app when Config.ReplayTarget gives one (the demo app
// always does) or else the live target.
type replayer struct {
	mr *missionRun
	// trace, when set, is where the replay's Playwright trace goes.
	trace string
	title string
}

func (rp replayer) replay(ctx context.Context, seq []browser.Entry, axe bool) (out minimize.Replayed, err error) {
	mr := rp.mr
	t0 := time.Now()
	why := ""
	var steps []string // durations, for the debug log
	defer func() {
		mr.log.Debug("minimise: replay", "seqs", minimize.SeqKey(seq), "took", time.Since(t0).Round(time.Millisecond), "steps", steps, "findings", len(out.Sigs), "stopped", why, "err", err)
	}()
	target := mr.target
	if mr.cfg.ReplayTarget != nil {
		t, stop, err := mr.cfg.ReplayTarget(ctx)
		if err != nil {
			return out, fmt.Errorf("minimise: replay target: %w", err)
		}
		defer stop()
		target = t
	}
	col, err := collector.New(target, mr.cfg.SlowThreshold, mr.log)
	if err != nil {
		return out, fmt.Errorf("minimise: %w", err)
	}
	if !axe {
		col.WithoutAxe()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return out, fmt.Errorf("minimise: listen: %w", err)
	}
	hs := &http.Server{Handler: col, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer func() { _ = hs.Close() }()
	origin := "http://" + ln.Addr().String()
	cfg := mr.engineCfg
	cfg.Origins, cfg.Aliases = []string{origin}, map[string]string{strings.TrimRight(mr.target, "/"): origin}
	cfg.Tape, cfg.StorageStatePath = nil, ""
	steps = append(steps, "setup "+time.Since(t0).Round(time.Millisecond).String())
	eng, err := mr.browser.NewEngine(cfg)
	if err != nil {
		return out, fmt.Errorf("minimise: browser engine: %w", err)
	}
	defer func() { _ = eng.Close() }()
	s, err := eng.User(ctx, "minimise")
	if err != nil {
		return out, fmt.Errorf("minimise: browser context: %w", err)
	}
	if rp.trace != "" {
		if err := s.StartTrace(ctx, rp.title); err != nil {
			return out, err
		}
		defer func() {
			if terr := s.StopTrace(rp.trace); terr != nil && err == nil {
				err = terr
			}
		}()
	}
	steps = append(steps, "context "+time.Since(t0).Round(time.Millisecond).String())
	sigs := map[string]bool{}
	// The replay's findings in the mission's addresses, as its bugs have
	// them: this replay's front and app stand for the mission's target.
	toFront, toTarget := collector.NewAddresser(origin, mr.target), collector.NewAddresser(target, mr.target)
	note := func(fs []browser.Finding, page string) {
		for _, f := range append(collector.PageFindings(fs), col.Take()...) {
			f = toTarget.Finding(toFront.Finding(f))
			page = toTarget.Text(toFront.Text(page))
			p := f.URL
			if p == "" {
				p = page
			}
			sigs[minimize.FindingSig(string(f.Kind), p, findings.BugEvidence(f))] = true
		}
	}
	for i, e := range seq {
		ins, err := minimize.ReplayIntents(e, strings.TrimRight(mr.target, "/"), origin)
		if err != nil {
			why = fmt.Sprintf("#%d cannot be replayed: %v", e.Seq, err)
			return minimize.Replayed{FailedAt: i}, nil
		}
		// A double submit: the mission held the first response, so that the
		// second click lands while it is in flight.
		if e.Action == browser.ActDblclick || e.Action == browser.ActClick && i+1 < len(seq) && seq[i+1].Action == browser.ActClick && seq[i+1].Locator == e.Locator {
			col.HoldNextPost(doubleHold)
		}
		var res browser.Result
		for _, in := range ins {
			res = s.Do(ctx, in)
			steps = append(steps, res.Duration.Round(time.Millisecond).String())
			if !res.OK && !e.OK && i == len(seq)-1 {
				// It failed in the recording too (the bug's own step, see
				// replayable): what it showed still counts.
				note(res.Findings, res.URL)
				break
			}
			if !res.OK {
				why = fmt.Sprintf("#%d failed: %s", e.Seq, clip.String(res.Error, 200))
				return minimize.Replayed{FailedAt: i}, ctx.Err()
			}
			note(res.Findings, res.URL)
		}
		// A form submitted by script leaves the page after the click
		// returned: give it a moment to get where the recording got.
		onPath := func(u string) bool { return minimize.FindingSig("", u, "") == minimize.FindingSig("", e.URL, "") }
		if (e.Action == browser.ActClick || e.Action == browser.ActPress) && i < len(seq)-1 && !onPath(res.URL) {
			for range 12 {
				col.WaitQuiet(ctx, 250*time.Millisecond)
				res = s.Do(ctx, browser.Intent{Action: browser.ActCheckHealth})
				note(res.Findings, res.URL)
				if onPath(res.URL) || ctx.Err() != nil {
					break
				}
			}
		}
		// Off the recorded path (e.g. sent to a sign-in page): this
		// sequence does not replay the recording.
		if i < len(seq)-1 && !onPath(res.URL) {
			why = fmt.Sprintf("#%d landed on %s, not %s", e.Seq, urlx.Path(res.URL), urlx.Path(e.URL))
			return minimize.Replayed{FailedAt: i}, ctx.Err()
		}
		if e.Action == browser.ActClick {
			col.WaitQuiet(ctx, 150*time.Millisecond)
		}
	}
	// Late reports of the in-page recorder (axe-core once the page stops
	// changing, dead controls after 600 ms).
	col.WaitQuiet(ctx, 700*time.Millisecond)
	res := s.Do(ctx, browser.Intent{Action: browser.ActCheckHealth})
	note(res.Findings, res.URL)
	return minimize.Replayed{Sigs: sigs, FailedAt: -1}, ctx.Err()
}

// minimizeRepros minimises the reproduction of each of r's bugs (see
// minimizer.minimize) and returns the entries to replay per bug id; bugs
// left out keep their full tape. It sets each bug's ReproFullSteps and
// ReproReplays.
func (mr *missionRun) minimizeRepros(ctx context.Context, r *report.MissionResult) map[string][]browser.Entry {
	if mr.cfg.MinimizeReplays < 0 || ctx.Err() != nil || len(r.Bugs) == 0 {
		return nil
	}
	t0 := time.Now()
	m := minimize.New(replayer{mr: mr}.replay, minimize.Options{Replays: mr.cfg.MinimizeReplays, Time: mr.cfg.MinimizeTime, Workers: mr.cfg.MinimizeWorkers})
	var jobs []*minimize.Job
	ids := map[*minimize.Job]int{}
	for i, b := range r.Bugs {
		full := mr.bugEntries(r.Timeline, b)
		r.Bugs[i].ReproFullSteps = len(full)
		if len(full) < 2 || b.Kind == string(findings.FindCrossUser) {
			continue // a cross-user leak's spec is built from both users' steps
		}
		if u := mr.bugUser(r.Timeline, b); u != nil && u.StorageState != "" {
			continue // replays start from no session, this user from its storage state
		}
		j := &minimize.Job{Sig: minimize.FindingSig(b.Kind, b.URL, b.Evidence), Axe: b.Kind == string(collector.FindA11y), Link: b.Kind == string(browser.FindNotFound), Full: full}
		ids[j] = i
		jobs = append(jobs, j)
	}
	m.Run(ctx, jobs)
	out := map[string][]browser.Entry{}
	before, after := 0, 0
	for _, j := range jobs {
		b := &r.Bugs[ids[j]]
		b.ReproReplays = j.Replays
		before += len(j.Full)
		after += len(j.Best)
		if j.Confirmed {
			out[b.ID] = j.Best
		}
		mr.log.Info("explore: reproduction minimised", "bug", b.ID, "full", len(j.Full), "minimised", len(j.Best), "replays", j.Replays, "confirmed", j.Confirmed)
	}
	if mr.cfg.Progress != nil {
		fmt.Fprintf(mr.cfg.Progress, "[%d/%d %s] minimised %d reproductions: %d → %d steps, %d replays, %s\n", mr.index+1, mr.total, mr.m.ThreadID,
			len(out), before, after, m.Replays(), time.Since(t0).Round(100*time.Millisecond))
	}
	mr.traceRepros(ctx, r, out)
	return out
}

// Trace bounds: the bugs traced per mission and the time all their
// replays may take.
const (
	maxTraces = 20
	traceTime = 2 * time.Minute
)

// TraceName is the file of a bug's Playwright trace in its mission's
// report directory.
func TraceName(bugID string) string { return "trace_" + bugID + ".zip" }

// traceRepros replays each bug's reproduction (minimised when it was)
// once more with Playwright tracing on and keeps the trace beside the
// spec: `npx playwright show-trace trace_<id>.zip` shows every step, its
// DOM before and after, the network and the console.
func (mr *missionRun) traceRepros(ctx context.Context, r *report.MissionResult, minimized map[string][]browser.Entry) {
	ctx, cancel := context.WithTimeout(ctx, traceTime)
	defer cancel()
	n := 0
	for i := range r.Bugs {
		b := &r.Bugs[i]
		entries, ok := minimized[b.ID]
		if !ok {
			entries = mr.bugEntries(r.Timeline, *b)
		}
		if len(entries) == 0 || n >= maxTraces || ctx.Err() != nil {
			continue
		}
		if u := mr.bugUser(r.Timeline, *b); b.Kind == string(findings.FindCrossUser) || u != nil && u.StorageState != "" {
			continue // one replay session cannot be two users, nor start signed in
		}
		if typesSecret(entries) {
			// A trace records what a replay types: no trace of a secret.
			mr.trace.Info("trace: left out, the reproduction types a secret", "bug", b.ID)
			continue
		}
		n++
		name := TraceName(b.ID)
		rp := replayer{mr: mr, trace: filepath.Join(r.Dir, name), title: b.ID + ": " + b.Title}
		if _, err := rp.replay(ctx, entries, b.Kind == string(collector.FindA11y)); err != nil {
			mr.trace.Warn("trace", "bug", b.ID, "err", err)
			continue
		}
		b.Trace = name
	}
}

// typesSecret reports whether a reproduction types a secret (an entry's
// value is a ${SECRET_n} reference).
func typesSecret(entries []browser.Entry) bool {
	for _, e := range entries {
		for _, v := range append(e.Params.Typed(), e.Params.ValueOrEmpty()) {
			if strings.Contains(v, "${SECRET_") {
				return true
			}
		}
	}
	return false
}

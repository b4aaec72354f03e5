package explore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/internal/clip"
	"github.com/agentgraph/agentgraph/examples/explorer/internal/urlx"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/personas"
	"github.com/agentgraph/agentgraph/state"
)

// Finish is the supervisor's choice that ends a mission.
const Finish = "FINISH"

// Node names besides the personas.
const (
	NodeSupervisor = "supervisor"
	NodeSummarizer = "summarizer"
)

// KeepMessages is how many of the latest messages the summarizer keeps
// (besides the first, the mission).
const KeepMessages = 20

// TapeWindow bounds the tape kept in the graph state.
const TapeWindow = 50

// State is the team graph's state.
type State struct {
	// Messages: the mission (first, human), routing briefs and turn
	// summaries. Reducer: add-messages (append; same id replaces).
	Messages []state.Message
	// Next is the supervisor's choice: a persona or FINISH.
	Next string
	// Tape is the latest actions (bounded window of TapeWindow).
	Tape []browser.Entry
	// Steps counts the mission's browser steps.
	Steps int
	// Bugs found (append).
	Bugs []Bug
	// Explored paths, in visiting order (append).
	Explored []string
	// Turns counts persona turns.
	Turns int
	// AppModel is the app model (personas.Model as JSON) as the latest
	// persona turn left it, so a resumed mission continues its coverage.
	AppModel []byte `json:",omitempty"`
	// Progress is the rest of the mission's progress as the latest
	// persona turn left it (the team's pages and links, the tricks each
	// persona tried; see resume.go), for the same reason.
	Progress []byte `json:",omitempty"`
}

// Bug is one finding the team reported, deduplicated within a mission.
type Bug struct {
	ID          string `json:"id"`
	Fingerprint string `json:"fingerprint"`
	Kind        string `json:"kind"`
	// Severity: critical, major or minor (see severityOf).
	Severity string `json:"severity"`
	// Cause is the root-cause key the bug is deduplicated by (see cause.go).
	Cause string `json:"cause,omitempty"`
	// Symptoms are the other findings of the same cause in the same
	// action (the banner showing a failing request's body, its console
	// echo), each as "kind: message".
	Symptoms []string `json:"symptoms,omitempty"`
	Title    string   `json:"title"`
	URL      string   `json:"url"`
	Evidence string   `json:"evidence"`
	Persona  string   `json:"persona"`
	// Owner and Viewer name the users of a cross-user leak: whose data
	// showed on whose page (user names, never emails).
	Owner      string `json:"owner,omitempty"`
	Viewer     string `json:"viewer,omitempty"`
	Step       int    `json:"step"`
	TapeSeq    int64  `json:"tape_seq"`
	Screenshot string `json:"screenshot,omitempty"`
	Spec       string `json:"spec,omitempty"`
	// Trace is the bug's Playwright trace (trace_<id>.zip) in the
	// mission's report directory: npx playwright show-trace opens it.
	Trace      string `json:"trace,omitempty"`
	ReproSteps int    `json:"repro_steps,omitempty"`
	New        bool   `json:"new"`
	SeenCount  int    `json:"seen_count"`
	// Seen counts this mission's actions in which the cause showed (the
	// first included); Sightings are the later ones (at most
	// maxSightings), in tape order: each a longer way to the bug than the
	// first, which the spec reproduces.
	Seen      int        `json:"seen,omitempty"`
	Sightings []Sighting `json:"sightings,omitempty"`

	// ReproFullSteps is the length of the full tape up to the bug, which
	// the minimiser cut down to ReproSteps in ReproReplays replays (both
	// zero when minimisation is off).
	ReproFullSteps int `json:"repro_full_steps,omitempty"`
	ReproReplays   int `json:"repro_replays,omitempty"`
}

// Sighting is one more action of a mission in which a bug's cause showed.
type Sighting struct {
	Step    int    `json:"step"`
	TapeSeq int64  `json:"tape_seq"`
	Persona string `json:"persona"`
	URL     string `json:"url"`
}

// maxSightings bounds a bug's list of sightings.
const maxSightings = 10

func newTeamGraph(mr *missionRun) (*graph.StateGraph[State], error) {
	g := graph.New[State](
		graph.Reducer(func(s *State) *[]state.Message { return &s.Messages }, state.AddMessages),
		graph.Reducer(func(s *State) *[]browser.Entry { return &s.Tape }, state.Window[browser.Entry](TapeWindow)),
		graph.Reducer(func(s *State) *[]Bug { return &s.Bugs }, state.Append[Bug]),
		graph.Reducer(func(s *State) *[]string { return &s.Explored }, state.Append[string]),
	)
	g.AddNode(NodeSupervisor, mr.supervise)
	names := []string{graph.End}
	for _, m := range mr.team {
		g.AddNode(m.p.Name, mr.personaNode(m))
		g.AddEdge(m.p.Name, NodeSummarizer)
		names = append(names, m.p.Name)
	}
	g.AddNode(NodeSummarizer, summarize)
	g.AddEdge(graph.Start, NodeSupervisor)
	g.AddEdge(NodeSummarizer, NodeSupervisor)
	g.AddConditionalEdges(NodeSupervisor, graph.Branch(func(_ context.Context, s State) (string, error) {
		if s.Next == Finish || s.Next == "" {
			return graph.End, nil
		}
		return s.Next, nil
	}), names...)
	return g, nil
}

// supervise is the offline supervisor: a rule policy driven by coverage
// (the work each persona still sees) and page risk from memory.
func (mr *missionRun) supervise(ctx context.Context, s State) (State, error) {
	if err := ctx.Err(); err != nil {
		return State{}, err
	}
	mr.restore(s)
	brief := func(next, why string) State {
		if next == Finish {
			mr.stopWhy = why
		}
		msg := fmt.Sprintf("route → %s (%s). Mission: %s. Progress: %d/%d steps, %d bugs, %d pages explored.",
			next, why, mr.m.Prompt, s.Steps, mr.budget, len(s.Bugs), len(s.Explored))
		if len(mr.cov.priority) > 0 {
			msg += " High-risk pages: " + strings.Join(mr.cov.priority, ", ") + "."
		}
		return State{Next: next, Turns: s.Turns + 1, Messages: []state.Message{{ID: state.NewID(), Role: state.RoleAI, Name: NodeSupervisor, Content: msg}}}
	}
	if s.Steps >= mr.budget {
		mr.trace.Info("route", "next", Finish, "why", "step budget spent")
		return brief(Finish, "step budget spent"), nil
	}
	if mr.cfg.Models.supervisor() != nil {
		if mr.allIdle(2) {
			mr.trace.Info("route", "next", Finish, "why", "every persona came back idle twice")
			return brief(Finish, "every persona came back idle twice"), nil
		}
		if next, ok := mr.superviseModel(ctx, s); ok {
			return next, nil
		}
	}
	// Round robin over the personas that still see work (coverage), so
	// each gets its turn; the riskiest pages from memory come first in
	// every persona's frontier.
	best, bestScore := -1, 0
	for i := range mr.team {
		j := (s.Turns + i) % len(mr.team)
		m := mr.team[j]
		if mr.idle[m.p.Name] >= 2 {
			continue
		}
		if sc := m.pending(mr.cov) + mr.sw.work() + len(mr.probesFor(m)); sc > 0 {
			best, bestScore = j, sc
			break
		}
	}
	if best < 0 {
		// Nobody sees work: give each persona one more look unless all
		// came back idle.
		for i := range mr.team {
			j := (s.Turns + i) % len(mr.team)
			if mr.idle[mr.team[j].p.Name] == 0 {
				best = j
				break
			}
		}
	}
	if best < 0 {
		mr.trace.Info("route", "next", Finish, "why", "every target tried")
		return brief(Finish, "every target tried: no persona sees anything left to try"), nil
	}
	mr.trace.Info("route", "next", mr.team[best].p.Name, "pending", bestScore, "steps", s.Steps)
	return brief(mr.team[best].p.Name, fmt.Sprintf("most work left: %d", bestScore)), nil
}

// summarize keeps the first message (the mission) and the latest
// KeepMessages, replacing the middle with one summary message.
func summarize(_ context.Context, s State) (State, error) {
	if len(s.Messages) <= KeepMessages+1 {
		return State{}, nil
	}
	middle := s.Messages[1 : len(s.Messages)-KeepMessages]
	var b strings.Builder
	fmt.Fprintf(&b, "Summary of %d earlier messages:", len(middle))
	for _, m := range middle {
		line := m.Content
		if i := strings.IndexByte(line, '.'); i > 0 && i < 160 {
			line = line[:i]
		}
		b.WriteString("\n- " + clip.String(line, 160))
	}
	out := []state.Message{{ID: middle[0].ID, Role: state.RoleSystem, Name: NodeSummarizer, Content: clip.String(b.String(), 4000)}}
	for _, m := range middle[1:] {
		out = append(out, state.RemoveMessage(m.ID))
	}
	return State{Messages: out}, nil
}

// restore rebuilds the Go-side coverage from the state after a resume.
func (mr *missionRun) restore(s State) {
	for _, p := range s.Explored {
		mr.cov.visit(p)
	}
	for _, b := range s.Bugs {
		mr.bugSeen[b.Fingerprint] = true
	}
	if mr.steps < s.Steps {
		mr.steps = s.Steps
	}
	mr.sw.restore(s.AppModel, mr.trace)
}

func (mr *missionRun) personaNode(m *member) graph.NodeFunc[State] {
	turn := mr.personaTurn(m)
	return func(ctx context.Context, s State) (State, error) {
		mr.restore(s)
		mr.use(m)
		var probed State
		n := 0
		if mr.multi() && strings.HasPrefix(mr.sess.URL(), "about:") && s.Steps < mr.budget {
			// This user's context has not opened the app yet.
			mr.act(ctx, m, step{in: nav(mr.start), why: "open the start URL as " + m.acct.Name}, &probed)
			n++
		}
		// Other users' pages first: what this user must not see.
		n += mr.probe(ctx, m, &probed, mr.budget-s.Steps-n)
		if n == 0 {
			return turn(ctx, s)
		}
		s.Steps += n
		out, err := turn(ctx, s)
		if err != nil {
			return out, err
		}
		out.Tape = append(probed.Tape, out.Tape...)
		out.Bugs = append(probed.Bugs, out.Bugs...)
		out.Explored = append(probed.Explored, out.Explored...)
		out.Steps = max(out.Steps, s.Steps)
		return out, nil
	}
}

// personaTurn is one turn of m: a model's, or the offline persona's.
func (mr *missionRun) personaTurn(m *member) graph.NodeFunc[State] {
	return func(ctx context.Context, s State) (State, error) {
		if mr.cfg.Models.persona() != nil {
			return mr.modelTurn(ctx, m, s)
		}
		var out State
		limit := min(mr.cfg.TurnSteps, mr.budget-s.Steps)
		did := 0
		if mr.resetPending {
			mr.resetPending = false
			mr.act(ctx, m, step{in: nav(mr.start), why: "reset to the start URL: pick a different area"}, &out)
			did++
		}
		// The limit is soft while the persona keeps reaching new pages
		// (a wizard a few steps deep), hard at twice the limit.
		m.lead = false
		for (did < limit || len(m.q) > 0 || did < 2*limit && (mr.freshPage || m.lead)) && did < mr.budget-s.Steps {
			if err := ctx.Err(); err != nil {
				return State{}, err
			}
			if err := mr.injectedFault(ctx, m.p.Name); err != nil {
				return State{}, err
			}
			ok, err := mr.turnStep(ctx, m, &out)
			if err != nil {
				return State{}, err
			}
			if !ok {
				break
			}
			did++
		}
		if did > 0 {
			// One more look, so the page this turn ended on joins the
			// coverage (a wizard step the next turn can come back to).
			_, _ = mr.look(ctx, &out)
		}
		verdict := "nothing left to try here"
		switch {
		case did >= limit && did > 0:
			verdict = "step limit reached: reset to the start URL and pick a different area"
			mr.resetPending = mr.sw == nil // the app model picks areas by itself
			mr.idle[m.p.Name] = 0
		case did > 0:
			mr.idle[m.p.Name] = 0
		default:
			mr.idle[m.p.Name]++
		}
		out.Steps = s.Steps + did
		out.AppModel = mr.sw.snapshot()
		out.Progress = mr.progressSnapshot()
		out.Messages = append(out.Messages, state.Message{ID: state.NewID(), Role: state.RoleAI, Name: m.p.Name,
			Content: fmt.Sprintf("%s: %d steps, %d new bugs, %d new pages; %s.", m.p.Name, did, len(out.Bugs), len(out.Explored), verdict)})
		return out, nil
	}
}

// turnStep takes one step of m: look, decide, check for loops, act.
func (mr *missionRun) turnStep(ctx context.Context, m *member, out *State) (bool, error) {
	// A chained step (the second click of a double submit) goes at once.
	if len(m.q) > 0 && m.q[0].chain {
		st := m.q[0]
		m.q = m.q[1:]
		mr.act(ctx, m, st, out)
		return true, nil
	}
	v, err := mr.look(ctx, out)
	if err != nil {
		// A page that cannot be read: go back to the start.
		m.q = nil
		mr.act(ctx, m, step{in: nav(mr.start), why: "snapshot failed: " + clip.String(err.Error(), 80)}, out)
		return true, nil
	}
	snap, els := v.Snap, v.Els
	mr.freshPage = false
	st, ok := m.next(v)
	if !ok {
		return false, nil
	}
	// Loop detector: the same action on the same page state again and again.
	key := st.in.JSON() + "@" + pageState(snap, els)
	mr.loops[key]++
	if mr.loops[key] >= 3 {
		m.q = nil
		l, found := mr.cov.nextUnvisited()
		if !found {
			l = mr.start
		} else {
			l = mr.cov.way(l, urlx.PathQuery(snap.URL))
		}
		mr.loops[key] = 0
		mr.sw.abandon()
		st = step{in: nav(l), why: "loop detected (same action on the same page): go elsewhere"}
	}
	mr.act(ctx, m, st, out)
	return true, nil
}

// look snapshots the page and updates the team's coverage: pages visited,
// links seen, pages with forms.
func (mr *missionRun) look(ctx context.Context, out *State) (*view, error) {
	snap, err := mr.snapshot(ctx, out)
	if err != nil {
		// Mid-navigation: try once more.
		mr.col.WaitQuiet(ctx, 300*time.Millisecond)
		if snap, err = mr.snapshot(ctx, out); err != nil {
			return nil, err
		}
	}
	return mr.observe(ctx, snap, out), nil
}

// snapshot reads the page. Findings that arrived since the last action
// (a page's late timers) are reported as bugs of that action.
func (mr *missionRun) snapshot(ctx context.Context, out *State) (browser.Snapshot, error) {
	r := mr.sess.Do(ctx, browser.Intent{Action: browser.ActSnapshot})
	if fs := collector.PageFindings(r.Findings); len(fs) > 0 {
		if mr.prevActor != nil {
			mr.report(ctx, mr.prevActor, mr.prevEntry, fs, out)
		} else {
			mr.late = append(mr.late, fs...)
		}
	}
	if !r.OK || r.Snapshot == nil {
		return browser.Snapshot{}, errors.New(r.Error)
	}
	return *r.Snapshot, nil
}

// observe updates the team's coverage from a snapshot.
func (mr *missionRun) observe(ctx context.Context, snap browser.Snapshot, out *State) *view {
	els := personas.ParseElements(snap)
	here := urlx.PathQuery(snap.URL)
	if !strings.HasPrefix(here, collector.Prefix) {
		mr.cov.seenAt[here] = mr.steps
	}
	if !strings.HasPrefix(here, collector.Prefix) && mr.cov.visit(here) {
		mr.freshPage = true
		out.Explored = append(out.Explored, here)
		_, _ = mr.qa.RecordPageVisit(ctx, memURL(snap.URL, mr.colURL, mr.qa.Origin()), snap.Title)
	}
	for _, e := range els {
		if e.Role == "link" && e.URL != "" {
			if l, ok := resolveLink(snap.URL, e.URL); ok {
				mr.cov.see(l, here)
			}
		}
	}
	if mr.sw != nil {
		mr.sw.typed.ownRecords(els)
	}
	mr.sw.observe(snap.URL, els)
	v := &view{URL: snap.URL, Snap: snap, Els: els, Cov: mr.cov, Rand: mr.rand, Start: mr.start, Sweep: mr.sw,
		Spent: float64(mr.steps) / float64(max(mr.budget, 1)), Steps: mr.steps}
	mr.cov.noteForm(v)
	mr.cov.noteButtons(v)
	mr.lastView = v
	mr.trace.Debug("look", "url", snap.URL, "elements", len(els), "chars", len(snap.Text))
	return v
}

// act runs one intent, records it and turns its findings into bugs. The
// offline personas and the model's browser tools both act through it.
func (mr *missionRun) act(ctx context.Context, m *member, st step, out *State) (browser.Result, []Bug) {
	mr.use(m)
	if st.before != nil {
		st.before()
	}
	if v := mr.lastView; v != nil && st.in.Target != "" {
		if i := indexOf(v.Els, st.in.Target); i >= 0 && reDestroy.MatchString(v.Els[i].Name) {
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
func (mr *missionRun) afterAction(ctx context.Context, m *member, st step, res browser.Result, out *State) []Bug {
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
		mr.col.WaitQuiet(ctx, left)
	}
	mr.progress(m.p.Name, st, res)
	// Findings that arrived while the page was watched (the recorder's
	// dead-control and late a11y reports) belong to this action too.
	fs := append(collector.PageFindings(res.Findings), collector.PageFindings(mr.sess.TakeFindings())...)
	fs = append(fs, mr.col.Take()...)
	fs = append(fs, mr.crossCheck(ctx, res, fs)...)
	mr.prevActor, mr.prevEntry = m, entry
	return mr.report(ctx, m, entry, fs, out)
}

// deadWatch is the wait after a button's click that stayed on its page:
// longer than the in-page recorder's deadWindow (400 ms), so that a click
// that changed nothing is reported before the next action.
const deadWatch = 450 * time.Millisecond

// awaitJudgement waits, at most deadWatch, until the in-page recorder has
// judged every click (a click that visibly did something is judged at
// once, a dead one when its window ends), then a moment for its report to
// arrive.
func (mr *missionRun) awaitJudgement(ctx context.Context) {
	deadline := time.Now().Add(deadWatch)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		cctx, cancel := context.WithDeadline(ctx, deadline)
		v, err := mr.sess.Evaluate(cctx, `() => typeof window.__agUndecided === 'function' ? window.__agUndecided() : -1`, nil)
		cancel()
		n, ok := v.(int)
		if f, isF := v.(float64); isF {
			n, ok = int(f), true
		}
		if err != nil || !ok || n < 0 {
			// No recorder to ask (a page it is not in): the whole watch.
			mr.col.WaitQuiet(ctx, time.Until(deadline))
			return
		}
		if n == 0 {
			mr.col.WaitQuiet(ctx, judgedReport)
			return
		}
		mr.col.WaitQuiet(ctx, 50*time.Millisecond)
	}
}

// judgedReport is the moment a recorder's report (a console message) takes
// to arrive once the click is judged.
const judgedReport = 60 * time.Millisecond

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

// report turns findings into bugs of member m's action e, appends the new
// ones to out.Bugs and returns them. Findings that the bugs' screenshots
// drained from the session (mr.late) are reported too.
func (mr *missionRun) report(ctx context.Context, m *member, e browser.Entry, fs []browser.Finding, out *State) []Bug {
	var bugs []Bug
	primary := -1       // the action's server or uncaught error, or shown error, in out.Bugs
	primaryErr := false // primary is a server or uncaught error (a console echo is its symptom)
	earlier := ""       // the action's server or uncaught error when an earlier turn reported it (its key in mr.recorded)
	earlierPage := ""   // the path of earlier's request when it is a server error
	touched := map[int]bool{}
	defer func() {
		// The journal keeps what this action added to the bugs (symptoms,
		// sightings) for a resume.
		for _, i := range slices.Sorted(maps.Keys(touched)) {
			if b := out.Bugs[i]; mr.recorded[b.Fingerprint].ID == b.ID && b.ID != "" {
				mr.recorded[b.Fingerprint] = b
				mr.journalBug(b)
			}
		}
	}()
	for len(fs) > 0 || len(mr.late) > 0 {
		fs = append(fs, collector.PageFindings(mr.late)...)
		mr.late = nil
		sortByCause(fs)
		f := mr.addr().Finding(fs[0])
		fs = fs[1:]
		if primary >= 0 && slices.Contains(symptomKinds, f.Kind) && (f.Kind != browser.FindConsoleError || primaryErr) {
			// A symptom of the action's error: listed on it.
			addSymptom(&out.Bugs[primary], f)
			touched[primary] = true
			continue
		}
		if primary >= 0 && primaryErr && errorPageFinding(f, out.Bugs[primary].Kind, out.Bugs[primary].URL) {
			// The page is the server's error answer: what axe-core says
			// of it is that error's symptom, not a bug of its own.
			addSymptom(&out.Bugs[primary], f)
			touched[primary] = true
			continue
		}
		if primary < 0 && earlier != "" && (slices.Contains(symptomKinds, f.Kind) || errorPageFinding(f, string(browser.FindServerError), earlierPage)) {
			// A symptom of an error an earlier turn reported (this
			// turn's out does not hold that bug: memory's copy takes it).
			mr.updateEarlier(earlier, func(b *Bug) { addSymptom(b, f) })
			continue
		}
		if i, symptom := mr.known(out, f, e); i >= 0 {
			// A cause this mission reported already: one more sighting
			// (or a symptom of it), and the action's primary error when
			// it is one, so its banner and console echo join it.
			b := &out.Bugs[i]
			touched[i] = true
			if symptom {
				addSymptom(b, f)
			} else {
				sighted(b, m.p.Name, mr.steps, e, firstNonEmpty(f.URL, mr.public(e.URL)))
			}
			if primary < 0 && (f.Kind == browser.FindServerError || f.Kind == browser.FindPageError) {
				primary, primaryErr = i, true
			}
			continue
		}
		if key, ok := mr.earlierBug(out, f, e); ok {
			// A cause an earlier turn reported: one more sighting.
			mr.updateEarlier(key, func(b *Bug) { sighted(b, m.p.Name, mr.steps, e, firstNonEmpty(f.URL, mr.public(e.URL))) })
			if earlier == "" && (f.Kind == browser.FindServerError || f.Kind == browser.FindPageError) {
				earlier = key
				if f.Kind == browser.FindServerError {
					earlierPage = firstNonEmpty(f.URL, mr.public(e.URL))
				}
			}
			continue
		}
		if key, ok := mr.pairedEarlier(f, e); ok {
			// The other half of a bug an earlier turn reported.
			mr.updateEarlier(key, func(b *Bug) { addSymptom(b, f) })
			continue
		}
		if b, ok := mr.bug(ctx, m, f, e); ok {
			out.Bugs = append(out.Bugs, b)
			touched[len(out.Bugs)-1] = true
			bugs = append(bugs, b)
			switch f.Kind {
			case browser.FindServerError, browser.FindPageError:
				primary, primaryErr = len(out.Bugs)-1, true
			case browser.FindStackTrace, browser.FindErrorBanner:
				if primary < 0 {
					primary = len(out.Bugs) - 1 // the stack trace and the banner showing it are one
				}
			}
		}
	}
	return bugs
}

// errorPageFinding reports whether f is an accessibility finding on the
// page a server error answered: the error's kind is a server error and its
// request's path is the page's (a document that failed, not a fetch of
// the page's).
func errorPageFinding(f browser.Finding, errKind, errURL string) bool {
	return f.Kind == collector.FindA11y && errKind == string(browser.FindServerError) && errURL != "" && f.URL != "" &&
		urlx.Path(errURL) == urlx.Path(f.URL)
}

// sameCollection reports whether a form's post URL and a list page are of
// one collection: the same path, or one within the other (/things/new
// posts, /things lists).
func sameCollection(a, b string) bool {
	pa, pb := strings.TrimSuffix(urlx.Path(a), "/"), strings.TrimSuffix(urlx.Path(b), "/")
	if pa == "" || pb == "" {
		return false
	}
	return pa == pb || strings.HasPrefix(pa, pb+"/") || strings.HasPrefix(pb, pa+"/")
}

// addSymptom lists f on b as one of its symptoms (at most 8): its
// message, and its evidence when that says more (the response headers of
// a request, the row shown twice).
func addSymptom(b *Bug, f browser.Finding) {
	sym := string(f.Kind) + ": " + clip.String(firstNonEmpty(f.Message, f.Evidence), 200)
	if f.Message != "" && f.Evidence != "" && !strings.Contains(f.Message, f.Evidence) && !strings.Contains(f.Evidence, f.Message) {
		sym += " — " + clip.String(f.Evidence, 300)
	}
	if len(b.Symptoms) < 8 && !slices.Contains(b.Symptoms, sym) {
		b.Symptoms = append(b.Symptoms, sym)
	}
}

// sighted counts action e as one more in which b's cause showed.
func sighted(b *Bug, persona string, step int, e browser.Entry, url string) {
	if e.Seq == b.TapeSeq || len(b.Sightings) > 0 && b.Sightings[len(b.Sightings)-1].TapeSeq == e.Seq {
		return // the same action
	}
	b.Seen = max(b.Seen, 1) + 1
	if len(b.Sightings) < maxSightings {
		b.Sightings = append(b.Sightings, Sighting{Step: step, TapeSeq: e.Seq, Persona: persona, URL: url})
	}
}

// known finds the bug of this mission (its index in out.Bugs) that f is
// one more sighting of (the same cause), or a symptom of: a list showing
// a record twice whose cells hold a value the explorer typed once, and a
// form submission accepted twice, are one cause (the app stored that one
// submission twice), whichever the mission reported first. -1 when f is
// no known bug's.
func (mr *missionRun) known(out *State, f browser.Finding, e browser.Entry) (int, bool) {
	for i := range out.Bugs {
		if mr.pairedWith(f, e, out.Bugs[i]) {
			return i, true
		}
	}
	b, ok := findingBug(f, e.URL)
	if !ok || !mr.bugSeen[b.Fingerprint] {
		return -1, false
	}
	for i := range out.Bugs {
		if out.Bugs[i].Kind == b.Kind && out.Bugs[i].Cause == b.Cause {
			return i, false
		}
	}
	return -1, false
}

// A turn's out.Bugs holds only the bugs the turn reported (the state's
// reducer appends); what a later turn sees of an earlier turn's bug (one
// more sighting, a symptom) goes to the mission's copy in mr.recorded and
// the journal, and laterCopies puts it in the mission's result.

// earlierBug is the key in mr.recorded of the bug an earlier turn reported
// for f's cause (not one of this turn's: known finds those).
func (mr *missionRun) earlierBug(out *State, f browser.Finding, e browser.Entry) (string, bool) {
	b, ok := findingBug(f, e.URL)
	if !ok || !mr.bugSeen[b.Fingerprint] || slices.ContainsFunc(out.Bugs, func(o Bug) bool { return o.Kind == b.Kind && o.Cause == b.Cause }) {
		return "", false
	}
	if r, ok := mr.recorded[b.Fingerprint]; ok && r.ID != "" {
		return b.Fingerprint, true
	}
	for k, r := range mr.recorded {
		if r.Kind == b.Kind && r.Cause == b.Cause && r.ID != "" {
			return k, true
		}
	}
	return "", false
}

// updateEarlier changes the mission's copy of an earlier turn's bug and
// journals it.
func (mr *missionRun) updateEarlier(key string, change func(*Bug)) {
	b, ok := mr.recorded[key]
	if !ok || b.ID == "" {
		return
	}
	symptoms, sightings := len(b.Symptoms), len(b.Sightings)
	change(&b)
	mr.recorded[key] = b
	if len(b.Symptoms) != symptoms || len(b.Sightings) != sightings {
		mr.journalBug(b) // (a count alone waits for the next change)
	}
}

// laterCopies gives each bug of bugs what later turns added to it (its
// copy in mr.recorded: symptoms, sightings).
func (mr *missionRun) laterCopies(bugs []Bug) []Bug {
	byID := map[string]Bug{}
	for _, r := range mr.recorded {
		if r.ID != "" {
			byID[r.ID] = r
		}
	}
	for i, b := range bugs {
		r, ok := byID[b.ID]
		if !ok {
			continue
		}
		for _, s := range r.Symptoms {
			if len(b.Symptoms) < 8 && !slices.Contains(b.Symptoms, s) {
				b.Symptoms = append(b.Symptoms, s)
			}
		}
		b.Seen = max(b.Seen, r.Seen)
		if len(r.Sightings) > len(b.Sightings) {
			b.Sightings = r.Sightings
		}
		bugs[i] = b
	}
	return bugs
}

// pairedEarlier finds, among the bugs the mission reported in earlier
// turns (which a turn's own out.Bugs does not hold), the one that f is the
// other half of: a form submission accepted twice and a list showing a
// record typed once, twice, are one cause whichever turn saw which. It
// returns that bug's key in mr.recorded.
func (mr *missionRun) pairedEarlier(f browser.Finding, e browser.Entry) (string, bool) {
	for k, b := range mr.recorded {
		if b.ID != "" && mr.pairedWith(f, e, b) {
			return k, true
		}
	}
	return "", false
}

// pairedWith reports whether f is the other half of b's cause: a form
// submission accepted twice and a list (of the same collection) showing a
// record whose value the explorer typed once, twice — whichever was
// reported first.
func (mr *missionRun) pairedWith(f browser.Finding, e browser.Entry, b Bug) bool {
	if mr.sw == nil {
		return false
	}
	at := firstNonEmpty(f.URL, e.URL)
	switch f.Kind {
	case collector.FindDuplicateRow:
		return b.Kind == string(collector.FindDuplicate) && mr.sw.typed.holdsOnce(f.Evidence) && sameCollection(b.URL, at)
	case collector.FindDuplicate:
		return b.Kind == string(collector.FindDuplicateRow) && mr.sw.typed.holdsOnce(b.Evidence) && sameCollection(b.URL, at)
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

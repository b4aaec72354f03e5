package explore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
	"github.com/agentgraph/agentgraph/state"
)

func (mr *missionRun) personaNode(m *member) graph.NodeFunc[State] {
	turn := mr.personaTurn(m)
	return func(ctx context.Context, s State) (State, error) {
		mr.restore(s)
		mr.use(m)
		var probed State
		n := 0
		if mr.multi() && strings.HasPrefix(mr.sess.URL(), "about:") && s.Steps < mr.budget {
			// This user's context has not opened the app yet.
			mr.act(ctx, m, step{in: browser.Navigate(mr.start), why: "open the start URL as " + m.acct.Name}, &probed)
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
			mr.act(ctx, m, step{in: browser.Navigate(mr.start), why: "reset to the start URL: pick a different area"}, &out)
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
		mr.act(ctx, m, step{in: browser.Navigate(mr.start), why: "snapshot failed: " + clip.String(err.Error(), 80)}, out)
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
		st = step{in: browser.Navigate(l), why: "loop detected (same action on the same page): go elsewhere"}
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

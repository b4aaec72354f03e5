package explore

import (
	"context"
	"fmt"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/memory"
)

// What a mission leaves in memory besides its bugs: how each locator its
// personas used fared (the selector records feed memory's page risk, so a
// page whose controls keep failing is explored first next time), and the
// session's summary.

// selKey is one locator on one page.
type selKey struct{ page, locator string }

// selTally counts a locator's uses in this mission.
type selTally struct {
	ok, failed int
	lastErr    string
}

// tallySelector counts e's locator on the page it was used on: the page
// the previous action left (a click that navigates is the old page's).
func (mr *missionRun) tallySelector(e browser.Entry) {
	if e.Locator == "" || mr.qa == nil {
		return
	}
	page := e.URL
	if n := len(mr.full); n > 0 && mr.full[n-1].Entry.URL != "" {
		page = mr.full[n-1].Entry.URL
	}
	page = urlx.PathQuery(page)
	if page == "" || page[0] != '/' {
		return
	}
	if mr.selUse == nil {
		mr.selUse = map[selKey]*selTally{}
	}
	k := selKey{page, e.Locator}
	t := mr.selUse[k]
	if t == nil {
		t = &selTally{}
		mr.selUse[k] = t
	}
	if e.OK {
		t.ok++
	} else {
		t.failed++
		t.lastErr = clip.String(e.Error, 300)
	}
}

// saveSession gives memory the mission's selector tallies and its summary.
func (mr *missionRun) saveSession(ctx context.Context, r *report.MissionResult, started time.Time) {
	if mr.qa == nil {
		return
	}
	origin := mr.qa.Origin()
	for k, t := range mr.selUse {
		if _, err := mr.qa.AddSelectorUses(ctx, memURL(k.page, "", origin), k.locator, t.ok, t.failed, t.lastErr); err != nil {
			mr.trace.Warn("memory: selector record", "locator", k.locator, "err", err)
			break
		}
	}
	s := memory.SessionSummary{ThreadID: mr.m.ThreadID, Mission: mr.m.Prompt, StartURL: memURL(urlx.PathQuery(mr.start), "", origin),
		Started: started.UTC(), Steps: r.Steps, Summary: fmt.Sprintf("%d steps, %d bugs", r.Steps, len(r.Bugs))}
	for _, m := range mr.team {
		s.Personas = append(s.Personas, m.p.Name)
	}
	for _, t := range r.Timeline {
		s.Actions++
		if t.Entry.OK {
			s.Succeeded++
		}
	}
	for _, p := range r.Explored {
		if len(p) > 0 && p[0] == '/' {
			s.Pages = append(s.Pages, memURL(p, "", origin))
		}
	}
	for _, b := range r.Bugs {
		s.Bugs = append(s.Bugs, b.Fingerprint)
	}
	switch {
	case r.Err != "":
		s.Outcome = "error: " + r.Err
	case r.Coverage != nil && r.Coverage.Stopped != "":
		s.Outcome = r.Coverage.Stopped
	default:
		s.Outcome = mr.stopWhy
	}
	if err := mr.qa.SaveSession(ctx, s); err != nil {
		mr.trace.Warn("memory: session summary", "err", err)
	}
}

package explore

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/memory"
)

// leaveHostile marks as explored the pages that stopped responding during
// an action (the engine replaced the page by a fresh one; the finding
// becomes a bug) and a navigation's path that led off the app's origin (a
// redirect or refresh the origin guard refused), so that no persona goes
// back to them.
func (mr *missionRun) leaveHostile(in browser.Intent, res browser.Result) {
	if in.Action == browser.ActNavigate && !res.OK && strings.Contains(res.Error, "outside the allowed origins") {
		if p := urlx.PathQuery(in.URL); strings.HasPrefix(p, "/") {
			mr.cov.visit(p)
		}
	}
	for _, f := range res.Findings {
		if f.Kind != browser.FindUnresponsive || f.URL == "" || strings.HasPrefix(f.URL, "about:") {
			continue
		}
		mr.cov.visit(urlx.PathQuery(f.URL))
		mr.trace.Warn("page unresponsive: replaced by a fresh page, not visited again", "url", urlx.PathQuery(f.URL))
	}
}

// bug turns a finding into a Bug when it is a new one for this mission.
func (mr *missionRun) bug(ctx context.Context, m *member, f browser.Finding, e browser.Entry) (findings.Bug, bool) {
	b, ok := findings.FindingBug(f, e.URL)
	if !ok || mr.bugSeen[b.Fingerprint] {
		return findings.Bug{}, false
	}
	if f.Kind == browser.FindErrorBanner && findings.ValidationMessage(findings.FirstNonEmpty(f.Evidence, f.Message)) {
		// The app answering input with a validation message: no bug.
		mr.trace.Info("observation: validation message", "text", clip.String(findings.FirstNonEmpty(f.Evidence, f.Message), 200))
		return findings.Bug{}, false
	}
	if mr.brokeAfterApp(f) {
		// The app's whole answer left the collector: what broke it was
		// between the collector and the browser (a loaded machine), not
		// the app.
		mr.trace.Info("observation: request broke after the app answered it whole", "message", clip.String(f.Message, 200), "url", urlx.PathQuery(mr.public(f.URL)))
		return findings.Bug{}, false
	}
	if f.Kind == browser.FindNotFound && mr.othersLoaded(findings.FirstNonEmpty(f.URL, e.URL)) {
		// Another user's page, which this one may not open: the app
		// keeping records apart, no broken link.
		mr.trace.Info("observation: another user's page answers 404 to this user", "url", urlx.PathQuery(mr.public(findings.FirstNonEmpty(f.URL, e.URL))), "user", mr.cur.Name)
		return findings.Bug{}, false
	}
	if u := urlx.PathQuery(mr.public(findings.FirstNonEmpty(f.URL, e.URL))); f.Kind == browser.FindNotFound && e.Action == browser.ActNavigate && mr.cov.gone(u) {
		// The team opened by its address a page it had seen, after it
		// deleted something: the record is gone, no link is broken.
		mr.trace.Info("observation: a page seen before answers 404 after a delete", "url", u)
		mr.cov.lose(u)
		return findings.Bug{}, false
	}
	if f.Kind == collector.FindDuplicateRow && mr.sw != nil && mr.sw.typed.ownRepeat(f.Evidence) {
		// Two records the explorer made with the same values: no bug.
		mr.trace.Info("duplicate row of the explorer's own values", "evidence", clip.String(f.Evidence, 200))
		return findings.Bug{}, false
	}
	// A page (or a 5xx body) that echoes a secret does not put it in a
	// report or in memory.
	b.Title, b.Evidence, b.URL = mr.secrets.Redact(mr.public(b.Title)), mr.secrets.Redact(mr.public(b.Evidence)), mr.secrets.Redact(mr.public(b.URL))
	fp, page, evidence := b.Fingerprint, b.URL, b.Evidence
	mr.bugSeen[fp] = true
	mr.bugs++
	b.ID = fmt.Sprintf("bug-%02d-%s", mr.bugs, strings.ReplaceAll(string(f.Kind), "_", "-"))
	b.Persona, b.Step, b.TapeSeq = m.p.Name, mr.steps, e.Seq
	if f.Kind == findings.FindCrossUser && mr.xu != nil {
		if l, ok := mr.xu.leaks[f.Message]; ok {
			b.Owner, b.Viewer = l.Owner, l.Viewer
			mr.xu.byBug[b.ID] = l
		}
	}
	// Memory fingerprints the evidence: give it the run-independent part
	// (numbers such as record ids, ports and timings removed).
	// A bug this run already gave to memory (before a retry went back to
	// the checkpoint) is not recorded twice.
	if prev, ok := mr.recorded[fp]; ok {
		b.New, b.SeenCount, b.Fingerprint = prev.New, prev.SeenCount, prev.Fingerprint
	} else if rec, err := mr.qa.RecordBug(ctx, memory.BugReport{Kind: b.Kind, Severity: findings.MemorySeverity(b.Severity), Cause: b.Cause, URL: memURL(urlx.PathQuery(page), "", mr.qa.Origin()), Title: reNum.ReplaceAllString(b.Title, "#"), Evidence: clip.String(reNum.ReplaceAllString(evidence, "#"), 600), Persona: m.p.Name, ThreadID: mr.m.ThreadID, TapeIndex: int(e.Seq)}); err == nil {
		b.New = rec.New || rec.Reopened
		b.SeenCount = rec.Entry.SeenCount
		if !rec.New && rec.Entry.Fingerprint != "" {
			b.Fingerprint = rec.Entry.Fingerprint
		}
		mr.recorded[fp] = b
		mr.journalBug(b) // at once: a kill from here on loses no bug
	} else {
		mr.trace.Warn("record bug in memory", "err", err)
	}
	if mr.sess == nil {
		mr.emitBug(b)
		return b, true // no browser (a unit test of the reporting)
	}
	// Screenshot of the page as it is now, the finding's element outlined.
	outlined := f.Selector != "" && mr.outline(ctx, f.Selector, true)
	shot := mr.sess.Do(ctx, browser.Intent{Action: browser.ActScreenshot})
	if outlined {
		mr.outline(ctx, f.Selector, false)
	}
	mr.late = append(mr.late, shot.Findings...)
	if len(shot.Screenshot) > 0 {
		rel := filepath.Join("screenshots", b.ID+".png")
		if err := safefile.WriteFile(filepath.Join(mr.dir, rel), shot.Screenshot, 0o600); err == nil {
			b.Screenshot = rel
			if prev, ok := mr.recorded[fp]; ok && prev.ID == b.ID {
				prev.Screenshot = rel
				mr.recorded[fp] = prev
			}
		}
	}
	mr.trace.Warn("bug", "id", b.ID, "kind", b.Kind, "url", urlx.PathQuery(page), "evidence", clip.String(evidence, 300), "new", b.New)
	mr.emitBug(b)
	return b, true
}

// reTransportFailure is a request failure of the connection itself (not a
// refusal, not an abort by the page).
var reTransportFailure = regexp.MustCompile(`net::ERR_(CONTENT_LENGTH_MISMATCH|INCOMPLETE_CHUNKED_ENCODING|INVALID_CHUNKED_ENCODING|EMPTY_RESPONSE|CONNECTION_RESET|CONNECTION_CLOSED)\b`)

// brokeAfterApp reports a request failure at the connection level of a
// request whose whole answer the collector relayed from the app moments
// before.
func (mr *missionRun) brokeAfterApp(f browser.Finding) bool {
	if f.Kind != browser.FindRequestFailed || mr.col == nil || !reTransportFailure.MatchString(f.Message) {
		return false
	}
	method, _, ok := strings.Cut(f.Message, " request failed")
	return ok && mr.col.RelayedWhole(method, urlx.Path(f.URL), 30*time.Second)
}

// outlineColor marks a bug's element in its screenshot.
const outlineColor = "#ff00ff"

// outline draws (on) or removes an outline around the element sel names,
// scrolled into view, and reports whether it found the element. The
// element's own inline outline is put back afterwards.
func (mr *missionRun) outline(ctx context.Context, sel string, on bool) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	v, err := mr.sess.Evaluate(ctx, `([sel, on, colour]) => {
  let el = null;
  try { el = document.querySelector(sel); } catch (e) { return false; }
  if (!el || !el.style) return false;
  // The element's style attribute as it was (JSON: null for none), put
  // back afterwards so that its markup (evidence of later findings) is
  // unchanged.
  if (on) {
    if (!el.hasAttribute('data-agx-style')) el.setAttribute('data-agx-style', JSON.stringify(el.getAttribute('style')));
    el.style.outline = '4px solid ' + colour;
    el.style.outlineOffset = '2px';
    el.scrollIntoView({block: 'center', inline: 'nearest'});
  } else if (el.hasAttribute('data-agx-style')) {
    let was = null;
    try { was = JSON.parse(el.getAttribute('data-agx-style')); } catch (e) {}
    if (typeof was === 'string') el.setAttribute('style', was); else el.removeAttribute('style');
    el.removeAttribute('data-agx-style');
  }
  return true;
}`, []any{sel, on, outlineColor})
	if err != nil {
		mr.trace.Debug("outline", "selector", sel, "err", err)
		return false
	}
	found, _ := v.(bool)
	return found
}

// bugsSoFar are the bugs this run found, in the order found, for the report
// of an interrupted mission.
func (mr *missionRun) bugsSoFar() []findings.Bug {
	var out []findings.Bug
	for _, b := range mr.recorded {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b findings.Bug) int { return int(a.TapeSeq - b.TapeSeq) })
	return out
}

// addr is the mission's addresser: the collector's addresses to the
// target's.
func (mr *missionRun) addr() *collector.Addresser {
	mr.addrOnce.Do(func() { mr.addrs = collector.NewAddresser(mr.colURL, mr.target) })
	return mr.addrs
}

// public is s with the target's addresses in place of the collector's.
func (mr *missionRun) public(s string) string { return mr.addr().Text(s) }

// memURL maps a URL on the collector to the same path on the app's origin
// for memory.
func memURL(raw, colURL, origin string) string {
	if colURL == "" && strings.HasPrefix(raw, "/") {
		return strings.TrimRight(origin, "/") + raw
	}
	if strings.HasPrefix(raw, colURL) {
		return strings.TrimRight(origin, "/") + strings.TrimPrefix(raw, colURL)
	}
	return raw
}

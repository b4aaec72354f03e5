package explore

import (
	"context"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// JavaScript coverage. Each of a mission's browser sessions collects the
// block coverage of the app's scripts (browser.Session.StartJSCoverage;
// the collector's own scripts left out), and the team takes it after
// every action: an action after which code ran that had not run before
// found something new, and its target's yield in the app model says so
// (newCode). The mission's figure is per script the most any take saw,
// the inline scripts of all pages of one URL template counted once (a
// record's page and the next record's run the same inline code).

// jsTally is what the mission's takes saw, per script key.
type jsTally struct {
	on      bool
	scripts map[string]browser.ScriptCoverage
}

// startJS starts the session's JavaScript coverage when the run asks for
// it (Config.JSCoverage); a browser without CDP leaves it off (traced, not an error).
func (mr *missionRun) startJS(ctx context.Context, s *browser.Session) {
	if !mr.cfg.JSCoverage || s == nil {
		return
	}
	if err := s.StartJSCoverage(ctx, browser.JSCoverageOptions{ExcludePaths: []string{collector.Prefix}}); err != nil {
		mr.trace.Info("js coverage off", "err", err)
		return
	}
	mr.js.on = true
}

// takeJS merges the current session's coverage into the tally and says
// whether code ran that no take had seen run.
func (mr *missionRun) takeJS(ctx context.Context) bool {
	if !mr.js.on || mr.sess == nil {
		return false
	}
	c, err := mr.sess.TakeJSCoverage(ctx)
	if err != nil {
		return false
	}
	return mr.js.merge(c)
}

// merge adds a take to the tally: per key the most any take saw. It
// says whether an entry's executed part grew.
func (t *jsTally) merge(c browser.JSCoverage) bool {
	if t.scripts == nil {
		t.scripts = map[string]browser.ScriptCoverage{}
	}
	grew := false
	for _, sc := range c.Scripts {
		k := jsKey(sc.URL)
		prev := t.scripts[k]
		if sc.Executed > prev.Executed {
			grew = true
		}
		n := max(prev.Bytes, sc.Bytes)
		t.scripts[k] = browser.ScriptCoverage{URL: k, Bytes: n, Executed: min(max(prev.Executed, sc.Executed), n)}
	}
	return grew
}

// jsKey is a script's key in the tally: its URL's path and query, or for
// a page's inline scripts the page's URL template.
func jsKey(u string) string {
	if page, ok := strings.CutSuffix(u, "#inline"); ok {
		return personas.URLTemplate(urlx.Path(page)) + "#inline"
	}
	return urlx.PathQuery(u)
}

// jsReport is the tally's figures, nil when coverage was off.
func (mr *missionRun) jsReport() *report.JSCoverage {
	if !mr.js.on {
		return nil
	}
	out := &report.JSCoverage{Scripts: len(mr.js.scripts)}
	for _, sc := range mr.js.scripts {
		out.Bytes += sc.Bytes
		out.Executed += sc.Executed
	}
	if out.Bytes > 0 {
		out.Percent = float64(int(1000*float64(out.Executed)/float64(out.Bytes))) / 10
	}
	return out
}

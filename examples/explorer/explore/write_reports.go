package explore

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/safefile"
)

func writeMissionReports(ctx context.Context, mr *missionRun, r *report.MissionResult) error {
	minimized := mr.minimizeRepros(ctx, r)
	usesSecrets := false
	for i := range r.Bugs {
		b := &r.Bugs[i]
		entries := mr.bugEntries(r.Timeline, *b)
		if m, ok := minimized[b.ID]; ok {
			entries = m
		}
		if len(entries) == 0 {
			continue
		}
		var repro browser.Reproduction
		if b.Kind == string(findings.FindCrossUser) {
			// Two users, two browser contexts: the owner makes the
			// record, the viewer sees it.
			xr, ok := mr.crossUserRepro(*b, r.Timeline)
			if !ok {
				mr.trace.Warn("cross-user reproduction: the owner's form steps are not on the tape", "bug", b.ID)
				continue
			}
			repro = xr
			b.ReproSteps = 0
			for _, a := range xr.Actors {
				b.ReproSteps += len(a.Entries)
			}
		} else {
			mr.rememberRepro(ctx, *b, entries)
			repro = findings.Reproduction(*b, entries)
			b.ReproSteps = len(repro.Entries)
			repro = mr.withUserState(repro, r.Timeline, *b)
		}
		spec, err := browser.Translate([]browser.Reproduction{repro}, browser.SpecOptions{BaseURL: strings.TrimRight(mr.target, "/"), DefaultBaseURL: mr.target, ClearSiteData: []string{collector.ClearSiteDataPath}})
		if err != nil {
			mr.trace.Warn("translate", "bug", b.ID, "err", err)
			continue
		}
		b.Spec = report.SpecName(b.ID)
		usesSecrets = usesSecrets || strings.Contains(spec, "secret('SECRET_")
		spec = mr.usersHeader(spec)
		if err := safefile.WriteFile(filepath.Join(r.Dir, b.Spec), []byte(mr.secrets.Redact(spec)), 0o600); err != nil {
			return err
		}
	}
	if err := safefile.WriteFile(filepath.Join(r.Dir, "playwright.config.ts"), []byte(report.PlaywrightConfigTS(mr.target)), 0o600); err != nil {
		return err
	}
	if err := report.WriteJSON(filepath.Join(r.Dir, "summary.json"), report.MissionSummary(*r)); err != nil {
		return err
	}
	if mr.sw != nil {
		if err := report.WriteJSON(filepath.Join(r.Dir, "app_model.json"), mr.sw.model); err != nil {
			return err
		}
	}
	md := report.Markdown(*r)
	if usesSecrets {
		md += "\nSome reproductions type a secret: they read `SECRET_1`, `SECRET_2`… from the environment " +
			"(`SECRET_1` is the configured password, if any; the others were typed into password fields, see the tape's `${SECRET_n}`). " +
			"The values are never written to a file.\n"
	}
	if err := safefile.WriteFile(filepath.Join(r.Dir, "test_report.md"), []byte(mr.secrets.Redact(md)), 0o600); err != nil {
		return err
	}
	return report.WriteHTML(filepath.Join(r.Dir, "report.html"), *r)
}

package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/minimize"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/memory"
)

// A memory that verifies: every bug the explorer reports keeps its
// reproduction in memory (memory.BugEntry.Repro, written by
// rememberRepros); a --regression run replays each one before it explores
// (verifyBugs). An open bug that no longer shows is marked fixed, a fixed
// one that shows again is reopened, and the run's report lists every
// verdict.

// reproRecord is the explorer's reproduction of a bug as memory keeps it.
type reproRecord struct {
	// Steps are the replayable entries (minimised when the minimiser
	// confirmed a shorter way), their addresses on memory's origin so that
	// a later run on another port still replays them.
	Steps []browser.Entry `json:"steps"`
	// Sig is the finding the replay must show (findingSig of the bug).
	Sig string `json:"sig"`
	// Axe: the finding is axe-core's, so the replay runs it.
	Axe bool `json:"axe,omitempty"`
}

// maxReproSteps bounds what memory keeps of a reproduction that the
// minimiser could not shorten.
const maxReproSteps = 60

// rememberRepro keeps b's reproduction in memory.
func (mr *missionRun) rememberRepro(ctx context.Context, b findings.Bug, entries []browser.Entry) {
	if mr.qa == nil || len(entries) == 0 || len(entries) > maxReproSteps {
		return
	}
	fp := b.Fingerprint // memory's: the cause's (findingBug), as RecordBug makes it
	if fp == "" {
		return
	}
	toMem := collector.NewAddresser(mr.target, mr.qa.Origin())
	rec := reproRecord{Sig: minimize.FindingSig(b.Kind, b.URL, b.Evidence), Axe: b.Kind == string(collector.FindA11y)}
	for _, e := range entries {
		e = toMem.Entry(e)
		e.Findings, e.Result = nil, "" // what the replay must show is Sig
		rec.Steps = append(rec.Steps, e)
	}
	raw, err := json.Marshal(rec)
	if err == nil {
		err = mr.qa.SetRepro(ctx, fp, raw)
	}
	if err != nil {
		mr.trace.Warn("remember reproduction", "bug", b.ID, "err", err)
	}
}

// unknownSecret is the first secret reference the steps type that
// secrets (or the environment) cannot resolve; "" when there is none.
func unknownSecret(steps []browser.Entry, secrets *browser.Secrets) string {
	for _, e := range steps {
		for _, v := range append(e.Params.Typed(), e.Params.ValueOrEmpty()) {
			if name, ok := browser.SecretRef(v); ok {
				if _, known := secrets.Resolve(v); !known {
					return name
				}
			}
		}
	}
	return ""
}

// Verification bounds: one replay, all of them.
const (
	verifyReplayTime = time.Minute
	verifyTime       = 10 * time.Minute
	verifyAttempts   = 2
)

// verifyBugs replays the reproduction of every bug in memory that has one
// (open and fixed), through vr's browser and a fresh collector per replay
// (the minimiser's replayer), and records each verdict in memory under run.
func verifyBugs(ctx context.Context, vr *missionRun, run string) ([]report.Verification, error) {
	bugs, err := vr.qa.Bugs(ctx, "")
	if err = warnCorrupt(ctx, vr.cfg.Logger, vr.cfg.Progress, vr.qa, err); err != nil {
		return nil, fmt.Errorf("explore: regression: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, verifyTime)
	defer cancel()
	toRun := collector.NewAddresser(vr.qa.Origin(), vr.target)
	var out []report.Verification
	for _, e := range bugs {
		if len(e.Repro) == 0 {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		v := report.Verification{Fingerprint: e.Fingerprint, Kind: e.Kind, Title: e.Title, URL: e.URL, Before: string(e.Status)}
		var rec reproRecord
		if err := json.Unmarshal(e.Repro, &rec); err != nil || len(rec.Steps) == 0 || rec.Sig == "" {
			v.Verdict, v.Note = report.VerdictNotReplayable, "the stored reproduction does not decode"
			out = append(out, v)
			continue
		}
		steps := make([]browser.Entry, len(rec.Steps))
		for i, s := range rec.Steps {
			steps[i] = toRun.Entry(s)
		}
		v.Steps = len(steps)
		if name := unknownSecret(steps, vr.secrets); name != "" {
			// Secret values are never stored: this run must know it.
			v.Verdict, v.Note = report.VerdictNotReplayable, "it types "+name+", which this run does not know: give the password (--password) or set "+name+" in the environment"
			out = append(out, v)
			continue
		}
		reproduced, replayable := false, true
		for range verifyAttempts {
			rctx, rcancel := context.WithTimeout(ctx, verifyReplayTime)
			got, err := replayer{mr: vr}.replay(rctx, steps, rec.Axe)
			rcancel()
			v.Replays++
			switch {
			case err != nil && ctx.Err() != nil:
				replayable, v.Note = false, "stopped: "+ctx.Err().Error()
			case err != nil:
				replayable, v.Note = false, clip.String(err.Error(), 200)
			case got.FailedAt >= 0:
				replayable, v.Note = false, fmt.Sprintf("step %d of %d could not be replayed", got.FailedAt+1, len(steps))
			default:
				replayable, v.Note = true, ""
				reproduced = got.Sigs[rec.Sig]
			}
			if reproduced || !replayable {
				break
			}
		}
		if !replayable {
			v.Verdict = report.VerdictNotReplayable
			out = append(out, v)
			continue
		}
		_, verdict, err := vr.qa.Verify(ctx, e.Fingerprint, run, reproduced)
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				break
			}
			return out, fmt.Errorf("explore: regression: %w", err)
		}
		v.Verdict = string(verdict)
		out = append(out, v)
	}
	if vr.cfg.Progress != nil && len(out) > 0 {
		n := map[string]int{}
		for _, v := range out {
			n[v.Verdict]++
		}
		var parts []string
		for _, k := range []string{string(memory.VerdictStillOpen), string(memory.VerdictFixed), string(memory.VerdictReopened), string(memory.VerdictStillFixed), report.VerdictNotReplayable} {
			if n[k] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
			}
		}
		fmt.Fprintf(vr.cfg.Progress, "regression: replayed %d remembered reproductions: %s\n", len(out), strings.Join(parts, ", "))
	}
	return out, nil
}

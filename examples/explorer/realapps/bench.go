package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

// Options configure a benchmark run.
type Options struct {
	Apps   []kit.App
	Budget int
	// Out receives <app>/clean and <app>/mutated (the explorer's
	// reports), bench.json and bench.md.
	Out string
	// Cache is where apps are installed and their instances copied.
	Cache string
	// VerifyOnly sets the apps up and proves the mutations; no explorer.
	VerifyOnly bool
	// JSCoverage collects the app's JavaScript coverage in the explorer's
	// runs.
	JSCoverage bool
	Browser    *browser.Browser
	// Progress receives a line per app (and one per proof).
	Progress io.Writer
}

// BenchReport is the benchmark's outcome: bench.json.
type BenchReport struct {
	Budget     int           `json:"budget"`
	VerifyOnly bool          `json:"verify_only,omitempty"`
	Apps       []AppRow      `json:"apps"`
	Total      Totals        `json:"total"`
	Wall       time.Duration `json:"wall_ns"`
}

// AppRow is one app's line.
type AppRow struct {
	App     string  `json:"app"`
	Stack   string  `json:"stack"`
	Version string  `json:"version"`
	Proofs  []Proof `json:"proofs"`
	Proved  int     `json:"proved"`
	// Mutations, Found and Recall score the mutated run; FoundIDs and
	// Missed name them.
	Mutations int      `json:"mutations"`
	Found     int      `json:"found"`
	Recall    float64  `json:"recall"`
	FoundIDs  []string `json:"found_ids,omitempty"`
	Missed    []string `json:"missed,omitempty"`
	// AlsoClean are mutations whose patterns a clean-run report matched
	// too (not counted as found; see score).
	AlsoClean []string `json:"also_clean,omitempty"`
	// Reports are the mutated run's reports; ReportsPerFound is
	// Reports / Found; Unattributed name no mutation.
	Reports         int     `json:"reports"`
	ReportsPerFound float64 `json:"reports_per_found"`
	Unattributed    int     `json:"unattributed"`
	// Clean and Mutated are the explorer's runs (nil with VerifyOnly).
	Clean       *Explored     `json:"clean,omitempty"`
	Mutated     *Explored     `json:"mutated,omitempty"`
	CleanWall   time.Duration `json:"clean_wall_ns"`
	MutatedWall time.Duration `json:"mutated_wall_ns"`
	// Judged are the clean run's reports with their judgement.
	Judged []Judged      `json:"judged,omitempty"`
	Errors []string      `json:"errors,omitempty"`
	Wall   time.Duration `json:"wall_ns"`
}

// Totals sum the apps.
type Totals struct {
	Mutations    int     `json:"mutations"`
	Proved       int     `json:"proved"`
	Found        int     `json:"found"`
	Recall       float64 `json:"recall"`
	Reports      int     `json:"reports"`
	CleanReports int     `json:"clean_reports"`
	Errors       int     `json:"errors"`
}

// Proved says every trigger of every app proved its mutation.
func (r BenchReport) Proved() bool { return r.Total.Proved == r.Total.Mutations && r.Total.Errors == 0 }

// Run benchmarks the explorer on opts.Apps, one app at a time: set-up,
// the triggers' proofs, a clean run and a mutated run (all of the app's
// mutations patched in), then the score. It writes bench.json and
// bench.md to opts.Out.
func Run(ctx context.Context, opts Options) (BenchReport, error) {
	t0 := time.Now()
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	rep := BenchReport{Budget: opts.Budget, VerifyOnly: opts.VerifyOnly}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return rep, fmt.Errorf("realapps: %w", err)
	}
	for _, a := range opts.Apps {
		row := runApp(ctx, opts, a)
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("realapps: %w", err)
		}
		rep.Apps = append(rep.Apps, row)
		fmt.Fprintln(opts.Progress, row.progressLine(opts.VerifyOnly))
	}
	rep.Total = totals(rep.Apps)
	rep.Wall = time.Since(t0)
	return rep, write(opts.Out, rep)
}

func runApp(ctx context.Context, opts Options, a kit.App) AppRow {
	t0 := time.Now()
	row := AppRow{App: a.Name, Stack: a.Stack, Mutations: len(a.Mutations)}
	fail := func(err error) AppRow {
		row.Errors = append(row.Errors, err.Error())
		row.Wall = time.Since(t0)
		return row
	}
	fmt.Fprintf(opts.Progress, "%s: set-up\n", a.Name)
	if err := kit.Setup(ctx, a, opts.Cache, nil); err != nil {
		return fail(err)
	}
	if a.Version != nil {
		row.Version = a.Version(ctx, opts.Cache)
	}
	fmt.Fprintf(opts.Progress, "%s: proving %d mutations (mutated build, then clean build)\n", a.Name, len(a.Mutations))
	proofs, err := verify(ctx, a, opts.Cache, opts.Browser, nil, opts.Progress)
	if err != nil {
		return fail(err)
	}
	row.Proofs = proofs
	for _, p := range proofs {
		if p.OK() {
			row.Proved++
		}
	}
	if opts.VerifyOnly {
		row.Wall = time.Since(t0)
		return row
	}
	all := make([]string, 0, len(a.Mutations))
	for _, m := range a.Mutations {
		all = append(all, m.ID)
	}
	for _, build := range []string{"clean", "mutated"} {
		var apply []string
		if build == "mutated" {
			apply = all
		}
		tb := time.Now()
		inst, err := kit.Start(ctx, a, opts.Cache, kit.StartOptions{Mutations: apply})
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(opts.Progress, "%s: exploring the %s build at %s (budget %d)\n", a.Name, build, inst.URL, opts.Budget)
		ex, err := runExplorer(ctx, opts.Browser, inst.URL, a.Account, opts.Budget, filepath.Join(opts.Out, a.Name, build), opts.JSCoverage)
		inst.Close()
		if err != nil {
			row.Errors = append(row.Errors, fmt.Sprintf("%s run: %v", build, err))
		}
		if build == "clean" {
			row.Clean, row.CleanWall = &ex, time.Since(tb)
		} else {
			row.Mutated, row.MutatedWall = &ex, time.Since(tb)
		}
	}
	rescoreRow(&row, a)
	row.Wall = time.Since(t0)
	return row
}

func (r AppRow) progressLine(verifyOnly bool) string {
	line := fmt.Sprintf("%-10s proved %d/%d", r.App, r.Proved, r.Mutations)
	if !verifyOnly && r.Mutated != nil && r.Clean != nil {
		line += fmt.Sprintf(", found %d/%d, reports %d, clean-run reports %d, steps %d+%d", r.Found, r.Mutations, r.Reports,
			len(r.Clean.Reports), r.Clean.Steps, r.Mutated.Steps)
	}
	line += fmt.Sprintf(", wall %s", r.Wall.Round(time.Second))
	if len(r.Errors) > 0 {
		line += " (errors: " + strings.Join(r.Errors, "; ") + ")"
	}
	return line
}

func totals(rows []AppRow) Totals {
	var t Totals
	for _, r := range rows {
		t.Mutations += r.Mutations
		t.Proved += r.Proved
		t.Found += r.Found
		t.Reports += r.Reports
		if r.Clean != nil {
			t.CleanReports += len(r.Clean.Reports)
		}
		t.Errors += len(r.Errors)
	}
	t.Recall = ratio(t.Found, t.Mutations)
	return t
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func write(dir string, rep BenchReport) error {
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("realapps: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.json"), append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("realapps: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.md"), []byte(rep.Markdown()), 0o644); err != nil {
		return fmt.Errorf("realapps: %w", err)
	}
	return nil
}

// Markdown renders the report: the per-app table and total, the proofs,
// the missed mutations and the clean runs' reports with their judgement.
func (rep BenchReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmark: realapps (budget %d, %d apps, %s)\n\n", rep.Budget, len(rep.Apps), rep.Wall.Round(time.Second))
	if !rep.VerifyOnly {
		b.WriteString("| app | version | mutations | proved | found | recall | reports | reports/found | unattributed | clean-run reports | states | targets tried | JS coverage | steps (clean+mutated) | wall (clean+mutated) |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range rep.Apps {
			if r.Clean == nil || r.Mutated == nil {
				fmt.Fprintf(&b, "| %s | %s | %d | %d | – | – | – | – | – | – | – | – | – | – | – |\n", r.App, r.Version, r.Mutations, r.Proved)
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s | %d | %s | %d | %d | %d | %d/%d | %s | %d+%d | %s+%s |\n", r.App, r.Version, r.Mutations, r.Proved,
				r.Found, pct(r.Recall), r.Reports, perFound(r), r.Unattributed, len(r.Clean.Reports), r.Mutated.States, r.Mutated.Tried, r.Mutated.Targets,
				jsPct(r.Mutated.JSPercent), r.Clean.Steps, r.Mutated.Steps, r.CleanWall.Round(time.Second), r.MutatedWall.Round(time.Second))
		}
		t := rep.Total
		fmt.Fprintf(&b, "| **total** | | %d | %d | %d | %s | %d | | | %d | | | | | |\n", t.Mutations, t.Proved, t.Found, pct(t.Recall), t.Reports, t.CleanReports)
	}
	b.WriteString("\n## Mutations and their triggers\n\n| app | id | class | what | trigger on the mutated build | on the clean build | found |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Apps {
		found := map[string]bool{}
		for _, id := range r.FoundIDs {
			found[id] = true
		}
		for _, p := range r.Proofs {
			f := "–"
			if r.Mutated != nil {
				f = "no"
				if found[p.ID] {
					f = "yes"
				}
				for _, id := range r.AlsoClean {
					if id == p.ID {
						f = "no (its patterns match a clean-run report too)"
					}
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.App, p.ID, p.Class, cell(p.What), cell(say(p.Mutated, p.MutatedErr)), cell(say(p.Clean, p.CleanErr)), f)
		}
	}
	for _, r := range rep.Apps {
		if r.Clean == nil {
			continue
		}
		fmt.Fprintf(&b, "\n## %s: the clean run's reports, judged\n\n", r.App)
		if len(r.Judged) == 0 {
			b.WriteString("None.\n")
			continue
		}
		b.WriteString("| kind | title | URL | judgement | why |\n|---|---|---|---|---|\n")
		for _, j := range r.Judged {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", j.Kind, cell(j.Title), cell(clipText(j.URL, 100)), j.Verdict, cell(j.Why))
		}
	}
	var errs []string
	for _, r := range rep.Apps {
		for _, e := range r.Errors {
			errs = append(errs, r.App+": "+e)
		}
	}
	if len(errs) > 0 {
		b.WriteString("\n## Errors\n\n- " + strings.Join(errs, "\n- ") + "\n")
	}
	b.WriteString("\nA mutation counts as found when a report of the mutated run (every mutation of the app patched in) matches it: its id in the report's " +
		"kind, title, URL, evidence or symptoms, or, for a class that leaves no id on the page, all of the mutation's patterns, unless a report of the clean run matches those patterns too. " +
		"reports/found = the mutated run's reports / found; unattributed = its reports that match no mutation. " +
		"A trigger proves its mutation when it shows the defect on the mutated build and not on the clean one.\n")
	return b.String()
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

func jsPct(f float64) string {
	if f < 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", f)
}

func perFound(r AppRow) string {
	if r.Found == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", r.ReportsPerFound)
}

func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

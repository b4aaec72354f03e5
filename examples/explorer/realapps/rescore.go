package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

// rescore reads dir/bench.json, scores its runs' reports again with the
// apps' current definitions (match patterns, judgements) and rewrites
// bench.json and bench.md: a judgement or pattern added after a run
// needs no new run.
func rescore(dir string) (BenchReport, error) {
	var rep BenchReport
	raw, err := os.ReadFile(filepath.Join(dir, "bench.json"))
	if err != nil {
		return rep, fmt.Errorf("realapps: -rescore: %w", err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		return rep, fmt.Errorf("realapps: -rescore: %s: %w", filepath.Join(dir, "bench.json"), err)
	}
	apps := map[string]kit.App{}
	for _, a := range allApps() {
		apps[a.Name] = a
	}
	for i, row := range rep.Apps {
		a, ok := apps[row.App]
		if !ok || row.Clean == nil || row.Mutated == nil {
			continue
		}
		rescoreRow(&row, a)
		rep.Apps[i] = row
	}
	rep.Total = totals(rep.Apps)
	return rep, write(dir, rep)
}

// rescoreRow scores row's mutated run against a's mutations and judges
// its clean run.
func rescoreRow(row *AppRow, a kit.App) {
	s := score(a.Mutations, row.Mutated.Reports, row.Clean.Reports)
	row.Mutations = len(a.Mutations)
	row.Found, row.FoundIDs, row.Missed, row.AlsoClean, row.Unattributed = len(s.Found), s.Found, s.Missed, s.AlsoClean, s.Unattributed
	row.Reports = len(row.Mutated.Reports)
	row.Recall = ratio(row.Found, row.Mutations)
	row.ReportsPerFound = ratio(row.Reports, row.Found)
	row.Judged = judge(a, row.Clean.Reports)
}

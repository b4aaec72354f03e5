package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/internal/xerr"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/memory"
)

// Merging the report directories of shards (explorer merge-reports).
//
// Every input is a batch's report directory (Config.ReportDir: its
// summary.json and junit.xml, and a directory per mission). The output
// gets each mission's directory, copied whole (specs, screenshots, traces,
// tape, its own reports; hidden files such as the resume state are left
// out), and, at its top level, one report of the whole: summary.json,
// junit.xml, test_report.md and report.html, rendered by the same code as
// a mission's. Bugs are one per cause across all of them: reports with
// the same fingerprint (the cause's, see cause.go, which memory shares)
// are one bug, whose reproduction, spec and screenshot come from one of
// them (the one with a spec, then the shortest reproduction, then the
// first), with the sightings of all (Seen added up, SeenCount the
// largest, New when any was new, the symptoms of all).

// MergeResult is what MergeReports wrote.
type MergeResult struct {
	// Dir is the output directory.
	Dir string
	// Inputs are the merged directories with their shard labels ("i/n",
	// "" for a batch that was not sharded).
	Inputs []MergedInput
	// Missions counts the missions of all inputs.
	Missions int
	// Bugs counts the bugs after merging: one per cause.
	Bugs int
	// Merged counts the reports that joined another of the same cause.
	Merged int
	// Demo is the union of the inputs' demo scores (nil when none had one).
	Demo *DemoScore
	// Warnings: shards missing from a set, or one given twice.
	Warnings []string
}

// MergedInput is one merged report directory.
type MergedInput struct {
	Dir   string `json:"dir"`
	Shard string `json:"shard,omitempty"`
	// Missions are the directories of its missions in the output.
	Missions []string `json:"missions"`
}

// mergedSummary is the merged summary.json: a batch summary (bugs counts
// causes) plus the inputs and the merged bugs.
type MergedSummary struct {
	batchSummary
	Inputs []MergedInput `json:"inputs"`
	// Merged counts the reports that joined another of the same cause.
	Merged int `json:"merged"`
	// Causes are the bugs, one per cause, with the missions that saw it.
	Causes []MergedBug `json:"causes"`
}

// mergedBug is a bug of the merged report: its ID, spec, screenshot and
// trace are relative to the output directory.
type MergedBug struct {
	findings.Bug
	// Missions are the output's mission directories that reported it.
	Missions []string `json:"missions"`
}

// MergeReports merges the report directories dirs (of shards, or any
// explorer runs) into out (created if needed; the files it writes are
// replaced). out must not be one of dirs or inside one.
func MergeReports(out string, dirs ...string) (MergeResult, error) {
	res := MergeResult{Dir: out}
	if len(dirs) == 0 {
		return res, fmt.Errorf("%w: merge-reports: no report directory given", xerr.ErrUsage)
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return res, fmt.Errorf("merge-reports: %w", err)
	}
	type input struct {
		dir, abs string
		sum      batchSummary
	}
	var ins []input
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return res, fmt.Errorf("merge-reports: %w", err)
		}
		for _, prev := range ins {
			if prev.abs == abs {
				return res, fmt.Errorf("%w: merge-reports: %s given twice", xerr.ErrUsage, d)
			}
		}
		if within(absOut, abs) {
			return res, fmt.Errorf("%w: merge-reports: the output %s is inside the input %s", xerr.ErrUsage, out, d)
		}
		raw, err := os.ReadFile(filepath.Join(d, "summary.json"))
		if err != nil {
			return res, fmt.Errorf("%w: merge-reports: %s is not an explorer report directory: %v", xerr.ErrUsage, d, err)
		}
		var sum batchSummary
		if err := json.Unmarshal(raw, &sum); err != nil {
			return res, fmt.Errorf("%w: merge-reports: %s: %v", xerr.ErrUsage, filepath.Join(d, "summary.json"), err)
		}
		for _, m := range sum.Missions {
			if err := mission.ValidThread(m.ThreadID); err != nil {
				return res, fmt.Errorf("%w: merge-reports: %s: %v", xerr.ErrUsage, filepath.Join(d, "summary.json"), err)
			}
		}
		ins = append(ins, input{dir: d, abs: abs, sum: sum})
	}
	res.Warnings = shardWarnings(func(yield func(string, string) bool) {
		for _, in := range ins {
			if !yield(in.dir, in.sum.Shard) {
				return
			}
		}
	})

	// Each mission's directory gets a name of its own in the output.
	var missions []mergeMission
	taken := map[string]bool{}
	for _, in := range ins {
		mi := MergedInput{Dir: in.dir, Shard: in.sum.Shard}
		for _, m := range in.sum.Missions {
			dest := m.ThreadID
			for k := 2; taken[dest]; k++ {
				dest = fmt.Sprintf("%s-%d", m.ThreadID, k)
			}
			taken[dest] = true
			absDest := filepath.Join(absOut, dest)
			for _, other := range ins {
				if within(absDest, other.abs) || within(other.abs, absDest) {
					return res, fmt.Errorf("%w: merge-reports: mission %s would be copied to %s, which overlaps the input %s", xerr.ErrUsage, m.ThreadID, filepath.Join(out, dest), other.dir)
				}
			}
			missions = append(missions, mergeMission{sum: m, src: filepath.Join(in.dir, m.ThreadID), dest: dest})
			mi.Missions = append(mi.Missions, dest)
		}
		res.Inputs = append(res.Inputs, mi)
	}
	res.Missions = len(missions)

	if err := os.MkdirAll(out, 0o700); err != nil {
		return res, fmt.Errorf("merge-reports: %w", err)
	}
	for _, m := range missions {
		if err := safefile.MkdirUnder(out, m.dest, 0o700); err != nil {
			return res, fmt.Errorf("merge-reports: %w", err)
		}
		if err := copyTree(m.src, filepath.Join(out, m.dest)); err != nil {
			return res, fmt.Errorf("merge-reports: copy %s: %w", m.src, err)
		}
	}

	// One bug per cause.
	var causes []*MergedBug
	byFP := map[string]*MergedBug{}
	owner := map[*MergedBug]int{} // the mission whose report is kept
	for mi, m := range missions {
		for _, b := range m.sum.Bugs {
			nb := rebase(b, m.dest)
			fp := b.Fingerprint
			if fp == "" && b.Cause != "" {
				fp = memory.CauseFingerprint(b.Kind, b.Cause)
			}
			cur, ok := byFP[fp]
			if !ok || fp == "" {
				c := &MergedBug{Bug: nb, Missions: []string{m.dest}}
				c.Seen = max(b.Seen, 1)
				causes = append(causes, c)
				owner[c] = mi
				if fp != "" {
					byFP[fp] = c
				}
				continue
			}
			res.Merged++
			seen, seenCount, isNew, symptoms := cur.Seen+max(b.Seen, 1), max(cur.SeenCount, b.SeenCount), cur.New || b.New, cur.Symptoms
			if better(nb, cur.Bug) {
				cur.Bug = nb
				owner[cur] = mi
			}
			cur.Seen, cur.SeenCount, cur.New = seen, seenCount, isNew
			cur.Symptoms = slices.Clone(symptoms)
			for _, s := range b.Symptoms {
				if !slices.Contains(cur.Symptoms, s) {
					cur.Symptoms = append(cur.Symptoms, s)
				}
			}
			if !slices.Contains(cur.Missions, m.dest) {
				cur.Missions = append(cur.Missions, m.dest)
			}
		}
	}
	res.Bugs = len(causes)

	// The whole as one mission, for the report renderers; the JUnit
	// suites stay one per mission, each cause a test case of the mission
	// whose report it keeps.
	var whole MissionResult
	var batch Result
	var teams, targets []string
	sum := MergedSummary{Inputs: res.Inputs, Merged: res.Merged}
	for mi, m := range missions {
		s := m.sum
		mr := MissionResult{Mission: mission.Mission{ThreadID: m.dest, Prompt: s.Prompt}, Team: s.Team, Target: s.Target, Steps: s.Steps,
			Duration: time.Duration(s.DurationMS) * time.Millisecond, Err: s.Error}
		for _, c := range causes {
			if owner[c] == mi {
				mr.Bugs = append(mr.Bugs, c.Bug)
			}
		}
		batch.Missions = append(batch.Missions, mr)
		whole.Steps += s.Steps
		for _, p := range s.Explored {
			if !slices.Contains(whole.Explored, p) {
				whole.Explored = append(whole.Explored, p)
			}
		}
		if s.Team != "" && !slices.Contains(teams, s.Team) {
			teams = append(teams, s.Team)
		}
		if s.Target != "" && !slices.Contains(targets, s.Target) {
			targets = append(targets, s.Target)
		}
		if s.Error != "" {
			whole.Err = strings.TrimPrefix(whole.Err+"; "+m.dest+": "+s.Error, "; ")
		}
		sum.Missions = append(sum.Missions, s)
	}
	for _, c := range causes {
		whole.Bugs = append(whole.Bugs, c.Bug)
		sum.Causes = append(sum.Causes, *c)
		if c.New {
			sum.NewBugs++
		}
	}
	if sum.Causes == nil {
		sum.Causes = []MergedBug{}
	}
	for _, in := range ins {
		s := in.sum
		sum.DurationMS = max(sum.DurationMS, s.DurationMS) // shards run at once
		res.Demo = UnionDemo(res.Demo, s.Demo)
		sum.Usage = addUsage(sum.Usage, s.Usage)
	}
	sum.Bugs, sum.Demo = len(causes), res.Demo
	labels := make([]string, len(ins))
	for i, in := range ins {
		labels[i] = in.dir
		if in.sum.Shard != "" {
			labels[i] += " (shard " + in.sum.Shard + ")"
		}
	}
	whole.Mission = mission.Mission{ThreadID: "merged", Prompt: fmt.Sprintf("%d report directories merged: %s; %d missions, %d bug reports, %d after merging the same causes.",
		len(ins), strings.Join(labels, ", "), len(missions), len(causes)+res.Merged, len(causes))}
	whole.Team, whole.Target = strings.Join(teams, ", "), strings.Join(targets, ", ")
	whole.Duration = time.Duration(sum.DurationMS) * time.Millisecond
	whole.Demo = res.Demo
	whole.Dir = out

	if err := WriteJSON(filepath.Join(out, "summary.json"), sum); err != nil {
		return res, fmt.Errorf("merge-reports: %w", err)
	}
	if err := WriteJUnit(filepath.Join(out, "junit.xml"), batch); err != nil {
		return res, fmt.Errorf("merge-reports: %w", err)
	}
	md := Markdown(whole) + mergeMarkdown(res.Inputs, missions, causes)
	if err := safefile.WriteFile(filepath.Join(out, "test_report.md"), []byte(md), 0o600); err != nil {
		return res, fmt.Errorf("merge-reports: %w", err)
	}
	if err := WriteHTML(filepath.Join(out, "report.html"), whole); err != nil {
		return res, fmt.Errorf("merge-reports: %w", err)
	}
	return res, nil
}

// mergeMission is one mission of the inputs.
type mergeMission struct {
	sum  SummaryJSON
	src  string // its directory in the input
	dest string // its directory's name in the output
}

// mergeMarkdown is the merged report's own section: where each mission
// came from, and the causes more than one mission reported.
func mergeMarkdown(inputs []MergedInput, missions []mergeMission, causes []*MergedBug) string {
	var b strings.Builder
	b.WriteString("\n## Merged from\n\n| directory | shard | missions |\n|---|---|---|\n")
	for _, in := range inputs {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", in.Dir, in.Shard, strings.Join(in.Missions, ", "))
	}
	b.WriteString("\n| mission | steps | bug reports | report |\n|---|---|---|---|\n")
	for _, m := range missions {
		fmt.Fprintf(&b, "| %s | %d | %d | [%s/test_report.md](%s/test_report.md) |\n", m.dest, m.sum.Steps, len(m.sum.Bugs), m.dest, m.dest)
	}
	var shared []*MergedBug
	for _, c := range causes {
		if len(c.Missions) > 1 {
			shared = append(shared, c)
		}
	}
	if len(shared) > 0 {
		b.WriteString("\n## Causes reported by more than one mission\n\n")
		for _, c := range shared {
			fmt.Fprintf(&b, "- %s (%s): %s\n", c.ID, c.Kind, strings.Join(c.Missions, ", "))
		}
	}
	return b.String()
}

// rebase makes a mission's bug's ID and files relative to the output
// directory, where the mission's directory is dest.
func rebase(b findings.Bug, dest string) findings.Bug {
	b.ID = dest + "/" + b.ID
	for _, p := range []*string{&b.Spec, &b.Screenshot, &b.Trace} {
		if *p != "" {
			*p = dest + "/" + filepath.ToSlash(*p)
		}
	}
	return b
}

// better reports whether a's reproduction is the one to keep over b's: a
// spec first, then the shorter reproduction.
func better(a, b findings.Bug) bool {
	if (a.Spec != "") != (b.Spec != "") {
		return a.Spec != ""
	}
	return a.ReproSteps > 0 && (b.ReproSteps == 0 || a.ReproSteps < b.ReproSteps)
}

// unionDemo adds b's seeded and found ids to a's.
func UnionDemo(a, b *DemoScore) *DemoScore {
	if b == nil {
		return a
	}
	if a == nil {
		a = &DemoScore{Seeded: []string{}, Found: []string{}}
	}
	for _, id := range b.Seeded {
		if !slices.Contains(a.Seeded, id) {
			a.Seeded = append(a.Seeded, id)
		}
	}
	found := map[string]bool{}
	for _, id := range append(slices.Clone(a.Found), b.Found...) {
		found[id] = true
	}
	a.Found = a.Found[:0]
	for _, id := range a.Seeded {
		if found[id] {
			a.Found = append(a.Found, id)
		}
	}
	return a
}

// addUsage adds b to a.
func addUsage(a, b *Usage) *Usage {
	if b == nil {
		return a
	}
	if a == nil {
		a = &Usage{}
	}
	a.Calls += b.Calls
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.CostUSD += b.CostUSD
	for role, r := range b.ByRole {
		if a.ByRole == nil {
			a.ByRole = map[string]RoleUsage{}
		}
		cur := a.ByRole[role]
		cur.Calls += r.Calls
		cur.InputTokens += r.InputTokens
		cur.OutputTokens += r.OutputTokens
		cur.CostUSD += r.CostUSD
		a.ByRole[role] = cur
	}
	return a
}

// shardWarnings says which shards of a set are missing or given twice.
func shardWarnings(inputs func(yield func(dir, shard string) bool)) []string {
	var out []string
	seen := map[string]string{} // "i/n" → dir
	counts := map[int]bool{}
	for dir, label := range inputs {
		if label == "" {
			continue
		}
		s, err := mission.ParseShard(label)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: shard %v", dir, err))
			continue
		}
		if prev, ok := seen[label]; ok {
			out = append(out, fmt.Sprintf("shard %s twice: %s and %s", label, prev, dir))
		}
		seen[label] = dir
		counts[s.Count] = true
	}
	for n := range counts {
		var missing []string
		for i := 1; i <= n; i++ {
			if _, ok := seen[fmt.Sprintf("%d/%d", i, n)]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, n))
			}
		}
		if len(missing) > 0 {
			out = append(out, "missing shards: "+strings.Join(missing, ", "))
		}
	}
	if len(counts) > 1 {
		out = append(out, "the inputs were split into different numbers of shards")
	}
	slices.Sort(out)
	return out
}

// within reports whether path is dir or inside it (both absolute, clean).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// copyTree copies the regular files under src to dst (directories 0700,
// files 0600), leaving out hidden files (resume state) and symlinks. A
// missing src copies nothing. Nothing is written through a symlink found
// under dst (see safefile).
func copyTree(src, dst string) error {
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return safefile.MkdirUnder(dst, rel, 0o700)
		case !d.Type().IsRegular():
			return nil // symlinks and the like
		}
		return copyFile(path, target)
	})
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return safefile.WriteFile(dst, b, 0o600)
}

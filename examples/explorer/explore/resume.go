package explore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/safefile"
)

// What a resumed mission (--resume, or a retry after a transient error)
// needs beyond the graph's checkpoint, which is written between super-steps
// (a persona turn of several browser steps is one super-step):
//
//   - the bugs found after the last checkpoint: memory recorded them and
//     the tape holds their actions, but the checkpoint does not list them.
//     Each bug goes to the mission's bug journal the moment memory records
//     it; a resume puts the journal's bugs that the checkpoint lacks back
//     into the graph state (graph.UpdateState), so the report, JUnit and
//     specs list them with the id, step, tape position and "new" mark they
//     were found with, and the turn run again does not report them twice;
//   - the Go-side progress the app model does not hold (the team's links
//     seen and pages visited, each persona's tried tricks, the sweep's
//     counters), which rides in the graph state like the model;
//   - what the killed run typed into the app (from the tape), so a record
//     it made is not taken for the app storing one submission twice.

// bugJournalFile, in the mission's report directory, lists every bug the
// mission gave to memory, one JSON line each (a later line for the same
// fingerprint supersedes an earlier one).
const bugJournalFile = ".bug_journal.jsonl"

// journalBug appends b to the mission's bug journal. A failure is traced:
// the journal only serves a later resume.
func (mr *missionRun) journalBug(b findings.Bug) {
	if mr.dir == "" {
		return
	}
	// Without HTML escaping, a secret with <, > or & reads in the line as
	// typed, so Redact finds it.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		mr.trace.Warn("bug journal", "err", err)
		return
	}
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if mr.secrets != nil {
		line = []byte(mr.secrets.Redact(string(line)))
	}
	f, err := safefile.OpenAppend(filepath.Join(mr.dir, bugJournalFile), 0o600, false)
	if err != nil {
		mr.trace.Warn("bug journal", "err", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		mr.trace.Warn("bug journal", "err", err)
	}
}

// maxJournalLine bounds one line of the bug journal.
const maxJournalLine = 1 << 20

// readBugJournal reads a bug journal: the latest line of each fingerprint,
// in the order the bugs were first journaled. Lines that do not decode (a
// line torn by a kill, a damaged file) are left out and counted. A missing
// file is no journal.
func readBugJournal(path string) (bugs []findings.Bug, bad int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	at := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxJournalLine)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var b findings.Bug
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil || b.Fingerprint == "" || b.ID == "" {
			bad++
			continue
		}
		if i, ok := at[b.Fingerprint]; ok {
			bugs[i] = b
			continue
		}
		at[b.Fingerprint] = len(bugs)
		bugs = append(bugs, b)
	}
	if err := sc.Err(); err != nil {
		return bugs, bad + 1, fmt.Errorf("read %s: %w", path, err)
	}
	return bugs, bad, nil
}

// loadBugJournal takes the journal's bugs as recorded by this mission
// (a bug found again keeps the id and "new" mark it was found with, and
// memory does not count it twice).
func (mr *missionRun) loadBugJournal() {
	bugs, bad, err := readBugJournal(filepath.Join(mr.dir, bugJournalFile))
	if err != nil || bad > 0 {
		mr.trace.Warn("resume: bug journal lines left out", "lines", bad, "err", err)
	}
	for _, b := range bugs {
		mr.recorded[b.Fingerprint] = b
	}
}

// reconcile puts the bugs this mission recorded (mr.recorded: this run's,
// and on a resume the journal's) that the thread's checkpoint lacks back
// into the graph state, without changing what runs next, and aligns the
// Go-side state with it. It returns how many it put back.
func (mr *missionRun) reconcile(ctx context.Context, app *graph.CompiledGraph[State], gthread string) (int, error) {
	snap, err := app.GetState(ctx, graph.Thread(gthread))
	if err != nil {
		return 0, fmt.Errorf("read the checkpoint of %s: %w", gthread, err)
	}
	have := map[string]bool{}
	for _, b := range snap.Values.Bugs {
		have[b.Fingerprint] = true
	}
	var missing []findings.Bug
	for _, fp := range slices.Sorted(maps.Keys(mr.recorded)) {
		if b := mr.recorded[fp]; !have[b.Fingerprint] {
			missing = append(missing, b)
		}
	}
	if len(missing) == 0 {
		return 0, nil
	}
	slices.SortStableFunc(missing, func(a, b findings.Bug) int { return int(a.TapeSeq - b.TapeSeq) })
	if _, err := app.UpdateState(ctx, State{Bugs: missing}, "", graph.Thread(gthread)); err != nil {
		return 0, fmt.Errorf("put back the bugs found after the checkpoint: %w", err)
	}
	for _, b := range missing {
		mr.trace.Info("resume: bug found after the last checkpoint put back", "id", b.ID, "tape_seq", b.TapeSeq, "new", b.New)
	}
	return len(missing), mr.resync(ctx, app, gthread)
}

// Progress is the team's progress a resumed mission goes on from, besides
// the app model: what State.Progress carries.
type Progress struct {
	Visited  []string            `json:"visited,omitempty"` // in visiting order
	Frontier []string            `json:"frontier,omitempty"`
	Forms    []string            `json:"forms,omitempty"`
	FormSig  map[string]string   `json:"form_sig,omitempty"`
	SignIn   string              `json:"signin,omitempty"`
	Gen      int                 `json:"gen,omitempty"`
	Dropped  bool                `json:"dropped,omitempty"`
	Tried    map[string][]string `json:"tried,omitempty"` // per persona
	Idle     map[string]int      `json:"idle,omitempty"`
	Done     map[string]int      `json:"done,omitempty"`
	HereN    map[string]int      `json:"here_n,omitempty"`
	Revisit  []string            `json:"revisit,omitempty"`
	// SeenAt, DestroyedAt and Lost are coverage's marks for telling a
	// record the team deleted from a broken link (coverage.gone); steps
	// are the mission's, which a resume continues.
	SeenAt      map[string]int `json:"seen_at,omitempty"`
	DestroyedAt int            `json:"destroyed_at,omitempty"`
	Lost        []string       `json:"lost,omitempty"`
}

// progressSnapshot is a copy of the team's progress for the graph state
// (nil before the mission has any).
func (mr *missionRun) progressSnapshot() *Progress {
	if mr.cov == nil {
		return nil
	}
	p := &Progress{Visited: slices.Clone(mr.cov.visitedOrder), Frontier: slices.Clone(mr.cov.frontier), Forms: slices.Clone(mr.cov.forms),
		FormSig: maps.Clone(mr.cov.formSig), SignIn: mr.cov.signin, Gen: mr.cov.gen, Dropped: mr.cov.dropped, Tried: map[string][]string{},
		Idle: maps.Clone(mr.idle), SeenAt: maps.Clone(mr.cov.seenAt), DestroyedAt: mr.cov.destroyedAt, Lost: slices.Sorted(maps.Keys(mr.cov.lost))}
	for _, m := range mr.team {
		p.Tried[m.p.Name] = slices.Sorted(maps.Keys(m.tried))
	}
	if mr.sw != nil {
		p.Done, p.HereN, p.Revisit = maps.Clone(mr.sw.done), maps.Clone(mr.sw.hereN), slices.Clone(mr.sw.revisit)
	}
	return p
}

// restoreProgress takes the team's progress back from the graph state
// (after resync, which restored the visited pages).
func (mr *missionRun) restoreProgress(p *Progress) {
	if p == nil {
		return
	}
	c := mr.cov
	for _, l := range p.Visited {
		c.visit(l)
	}
	for _, l := range p.Frontier {
		c.see(l, "")
	}
	for _, f := range p.Forms {
		if !slices.Contains(c.forms, f) {
			c.forms = append(c.forms, f)
		}
	}
	maps.Copy(c.formSig, p.FormSig)
	c.signin = p.SignIn
	c.gen = max(c.gen, p.Gen)
	c.dropped = c.dropped || p.Dropped
	for page, at := range p.SeenAt {
		c.seenAt[page] = max(c.seenAt[page], at)
	}
	c.destroyedAt = max(c.destroyedAt, p.DestroyedAt)
	for _, page := range p.Lost {
		c.lose(page)
	}
	for _, m := range mr.team {
		for _, k := range p.Tried[m.p.Name] {
			m.tried[k] = true
		}
	}
	maps.Copy(mr.idle, p.Idle)
	if mr.sw != nil {
		maps.Copy(mr.sw.done, p.Done)
		maps.Copy(mr.sw.hereN, p.HereN)
		mr.sw.revisit = append(mr.sw.revisit, p.Revisit...)
	}
}

// retype counts what the mission's tape says it typed (fills that
// succeeded), so the resumed mission knows its own records.
func (mr *missionRun) retype(es []report.TimelineEntry) {
	if mr.sw == nil {
		return
	}
	for _, t := range es {
		for _, f := range t.Entry.Filled() {
			if f.Kind == browser.FieldFill {
				mr.sw.typed.add(f.Value)
			}
		}
	}
}

package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/graph"
)

// Severity ranks a bug.
type Severity string

// Severities, most severe first.
const (
	SeverityCritical Severity = "critical"
	SeverityHigh     Severity = "high"
	SeverityMedium   Severity = "medium"
	SeverityLow      Severity = "low"
)

// ParseSeverity accepts the four severities and common synonyms (blocker,
// major, serious, moderate, minor, info), case-insensitively; empty means
// medium.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "critical", "blocker":
		return SeverityCritical, nil
	case "high", "major", "serious":
		return SeverityHigh, nil
	case "", "medium", "moderate", "normal":
		return SeverityMedium, nil
	case "low", "minor", "info", "trivial":
		return SeverityLow, nil
	}
	return "", qaInvalid("unknown severity %q (want critical, high, medium or low)", s)
}

func (s Severity) rank() int {
	switch s {
	case SeverityCritical:
		return 4
	case SeverityHigh:
		return 3
	case SeverityMedium:
		return 2
	case SeverityLow:
		return 1
	}
	return 0
}

// BugStatus is open or fixed.
type BugStatus string

// Bug statuses.
const (
	BugOpen  BugStatus = "open"
	BugFixed BugStatus = "fixed"
)

// BugReport is one sighting of a bug, as an oracle or an agent reports it.
type BugReport struct {
	Kind       string // required, e.g. "console_error", "http_5xx", "xss"
	Severity   string // see ParseSeverity; empty is medium
	URL        string // required; absolute, or relative to the origin
	Title      string
	Evidence   string // the message, response line, stack trace…
	Payload    string // the input that triggered it, if any
	Persona    string
	ThreadID   string
	TapeIndex  int    // index of the action in the session's tape; -1 unknown
	Screenshot string // path of a screenshot, if any
	// Cause, when set, is the bug's identity instead of its page and
	// evidence: findings with one cause on many pages are one bug.
	Cause string
}

// BugEntry is one bug of the catalog: every sighting with the same
// Fingerprint lands here. TapeIndex, Screenshot, ThreadID and URL describe the
// latest sighting.
type BugEntry struct {
	Fingerprint string    `json:"fingerprint"`
	Kind        string    `json:"kind"`
	Severity    Severity  `json:"severity"`
	Page        string    `json:"page"`
	URL         string    `json:"url"`
	Title       string    `json:"title,omitempty"`
	Evidence    string    `json:"evidence,omitempty"` // the first raw sample
	Samples     []string  `json:"samples,omitempty"`  // distinct raw evidence, bounded; the first is kept
	Payloads    []string  `json:"payloads,omitempty"` // distinct, bounded
	Personas    []string  `json:"personas,omitempty"` // who found it, sorted
	Status      BugStatus `json:"status"`
	SeenCount   int       `json:"seen_count"`
	FirstSeen   time.Time `json:"first_seen"`
	LastSeen    time.Time `json:"last_seen"`
	FixedAt     time.Time `json:"fixed_at,omitzero"`
	Regressions int       `json:"regressions,omitempty"` // times it reopened after a fix
	ThreadID    string    `json:"thread_id,omitempty"`
	TapeIndex   int       `json:"tape_index"`
	Screenshot  string    `json:"screenshot,omitempty"`
	// Repro is the recorder's reproduction of the bug, opaque to memory
	// (the explorer keeps its minimised steps and what their replay must
	// show); regression runs replay it (see SetRepro and Verify).
	Repro json.RawMessage `json:"repro,omitempty"`
	// FixedIn names the run that marked the bug fixed; ReopenedIn the run
	// that saw it again after a fix. VerifiedAt is when a replay of Repro
	// last decided its status.
	FixedIn    string    `json:"fixed_in,omitempty"`
	ReopenedIn string    `json:"reopened_in,omitempty"`
	VerifiedAt time.Time `json:"verified_at,omitzero"`
}

// BugRecorded is the outcome of RecordBug.
type BugRecorded struct {
	Entry BugEntry
	New   bool // first sighting of this fingerprint
	// Reopened is true when the bug had been marked fixed: a regression.
	Reopened bool
}

var qaBugIndex = []string{"kind", "page", "title", "evidence"}

// RecordBug adds a sighting to the catalog: a new entry, or the existing one
// with its seen count bumped. A fixed bug seen again is reopened and the
// outcome says so.
func (q *QA) RecordBug(ctx context.Context, r BugReport) (BugRecorded, error) {
	kind := strings.ToLower(strings.TrimSpace(r.Kind))
	if kind == "" {
		return BugRecorded{}, fmt.Errorf("record bug: %w", qaInvalid("empty kind"))
	}
	sev, err := ParseSeverity(r.Severity)
	if err != nil {
		return BugRecorded{}, fmt.Errorf("record bug: %w", err)
	}
	abs, page, err := q.resolve(r.URL)
	if err != nil {
		return BugRecorded{}, fmt.Errorf("record bug: %w", err)
	}
	fp := Fingerprint(kind, page, r.Evidence)
	if r.Cause != "" {
		fp = CauseFingerprint(kind, r.Cause)
	}
	sample := qaTruncateRunes(strings.TrimSpace(r.Evidence), maxEvidenceSample)

	// One read-modify-write of the entry (graph.Store.Update): processes
	// sharing the store (a Postgres store) lose no sighting.
	var out BugRecorded
	ns := q.Namespace(KindBugs)
	_, err = q.store.Update(ctx, ns, fp, func(cur *graph.Item) (json.RawMessage, error) {
		var e BugEntry
		out = BugRecorded{New: cur == nil}
		if cur != nil {
			if err := json.Unmarshal(cur.Value, &e); err != nil {
				bad := &CorruptRecordsError{Records: []CorruptRecord{{Namespace: ns, Key: fp, Err: err}}}
				return nil, fmt.Errorf("qa memory: decode %s/%s: %w", KindBugs, fp, bad)
			}
		}
		now := q.now().UTC()
		if cur == nil {
			e = BugEntry{Fingerprint: fp, Kind: kind, Severity: sev, Page: page, Evidence: sample, Status: BugOpen, FirstSeen: now}
		}
		if e.Status == BugFixed {
			e.Status = BugOpen
			e.Regressions++
			e.ReopenedIn = r.ThreadID
			out.Reopened = true
		}
		if sev.rank() > e.Severity.rank() {
			e.Severity = sev
		}
		if t := strings.TrimSpace(r.Title); t != "" {
			e.Title = qaTruncateRunes(t, 200)
		}
		e.URL = abs
		e.SeenCount++
		e.LastSeen = now
		e.Samples = qaAddBounded(e.Samples, sample, q.samples)
		e.Payloads = qaAddBounded(e.Payloads, qaTruncateRunes(r.Payload, 200), q.samples)
		if p := strings.TrimSpace(r.Persona); p != "" && !qaContains(e.Personas, p) {
			e.Personas = append(e.Personas, p)
			sort.Strings(e.Personas)
		}
		e.ThreadID = r.ThreadID
		e.TapeIndex = r.TapeIndex
		e.Screenshot = r.Screenshot
		out.Entry = e
		b, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("qa memory: encode %s/%s: %w", KindBugs, fp, err)
		}
		return b, nil
	}, &graph.PutOptions{Index: qaBugIndex})
	if err != nil {
		return BugRecorded{}, fmt.Errorf("qa memory: record bug %s: %w", fp, err)
	}
	if out.Reopened {
		q.log.Info("qa memory: fixed bug seen again, reopened", "fingerprint", fp, "kind", kind, "page", page)
	}
	return out, nil
}

// qaAddBounded appends v to list if it is new and non-empty; past max
// entries it drops the second-oldest so the first sample survives.
func qaAddBounded(list []string, v string, max int) []string {
	if v == "" || qaContains(list, v) {
		return list
	}
	list = append(list, v)
	if len(list) > max {
		if max <= 1 {
			return list[:1]
		}
		list = append(list[:1], list[2:]...)
	}
	return list
}

func qaContains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// Bug returns one catalog entry; the error wraps ErrUnknownBug and
// graph.ErrNotFound when there is none.
func (q *QA) Bug(ctx context.Context, fingerprint string) (BugEntry, error) {
	e, found, err := qaGet[BugEntry](ctx, q, KindBugs, fingerprint)
	if err != nil {
		return BugEntry{}, err
	}
	if !found {
		return BugEntry{}, fmt.Errorf("%w %q: %w", ErrUnknownBug, fingerprint, graph.ErrNotFound)
	}
	return e, nil
}

// Bugs lists the catalog, optionally only one status ("" for all): most
// severe first, then most seen, then by fingerprint. Entries that do not
// decode are left out and listed in a *CorruptRecordsError returned with
// the others (see IsCorruptOnly and Quarantine).
func (q *QA) Bugs(ctx context.Context, status BugStatus) ([]BugEntry, error) {
	var filter graph.Filter
	if status != "" {
		if status != BugOpen && status != BugFixed {
			return nil, qaInvalid("unknown bug status %q", status)
		}
		filter = graph.Filter{graph.Eq("status", string(status))}
	}
	bugs, err := qaList[BugEntry](ctx, q, KindBugs, filter)
	if !IsCorruptOnly(err) {
		return nil, err
	}
	// Keep the filter's promise even if a back-end ignored it.
	kept := bugs[:0]
	for _, b := range bugs {
		if status == "" || b.Status == status {
			kept = append(kept, b)
		}
	}
	qaSortBugs(kept)
	return kept, err
}

func qaSortBugs(bugs []BugEntry) {
	sort.Slice(bugs, func(i, j int) bool {
		a, b := bugs[i], bugs[j]
		if a.Severity.rank() != b.Severity.rank() {
			return a.Severity.rank() > b.Severity.rank()
		}
		if a.SeenCount != b.SeenCount {
			return a.SeenCount > b.SeenCount
		}
		return a.Fingerprint < b.Fingerprint
	})
}

// MarkFixed marks a bug fixed; seeing it again reopens it as a regression.
// Like RecordBug it is one atomic update of the entry (graph.Store.Update).
func (q *QA) MarkFixed(ctx context.Context, fingerprint string) (BugEntry, error) {
	return q.MarkFixedIn(ctx, fingerprint, "")
}

package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgraph/agentgraph/graph"
)

// maxRepro bounds a stored reproduction: a minimised one is a few
// kilobytes; a full tape up to a bug deep in a long mission is cut off by
// the recorder or refused here.
const maxRepro = 256 << 10

// SetRepro keeps the reproduction of a bug (opaque JSON of the recorder's,
// at most 256 KiB), replacing the previous one. Like RecordBug it is one
// atomic update of the entry.
func (q *QA) SetRepro(ctx context.Context, fingerprint string, repro json.RawMessage) error {
	if len(repro) > maxRepro {
		return fmt.Errorf("set repro %s: %w", fingerprint, qaInvalid("reproduction of %d bytes, more than %d", len(repro), maxRepro))
	}
	if !json.Valid(repro) {
		return fmt.Errorf("set repro %s: %w", fingerprint, qaInvalid("reproduction is not JSON"))
	}
	_, err := q.updateBug(ctx, fingerprint, func(e *BugEntry) bool {
		if string(e.Repro) == string(repro) {
			return false
		}
		e.Repro = append(json.RawMessage(nil), repro...)
		return true
	})
	if err != nil {
		return fmt.Errorf("set repro: %w", err)
	}
	return nil
}

// Verdict is what a replay of a bug's reproduction changed.
type Verdict string

// Verdicts of Verify.
const (
	VerdictStillOpen  Verdict = "still open"  // open, and the replay showed it
	VerdictFixed      Verdict = "fixed"       // open, and the replay did not show it: marked fixed
	VerdictReopened   Verdict = "reopened"    // fixed, and the replay showed it again: a regression
	VerdictStillFixed Verdict = "still fixed" // fixed, and the replay did not show it
)

// Verify records the outcome of replaying a bug's reproduction in run
// (a run or thread id, kept in FixedIn / ReopenedIn): an open bug that
// did not reproduce is marked fixed, a fixed one that did is reopened as
// a regression (Regressions counts it), and one that reproduced counts a
// sighting. One atomic update of the entry.
func (q *QA) Verify(ctx context.Context, fingerprint, run string, reproduced bool) (BugEntry, Verdict, error) {
	var v Verdict
	e, err := q.updateBug(ctx, fingerprint, func(e *BugEntry) bool {
		now := q.now().UTC()
		e.VerifiedAt = now
		switch {
		case reproduced && e.Status == BugFixed:
			v = VerdictReopened
			e.Status = BugOpen
			e.Regressions++
			e.ReopenedIn = run
			e.SeenCount++
			e.LastSeen = now
		case reproduced:
			v = VerdictStillOpen
			e.SeenCount++
			e.LastSeen = now
		case e.Status == BugOpen:
			v = VerdictFixed
			e.Status = BugFixed
			e.FixedAt = now
			e.FixedIn = run
		default:
			v = VerdictStillFixed
		}
		return true
	})
	if err != nil {
		return BugEntry{}, "", fmt.Errorf("verify: %w", err)
	}
	if v == VerdictReopened {
		q.log.Info("qa memory: fixed bug reproduced again, reopened", "fingerprint", fingerprint, "run", run)
	}
	return e, v, nil
}

// MarkFixedIn is MarkFixed naming the run that showed the fix.
func (q *QA) MarkFixedIn(ctx context.Context, fingerprint, run string) (BugEntry, error) {
	e, err := q.updateBug(ctx, fingerprint, func(e *BugEntry) bool {
		if e.Status == BugFixed {
			return false
		}
		e.Status = BugFixed
		e.FixedAt = q.now().UTC()
		e.FixedIn = run
		return true
	})
	if err != nil {
		return BugEntry{}, fmt.Errorf("mark fixed: %w", err)
	}
	return e, nil
}

// updateBug is one read-modify-write of an existing bug entry: change
// edits it and says whether to write it back. A missing entry is
// ErrUnknownBug (wrapping graph.ErrNotFound); one that does not decode, a
// *CorruptRecordsError.
func (q *QA) updateBug(ctx context.Context, fingerprint string, change func(*BugEntry) bool) (BugEntry, error) {
	fingerprint = strings.TrimSpace(fingerprint)
	var e BugEntry
	ns := q.Namespace(KindBugs)
	_, err := q.store.Update(ctx, ns, fingerprint, func(cur *graph.Item) (json.RawMessage, error) {
		e = BugEntry{}
		if cur == nil {
			return nil, fmt.Errorf("%w %q: %w", ErrUnknownBug, fingerprint, graph.ErrNotFound)
		}
		if err := json.Unmarshal(cur.Value, &e); err != nil {
			bad := &CorruptRecordsError{Records: []CorruptRecord{{Namespace: ns, Key: fingerprint, Err: err}}}
			return nil, fmt.Errorf("qa memory: decode %s/%s: %w", KindBugs, fingerprint, bad)
		}
		if !change(&e) {
			return nil, graph.ErrSkipUpdate
		}
		b, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("qa memory: encode %s/%s: %w", KindBugs, fingerprint, err)
		}
		return b, nil
	}, &graph.PutOptions{Index: qaBugIndex})
	return e, err
}

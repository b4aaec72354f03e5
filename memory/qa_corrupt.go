package memory

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// KindQuarantine is where QA.Quarantine keeps values that are valid store
// records but do not decode as their kind: ["qa", <app id>, "quarantine",
// <kind>], same key, value unchanged.
const KindQuarantine QAKind = "quarantine"

var qaKinds = []QAKind{KindPages, KindSelectors, KindQuirks, KindObservations, KindSessions, KindBugs, KindProcedures}

// Check reads all of the app's memory and returns nil when every record
// decodes, or a *CorruptRecordsError listing each one that does not (its
// namespace, key and error): records the store cannot decode and values
// that do not decode as their kind. Other errors (a closed store) are
// returned as they are.
func (q *QA) Check(ctx context.Context) error {
	var bad storekit.CorruptSet
	for _, kind := range qaKinds {
		items, err := q.listRaw(ctx, kind, &bad)
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := qaDecodes(kind, it.Key, it.Value); err != nil {
				bad.Add(it.Namespace, it.Key, err)
			}
		}
	}
	return bad.Err()
}

// Quarantine moves the app's records that do not decode out of the way,
// so readers stop reporting them, and returns what it moved. Records the
// store cannot decode go to the store's quarantine (BoltStore keeps their
// bytes in its QuarantineBucket); values that do not decode as their kind
// go, unchanged, under Namespace(KindQuarantine)+kind. A store that cannot
// quarantine (no Quarantiner) leaves its undecodable records where they
// are: the error lists them.
func (q *QA) Quarantine(ctx context.Context) ([]CorruptRecord, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var moved []CorruptRecord
	if qs, ok := q.store.(Quarantiner); ok {
		recs, err := qs.Quarantine(ctx, []string{QARoot, q.app})
		if err != nil {
			return nil, fmt.Errorf("qa memory: quarantine: %w", err)
		}
		moved = append(moved, recs...)
	}
	var left storekit.CorruptSet
	for _, kind := range qaKinds {
		var bad storekit.CorruptSet
		items, err := q.listRaw(ctx, kind, &left)
		if err != nil {
			return moved, fmt.Errorf("qa memory: quarantine: %w", err)
		}
		for _, it := range items {
			if err := qaDecodes(kind, it.Key, it.Value); err != nil {
				bad.Add(it.Namespace, it.Key, err)
				if err := q.quarantineValue(ctx, kind, it); err != nil {
					return moved, fmt.Errorf("qa memory: quarantine: %w", err)
				}
			}
		}
		moved = append(moved, bad.Records()...)
	}
	for _, r := range moved {
		q.log.Warn("qa memory: quarantined a record that does not decode", "namespace", r.Namespace, "key", r.Key, "err", r.Err)
	}
	if err := left.Err(); err != nil {
		return moved, fmt.Errorf("qa memory: quarantine: the store cannot move these: %w", err)
	}
	return moved, nil
}

// quarantineValue copies it under the quarantine namespace, then deletes it.
func (q *QA) quarantineValue(ctx context.Context, kind QAKind, it graph.Item) error {
	ns := append(q.Namespace(KindQuarantine), string(kind))
	if err := q.store.Put(ctx, ns, it.Key, it.Value, &graph.PutOptions{NoIndex: true}); err != nil {
		return fmt.Errorf("keep %s/%s: %w", kind, it.Key, err)
	}
	if err := q.store.Delete(ctx, it.Namespace, it.Key); err != nil {
		return fmt.Errorf("remove %s/%s: %w", kind, it.Key, err)
	}
	return nil
}

// listRaw returns every item of kind and adds the records the store could
// not decode to bad.
func (q *QA) listRaw(ctx context.Context, kind QAKind, bad *storekit.CorruptSet) ([]graph.Item, error) {
	var out []graph.Item
	for offset := 0; ; offset += qaPageSize {
		items, err := q.store.Search(ctx, q.Namespace(kind), graph.SearchQuery{Limit: qaPageSize, Offset: offset})
		if err := bad.Keep(err); err != nil {
			return nil, fmt.Errorf("qa memory: list %s: %w", kind, err)
		}
		out = append(out, items...)
		if len(items) < qaPageSize {
			return out, nil
		}
	}
}

// qaDecodes reports whether a value of kind decodes as the readers decode it.
func qaDecodes(kind QAKind, key string, raw json.RawMessage) error {
	switch kind {
	case KindPages:
		return qaTry[PageRecord](raw)
	case KindSelectors:
		return qaTry[SelectorRecord](raw)
	case KindQuirks:
		return qaTry[Quirk](raw)
	case KindObservations:
		return qaTry[Observation](raw)
	case KindSessions:
		return qaTry[SessionSummary](raw)
	case KindBugs:
		return qaTry[BugEntry](raw)
	case KindProcedures:
		if key == qaRoutingKey {
			return qaTry[qaRoutingDoc](raw)
		}
		return qaTry[Procedure](raw)
	}
	return nil
}

func qaTry[T any](raw json.RawMessage) error {
	var v T
	return json.Unmarshal(raw, &v)
}

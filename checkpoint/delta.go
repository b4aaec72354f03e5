package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/bytesx"
)

var _ graph.DeltaPutter = (*Bolt)(nil)

// PutDelta stores cp relative to its parent (see graph.DeltaPutter). When
// the parent is the newest checkpoint this Bolt stored for the thread and
// namespace (the engine's case), the record holds the bytes the deltas
// add, like an incremental Put, and its cost is theirs: no comparison
// with the parent's values and no copy of them. Otherwise (another
// parent, a snapshot due) the checkpoint is materialised from the
// parent and stored with Put. With a write-ahead log, the parent is the
// checkpoint last logged (in memory) when it can be, and the result is
// logged as a Put.
func (b *Bolt) PutDelta(ctx context.Context, cp *graph.Checkpoint, deltas []graph.ChannelDelta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validate(cp); err != nil {
		return err
	}
	if cp.ParentID == "" || cp.ParentID == cp.ID {
		return fmt.Errorf("checkpoint: put delta thread %q ns %q checkpoint %q: no parent: %w", cp.ThreadID, cp.NS, cp.ID, graph.ErrDeltaBase)
	}
	var done bool
	var err error
	if b.wal != nil {
		done, err = b.logPutDelta(ctx, cp, deltas)
	} else {
		done, err = b.putDeltaFast(cp, deltas)
	}
	if done || err != nil {
		return err
	}
	parent, _, err := b.Get(ctx, cp.ThreadID, cp.NS, cp.ParentID)
	if err != nil {
		return fmt.Errorf("checkpoint: put delta thread %q ns %q checkpoint %q: parent %q: %w: %w", cp.ThreadID, cp.NS, cp.ID, cp.ParentID, graph.ErrDeltaBase, err)
	}
	pl := &loaded{cp: parent}
	stored, ropes, err := deltaValues(cp, deltas, pl.value)
	if err != nil {
		return err
	}
	full := (&loaded{cp: stored, ropes: ropes}).full().cp
	return b.Put(ctx, full)
}

// logPutDelta logs cp as a delta record against the newest checkpoint
// logged for its thread and namespace in this epoch when that is its
// parent (done is false otherwise: the caller loads the parent, which
// applies the log). Like putDeltaFast, the record holds the bytes the
// deltas add and its cost is theirs: the parent's values are neither
// materialised nor compared nor copied. When the log must be applied to
// make room, the record is logged in full.
func (b *Bolt) logPutDelta(ctx context.Context, cp *graph.Checkpoint, deltas []graph.ChannelDelta) (done bool, err error) {
	key := cacheKey(cp.ThreadID, cp.NS)
	var (
		vals  *graph.Checkpoint
		ropes map[string]*rope
		l     *loaded
		derr  error // the deltas do not apply to the parent
	)
	err = b.logAppend(func(w *wal) ([]byte, error) {
		if vals != nil {
			// The log was applied and reset (w.last is empty): in full.
			c := *(&loaded{cp: vals, ropes: ropes}).full().cp
			c.ThreadID, c.NS = cp.ThreadID, cp.NS
			p, fl, err := b.encodeLogPut(&c, nil)
			l = fl
			return p, err
		}
		base := w.last[key]
		if base == nil || base.cp.ID != cp.ParentID {
			return nil, errStaleBase
		}
		var err error
		if vals, ropes, err = deltaValues(cp, deltas, base.value); err != nil {
			derr = err
			return nil, err
		}
		// Every logged record is decoded in order: the depth bound is for
		// bbolt's records (as in encodeLogPut). No WritesOf: the log's
		// reader takes a record's writes from the record.
		flat := *base
		flat.depth = 0
		rec, dl, err := b.encodeDelta(cp, deltas, &flat, nil, vals, ropes)
		if err != nil {
			return nil, err
		}
		l = dl
		return b.encodeLogPayload(kindLogPut, logHdr{Thread: cp.ThreadID, NS: cp.NS, ID: cp.ID}, rec)
	}, true, func(w *wal) { w.last[key] = l })
	if err == errStaleBase {
		return false, nil
	}
	if derr != nil {
		return true, derr
	}
	if err != nil {
		return true, fmt.Errorf("checkpoint: put delta thread %q ns %q checkpoint %q: %w", cp.ThreadID, cp.NS, cp.ID, err)
	}
	return true, nil
}

// putDeltaFast stores cp as a delta record against the cached parent.
// done is false when the cache cannot serve (nothing was stored).
func (b *Bolt) putDeltaFast(cp *graph.Checkpoint, deltas []graph.ChannelDelta) (done bool, err error) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	base := b.cachedRaw(cp.ThreadID, cp.NS)
	if base == nil || base.cp.ID != cp.ParentID || base.depth+1 >= b.cfg.snapshotEvery {
		return false, nil
	}
	stored, ropes, err := deltaValues(cp, deltas, base.value)
	if err != nil {
		return true, err
	}
	var l *loaded
	err = b.update(func(tx *bolt.Tx) error {
		n, err := b.openNS(tx, cp.ThreadID, cp.NS, true)
		if err != nil {
			return err
		}
		raw, err := n.record(cp.ParentID)
		if err != nil || raw == nil || recordSum(raw) != base.crc || len(raw) != base.size {
			return errStaleBase
		}
		if n.cps.Get([]byte(cp.ID)) != nil {
			return errStaleBase // replacing a checkpoint: the full path detaches its children
		}
		parentWrites, err := b.loadWrites(n, cp.ParentID)
		if err != nil {
			parentWrites = nil
		}
		rec, rl, err := b.encodeDelta(cp, deltas, base, parentWrites, stored, ropes)
		if err != nil {
			return err
		}
		if err := n.putRecord(cp.ID, rec); err != nil {
			return err
		}
		if err := n.refs.Put(refKey(cp.ParentID, cp.ID), nil); err != nil {
			return err
		}
		l = rl
		return b.retain(n)
	})
	if err == errStaleBase {
		return false, nil
	}
	if err != nil {
		b.forget(cp.ThreadID, cp.NS)
		return true, fmt.Errorf("checkpoint: put delta thread %q ns %q checkpoint %q: %w", cp.ThreadID, cp.NS, cp.ID, err)
	}
	b.remember(cp.ThreadID, cp.NS, l)
	return true, nil
}

var errStaleBase = fmt.Errorf("checkpoint: cached parent is stale")

// encodeDelta builds the record of a PutDelta against base, the parent as
// cached; stored and ropes are the checkpoint's values (deltaValues).
func (b *Bolt) encodeDelta(cp *graph.Checkpoint, deltas []graph.ChannelDelta, base *loaded, parentWrites []graph.PendingWrite, stored *graph.Checkpoint, ropes map[string]*rope) ([]byte, *loaded, error) {
	var bl blobs
	h := cpHeader{
		ID: cp.ID, ParentID: cp.ParentID, Step: cp.Step, Source: cp.Source, CreatedAt: cp.CreatedAt,
		Versions: cp.Versions, Format: cp.Format, Metadata: cp.Metadata,
		Base: base.cp.ID, Depth: base.depth + 1,
	}
	if cp.Next != nil {
		h.Next = make([]taskHdr, len(cp.Next))
		for i, t := range cp.Next {
			h.Next[i] = taskHdr{ID: t.ID, Node: t.Node, Send: t.Send, Arg: bl.add(t.Arg)}
		}
	}
	if cp.Interrupts != nil {
		h.Interrupts = make([]interruptHdr, len(cp.Interrupts))
		for i, in := range cp.Interrupts {
			h.Interrupts[i] = interruptHdr{ID: in.ID, Node: in.Node, TaskID: in.TaskID, Value: bl.add(in.Value)}
		}
	}
	if len(cp.Writes) > 0 && writesEqual(cp.Writes, parentWrites) {
		h.WritesOf = base.cp.ID
	} else {
		h.Writes = writesHdr(cp.Writes, &bl)
	}
	for _, name := range slices.Sorted(maps.Keys(cp.Values)) {
		v := cp.Values[name]
		bv, _, ok := base.value(name)
		p := 0
		if ok && v != nil && bv != nil {
			p = bytesx.CommonPrefix(bv, v)
		}
		switch {
		case ok && bv != nil && len(bv) == len(v) && p == len(v):
			// unchanged: inherited from the base
		case p >= minPrefix:
			h.Channels = append(h.Channels, channel(name, v, p, cp.Writes, &bl))
		default:
			h.Channels = append(h.Channels, channel(name, v, 0, cp.Writes, &bl))
		}
	}
	sorted := slices.Clone(deltas)
	slices.SortFunc(sorted, func(a, b graph.ChannelDelta) int { return bytes.Compare([]byte(a.Channel), []byte(b.Channel)) })
	for _, d := range sorted {
		h.Channels = append(h.Channels, channelTail(d.Channel, d.Keep, d.Tail, cp.Writes, &bl))
	}
	keepName := func(k string) bool {
		_, v := stored.Values[k]
		return v || ropes[k] != nil
	}
	for _, name := range slices.Sorted(maps.Keys(base.cp.Values)) {
		if !keepName(name) {
			h.Removed = append(h.Removed, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(base.ropes)) {
		if !keepName(name) {
			h.Removed = append(h.Removed, name)
		}
	}
	hb, err := b.cfg.serializer.Marshal(&h)
	if err != nil {
		return nil, nil, fmt.Errorf("encode record: %w", err)
	}
	rec := EncodeEnvelope(Envelope{Kind: kindCheckpoint, StateType: cp.StateType, Serializer: b.cfg.serializer.Format(), Header: hb, Blobs: bl})
	stored.ThreadID, stored.NS = "", ""
	l := &loaded{cp: stored, depth: h.Depth, crc: recordSum(rec), size: len(rec), refsParent: true, ropes: ropes}
	return rec, l, nil
}

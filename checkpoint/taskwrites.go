package checkpoint

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/graph"
)

// Pending writes in bbolt are stored one record per task, so that storing
// a finished task's writes costs that task's writes, not the step's:
//
//	key:   uvarint(len(checkpoint id)) | checkpoint id | task id
//	value: an Envelope of kind "task-writes": taskWritesHdr and the values
//
// Seq (from the bucket's sequence) orders the tasks of a checkpoint in the
// order their first write was stored. Files written before kept all
// pending writes of a checkpoint in one record of kind "writes" under the
// checkpoint id; such a record is read as it is, and split into per-task
// records by the next PutWrites against that checkpoint.
const kindTaskWrites = "task-writes"

type taskWritesHdr struct {
	Seq    uint64     `json:"seq"`
	Writes []writeHdr `json:"writes"`
}

func writesPrefix(checkpointID string) []byte {
	return append(binary.AppendUvarint(nil, uint64(len(checkpointID))), checkpointID...)
}

func taskWritesKey(checkpointID, taskID string) []byte {
	return append(writesPrefix(checkpointID), taskID...)
}

func (b *Bolt) encodeTaskWrites(seq uint64, ws []graph.PendingWrite) ([]byte, error) {
	var bl blobs
	hb, err := b.cfg.serializer.Marshal(taskWritesHdr{Seq: seq, Writes: writesHdr(ws, &bl)})
	if err != nil {
		return nil, fmt.Errorf("encode pending writes: %w", err)
	}
	return EncodeEnvelope(Envelope{Kind: kindTaskWrites, Serializer: b.cfg.serializer.Format(), Header: hb, Blobs: bl}), nil
}

func (b *Bolt) decodeTaskWrites(raw []byte) (taskWritesHdr, []graph.PendingWrite, error) {
	var h taskWritesHdr
	env, err := b.openEnvelope(raw, kindTaskWrites)
	if err != nil {
		return h, nil, err
	}
	if err := b.cfg.serializer.Unmarshal(env.Header, &h); err != nil {
		return h, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	ws, err := writesFromHdr(h.Writes, env.Blobs)
	return h, ws, err
}

// decodeLegacyWrites decodes a record of all writes of a checkpoint.
func (b *Bolt) decodeLegacyWrites(raw []byte) ([]graph.PendingWrite, error) {
	env, err := b.openEnvelope(raw, kindWrites)
	if err != nil {
		return nil, err
	}
	var hs []writeHdr
	if err := b.cfg.serializer.Unmarshal(env.Header, &hs); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return writesFromHdr(hs, env.Blobs)
}

// putWritesTx merges writes into the records of their tasks.
func (b *Bolt) putWritesTx(tx *bolt.Tx, threadID, ns, checkpointID string, writes []graph.PendingWrite) error {
	n, err := b.openNS(tx, threadID, ns, true)
	if err != nil {
		return err
	}
	if err := b.splitLegacyWrites(n, checkpointID); err != nil {
		return err
	}
	// A child whose Writes refer to these must keep its own copy.
	if err := b.detachChildren(n, checkpointID); err != nil {
		return err
	}
	var order []string
	byTask := map[string][]graph.PendingWrite{}
	for _, w := range writes {
		if _, ok := byTask[w.TaskID]; !ok {
			order = append(order, w.TaskID)
		}
		byTask[w.TaskID] = append(byTask[w.TaskID], w)
	}
	for _, task := range order {
		key := taskWritesKey(checkpointID, task)
		var seq uint64
		var cur []graph.PendingWrite
		if raw := n.writes.Get(key); raw != nil {
			h, ws, err := b.decodeTaskWrites(raw)
			if err != nil {
				return b.decodeErr(n, checkpointID, fmt.Errorf("pending writes of task %q: %w", task, err))
			}
			seq, cur = h.Seq, ws
		} else if seq, err = n.writes.NextSequence(); err != nil {
			return err
		}
		for _, w := range byTask[task] {
			cur = mergeTaskWrite(cur, w)
		}
		rec, err := b.encodeTaskWrites(seq, cur)
		if err != nil {
			return err
		}
		if err := n.writes.Put(key, rec); err != nil {
			return err
		}
	}
	return nil
}

// splitLegacyWrites turns a checkpoint's single record of pending writes
// (files written by earlier versions) into per-task records.
func (b *Bolt) splitLegacyWrites(n *nsBuckets, checkpointID string) error {
	raw := n.writes.Get([]byte(checkpointID))
	if raw == nil {
		return nil
	}
	old, err := b.decodeLegacyWrites(raw)
	if err != nil {
		return b.decodeErr(n, checkpointID, fmt.Errorf("pending writes: %w", err))
	}
	if err := n.writes.Delete([]byte(checkpointID)); err != nil {
		return err
	}
	var order []string
	byTask := map[string][]graph.PendingWrite{}
	for _, w := range old {
		if _, ok := byTask[w.TaskID]; !ok {
			order = append(order, w.TaskID)
		}
		byTask[w.TaskID] = append(byTask[w.TaskID], w)
	}
	for _, task := range order {
		seq, err := n.writes.NextSequence()
		if err != nil {
			return err
		}
		rec, err := b.encodeTaskWrites(seq, byTask[task])
		if err != nil {
			return err
		}
		if err := n.writes.Put(taskWritesKey(checkpointID, task), rec); err != nil {
			return err
		}
	}
	return nil
}

// loadWrites returns the pending writes stored against id (nil if none),
// grouped by task in the order their first write was stored.
func (b *Bolt) loadWrites(n *nsBuckets, id string) ([]graph.PendingWrite, error) {
	var out []graph.PendingWrite
	if raw := n.writes.Get([]byte(id)); raw != nil {
		ws, err := b.decodeLegacyWrites(raw)
		if err != nil {
			return nil, b.decodeErr(n, id, fmt.Errorf("pending writes: %w", err))
		}
		out = ws
	}
	type taskRec struct {
		seq uint64
		ws  []graph.PendingWrite
	}
	var recs []taskRec
	prefix := writesPrefix(id)
	c := n.writes.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		h, ws, err := b.decodeTaskWrites(v)
		if err != nil {
			return nil, b.decodeErr(n, id, fmt.Errorf("pending writes of task %q: %w", k[len(prefix):], err))
		}
		recs = append(recs, taskRec{h.Seq, ws})
	}
	slices.SortStableFunc(recs, func(a, b taskRec) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	for _, r := range recs {
		out = append(out, r.ws...)
	}
	return out, nil
}

// deleteWrites removes every pending write stored against id.
func (b *Bolt) deleteWrites(n *nsBuckets, id string) error {
	if err := n.writes.Delete([]byte(id)); err != nil {
		return err
	}
	prefix := writesPrefix(id)
	var keys [][]byte
	c := n.writes.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := n.writes.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// checkWrites decodes every pending-write record of a namespace.
func (b *Bolt) checkWrites(n *nsBuckets) []error {
	var errs []error
	_ = n.writes.ForEach(func(k, v []byte) error {
		if id, ok := writesKeyID(k); ok {
			if _, _, err := b.decodeTaskWrites(v); err != nil {
				errs = append(errs, b.decodeErr(n, id, fmt.Errorf("pending writes of task %q: %w", k[len(writesPrefix(id)):], err)))
			}
			return nil
		}
		if _, err := b.decodeLegacyWrites(v); err != nil {
			errs = append(errs, b.decodeErr(n, string(k), fmt.Errorf("pending writes: %w", err)))
		}
		return nil
	})
	return errs
}

// writesKeyID returns the checkpoint id of a per-task record's key; ok is
// false for the key of an earlier version's record (the id itself).
func writesKeyID(k []byte) (string, bool) {
	l, m := binary.Uvarint(k)
	if m <= 0 || l == 0 || l > uint64(len(k)-m) {
		return "", false
	}
	return string(k[m : m+int(l)]), true
}

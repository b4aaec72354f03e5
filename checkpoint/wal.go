package checkpoint

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/agentgraph/agentgraph/graph"
)

// Defaults of WALOptions.
const (
	DefaultWALSize       = 16 << 20
	DefaultWALApplyEvery = 128
)

// WALOptions configures the write-ahead log of the bbolt back-end (WithWAL).
type WALOptions struct {
	// Path of the log file. Default: the bbolt file's path + ".wal" (with
	// the bucket's checksum in the name when WithBucket is set).
	Path string
	// Size is the log's capacity in bytes, allocated and zero-filled when
	// the log is created (an existing log keeps its size). Default
	// DefaultWALSize. A record larger than the log goes straight to bbolt.
	Size int64
	// ApplyEvery: once this many records wait, they are applied to the
	// bbolt file in one synced transaction, in the background (a write
	// does not wait for it); writes wait only when 4 batches are waiting
	// besides the one being applied. Default DefaultWALApplyEvery.
	ApplyEvery int
	// LazyWrites makes PutWrites append its record without waiting for the
	// disk: the record survives a crash of the process (it is in the
	// kernel's page cache), and the next Put's fdatasync makes it durable
	// against power loss too. Off (every operation synced) by default.
	LazyWrites bool
}

// WithWAL puts a write-ahead log in front of the bbolt back-end: every Put
// and PutWrites appends one checksummed record to a pre-allocated,
// zero-filled log file and syncs it with one fdatasync, and the records
// are applied to bbolt in batches. See the package documentation.
func WithWAL(o WALOptions) Option {
	return func(c *config) { c.wal = &o }
}

// ErrClosed is returned by a Bolt checkpointer with a log after Close.
var ErrClosed = errors.New("checkpoint: checkpointer closed")

// WALReplay reports what NewBolt found in the log when it opened it.
type WALReplay struct {
	Path    string
	Records int // records applied to the bbolt file
	// Skipped counts the records found in the log that a background
	// apply had already committed to the bbolt file (the process ended
	// before the log was reset): they were not applied again.
	Skipped int
	// Tail describes a damaged record (torn by a crash, or a failed
	// checksum) where the replay stopped: the record and everything after
	// it were ignored. Empty when the log ended cleanly.
	Tail string
	// Dropped lists the whole records that bbolt refused (each also
	// logged at Error level); the others were applied.
	Dropped []error
}

// Log file layout: a 4 KiB header block, then records from walDataStart.
//
//	header: "AGWL" | version byte | 3 zero bytes | epoch uint64 | CRC-32C of the preceding 16 bytes
//	record: length uint32 | CRC-32C uint32 | epoch uint64 | payload (an Envelope)
//
// All integers are big-endian. A record's checksum covers its length,
// epoch and payload. Resetting the log writes a header with the next
// epoch, so the records of earlier epochs that remain in the file end the
// log. A zero record header (the pre-zeroed file) ends it too.
const (
	walVersion      = 1
	walDataStart    = 4096
	walFrameHeader  = 16
	walHeaderLength = 20
)

var walMagic = [4]byte{'A', 'G', 'W', 'L'}

// Log record kinds (the Envelope kind of a log payload).
const (
	kindLogPut    = "log.put"
	kindLogWrites = "log.writes"
)

type opKind int

const (
	opPut opKind = iota + 1
	opWrites
	opDelete
)

// walOp is one checkpointer operation, as logged.
type walOp struct {
	kind           opKind
	thread, ns, id string
	cp             *graph.Checkpoint
	writes         []graph.PendingWrite
}

// logHdr is the serialized header of a log payload.
type logHdr struct {
	Thread string `json:"thread"`
	NS     string `json:"ns"`
	ID     string `json:"id"`
}

type wal struct {
	f     *os.File
	path  string
	size  int64
	epoch uint64
	off   int64 // where the next record goes
	// pending are the payloads logged since the last reset that bbolt
	// does not have yet, ends the log offsets after each; a background
	// apply takes a prefix of them and drops it when committed.
	pending [][]byte
	ends    []int64
	// applying: a background apply is running; cond (on Bolt.wmu) is
	// signalled when it ends.
	applying bool
	cond     *sync.Cond
	// bases are the checkpoints decoded from the records applied (or
	// being applied) in this epoch, per thread and namespace: the bases
	// of the next records' deltas. Only the one applier uses them.
	bases map[string]*loaded
	// last is the newest checkpoint logged in this epoch, per thread and
	// namespace: a Put of its child is logged as a delta against it.
	last       map[string]*loaded
	applyEvery int
	lazyWrites bool
	noSync     bool  // the DB was opened with NoSync: no fdatasync either
	err        error // sticky: an I/O error leaves the log's state unknown
	frame      []byte
}

func logPath(db *bolt.DB, bucket string, o WALOptions) string {
	if o.Path != "" {
		return o.Path
	}
	if bucket == DefaultBucket {
		return db.Path() + ".wal"
	}
	return fmt.Sprintf("%s.%08x.wal", db.Path(), crc32.Checksum([]byte(bucket), crcTable))
}

// walScan is the content of a log file.
type walScan struct {
	epoch   uint64
	records [][]byte // payloads, in order
	ends    []int64  // offset after each record
	tail    string
}

func walHeader(epoch uint64) []byte {
	h := make([]byte, 0, walHeaderLength)
	h = append(h, walMagic[:]...)
	h = append(h, walVersion, 0, 0, 0)
	h = binary.BigEndian.AppendUint64(h, epoch)
	return binary.BigEndian.AppendUint32(h, crc32.Checksum(h, crcTable))
}

func frameSum(length uint32, epoch uint64, payload []byte) uint32 {
	var h [12]byte
	binary.BigEndian.PutUint32(h[:4], length)
	binary.BigEndian.PutUint64(h[4:], epoch)
	return crc32.Update(crc32.Checksum(h[:], crcTable), crcTable, payload)
}

// scanLog parses a log file's bytes. It never panics: a record that is cut
// short or fails its checksum ends the log and is described in tail; a
// header of an unknown version is an error wrapping ErrUnknownVersion.
func scanLog(data []byte) (walScan, error) {
	var s walScan
	if len(data) < walDataStart {
		if len(data) > 0 {
			s.tail = fmt.Sprintf("log is %d bytes, shorter than its header block", len(data))
		}
		return s, nil
	}
	h := data[:walHeaderLength]
	headerOK := [4]byte(h[:4]) == walMagic && binary.BigEndian.Uint32(h[16:20]) == crc32.Checksum(h[:16], crcTable)
	switch {
	case headerOK && h[4] != walVersion:
		return s, fmt.Errorf("%w: log format version %d (this build reads %d)", ErrUnknownVersion, h[4], walVersion)
	case headerOK:
		s.epoch = binary.BigEndian.Uint64(h[8:16])
	default:
		// The header is written only when the log is reset, after its
		// records reached the bbolt file; replaying them again is
		// harmless, so the first record's epoch is taken.
		if len(data) >= walDataStart+walFrameHeader {
			s.epoch = binary.BigEndian.Uint64(data[walDataStart+8 : walDataStart+16])
		}
		s.tail = "log header damaged; the records after it were replayed"
	}
	off := int64(walDataStart)
	for {
		rest := data[off:]
		if len(rest) < walFrameHeader {
			return s, nil
		}
		length := binary.BigEndian.Uint32(rest[:4])
		sum := binary.BigEndian.Uint32(rest[4:8])
		epoch := binary.BigEndian.Uint64(rest[8:16])
		if epoch != s.epoch || (length == 0 && sum == 0) {
			// Zeroes, or a record of an earlier epoch: the end.
			return s, nil
		}
		if int64(length) > int64(len(rest)-walFrameHeader) {
			s.tail = joinTail(s.tail, fmt.Sprintf("record at offset %d is cut short (%d of %d bytes): ignored", off, len(rest)-walFrameHeader, length))
			return s, nil
		}
		payload := rest[walFrameHeader : walFrameHeader+int(length)]
		if frameSum(length, epoch, payload) != sum {
			s.tail = joinTail(s.tail, fmt.Sprintf("record at offset %d fails its checksum: it and the rest of the log ignored", off))
			return s, nil
		}
		s.records = append(s.records, payload)
		off += walFrameHeader + int64(length)
		s.ends = append(s.ends, off)
	}
}

func joinTail(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// openLog opens (creating if needed) the log, applies the records it holds
// to the bbolt file and resets it.
func (b *Bolt) openLog(o WALOptions) error {
	path := logPath(b.db, b.cfg.bucket, o)
	if o.Size <= 0 {
		o.Size = DefaultWALSize
	}
	if o.Size < walDataStart+64<<10 {
		o.Size = walDataStart + 64<<10
	}
	if o.ApplyEvery <= 0 {
		o.ApplyEvery = DefaultWALApplyEvery
	}
	b.replay = WALReplay{Path: path}
	if b.db.IsReadOnly() {
		// Nothing can be applied: refuse a log that holds records.
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("checkpoint: read log %s: %w", path, err)
		}
		s, err := scanLog(data)
		if err != nil {
			return fmt.Errorf("checkpoint: log %s: %w", path, err)
		}
		if len(s.records) > 0 {
			return fmt.Errorf("checkpoint: log %s holds %d records not yet in the read-only bbolt file; open it read-write once to apply them", path, len(s.records))
		}
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		// A new log's epochs start after the last one bbolt saw applied
		// (an old log deleted by hand), so its mark never names them.
		var mark walMark
		if mark, err = b.readMark(); err == nil {
			f, err = createLog(path, o.Size, mark.epoch+1)
		}
	}
	if err != nil {
		return fmt.Errorf("checkpoint: open log: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return fmt.Errorf("checkpoint: log %s is in use (one Bolt per DB and bucket): %w", path, err)
	}
	w := &wal{f: f, path: path, applyEvery: o.ApplyEvery, lazyWrites: o.LazyWrites, noSync: b.db.NoSync, last: map[string]*loaded{},
		bases: map[string]*loaded{}, cond: sync.NewCond(&b.wmu)}
	if err := b.replayLog(w); err != nil {
		f.Close()
		return err
	}
	b.wal = w
	return nil
}

// createLog makes a zero-filled log of size bytes with a header of epoch 1,
// under a temporary name renamed into place once it is on disk.
func createLog(path string, size int64, epoch uint64) (*os.File, error) {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*os.File, error) {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("create log %s: %w", path, err)
	}
	// Real zeroes, not a sparse file or unwritten extents: a later
	// overwrite then changes no file metadata, and fdatasync flushes the
	// data alone.
	zero := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(zero)) {
		n := min(int64(len(zero)), size-off)
		if _, err := f.WriteAt(zero[:n], off); err != nil {
			return fail(err)
		}
	}
	if _, err := f.WriteAt(walHeader(epoch), 0); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, fmt.Errorf("create log %s: %w", path, err)
	}
	return f, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// replayLog applies the records of w's file to bbolt and resets the log.
func (b *Bolt) replayLog(w *wal) error {
	st, err := w.f.Stat()
	if err != nil {
		return fmt.Errorf("checkpoint: log %s: %w", w.path, err)
	}
	w.size = st.Size()
	data := make([]byte, w.size)
	if _, err := io.ReadFull(io.NewSectionReader(w.f, 0, w.size), data); err != nil {
		return fmt.Errorf("checkpoint: read log %s: %w", w.path, err)
	}
	s, err := scanLog(data)
	if err != nil {
		return fmt.Errorf("checkpoint: log %s: %w", w.path, err)
	}
	if w.size < walDataStart+walFrameHeader {
		return fmt.Errorf("checkpoint: log %s is %d bytes: %w: too short for a log", w.path, w.size, ErrCorrupt)
	}
	mark, err := b.readMark()
	if err != nil {
		return fmt.Errorf("checkpoint: log %s: %w", w.path, err)
	}
	ops := make([]walOp, 0, len(s.records))
	bases := map[string]*loaded{}
	for i, p := range s.records {
		op, err := b.decodeLogOp(p, bases) // every record: later ones may be deltas against it
		if err != nil {
			// The record's checksum holds, so it is whole: a newer build
			// or another serializer wrote it. It is not dropped.
			at := int64(walDataStart)
			if i > 0 {
				at = s.ends[i-1]
			}
			return fmt.Errorf("checkpoint: log %s: record %d at offset %d: %w", w.path, i+1, at, err)
		}
		if mark.epoch == s.epoch && s.ends[i] <= mark.off {
			b.replay.Skipped++ // committed to bbolt by a background apply
			continue
		}
		ops = append(ops, op)
	}
	b.replay.Records = len(ops)
	b.replay.Tail = s.tail
	if s.tail != "" {
		b.cfg.logger.Warn("checkpoint: log replay stopped at a damaged record", "log", w.path, "replayed", len(ops), "tail", s.tail)
	}
	if len(ops) > 0 {
		b.cfg.logger.Info("checkpoint: replaying log", "log", w.path, "records", len(ops))
		if err := b.replayOps(ops); err != nil {
			return fmt.Errorf("checkpoint: replay log %s: %w", w.path, err)
		}
	}
	w.epoch = s.epoch
	return w.reset()
}

// encodeLogPut is the log payload of a Put: the checkpoint's record, as a
// delta against base (its parent, logged earlier in the same epoch) or in
// full when base is nil. It returns the materialised checkpoint too.
func (b *Bolt) encodeLogPut(cp *graph.Checkpoint, base *loaded) ([]byte, *loaded, error) {
	if base != nil {
		// Every logged record is decoded in order, so a chain in the log
		// needs no full snapshots: the depth bound is for bbolt's records.
		// encodeCheckpoint compares with base.cp.Values: a base logged by
		// logPutDelta holds long lists as ropes, materialised here.
		flat := *base.full()
		flat.depth = 0
		base = &flat
	}
	rec, l, err := b.encodeCheckpoint(cp, base, nil)
	if err != nil {
		return nil, nil, err
	}
	p, err := b.encodeLogPayload(kindLogPut, logHdr{Thread: cp.ThreadID, NS: cp.NS, ID: cp.ID}, rec)
	return p, l, err
}

func (b *Bolt) encodeLogWrites(threadID, ns, id string, ws []graph.PendingWrite) ([]byte, error) {
	rec, err := b.encodeWrites(ws)
	if err != nil {
		return nil, err
	}
	return b.encodeLogPayload(kindLogWrites, logHdr{Thread: threadID, NS: ns, ID: id}, rec)
}

func (b *Bolt) encodeLogPayload(kind string, h logHdr, rec []byte) ([]byte, error) {
	hb, err := b.cfg.serializer.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode log record: %w", err)
	}
	return EncodeEnvelope(Envelope{Kind: kind, Serializer: b.cfg.serializer.Format(), Header: hb, Blobs: [][]byte{rec}}), nil
}

// decodeLogOp parses a log payload back into the operation. bases holds
// the checkpoints decoded before it in the same epoch, per thread and
// namespace, which a delta record is built on; it is updated.
func (b *Bolt) decodeLogOp(p []byte, bases map[string]*loaded) (walOp, error) {
	env, err := DecodeEnvelope(p)
	if err != nil {
		return walOp{}, err
	}
	if env.Serializer != b.cfg.serializer.Format() {
		return walOp{}, fmt.Errorf("%w: log record written with serializer %q, checkpointer uses %q", ErrFormat, env.Serializer, b.cfg.serializer.Format())
	}
	var h logHdr
	if err := b.cfg.serializer.Unmarshal(env.Header, &h); err != nil {
		return walOp{}, fmt.Errorf("%w: log record header: %v", ErrCorrupt, err)
	}
	if len(env.Blobs) != 1 {
		return walOp{}, fmt.Errorf("%w: log record has %d blobs, want 1", ErrCorrupt, len(env.Blobs))
	}
	op := walOp{thread: h.Thread, ns: h.NS, id: h.ID}
	switch env.Kind {
	case kindLogPut:
		d, err := b.decodeRecord(h.ID, env.Blobs[0])
		if err != nil {
			return walOp{}, err
		}
		key := cacheKey(h.Thread, h.NS)
		base := bases[key]
		if d.hdr.WritesOf != "" || (d.hdr.Base != "" && (base == nil || base.cp.ID != d.hdr.Base)) {
			return walOp{}, fmt.Errorf("%w: logged checkpoint %q refers to %q, not logged before it", ErrCorrupt, h.ID, d.hdr.Base+d.hdr.WritesOf)
		}
		l, err := b.apply(nil, d, base)
		if err != nil {
			return walOp{}, err
		}
		bases[key] = l
		c := *l.cp // l.cp is never changed; putTx copies what it keeps
		c.ThreadID, c.NS = h.Thread, h.NS
		op.kind, op.cp = opPut, &c
	case kindLogWrites:
		env, err := b.openEnvelope(env.Blobs[0], kindWrites)
		if err != nil {
			return walOp{}, err
		}
		var hs []writeHdr
		if err := b.cfg.serializer.Unmarshal(env.Header, &hs); err != nil {
			return walOp{}, fmt.Errorf("%w: pending writes: %v", ErrCorrupt, err)
		}
		if op.writes, err = writesFromHdr(hs, env.Blobs); err != nil {
			return walOp{}, err
		}
		op.kind = opWrites
	default:
		return walOp{}, fmt.Errorf("%w: log record kind %q", ErrCorrupt, env.Kind)
	}
	return op, nil
}

// logPut logs a Put, as a delta against its parent when the parent is
// the newest checkpoint of its thread and namespace logged in this epoch.
func (b *Bolt) logPut(cp *graph.Checkpoint) error {
	key := cacheKey(cp.ThreadID, cp.NS)
	var stored *loaded
	err := b.logAppend(func(w *wal) ([]byte, error) {
		base := w.last[key]
		if base != nil && (cp.ParentID == "" || cp.ParentID != base.cp.ID || cp.ID == cp.ParentID) {
			base = nil
		}
		p, l, err := b.encodeLogPut(cp, base)
		stored = l
		return p, err
	}, true, func(w *wal) { w.last[key] = stored })
	return err
}

// logAppend logs the payload that encode returns (synced unless sync is
// false), calls logged after it is in the log, and applies the log to
// bbolt when it is due. encode runs under wmu, after any reset the new
// record needs, so it may depend on what the log holds.
func (b *Bolt) logAppend(encode func(*wal) ([]byte, error), sync bool, logged func(*wal)) error {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	w := b.wal
	if w.err != nil {
		return w.err
	}
	payload, err := encode(w)
	if err != nil {
		return err
	}
	if !w.fits(len(payload)) {
		if err := b.applyLog(); err != nil {
			return err
		}
		if payload, err = encode(w); err != nil { // the log is empty now
			return err
		}
		if !w.fits(len(payload)) {
			// Larger than the whole log: straight to bbolt, synced.
			op, err := b.decodeLogOp(payload, map[string]*loaded{})
			if err != nil {
				return err
			}
			return b.applyOps([]walOp{op}, nil, nil)
		}
	}
	if err := w.append(payload, sync); err != nil {
		return err
	}
	if logged != nil {
		logged(w)
	}
	if len(w.pending) >= w.applyEvery && !w.applying {
		b.startApply()
	}
	// Bounded: at most 4 batches wait besides the one being applied.
	for len(w.pending) >= 5*w.applyEvery && w.applying {
		w.cond.Wait()
	}
	return nil
}

// walMark is what bbolt holds of the log: every record of epoch up to
// offset off. A background apply stores it in the transaction that applies
// the records, so a replay after a crash skips them.
type walMark struct {
	epoch uint64
	off   int64
}

var walMarkKey = []byte("\x00wal")

func (b *Bolt) readMark() (walMark, error) {
	var m walMark
	err := b.view(func(tx *bolt.Tx) error {
		top := tx.Bucket([]byte(b.cfg.bucket))
		if top == nil {
			return nil
		}
		v := top.Get(walMarkKey)
		if v == nil {
			return nil
		}
		if len(v) != 16 {
			return fmt.Errorf("%w: log mark of %d bytes", ErrCorrupt, len(v))
		}
		m.epoch, m.off = binary.BigEndian.Uint64(v[:8]), int64(binary.BigEndian.Uint64(v[8:]))
		return nil
	})
	return m, err
}

// startApply applies the pending records to bbolt in the background. The
// caller holds wmu and no apply is running.
func (b *Bolt) startApply() {
	w := b.wal
	batch := w.pending
	mark := walMark{epoch: w.epoch, off: w.ends[len(w.ends)-1]}
	w.applying = true
	hook := b.cfg.walApplyHook
	go func() {
		err := b.applyRecords(batch, &mark, hook)
		b.wmu.Lock()
		defer b.wmu.Unlock()
		w.applying = false
		w.cond.Broadcast()
		if err != nil {
			if w.err == nil {
				w.err = fmt.Errorf("apply log %s to bbolt: %w (its records stay in the log and are replayed when the file is next opened)", w.path, err)
			}
			return
		}
		w.pending = w.pending[len(batch):]
		w.ends = w.ends[len(batch):]
	}()
}

// applyRecords decodes payloads (against w.bases) and applies them to
// bbolt in one synced transaction that also stores mark.
func (b *Bolt) applyRecords(payloads [][]byte, mark *walMark, hook func(string)) error {
	ops := make([]walOp, 0, len(payloads))
	for _, p := range payloads {
		op, err := b.decodeLogOp(p, b.wal.bases)
		if err != nil {
			return fmt.Errorf("checkpoint: decode own log record: %w", err)
		}
		ops = append(ops, op)
	}
	if err := b.applyOps(ops, mark, hook); err != nil {
		return err
	}
	if hook != nil {
		hook("committed")
	}
	return nil
}

func (w *wal) fits(n int) bool { return w.off+walFrameHeader+int64(n) <= w.size }

func (w *wal) append(payload []byte, sync bool) error {
	w.frame = binary.BigEndian.AppendUint32(w.frame[:0], uint32(len(payload)))
	w.frame = binary.BigEndian.AppendUint32(w.frame, frameSum(uint32(len(payload)), w.epoch, payload))
	w.frame = binary.BigEndian.AppendUint64(w.frame, w.epoch)
	w.frame = append(w.frame, payload...)
	if _, err := w.f.WriteAt(w.frame, w.off); err != nil {
		w.err = fmt.Errorf("write log %s: %w", w.path, err)
		return w.err
	}
	if sync && !w.noSync {
		if err := fdatasync(w.f); err != nil {
			w.err = fmt.Errorf("sync log %s: %w", w.path, err)
			return w.err
		}
	}
	w.off += int64(len(w.frame))
	w.pending = append(w.pending, payload)
	w.ends = append(w.ends, w.off)
	if cap(w.frame) > 1<<20 {
		w.frame = nil
	}
	return nil
}

// reset starts a new epoch: the records in the file no longer count.
func (w *wal) reset() error {
	w.epoch++
	if _, err := w.f.WriteAt(walHeader(w.epoch), 0); err != nil {
		w.err = fmt.Errorf("reset log %s: %w", w.path, err)
		return w.err
	}
	if !w.noSync {
		if err := fdatasync(w.f); err != nil {
			w.err = fmt.Errorf("reset log %s: %w", w.path, err)
			return w.err
		}
	}
	w.off = walDataStart
	w.pending, w.ends = nil, nil
	clear(w.last)
	clear(w.bases)
	return nil
}

// applyLog applies the logged records to bbolt in one synced transaction
// (after the background apply running, if any) and resets the log. When
// the transaction fails, the log keeps its records (they are replayed when
// the file is next opened) and the checkpointer refuses further writes
// with that error. The caller holds wmu.
//
// Only logged operations may be applied while the log holds records:
// replaying a log repeats a prefix of what bbolt already holds, which is
// harmless only when no later operation is missing from the log.
func (b *Bolt) applyLog() error {
	w := b.wal
	for w.applying {
		w.cond.Wait()
	}
	if w.err != nil {
		return w.err
	}
	if w.off == walDataStart {
		return nil // nothing logged since the last reset
	}
	if len(w.pending) > 0 {
		mark := walMark{epoch: w.epoch, off: w.ends[len(w.ends)-1]}
		if err := b.applyRecords(w.pending, &mark, nil); err != nil {
			w.err = fmt.Errorf("apply log %s to bbolt: %w (its records stay in the log and are replayed when the file is next opened)", w.path, err)
			return w.err
		}
	}
	return w.reset()
}

// applyOps applies ops to bbolt in one transaction, which stores mark
// too when it is not nil (hook: see config.walApplyHook).
func (b *Bolt) applyOps(ops []walOp, mark *walMark, hook func(string)) error {
	hints := map[string]*loaded{}
	err := b.update(func(tx *bolt.Tx) error {
		clear(hints)
		for _, op := range ops {
			if err := b.applyOp(tx, op, hints); err != nil {
				return fmt.Errorf("thread %q ns %q checkpoint %q: %w", op.thread, op.ns, op.id, err)
			}
		}
		if mark != nil {
			top, err := tx.CreateBucketIfNotExists([]byte(b.cfg.bucket))
			if err != nil {
				return err
			}
			v := binary.BigEndian.AppendUint64(nil, mark.epoch)
			v = binary.BigEndian.AppendUint64(v, uint64(mark.off))
			if err := top.Put(walMarkKey, v); err != nil {
				return err
			}
		}
		if hook != nil {
			hook("tx")
		}
		return nil
	})
	if err != nil {
		b.cmu.Lock()
		clear(b.cache)
		b.cmu.Unlock()
		return err
	}
	for k, l := range hints {
		b.rememberKey(k, l)
	}
	return nil
}

// replayOps applies the records found in the log at open. When they do
// not apply together, each is tried on its own, so one that cannot be
// applied (say, a Put that must rewrite a damaged record) does not take
// the others with it; it is logged and listed in WALReplay.Dropped.
func (b *Bolt) replayOps(ops []walOp) error {
	err := b.applyOps(ops, nil, nil)
	if err == nil {
		return nil
	}
	b.cfg.logger.Warn("checkpoint: the log's records do not apply together; applying them one by one", "err", err)
	applied := 0
	for _, op := range ops {
		if err := b.update(func(tx *bolt.Tx) error { return b.applyOp(tx, op, nil) }); err != nil {
			b.cfg.logger.Error("checkpoint: a logged operation could not be applied to bbolt and is dropped",
				"thread", op.thread, "ns", op.ns, "checkpoint", op.id, "err", err)
			b.replay.Dropped = append(b.replay.Dropped, fmt.Errorf("thread %q ns %q checkpoint %q: %w", op.thread, op.ns, op.id, err))
			continue
		}
		applied++
	}
	if applied == 0 {
		return err // bbolt itself fails: keep the log
	}
	return nil
}

func (b *Bolt) applyOp(tx *bolt.Tx, op walOp, hints map[string]*loaded) error {
	switch op.kind {
	case opPut:
		key := cacheKey(op.thread, op.ns)
		hint := hints[key]
		if hint == nil {
			hint = b.cached(op.thread, op.ns)
		}
		l, err := b.putTx(tx, op.cp, hint)
		if err == nil && hints != nil {
			hints[key] = l
		}
		return err
	case opWrites:
		return b.putWritesTx(tx, op.thread, op.ns, op.id, op.writes)
	case opDelete:
		for k := range hints {
			if strings.HasPrefix(k, cacheKey(op.thread, "")) {
				delete(hints, k)
			}
		}
		return b.deleteThreadTx(tx, op.thread)
	}
	return fmt.Errorf("checkpoint: unknown log operation %d", op.kind)
}

// Flush applies the records of the write-ahead log to the bbolt file (one
// synced transaction) and resets the log. Reads flush first, so they see
// every logged write; call Flush before reading the bbolt file by other
// means (Compact, another tool). Without WithWAL it does nothing.
func (b *Bolt) Flush(ctx context.Context) error {
	if b.wal == nil {
		return nil
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if b.closed {
		return nil // nothing is pending after Close
	}
	return b.applyLog()
}

// Close flushes the write-ahead log and closes its file; the checkpointer
// is unusable afterwards. It does not close the bbolt DB (close that
// after). A process that ends without Close loses nothing: the next
// NewBolt replays the log. Without WithWAL it does nothing.
func (b *Bolt) Close() error {
	if b.wal == nil {
		return nil
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	err := b.applyLog()
	b.wal.err = ErrClosed
	return errors.Join(err, b.wal.f.Close())
}

// Replayed reports what NewBolt replayed from the write-ahead log.
func (b *Bolt) Replayed() WALReplay { return b.replay }

// Package checkpoint holds graph.Checkpointer back-ends: Memory, in
// process, and Bolt, durable in a bbolt file. Package checkpointtest is
// the conformance suite every back-end runs.
//
// # One file for checkpoints and memory
//
// bbolt lets one process open a file at a time, so a program opens the DB
// once and hands it to both the checkpointer and the store of package
// memory; each keeps to its own top-level bucket:
//
//	db, err := checkpoint.OpenBoltDB("explorer.db", nil) // bbolt.Options: nil for defaults
//	cp, err := checkpoint.NewBolt(db, checkpoint.WithRetention(200))
//	st, err := memory.NewBoltStore(db)
//	app, err := g.Compile(graph.WithCheckpointer(cp), graph.WithStore(st))
//	defer db.Close()
//
// # Incremental checkpoints
//
// Bolt stores a checkpoint relative to its parent when the parent is
// stored: a channel whose encoded value equals the parent's is not stored;
// a channel whose new encoding shares a long prefix with the parent's (a
// JSON array that an append reducer grew) stores only the new bytes; and
// when those new bytes also are the value of one of the step's writes
// (the message a node appended), they are stored once. The writes the
// engine lists in a checkpoint are shared with the pending writes stored
// against its parent. Every WithSnapshotEvery checkpoints (default
// DefaultSnapshotEvery) of a chain the whole state is written, which
// bounds the records a load reads. Loading any checkpoint gives back
// exactly the bytes that were Put; replacing or deleting a checkpoint
// (retention, Put of the same id) first gives the checkpoints derived from
// it a full copy. A 500-step thread appending a 1 KiB message per step
// takes about 2.5x its final state on disk after Compact (2.6x through the
// graph engine, see TestBoltStorageGrowthEngine), where a full
// copy per step would take about 250x.
//
// A record of 32 KiB or more (a thread's input holding a long
// conversation, a periodic snapshot) is stored in a bucket of its own,
// with a small stub in its place among the checkpoints: bbolt rewrites a
// whole leaf page whenever one of its keys changes, so the small records
// of the following steps would otherwise rewrite the large one at each
// commit until the leaf split. Stubs are records of envelope version 2
// (MaxEnvelopeVersion); every other record is still version 1, and files
// written before stubs existed are read as they are (their large records
// stay inline). A build that reads only version 1 reports a stub as
// ErrUnknownVersion. Check reports a stub whose record is missing or
// differs, and a stored-apart record that no stub names.
//
// # Deltas from the engine
//
// Memory and Bolt implement graph.DeltaPutter: the graph engine hands
// them a step's checkpoint as the channels it wrote in full plus, for a
// list an append reducer grew, the bytes appended (graph.ChannelDelta).
// Both keep such a list as a rope: one append-only buffer shared along the
// chain of checkpoints, extended in place, so neither the engine nor the
// back-end copies or compares the whole list per step (a fork, or a delta
// that keeps less than the whole parent, copies once). Bolt writes the
// same delta record as an incremental Put, against the parent it holds in
// memory; when that is not the parent (another process wrote, the cache
// was dropped), a snapshot is due, or with a write-ahead log, it loads the
// parent, applies the deltas and stores the result with Put. Lists of
// 4 KiB or more that a Put stores are kept as ropes too, so the next
// delta extends them in place. checkpointtest's Delta cases check any
// DeltaPutter; back-ends without one are skipped there and get full Puts.
//
// # Pending writes
//
// Both back-ends keep the pending writes of a checkpoint per task: the
// engine stores each finished task's writes as the task finishes, and that
// costs the task's writes, however many tasks of the step stored theirs
// before (Bolt: one record per task, keyed by checkpoint and task id;
// files of earlier versions, with one record per checkpoint, are read as
// they are and split by the next PutWrites against that checkpoint).
//
// # Records and errors
//
// Every stored record sits in a versioned Envelope (format version, record
// kind, state type name, serializer format, CRC-32C); the structured header
// is encoded by a pluggable graph.Serializer (graph.JSON by default, see
// WithSerializer) and bulk bytes go next to it unencoded. A record that does not decode — unknown version,
// damaged bytes, another serializer, a missing delta base — gives a
// *DecodeError naming the thread, namespace and checkpoint, wrapping
// ErrUnknownVersion, ErrCorrupt or ErrFormat; never a panic and never a
// zero state. A damaged bbolt page that makes bbolt itself fault or panic
// is reported as ErrCorrupt too; the other records stay readable where the
// file's structure allows.
//
// Bolt.Check reads a whole file (bbolt's consistency check and every
// record) and lists every problem; Compact copies a file's live data into
// a new, smaller file.
//
// OpenBoltDB checks a file's meta pages, length, freelist page and page
// tree before bbolt maps it (bbolt trusts them: a truncated or overwritten
// file makes bolt.Open panic, and a cycle of pages makes any read recurse
// until a fatal stack overflow) and recovers what bbolt still panics on
// while opening: such a file gives an error wrapping ErrCorrupt and is
// left as it was. The walk reads every page of the tree once. Damage that
// bbolt meets only as a recoverable panic (a garbled leaf page) is left to
// the reads that hit it, so the other records stay readable; Check runs
// bbolt's own check only after walking its transaction's page tree
// strictly from the file (bbolt checks in a goroutine where a fault is
// fatal). A lock timeout names the file and the likely holder.
//
// When the newest checkpoint of a thread does not decode, Get fails with a
// *DecodeError naming it; NewestReadable walks back to the newest one that
// loads, and a run resumes from it with graph.CheckpointID and
// graph.Continue.
//
// # Durability
//
// Without a log, each Put, PutWrites and DeleteThread is one bbolt
// transaction: after it returns (with bbolt's default sync) it survives a
// crash of the process or the machine; a process killed during one leaves
// the file as it was before. The graph engine writes a checkpoint per
// super-step, so a killed run resumes (Invoke with graph.Continue) from its
// last committed step. A bbolt commit costs at least two fdatasyncs and
// writes new pages, several times the cost of one durable 4 KiB write.
//
// # Write-ahead log
//
// WithWAL puts a write-ahead log in front of the bbolt file, so a durable
// operation costs one fdatasync of one small write:
//
//	cp, err := checkpoint.NewBolt(db, checkpoint.WithWAL(checkpoint.WALOptions{}))
//	defer db.Close()
//	defer cp.Close() // applies the log; runs before db.Close
//
// The log is a file beside the bbolt file (its path + ".wal" by default),
// allocated and zero-filled once when it is created, so that appending to
// it later changes no file metadata and fdatasync flushes only the record.
// Put and PutWrites append one record (length, CRC-32C, epoch, and the
// operation in an Envelope) and fdatasync the log before they return. A
// Put whose parent is the newest checkpoint logged for its thread and
// namespace since the last reset is logged as a delta against it (the
// encoding of the incremental records above), so a grown list costs its
// new bytes in the log too. The
// records are applied to bbolt in the background: once ApplyEvery records
// wait, a goroutine applies them in one synced transaction while writes go
// on (a write waits only when 4 more batches queue behind the one being
// applied, which bounds the memory and the replay). That transaction also
// stores a mark (the log's epoch and the offset it reached), so a replay
// after a crash skips what bbolt already holds. When the log is full,
// before any read (Get, List, Check, Flush) and on Close, the rest is
// applied at once (after the running apply) and the log is reset by
// writing a header with the next epoch (records of earlier epochs end the
// log).
// DeleteThread, and a record larger than the whole log, first apply the
// logged records and then go straight to bbolt in a synced transaction of
// their own, so the log never holds records older than something bbolt
// already has without them.
//
// NewBolt replays the log: the records it holds (a process was killed, or
// the DB closed without Close) are applied to bbolt, except those bbolt's
// mark says a background apply committed, then the log is reset; Replayed
// reports how many were applied and skipped. A record torn by a crash or failing its
// checksum ends the replay: it and what follows are ignored and described
// in WALReplay.Tail (and logged), never a panic. With the default options
// such a record was never acknowledged (its fdatasync had not returned),
// unless the disk itself damaged it. A log or record of an
// unknown version, or of another serializer, makes NewBolt fail and leaves
// the log untouched. Replaying a record twice (a crash between the bbolt
// commit and the log reset) gives the same result: every operation sets
// state rather than adding to it.
//
// The log never touches bbolt's sync: the DB keeps syncing every commit,
// so a memory store (memory.NewBoltStore) on the same DB stays durable per
// operation. bbolt allows no per-transaction NoSync (DB.NoSync is global,
// read by other writers' commits), so the log keeps its records out of
// bbolt until a batch is applied, and reads apply the batch first: a read
// after writes costs one bbolt commit. A DB opened with NoSync makes the
// log skip its fdatasyncs too.
//
// The log's guarantees, with its options:
//
//   - default: Put and PutWrites return after their record is on disk
//     (fdatasync): they survive a crash of the process or of the machine,
//     as without a log. A graph step with one task costs two fdatasyncs
//     (the task's PutWrites, then the step's Put).
//   - LazyWrites: PutWrites returns after its record is in the kernel's
//     page cache (written, not synced); the next Put's fdatasync makes it
//     durable. It survives a SIGKILL of the process; a power loss before
//     that Put may lose it, and then the finished task runs again on
//     resume. A step then costs one fdatasync. Put is always synced.
//
// When applying a batch to bbolt fails, the records stay in the log, the
// checkpointer returns that error from then on (a background apply's
// failure surfaces at the next operation), and the next NewBolt replays
// them. At replay, records bbolt refuses one by one (say, a Put
// that must rewrite a damaged record) are dropped, logged at Error level
// and listed in WALReplay.Dropped; the others are applied.
//
// One Bolt per DB and bucket may use a log: the log file is locked
// (flock), and a second NewBolt on it fails until the first is closed.
// A read-only DB with a log that holds records fails to open: open it
// read-write once to apply them. Flush applies the log on demand, e.g.
// before Compact or another reader of the bbolt file.
package checkpoint

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
// # Records and errors
//
// Every stored record sits in a versioned Envelope (format version, record
// kind, state type name, serializer name, CRC-32C); the structured header
// is encoded by a pluggable Serializer (JSON by default) and bulk bytes go
// next to it unencoded. A record that does not decode — unknown version,
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
// # Durability
//
// Each Put, PutWrites and DeleteThread is one bbolt transaction: after it
// returns (with bbolt's default sync) it survives a crash of the process
// or the machine; a process killed during one leaves the file as it was
// before. The graph engine writes a checkpoint per super-step, so a killed
// run resumes (Invoke with graph.Continue) from its last committed step.
package checkpoint

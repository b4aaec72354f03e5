// Package postgres is a graph.Checkpointer on PostgreSQL
// (github.com/jackc/pgx/v5 with pgxpool), for graphs run by several
// processes or machines that share threads:
//
//	cp, pool, err := postgres.Open(ctx, "postgres://user@db:5432/agentgraph", postgres.WithRetention(200))
//	defer pool.Close()
//	app, err := g.Compile(graph.WithCheckpointer(cp))
//
// (New takes a pool you already have.) It passes the conformance suite
// checkpoint/checkpointtest unchanged.
//
// # Schema
//
// New creates or migrates the tables (agentgraph_cp_*) before it returns:
// the migrations are numbered, the version reached is kept in the table
// agentgraph_schema, and they run in one transaction under a PostgreSQL
// advisory lock, so any number of processes may open the database at once
// and a version is applied once. A database migrated by a newer build is
// refused (pgmigrate.ErrTooNew). Thread, namespace, checkpoint, task and
// channel ids are bytea: any bytes, compared bytewise, as ids must sort.
//
// # Records
//
// The records follow the bbolt checkpointer's design (package checkpoint):
// a checkpoint is a row (ids, its delta base, and a JSON header with
// everything but the channel values) plus one row per channel it stores.
// A checkpoint whose parent is stored is stored relative to it: a channel
// whose value equals the parent's has no row; a channel whose new value
// extends the parent's (a list an append reducer grew) stores only the new
// bytes after the shared prefix; a removed channel has a tombstone row. A
// full snapshot is written at least every WithSnapshotEvery checkpoints of
// a chain (default checkpoint.DefaultSnapshotEvery), which bounds the rows
// a load reads; a load follows the chain in one recursive query. A
// checkpoint's Writes that equal the pending writes stored against its
// parent are not stored again (the row names the parent instead). Unlike
// bbolt, a channel's appended bytes are not also shared with the step's
// write that produced them. Replacing, deleting (retention) or adding
// pending writes to a checkpoint that others are stored relative to first
// gives those a full copy, so loading any checkpoint always gives back
// exactly what was Put.
//
// Rows damaged behind the checkpointer's back (a garbled header, a missing
// or looping base, a channel keeping more bytes than its base has, a depth
// that does not fall along the chain) give a *checkpoint.DecodeError
// wrapping checkpoint.ErrCorrupt that names the checkpoint read, never a
// panic or a zero state; Check loads every checkpoint and lists them, and
// checkpoint.NewestReadable walks back past them.
//
// Pending writes are one row per task and channel: a finished task's
// PutWrites costs its own writes, whatever its siblings stored before;
// tasks come back in the order their first write was stored, a task's
// channels in their own order.
//
// # Many writers
//
// Several processes (or several Checkpointers) may write one database, and
// even one thread. A thread's writes are ordered by a row lock on the
// thread (agentgraph_cp_threads), which also holds the thread's head, its
// newest checkpoint id. Each Checkpointer remembers, per thread and
// namespace, the head it last saw: from its own Put, or from a Get or a
// not-found Get. A Put or PutWrites is refused with a *ConflictError
// (errors.Is(err, ErrConflict)) when the stored head is no longer that
// one: another writer continued the thread since this one read it.
// Nothing is written then, so the history never forks or tears: two
// processes that continue one thread from the same checkpoint both run the
// step, the first to commit wins and the second gets the conflict (through
// the graph engine as an error wrapping it). A writer that has not read a
// thread is refused only when it writes a child of a checkpoint other than
// the head. Forks and replays from older checkpoints by a writer that is
// up to date are allowed, as with the other back-ends. The rule is per
// Checkpointer value: one process should use one Checkpointer per
// database, and not run one thread from two goroutines at once (as with
// any back-end).
//
// # Durability and costs
//
// Every Put, PutWrites and DeleteThread is one transaction, durable when
// it returns with the server's default synchronous_commit. A Put is a few
// statements (the thread lock, the parent's revision, the inserts); the
// newest checkpoint each Checkpointer stored or read is kept in memory
// (checked against the row's revision) so a step does not read its parent
// back; its statements go to the server in two pipelined batches (a Put is
// four round trips, a PutWrites three). On a local server a graph step
// costs about 1.7x a step with bbolt's sync (BenchmarkStepRatio, which
// pairs both with the fdatasync floor under the same load);
// BenchmarkPutConcurrent gives checkpoints/s with 1, 4 and 16 threads at
// once. Every call is bounded by its context and by WithTimeout (default
// 30s).
//
// # Tests
//
// The tests start their own throwaway PostgreSQL cluster (package
// internal/pgtest: initdb and pg_ctl from Debian's postgresql package, in
// a temporary directory, on a free loopback port, as an unprivileged user
// when run as root) once per test binary, and give each test a fresh
// schema. Without PostgreSQL installed they fail, naming the command
// that installs it (scripts/setup.sh does). TestRaceTwoProcesses starts
// the test binary twice more as two processes that continue one thread at
// the same moment.
package postgres

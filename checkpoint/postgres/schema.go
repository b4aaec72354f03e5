package postgres

// component names the checkpointer's schema in agentgraph_schema.
const component = "checkpoints"

// migrations take the schema from version i to i+1 (package pgmigrate).
// Identifiers (thread, namespace, checkpoint, task, channel) are bytea:
// they may hold any bytes, NUL included, and sort bytewise, as ids must.
var migrations = []string{
	// 1: threads (the head each writer checks), checkpoints (a header and
	// the delta's base), channels (the values a checkpoint stores: changed
	// ones, appended bytes), pending writes (one row per task and channel).
	`CREATE SEQUENCE agentgraph_cp_rev;
	CREATE TABLE agentgraph_cp_threads (
		thread bytea NOT NULL,
		ns     bytea NOT NULL,
		head   bytea NOT NULL,
		PRIMARY KEY (thread, ns));
	CREATE TABLE agentgraph_cp_checkpoints (
		thread    bytea   NOT NULL,
		ns        bytea   NOT NULL,
		id        bytea   NOT NULL,
		parent    bytea   NOT NULL,
		base      bytea   NOT NULL, -- '' for a full snapshot
		depth     integer NOT NULL, -- records back to a full snapshot
		writes_of bytea   NOT NULL, -- '' or the checkpoint whose pending writes are this one's Writes
		rev       bigint  NOT NULL, -- changes whenever the row is rewritten
		header    bytea   NOT NULL, -- JSON: everything but the channel values
		PRIMARY KEY (thread, ns, id));
	CREATE INDEX agentgraph_cp_checkpoints_base ON agentgraph_cp_checkpoints (thread, ns, base) WHERE base <> '';
	CREATE INDEX agentgraph_cp_checkpoints_writes_of ON agentgraph_cp_checkpoints (thread, ns, writes_of) WHERE writes_of <> '';
	CREATE TABLE agentgraph_cp_channels (
		thread  bytea   NOT NULL,
		ns      bytea   NOT NULL,
		id      bytea   NOT NULL,
		name    bytea   NOT NULL,
		keep    integer NOT NULL, -- bytes kept from the base's value
		blob    bytea,            -- the rest; NULL with keep 0: a nil value
		removed boolean NOT NULL, -- the channel is gone since the base
		PRIMARY KEY (thread, ns, id, name));
	CREATE TABLE agentgraph_cp_writes (
		thread  bytea   NOT NULL,
		ns      bytea   NOT NULL,
		id      bytea   NOT NULL,
		task    bytea   NOT NULL,
		channel bytea   NOT NULL,
		seq     bigint  NOT NULL, -- the task's order: when its first write was stored
		idx     integer NOT NULL, -- the write's order within its task
		node    bytea   NOT NULL,
		value   bytea,
		PRIMARY KEY (thread, ns, id, task, channel));`,
}

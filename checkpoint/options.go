package checkpoint

import (
	"log/slog"

	"github.com/agentgraph/agentgraph/graph"
)

// DefaultSnapshotEvery is the default distance, in checkpoints, between two
// full snapshots of a thread in the bbolt back-end.
const DefaultSnapshotEvery = 256

// Option configures a Checkpointer back-end.
type Option func(*config)

type config struct {
	keepLast      int
	snapshotEvery int
	serializer    graph.Serializer
	logger        *slog.Logger
	bucket        string
	wal           *WALOptions
	// walApplyHook, when set (tests only), is called by a background
	// apply of the log at its stages: "tx" inside the bbolt transaction,
	// "committed" after its commit.
	walApplyHook func(stage string)
}

func newConfig(opts []Option) config {
	c := config{
		snapshotEvery: DefaultSnapshotEvery,
		serializer:    graph.JSON{},
		logger:        slog.New(slog.DiscardHandler),
		bucket:        DefaultBucket,
	}
	for _, o := range opts {
		o(&c)
	}
	if c.snapshotEvery < 1 {
		c.snapshotEvery = 1
	}
	return c
}

// WithRetention keeps only the newest n checkpoints of each thread and
// namespace (and their pending writes); older ones are deleted when a new
// checkpoint is Put. n <= 0 keeps everything (the default).
func WithRetention(n int) Option { return func(c *config) { c.keepLast = n } }

// WithSnapshotEvery makes the bbolt back-end write a full snapshot of the
// state at least every k checkpoints of a chain; the checkpoints in between
// store only what changed since their parent. k = 1 stores every checkpoint
// in full. The in-memory back-end ignores it.
func WithSnapshotEvery(k int) Option { return func(c *config) { c.snapshotEvery = k } }

// WithSerializer replaces the JSON serializer the bbolt back-end uses for
// its record headers (the structured part of each record; bulk bytes such
// as channel values travel next to it as raw blobs). Records carry the
// serializer's Format; a record written with another serializer is
// reported as a decode error.
func WithSerializer(s graph.Serializer) Option { return func(c *config) { c.serializer = s } }

// WithLogger sets the logger for maintenance events (retention, repairs).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithBucket sets the name of the top-level bbolt bucket the checkpointer
// uses (default DefaultBucket), so several checkpointers can share one file.
func WithBucket(name string) Option { return func(c *config) { c.bucket = name } }

// DefaultBucket is the top-level bbolt bucket of the checkpointer.
const DefaultBucket = "agentgraph.checkpoints"

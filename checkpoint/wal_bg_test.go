package checkpoint

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/graph"
)

// TestWALBackgroundApply: with the apply to bbolt held inside its
// transaction, writes go on until 4 more batches wait, then the next write
// waits for the apply; a read applies the rest after it; what was
// written is all there, and the log's mark in bbolt names where the last
// apply stopped.
func TestWALBackgroundApply(t *testing.T) {
	ctx := context.Background()
	const every = 4
	release := make(chan struct{})
	var applies atomic.Int32
	db, err := OpenBoltDB(filepath.Join(t.TempDir(), "cp.db"), nil)
	require.NoError(t, err)
	defer db.Close()
	cp, err := NewBolt(db, WithWAL(WALOptions{ApplyEvery: every}), WALApplyHook(func(stage string) {
		if stage == "tx" && applies.Add(1) == 1 {
			<-release // the first apply waits inside its bbolt transaction
		}
	}))
	require.NoError(t, err)
	defer cp.Close()

	var all []*graph.Checkpoint
	put := func(i int) error {
		c := checkpointtest.Sample("t", "", i, i > 0)
		all = append(all, c)
		return cp.Put(ctx, c)
	}
	// The first batch starts applying at record 4 and blocks; records 5
	// to 19 are logged meanwhile (4 more batches would be 20).
	for i := range 5*every - 1 {
		require.NoError(t, put(i), "record %d does not wait for the apply", i+1)
	}
	done := make(chan error, 1)
	go func() { done <- put(5*every - 1) }()
	select {
	case err := <-done:
		t.Fatalf("the 20th record did not wait for the apply: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-done)
	mark, err := cp.readMark()
	require.NoError(t, err)
	assert.Positive(t, mark.off, "the apply stored its mark")

	for _, c := range all { // a read applies the rest first
		got, _, err := cp.Get(ctx, "t", "", c.ID)
		require.NoError(t, err)
		checkpointtest.AssertEqual(t, c, got)
	}
	require.NoError(t, cp.Check(ctx))
	cp.wmu.Lock()
	assert.Empty(t, cp.wal.pending, "the read applied the log and reset it")
	cp.wmu.Unlock()
}

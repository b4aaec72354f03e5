package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
	"github.com/agentgraph/agentgraph/checkpoint/postgres"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/pgtest"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role)) // a child process of a race test: its parent owns the server
	}
	os.Exit(pgtest.Main(m))
}

// newPool returns a pool on a fresh schema (pgtest.DSN), closed when t ends.
func newPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pgxpool.New(ctx, pgtest.DSN(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

func newCP(t testing.TB, pool *pgxpool.Pool, opts ...postgres.Option) *postgres.Checkpointer {
	t.Helper()
	cp, err := postgres.New(context.Background(), pool, opts...)
	require.NoError(t, err)
	return cp
}

// Each sub-test of a suite gets a schema of its own: the suites reuse
// thread ids.
func TestConformance(t *testing.T) {
	checkpointtest.Run(t, func() graph.Checkpointer { return newCP(t, newPool(t)) })
}

func TestConformanceSnapshotEveryStep(t *testing.T) {
	checkpointtest.Run(t, func() graph.Checkpointer { return newCP(t, newPool(t), postgres.WithSnapshotEvery(1)) })
}

func TestConformanceShortChains(t *testing.T) {
	checkpointtest.Run(t, func() graph.Checkpointer { return newCP(t, newPool(t), postgres.WithSnapshotEvery(3)) })
}

func TestRetention(t *testing.T) {
	checkpointtest.RunRetention(t, func(keep int) graph.Checkpointer {
		return newCP(t, newPool(t), postgres.WithRetention(keep))
	})
}

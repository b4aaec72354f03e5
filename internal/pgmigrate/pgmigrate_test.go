package pgmigrate_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/internal/pgmigrate"
	"github.com/agentgraph/agentgraph/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var steps = []string{
	`CREATE TABLE m_one (n integer)`,
	`ALTER TABLE m_one ADD COLUMN s text; INSERT INTO m_one (n, s) VALUES (1, 'a')`,
}

func TestApplyOnceFromManyAtOnce(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.DSN(t))
	require.NoError(t, err)
	defer pool.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := pgmigrate.Apply(ctx, pool, "test", steps)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	var rows, version int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM m_one").Scan(&rows))
	assert.Equal(t, 1, rows, "each migration ran once")
	require.NoError(t, pool.QueryRow(ctx, "SELECT version FROM agentgraph_schema WHERE component = 'test'").Scan(&version))
	assert.Equal(t, 2, version)

	found, err := pgmigrate.Apply(ctx, pool, "test", steps)
	require.NoError(t, err)
	assert.Equal(t, 2, found)
	// An older build (fewer migrations) refuses the newer schema.
	_, err = pgmigrate.Apply(ctx, pool, "test", steps[:1])
	require.ErrorIs(t, err, pgmigrate.ErrTooNew)
	// Another component has its own version.
	found, err = pgmigrate.Apply(ctx, pool, "other", []string{`CREATE TABLE m_other (n integer)`})
	require.NoError(t, err)
	assert.Equal(t, 0, found)
}

func TestFailedMigrationLeavesNothing(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.DSN(t))
	require.NoError(t, err)
	defer pool.Close()
	_, err = pgmigrate.Apply(ctx, pool, "bad", []string{`CREATE TABLE m_bad (n integer)`, `THIS IS NOT SQL`})
	require.Error(t, err)
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'm_bad'").Scan(&n))
	assert.Zero(t, n, "the transaction rolled back")
}

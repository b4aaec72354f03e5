package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestDSNGivesAFreshNamespace(t *testing.T) {
	ctx := context.Background()
	a, b := DSN(t), DSN(t)
	require.NotEqual(t, a, b)
	for _, dsn := range []string{a, b} {
		conn, err := pgx.Connect(ctx, dsn)
		require.NoError(t, err)
		var n int
		require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()").Scan(&n))
		require.Zero(t, n)
		_, err = conn.Exec(ctx, "CREATE TABLE mine (n integer)")
		require.NoError(t, err, "a table without a schema name goes in the test's own schema")
		require.NoError(t, conn.Close(ctx))
	}
}

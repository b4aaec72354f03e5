package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestDSNGivesAFreshDatabase(t *testing.T) {
	ctx := context.Background()
	a, b := DSN(t), DSN(t)
	require.NotEqual(t, a, b)
	for _, dsn := range []string{a, b} {
		conn, err := pgx.Connect(ctx, dsn)
		require.NoError(t, err)
		var n int
		require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n))
		require.Zero(t, n)
		require.NoError(t, conn.Close(ctx))
	}
}

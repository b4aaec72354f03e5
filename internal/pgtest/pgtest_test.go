package pgtest

import (
	"context"
	"os"
	"path/filepath"
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

func TestNotInstalledNamesTheInstallCommand(t *testing.T) {
	_, err := binIn(t.TempDir())
	require.ErrorIs(t, err, ErrNotInstalled)
	require.Contains(t, err.Error(), "apt-get install -y postgresql")

	t.Setenv("AGENTGRAPH_PG_BIN", t.TempDir())
	_, err = Bin()
	require.ErrorIs(t, err, ErrNotInstalled)
	_, err = Start(context.Background())
	require.ErrorIs(t, err, ErrNotInstalled)
}

func TestBinPicksTheNewestVersion(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9", "15", "13"} {
		dir := filepath.Join(root, v, "bin")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "initdb"), nil, 0o755))
	}
	got, err := binIn(root)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(root, "15", "bin"), got)
}

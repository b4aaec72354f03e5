package postgres_test

import (
	"os"
	"testing"

	"github.com/agentgraph/agentgraph/internal/pgtest"
)

// TestMain stops the PostgreSQL cluster the Postgres store's tests start
// (on first use, see pgtest), and runs the child role of the two-process
// tests when this binary is started as one.
func TestMain(m *testing.M) {
	if role := os.Getenv(childRoleEnv); role != "" {
		os.Exit(runChild(role))
	}
	os.Exit(pgtest.Main(m))
}

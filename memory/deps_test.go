package memory_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNoPgx: importing memory does not link pgx; the PostgreSQL back-end
// lives in memory/postgres. It asks the go command for memory's
// dependencies, as `go list -deps ./memory` would print them.
func TestNoPgx(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is not on PATH: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goCmd, "list", "-deps", "-f", "{{.ImportPath}}", "github.com/agentgraph/agentgraph/memory").CombinedOutput()
	require.NoError(t, err, "go list -deps: %s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/agentgraph/agentgraph/graph", "go list printed memory's dependencies")
	for _, d := range deps {
		require.NotContains(t, d, "github.com/jackc/pgx", "memory must not depend on pgx (use memory/postgres)")
		require.NotContains(t, d, "agentgraph/internal/pgmigrate", "memory must not depend on the PostgreSQL migrations")
	}
}

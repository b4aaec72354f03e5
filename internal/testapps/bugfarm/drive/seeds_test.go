package drive

import (
	"bytes"
	"context"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var seedsFlag = flag.String("bugfarm.seeds", "1-2", "seeds TestVerifySeeds verifies (e.g. 1-20)")

// TestVerifySeeds: every bug of the generated apps fires on the buggy
// build and none on the fixed build, which stays clean
// (go test ./internal/testapps/bugfarm/drive -run TestVerifySeeds -bugfarm.seeds 1-20).
func TestVerifySeeds(t *testing.T) {
	seeds, err := ParseSeeds(*seedsFlag)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(len(seeds))*4*time.Minute)
	defer cancel()
	var progress bytes.Buffer
	rep, err := New(Options{Progress: &progress}).Verify(ctx, testBrowser, seeds, 4)
	require.NoError(t, err)
	t.Logf("%s%s", progress.String(), rep.Total())
	require.NotEmpty(t, rep.Results)
	perSeed := map[int64]int{}
	for _, r := range rep.Results {
		perSeed[r.Seed]++
		assert.True(t, r.OK, "%s", r.Line())
	}
	for _, s := range seeds {
		assert.GreaterOrEqual(t, perSeed[s], 10, "seed %d has 10-20 bugs", s)
		assert.LessOrEqual(t, perSeed[s], 20, "seed %d has 10-20 bugs", s)
	}
	assert.Zero(t, rep.Failed)
}

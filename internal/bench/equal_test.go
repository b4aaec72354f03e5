package bench

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameFinalState checks that every implementation computes the same final
// state for every shape, so the benchmarks compare equal work.
func TestSameFinalState(t *testing.T) {
	ctx := context.Background()
	inputs := map[string]State{
		"empty":  {},
		"seeded": {Count: 0, Log: []string{"seed"}},
	}
	for _, s := range Shapes {
		for inName, in := range inputs {
			want, err := Reference(s, in)
			require.NoError(t, err)
			for _, im := range impls {
				t.Run(string(s)+"/"+inName+"/"+im.Name, func(t *testing.T) {
					run, err := im.Build(ctx, s)
					require.NoError(t, err)
					for range 2 { // a compiled graph is reusable
						got, err := run(ctx, in)
						require.NoError(t, err)
						assert.Equal(t, want, got)
					}
				})
			}
		}
	}
}

// TestReferenceShapes pins the reference final states, so that every
// implementation is checked against the intended work and not only against
// one another.
func TestReferenceShapes(t *testing.T) {
	tests := []struct {
		shape     Shape
		wantCount int
		wantLog   []string
	}{
		{Chain, ChainLen, ChainNodes},
		{FanOut, FanWidth + 2, append(append([]string{FanNode}, FanWorkers...), JoinNode)},
		{Loop, LoopIters, repeat(LoopNode, LoopIters)},
	}
	for _, tt := range tests {
		t.Run(string(tt.shape), func(t *testing.T) {
			got, err := Reference(tt.shape, State{})
			require.NoError(t, err)
			assert.Equal(t, tt.wantCount, got.Count)
			assert.Equal(t, tt.wantLog, got.Log)
		})
	}
	_, err := Reference("nope", State{})
	assert.Error(t, err)
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

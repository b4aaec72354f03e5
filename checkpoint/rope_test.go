package checkpoint

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRopeMatchesBytes extends ropes at random (appends after all but a
// few bytes, forks from older ropes, cuts deep into the buffer, keeps
// past the shared buffer) and checks every rope against plain bytes.
func TestRopeMatchesBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type pair struct {
		rope *rope
		want []byte
	}
	all := []pair{{newRope([]byte("[1,2,3]"), nil), []byte("[1,2,3]")}}
	for range 3000 {
		from := all[len(all)-1]
		if r.IntN(5) == 0 {
			from = all[r.IntN(len(all))]
		}
		n := len(from.want)
		keep := n - 1
		switch r.IntN(6) {
		case 0:
			keep = r.IntN(n + 1)
		case 1:
			keep = n
		case 2:
			keep = max(0, n-r.IntN(40))
		}
		tail := make([]byte, r.IntN(50))
		for i := range tail {
			tail[i] = byte('a' + r.IntN(26))
		}
		got, ok := from.rope.extend(keep, tail)
		require.True(t, ok)
		want := append(append([]byte(nil), from.want[:keep]...), tail...)
		for i := range tail {
			tail[i] = '!' // the rope keeps its own copy
		}
		require.Equal(t, string(want), string(got.bytes()))
		require.Equal(t, len(want), got.len())
		all = append(all, pair{got, want})
	}
	for i, p := range all {
		require.Equal(t, string(p.want), string(p.rope.bytes()), "rope %d", i)
	}
	_, ok := all[0].rope.extend(8, nil)
	require.False(t, ok, "keep beyond the value")
	_, ok = all[0].rope.extend(-1, nil)
	require.False(t, ok, "negative keep")
	empty := newRope(nil, nil)
	require.Equal(t, 0, empty.len())
	got, ok := empty.extend(0, []byte("x"))
	require.True(t, ok)
	require.Equal(t, "x", string(got.bytes()))
}

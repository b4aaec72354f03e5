// Package bytesx holds byte-slice helpers shared by the graph engine and
// the checkpoint back-ends (stdlib only, so any package may import it).
package bytesx

import "bytes"

// CommonPrefix returns the length of the longest common prefix of a and b.
func CommonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	const block = 4096 // bytes.Equal is vectorised; find the first differing block
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

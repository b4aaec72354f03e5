// Package pullreqtest makes unified diffs of a chosen size for the tests
// of pull-request fetching, cutting and planning.
package pullreqtest

import (
	"fmt"
	"strings"
)

// FileDiff is a diff of one file whose single hunk adds lines until the
// diff is at least n bytes long.
func FileDiff(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,1 +1,1 @@\n", name, name, name, name)
	for b.Len() < n {
		fmt.Fprintf(&b, "+line %d of %s\n", b.Len(), name)
	}
	return b.String()
}

// HunkDiff is a diff of one file that changes n lines, three to a hunk,
// each hunk with its context and a function header, as git writes them.
func HunkDiff(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 83db48f..bf269f4 100644\n--- a/%s\n+++ b/%s\n", name, name, name, name)
	for h := 0; h < n; h += 3 {
		fmt.Fprintf(&b, "@@ -%d,7 +%d,7 @@ func area%d() {\n", 10*h+1, 10*h+1, h)
		fmt.Fprintf(&b, " \tcontext before %d in %s\n \tmore context\n", h, name)
		for k := h; k < min(h+3, n); k++ {
			fmt.Fprintf(&b, "-\told line %d of %s\n+\tnew line %d of %s\n", k, name, k, name)
		}
		fmt.Fprintf(&b, " \tcontext after %d\n", h)
	}
	return b.String()
}

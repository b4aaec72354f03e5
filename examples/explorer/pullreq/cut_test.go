package pullreq

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/examples/explorer/internal/xerr"
	"github.com/agentgraph/agentgraph/examples/explorer/pullreq/pullreqtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePRURL(t *testing.T) {
	good := []struct {
		in   string
		want Ref
	}{
		{"https://github.com/agentgraph/agentgraph/pull/7", Ref{"agentgraph", "agentgraph", 7}},
		{"https://github.com/o/r.go/pull/123/files", Ref{"o", "r.go", 123}},
		{"https://www.github.com/o/r/pull/1#discussion_r1", Ref{"o", "r", 1}},
		{"  https://github.com/o/r/pull/9/  ", Ref{"o", "r", 9}},
	}
	for _, tc := range good {
		got, err := ParseURL(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got)
	}
	assert.Equal(t, "https://github.com/o/r/pull/9", Ref{"o", "r", 9}.URL())
	bad := []struct{ in, why string }{
		{"", "not an http(s) URL"},
		{"github.com/o/r/pull/7", "not an http(s) URL"},
		{"https://gitlab.com/o/r/pull/7", "is not github.com"},
		{"https://github.com/o/r/issues/7", "not a pull request path"},
		{"https://github.com/o/r/pull", "not a pull request path"},
		{"https://github.com/o/r/pull/x", `"x" is not a positive integer`},
		{"https://github.com/o/r/pull/0", "not a positive integer"},
		{"https://github.com/o/r/pull/7/merge/now", "unexpected path"},
		{"https://github.com/o%20x/r/pull/7", "bad owner"},
	}
	for _, tc := range bad {
		_, err := ParseURL(tc.in)
		require.Error(t, err, tc.in)
		assert.ErrorIs(t, err, xerr.ErrUsage)
		assert.Contains(t, err.Error(), tc.why, tc.in)
		assert.Contains(t, err.Error(), "want https://github.com/OWNER/REPO/pull/N")
	}
}

func TestPRCut(t *testing.T) {
	b := DefaultBudget()
	require.Equal(t, Budget{Body: 8 << 10, Diff: 40 << 10, Files: 80}, b)

	t.Run("within budget: untouched", func(t *testing.T) {
		pr := PR{Title: "t", Body: "small", Files: []File{{Path: "a.go"}}, Diff: pullreqtest.FileDiff("a.go", 500)}
		got := pr.Cut(b)
		assert.Equal(t, pr.Body, got.Body)
		assert.Equal(t, pr.Diff, got.Diff)
		assert.Empty(t, got.Cuts)
		assert.Equal(t, 1, got.TotalFiles)
	})
	t.Run("50 KB body", func(t *testing.T) {
		body := strings.Repeat("é", 25<<10) // 2-byte runes: a cut must not split one
		got := PR{Body: body}.Cut(b)
		assert.LessOrEqual(t, len(got.Body), b.Body)
		assert.Greater(t, len(got.Body), b.Body-100, "the budget is used")
		assert.Contains(t, got.Body, "[… description cut:")
		assert.True(t, strings.HasPrefix(body, strings.Split(got.Body, "\n[…")[0]))
		assert.True(t, utf8.ValidString(got.Body), "valid UTF-8")
		require.Len(t, got.Cuts, 1)
		assert.Contains(t, got.Cuts[0], "description")
	})
	t.Run("200 files", func(t *testing.T) {
		var files []File
		for i := range 200 {
			files = append(files, File{Path: fmt.Sprintf("f%03d.go", i), Additions: 1})
		}
		got := PR{Files: files}.Cut(b)
		assert.Len(t, got.Files, 80)
		assert.Equal(t, "f079.go", got.Files[79].Path, "the first 80 in order")
		assert.Equal(t, 200, got.TotalFiles)
		assert.Contains(t, got.Cuts, "files: 80 of 200 listed")
	})
	t.Run("huge diff: fair per-file share", func(t *testing.T) {
		small1, small2 := pullreqtest.FileDiff("web/a.go", 2000), pullreqtest.FileDiff("web/b.go", 3000)
		huge := pullreqtest.FileDiff("web/huge.go", 300<<10)
		mid := pullreqtest.FileDiff("web/mid.go", 30<<10)
		diff := small1 + huge + small2 + mid
		got := PR{Diff: diff}.Cut(b)
		assert.LessOrEqual(t, len(got.Diff), b.Diff)
		assert.Greater(t, len(got.Diff), b.Diff*9/10, "the budget is used")
		assert.True(t, strings.Contains(got.Diff, small1), "small files whole")
		assert.True(t, strings.Contains(got.Diff, small2), "small files whole")
		secs := SplitDiff(got.Diff)
		require.Len(t, secs, 4, "every file keeps a section, in order")
		assert.True(t, strings.HasPrefix(secs[1], "diff --git a/web/huge.go"))
		assert.True(t, strings.HasPrefix(secs[3], "diff --git a/web/mid.go"))
		for _, i := range []int{1, 3} {
			assert.Contains(t, secs[i], "changed lines]\n", "big files cut with a marker")
			assert.InDelta(t, len(secs[1]), len(secs[3]), 600, "the two big files share equally")
		}
		assert.Contains(t, got.Cuts[0], "diff:")
	})
	t.Run("many files: every header kept, the biggest cut first", func(t *testing.T) {
		var diff strings.Builder
		for i := range 300 {
			diff.WriteString(pullreqtest.FileDiff(fmt.Sprintf("f%03d.go", i), 1000+i))
		}
		got := PR{Diff: diff.String()}.Cut(b)
		assert.LessOrEqual(t, len(got.Diff), b.Diff)
		for i := range 300 {
			assert.Contains(t, got.Diff, fmt.Sprintf("diff --git a/f%03d.go b/f%03d.go\n", i, i))
		}
		assert.Greater(t, len(got.Diff), b.Diff*8/10, "the budget is used")
	})
}

func TestCutDiffEdges(t *testing.T) {
	// headers alone over the budget: compact headers, then a count
	var diff strings.Builder
	for i := range 50 {
		diff.WriteString(pullreqtest.HunkDiff(fmt.Sprintf("a/very/long/path/to/some/deeply/nested/file%03d.go", i), 1))
	}
	got := cutDiff(diff.String(), 1000)
	assert.LessOrEqual(t, len(got), 1000)
	assert.Contains(t, got, "more files left out: their headers alone are over the diff budget]")
	assert.True(t, strings.HasPrefix(got, "diff --git a/a/very/long/path/to/some/deeply/nested/file000.go"))
	// no diff --git at all, binary files, a tiny budget: no panic, within budget
	for _, d := range []string{strings.Repeat("x", 5000), "diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n" + pullreqtest.HunkDiff("b.go", 300)} {
		for _, budget := range []int{0, 1, 10, 100, 1000} {
			out := cutDiff(d, budget)
			assert.LessOrEqual(t, len(out), max(budget, 0))
		}
	}
	bin := cutDiff("diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n"+pullreqtest.HunkDiff("b.go", 300), 2000)
	assert.Contains(t, bin, "Binary files a/i.png and b/i.png differ")
	assert.Contains(t, bin, "diff --git a/b.go b/b.go")
}

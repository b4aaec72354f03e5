package explore

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/discover"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

// The explorer and the personas know nothing of the apps they are measured
// on: no bug id, no marker of a seeded bug, no page of the demo app or of
// a bugfarm app appears in their sources, no mutation id of the real apps'
// benchmark. (The benchmark harnesses, the demo app's scoring and the
// tests may name them; the strategies may not.)
func TestNoAppSpecificStrings(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	dirs := []string{filepath.Join(root, "examples", "explorer"), filepath.Join(root, "personas"), filepath.Join(root, "browser")}
	skip := map[string]bool{
		filepath.Join(root, "examples", "explorer", "bench"):    true, // the benchmark harness scores bugfarm apps
		filepath.Join(root, "examples", "explorer", "realapps"): true, // the real apps' benchmark: their pages, patches and triggers live there
	}
	// Bug-id prefixes and the markers seeded bugs carry.
	patterns := []*regexp.Regexp{
		regexp.MustCompile(`\bbf\d+-\d+`),
		regexp.MustCompile(`BUG-[A-Z0-9]+-`),
		regexp.MustCompile(`(?i)data-bug\b`),
		regexp.MustCompile(`__bfxss`),
		regexp.MustCompile(`(?i)x-bugfarm`),
		regexp.MustCompile(`\bra-[a-z]{2}-\d{2}\b`), // the real apps' mutation ids
	}
	// The demo app's pages and every page of bugfarm seeds 1–40.
	pages := map[string]bool{"/projects": true, "/checkout": true, "/release-notes": true, "/dashboard": true}
	for seed := int64(1); seed <= 40; seed++ {
		for _, p := range bugfarm.Generate(seed, bugfarm.Options{}).Pages {
			if seg := "/" + strings.Split(strings.Trim(p, "/"), "/")[0]; len(seg) > 4 {
				pages[seg] = true
			}
		}
	}
	require.Greater(t, len(pages), 20)
	scanned := 0
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if skip[path] || e.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			scanned++
			src := string(b)
			// The one list of paths the explorer may hold: EntryPaths, the
			// conventional entry paths of web frameworks that discovery
			// tries on every target (a word list, like a forced-browsing
			// tool's). Some are test apps' pages too (sign-in pages share
			// a few names); it is checked on its own below, not by page.
			if i := strings.Index(src, "var EntryPaths = []string{"); i >= 0 && filepath.Base(path) == "entries.go" {
				j := strings.Index(src[i:], "\n}\n")
				require.Positive(t, j, "the EntryPaths block ends")
				src = src[:i] + src[i+j:]
			}
			for _, re := range patterns {
				if m := re.FindString(src); m != "" {
					t.Errorf("%s: %q names a seeded bug", path, m)
				}
			}
			for p := range pages {
				for _, q := range []string{`"` + p + `"`, `"` + p + `/`, `"` + p + `?`} {
					if strings.Contains(src, q) {
						t.Errorf("%s: %s is a page of a test app", path, q)
					}
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	assert.Greater(t, scanned, 40)

	// EntryPaths stays a short list of conventions: one or two path
	// segments of common words, no ids, no query, nothing app-like.
	assert.LessOrEqual(t, len(discover.EntryPaths), 30)
	reConventional := regexp.MustCompile(`^(/[a-z_-]+){1,2}(/|\.html)?$`)
	for _, p := range discover.EntryPaths {
		assert.Regexp(t, reConventional, p)
	}
}

package agentgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The import rules of the module's layout (DESIGN.md's table), checked
// against what `go list -json ./...` says the tree imports:
//   - each package's non-test files import of the module only what its line
//     of layout allows (graph: state and two stdlib-only leaves, bytesx and
//     panicerr; state: nothing; checkpoint and memory:
//     graph; tools: nothing; llm: graph and tools; browser: tools;
//     personas: browser; examples: anything);
//   - state, graph and the root package import only the standard library
//     from outside the module;
//   - nothing outside examples/ imports examples/, test files included;
//   - library code imports the test apps, the fakes and pgtest only from
//     _test.go files.

const modulePath = "github.com/agentgraph/agentgraph"

// rule says what the non-test files of the packages under pkg may import of
// the module. pkg is a directory relative to the module root ("." is the
// root package alone); it covers that package and every package below it
// that no longer pkg of the table names. A package may always import its own
// tree (graph/otelgraph imports graph). may lists the arrows of the layout
// table; the arrows compose, so whatever an arrow's target may import is
// allowed too (llm → graph → state). ground allows the ground helpers.
// "*" allows every package of the module (the global rules still hold).
type rule struct {
	pkg    string
	ground bool
	may    []string
}

// layout is the table: one line a package tree. A new package (say one of
// the explorer's) gets its line here; a package no line covers fails the test.
var layout = []rule{
	{".", false, nil},
	{"state", false, nil},
	{"graph", false, []string{"state", "internal/bytesx", "internal/panicerr"}},
	{"checkpoint", true, []string{"graph"}},
	{"memory", true, []string{"graph"}},
	{"tools", true, []string{"internal/panicerr"}},
	{"llm", true, []string{"graph", "tools"}},
	{"browser", true, []string{"tools"}},
	{"personas", true, []string{"browser"}},
	{"examples", true, []string{"*"}},
	// The explorer's concepts, lowest first: none of them imports the
	// mission loop (explore) or the programs above it.
	{"examples/explorer/internal", false, nil},
	{"examples/explorer/observe", true, nil},
	{"examples/explorer/session", false, nil},
	{"examples/explorer/minimize", true, []string{"browser"}},
	{"examples/explorer/discover", true, nil},
	{"examples/explorer/pullreq", true, []string{"tools", "llm", "examples/explorer/internal", "examples/explorer/mission"}},
	{"examples/explorer/findings", true, []string{"browser", "memory", "personas"}},
	{"examples/explorer/mission", true, []string{"personas", "examples/explorer/internal"}},
	{"examples/explorer/report", true, []string{"examples/explorer/findings", "examples/explorer/mission", "llm"}},
	{"examples/explorer/explore", true, []string{"checkpoint", "llm", "tools", "examples/explorer/findings", "examples/explorer/mission",
		"examples/explorer/report", "examples/explorer/session", "examples/explorer/minimize", "examples/explorer/pullreq",
		"examples/explorer/observe", "examples/explorer/discover"}},
	// Leaves graph and tools share: the standard library only.
	{"internal/bytesx", false, nil},
	{"internal/panicerr", false, nil},
	{"internal/urlx", false, nil},
	{"internal/clip", false, nil},
	{"internal/pgmigrate", false, nil},
	{"internal/loopback", false, nil},
	{"internal/safefile", false, nil},
	{"internal/pgtest", false, nil},
	{"internal/fakes", false, nil},
	{"internal/testapps", true, []string{"browser"}},
}

// ground are the helpers under internal/ that every rule with ground set
// may import: code that sits below everything else.
var ground = []string{"internal/urlx", "internal/clip", "internal/pgmigrate", "internal/loopback", "internal/safefile"}

// stdlibOnly are packages (exactly these, not their trees) that import
// nothing outside the standard library but the module packages their rule
// allows.
var stdlibOnly = []string{".", "state", "graph"}

// aboveLibrary are the trees that are not library code: example programs and
// the test apps.
var aboveLibrary = []string{"examples", "internal/testapps"}

// testOnly are trees that library packages import only from _test.go files
// (examples and the test apps may import them anywhere).
var testOnly = []string{"internal/testapps", "internal/fakes", "internal/pgtest"}

// pkgInfo is what the rules read of `go list -json`.
type pkgInfo struct {
	ImportPath, Dir                              string
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
	Imports, TestImports, XTestImports           []string
}

func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	require.NotEmpty(t, pkgs)
	if v := checkImports(pkgs, layout); len(v) > 0 {
		t.Errorf("%d imports break the layout's rules (the table is layout in layout_test.go):\n%s", len(v), strings.Join(v, "\n"))
	}
}

// TestImportRulesCatch shows the checker finds each kind of violation.
func TestImportRulesCatch(t *testing.T) {
	m := func(rel string) string { return modulePath + "/" + rel }
	pkgs := []pkgInfo{
		{ImportPath: m("graph"), Imports: []string{"context", m("state"), m("browser"), "github.com/x/y"}},
		{ImportPath: m("graph/otelgraph"), Imports: []string{m("graph"), "go.opentelemetry.io/otel"}},
		{ImportPath: m("state"), Imports: []string{m("internal/urlx")}},
		{ImportPath: m("llm"), Imports: []string{m("graph"), m("state"), m("tools"), m("internal/clip")}, TestImports: []string{m("internal/fakes/llmfake"), m("checkpoint")}},
		{ImportPath: m("personas"), Imports: []string{m("browser/collector"), m("tools"), m("llm")}, XTestImports: []string{m("internal/testapps/demoapp")}},
		{ImportPath: m("browser"), Imports: []string{m("internal/testapps/demoapp")}, TestImports: []string{m("examples/explorer/explore")}},
		{ImportPath: m("examples/explorer"), Imports: []string{m("internal/testapps/demoapp"), m("personas"), m("internal/fakes/llmfake")}},
		{ImportPath: m("internal/testapps/demoapp"), Imports: []string{m("internal/loopback"), m("examples/explorer/explore")}},
		{ImportPath: m("nowhere")},
	}
	got := checkImports(pkgs, layout)
	assert.ElementsMatch(t, []string{
		"graph imports browser: graph may import internal/bytesx, internal/panicerr, state",
		"graph imports github.com/x/y: graph imports the standard library only",
		"state imports internal/urlx: state may import nothing of the module",
		"personas imports llm: personas may import browser, internal/panicerr, tools, ground helpers",
		"browser imports internal/testapps/demoapp: browser may import internal/panicerr, tools, ground helpers",
		"browser imports internal/testapps/demoapp: library code imports internal/testapps only from _test.go files",
		"browser (test) imports examples/explorer/explore: nothing outside examples/ imports examples/",
		"internal/testapps/demoapp imports examples/explorer/explore: internal/testapps may import browser, internal/panicerr, tools, ground helpers",
		"internal/testapps/demoapp imports examples/explorer/explore: nothing outside examples/ imports examples/",
		"nowhere: no rule in layout covers this package; add a line",
	}, got)
}

// checkImports returns the violations of the rules, sorted.
func checkImports(pkgs []pkgInfo, table []rule) []string {
	byPkg := map[string]rule{}
	for _, r := range table {
		byPkg[r.pkg] = r
	}
	var out []string
	for _, p := range pkgs {
		rel, ok := relPath(p.ImportPath)
		if !ok {
			continue
		}
		r, ok := ruleFor(rel, table)
		if !ok {
			out = append(out, rel+": no rule in layout covers this package; add a line")
			continue
		}
		allowed, all := closure(r, byPkg)
		library := !underAny(rel, aboveLibrary) && !underAny(rel, testOnly)
		for _, imp := range p.Imports {
			irel, mine := relPath(imp)
			if !mine {
				if slices.Contains(stdlibOnly, rel) && !isStd(imp) {
					out = append(out, fmt.Sprintf("%s imports %s: %s imports the standard library only", rel, imp, rel))
				}
				continue
			}
			if !all && !under(irel, r.pkg) && !underAny(irel, allowed) && !(r.ground && underAny(irel, ground)) {
				out = append(out, fmt.Sprintf("%s imports %s: %s may import %s", rel, irel, r.pkg, describe(allowed, r.ground)))
			}
			if library {
				for _, to := range testOnly {
					if under(irel, to) {
						out = append(out, fmt.Sprintf("%s imports %s: library code imports %s only from _test.go files", rel, irel, to))
					}
				}
			}
		}
		if under(rel, "examples") {
			continue
		}
		for kind, imps := range map[string][]string{"": p.Imports, " (test)": slices.Concat(p.TestImports, p.XTestImports)} {
			for _, imp := range imps {
				if irel, mine := relPath(imp); mine && under(irel, "examples") {
					out = append(out, fmt.Sprintf("%s%s imports %s: nothing outside examples/ imports examples/", rel, kind, irel))
				}
			}
		}
	}
	out = slices.Compact(sortStrings(out))
	return out
}

// ruleFor is the rule of the longest pkg covering rel.
func ruleFor(rel string, table []rule) (rule, bool) {
	best, found := rule{}, false
	for _, r := range table {
		if under(rel, r.pkg) && (!found || len(r.pkg) > len(best.pkg)) {
			best, found = r, true
		}
	}
	return best, found
}

// closure is every tree r may import, following the arrows; all reports "*".
func closure(r rule, byPkg map[string]rule) (trees []string, all bool) {
	seen := map[string]bool{}
	var walk func(rule)
	walk = func(r rule) {
		for _, m := range r.may {
			if m == "*" {
				all = true
				continue
			}
			if seen[m] {
				continue
			}
			seen[m] = true
			trees = append(trees, m)
			walk(byPkg[m])
		}
	}
	walk(r)
	return sortStrings(trees), all
}

func describe(trees []string, ground bool) string {
	parts := slices.Clone(trees)
	if ground {
		parts = append(parts, "ground helpers")
	}
	if len(parts) == 0 {
		return "nothing of the module"
	}
	return strings.Join(parts, ", ")
}

// relPath is an import path relative to the module ("." for the root).
func relPath(imp string) (string, bool) {
	if imp == modulePath {
		return ".", true
	}
	rel, ok := strings.CutPrefix(imp, modulePath+"/")
	return rel, ok
}

// under says whether rel is the package tree or below it ("." is the root
// package alone).
func under(rel, tree string) bool {
	if tree == "." {
		return rel == "."
	}
	return rel == tree || strings.HasPrefix(rel, tree+"/")
}

func underAny(rel string, trees []string) bool {
	return slices.ContainsFunc(trees, func(tree string) bool { return under(rel, tree) })
}

// isStd says whether an import path is the standard library's (no dot in
// its first element).
func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

func sortStrings(s []string) []string {
	sort.Strings(s)
	return s
}

// listPackages runs `go list -json ./...` from the module root (the test's
// directory).
func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Imports,TestImports,XTestImports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	var pkgs []pkgInfo
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		var p pkgInfo
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	noteInputs(t, pkgs)
	return pkgs
}

// noteInputs opens every directory of the module and stats every Go file of
// the packages, so that `go test`'s cache, which sees the files a test opens
// but not those `go list` reads, reruns the test when an import changes or a
// package appears.
func noteInputs(t *testing.T, pkgs []pkgInfo) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		return nil
	})
	require.NoError(t, err)
	for _, p := range pkgs {
		for _, f := range slices.Concat(p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles) {
			_, err := os.Stat(filepath.Join(p.Dir, f))
			require.NoError(t, err)
		}
	}
}

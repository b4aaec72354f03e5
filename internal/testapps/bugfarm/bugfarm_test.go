package bugfarm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const seeds = 20

func TestFindIDs(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"none", "TypeError: x is undefined", nil},
		{"one in brackets", "TypeError: Cannot read properties of undefined (reading 'unit') [bf7-03]", []string{"bf7-03"}},
		{"case-insensitive, lowercased", "X-Bugfarm-Bug: BF12-04", []string{"bf12-04"}},
		{"each once, in order", "bf3-02 then bf3-01, again bf3-02", []string{"bf3-02", "bf3-01"}},
		{"in a path", "GET /help/archive/bf9-11 404", []string{"bf9-11"}},
		{"in an attribute", `<td data-bug="bf4-07">`, []string{"bf4-07"}},
		{"bf1-03 is not inside bf11-03", "bf11-03", []string{"bf11-03"}},
		{"no letter before", "xbf1-03 abf2-04", nil},
		{"no digit after the number", "bf1-03x", nil},
		{"one digit is no id", "bf1-3", nil},
		{"three digits", "bf2-103.", []string{"bf2-103"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, FindIDs(tt.text))
		})
	}
}

// fetchAll returns every page of an app, signed in, keyed by path.
func fetchAll(t *testing.T, seed int64, opts Options) map[string]string {
	t.Helper()
	s := serve(t, seed, opts)
	s.signIn(t)
	out := map[string]string{}
	for _, p := range s.app.Pages {
		r := s.get(t, p)
		out[p] = fmt.Sprint(r.status) + "\n" + r.body
	}
	return out
}

func TestSameSeedSameBytes(t *testing.T) {
	for _, seed := range []int64{1, 2, 7, 16} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			a, b := Generate(seed, Options{}), Generate(seed, Options{})
			ja, err := json.Marshal(a.All)
			require.NoError(t, err)
			jb, err := json.Marshal(b.All)
			require.NoError(t, err)
			assert.Equal(t, string(ja), string(jb))
			assert.Equal(t, a.Idioms, b.Idioms)
			assert.Equal(t, a.Pages, b.Pages)
			pa, pb := fetchAll(t, seed, Options{}), fetchAll(t, seed, Options{})
			require.Len(t, pa, len(a.Pages))
			for p := range pa {
				assert.Equal(t, pa[p], pb[p], "page %s", p)
			}
		})
	}
}

func TestSeedsDiffer(t *testing.T) {
	idiomSets, pageSets, names := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for seed := int64(1); seed <= seeds; seed++ {
		a := Generate(seed, Options{})
		var ids []string
		for _, i := range a.Idioms {
			ids = append(ids, string(i))
		}
		idiomSets[strings.Join(ids, ",")] = true
		pageSets[strings.Join(a.Pages, ",")] = true
		names[a.site.product+a.site.coll] = true
	}
	assert.GreaterOrEqual(t, len(idiomSets), 18, "distinct idiom sets over %d seeds", seeds)
	assert.GreaterOrEqual(t, len(pageSets), 18, "distinct page sets over %d seeds", seeds)
	assert.GreaterOrEqual(t, len(names), 15, "distinct product and collection names")
}

func TestIdiomDiversity(t *testing.T) {
	count := map[Idiom]int{}
	for seed := int64(1); seed <= seeds; seed++ {
		a := Generate(seed, Options{})
		for _, i := range a.Idioms {
			count[i]++
		}
		assert.True(t, len(a.Pages) >= 5 && len(a.Pages) <= 15, "seed %d has %d pages", seed, len(a.Pages))
	}
	for _, i := range allIdioms() {
		t.Logf("%-24s %2d/%d", i, count[i], seeds)
	}
	for _, i := range []Idiom{IdiomControls, IdiomClientRouter, IdiomShadowDOM, IdiomIframe, IdiomHoverReveal, IdiomSignIn, IdiomMultiStep} {
		assert.GreaterOrEqual(t, count[i], 5, "idiom %s", i)
		assert.Less(t, count[i], seeds, "idiom %s is optional", i)
	}
	for _, i := range allIdioms() {
		assert.Positive(t, count[i], "idiom %s never drawn", i)
	}
}

var idFormat = regexp.MustCompile(`^bf\d+-\d{2}$`)

func TestBugCatalogue(t *testing.T) {
	apps := map[Class]int{}
	inputs := map[Input]int{}
	for seed := int64(1); seed <= seeds; seed++ {
		a := Generate(seed, Options{})
		require.Equal(t, a.All, a.Bugs, "every bug on by default")
		assert.True(t, len(a.Bugs) >= 10 && len(a.Bugs) <= 20, "seed %d has %d bugs", seed, len(a.Bugs))
		seen := map[Class]bool{}
		var all strings.Builder
		for i, b := range a.Bugs {
			assert.Regexp(t, idFormat, b.ID)
			assert.Equal(t, fmt.Sprintf("bf%d-%02d", seed, i+1), b.ID)
			assert.Contains(t, catalogue(), b.Class)
			require.NotEmpty(t, b.Trigger, b.ID)
			assert.Equal(t, OpGoto, b.Trigger[0].Op, b.ID)
			assert.NotEmpty(t, b.Expect.Signal, b.ID)
			assert.NotEmpty(t, b.What, b.ID)
			assert.NotEmpty(t, b.Page, b.ID)
			assert.Positive(t, b.Depth, b.ID)
			if a.SignIn != nil {
				assert.Equal(t, "/signin", b.Trigger[0].Path, "%s signs in first", b.ID)
			}
			if b.Class == ClassDeep {
				assert.GreaterOrEqual(t, b.Depth, 3, b.ID)
			}
			if b.Class == ClassServerError {
				assert.NotEmpty(t, b.Input, b.ID)
				inputs[b.Input]++
			} else {
				assert.Empty(t, b.Input, b.ID)
			}
			switch b.Expect.Signal {
			case SignalResponse:
				assert.Contains(t, []int{404, 500}, b.Expect.Status, b.ID)
			case SignalAxe:
				assert.NotEmpty(t, b.Expect.Rule, b.ID)
			case SignalDOM, SignalDead:
				assert.NotEmpty(t, b.Expect.Selector, b.ID)
			}
			seen[b.Class] = true
			all.WriteString(b.ID + " ")
		}
		var ids []string
		for _, b := range a.Bugs {
			ids = append(ids, b.ID)
		}
		assert.Equal(t, ids, FindIDs(all.String()), "ids unique and found")
		for c := range seen {
			apps[c]++
		}
	}
	for _, c := range catalogue() {
		t.Logf("%-20s in %2d/%d apps", c, apps[c], seeds)
		assert.GreaterOrEqual(t, apps[c], 2, "class %s", c)
	}
	for _, in := range []Input{InputQuote, InputNegative, InputZero, InputOutOfRange, InputEmpty, InputLong, InputNonLatin1} {
		t.Logf("server_error %-15s %d", in, inputs[in])
		assert.Positive(t, inputs[in], "input class %s", in)
	}
}

func TestFixedAndDisabled(t *testing.T) {
	a := Generate(5, Options{Fixed: true})
	assert.Empty(t, a.Bugs)
	assert.Len(t, a.All, len(Generate(5, Options{}).All))
	off := a.All[0].ID
	d := Generate(5, Options{Disabled: []string{off}})
	assert.Len(t, d.Bugs, len(a.All)-1)
	assert.False(t, slices.ContainsFunc(d.Bugs, func(b Bug) bool { return b.ID == off }))
	assert.Equal(t, d.Bugs, Generate(5, Options{Disabled: []string{" " + strings.ToUpper(off)}}).Bugs, "ids match case-insensitively")
	// the same pages and triggers in every build
	assert.Equal(t, Generate(5, Options{}).All, a.All)
	assert.Equal(t, Generate(5, Options{}).Pages, a.Pages)
}

func TestFixedCrawl(t *testing.T) {
	for seed := int64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			s := serve(t, seed, Options{Fixed: true})
			s.signIn(t)
			visited := crawl(t, s, func(path string, r resp) {
				assert.True(t, r.status >= 200 && r.status < 300, "%s answered %d", path, r.status)
				assert.Empty(t, FindIDs(r.body), "%s mentions a bug id", path)
				assert.Empty(t, r.header.Get(BugHeader), path)
			})
			for _, p := range s.app.Pages {
				assert.True(t, visited[p], "page %s not reached by links", p)
			}
		})
	}
}

var linkRE = regexp.MustCompile(`(?:href|src)="(/[^"]*)"`)

// crawl follows every same-origin link and iframe from "/" and the app's
// pages, calling check on each answer; it returns the paths visited.
func crawl(t *testing.T, s *served, check func(string, resp)) map[string]bool {
	t.Helper()
	visited := map[string]bool{}
	queue := slices.Clone(s.app.Pages)
	for len(queue) > 0 && len(visited) < 400 {
		p := queue[0]
		queue = queue[1:]
		if visited[p] {
			continue
		}
		visited[p] = true
		r := s.get(t, p)
		check(p, r)
		for _, m := range linkRE.FindAllStringSubmatch(r.body, -1) {
			u := strings.ReplaceAll(m[1], "&amp;", "&")
			if i := strings.IndexByte(u, '#'); i >= 0 {
				u = u[:i]
			}
			if u != "" && !strings.HasPrefix(u, "//") && !visited[u] {
				queue = append(queue, u)
			}
		}
	}
	return visited
}

package explore

import (
	"math/rand/v2"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// coverage is what the team shares within a mission: the pages seen and
// visited, where sign-in happened, the session generation.
type coverage struct {
	visited map[string]bool // path?query
	// visitedOrder is visited's pages in visiting order.
	visitedOrder []string
	visitedT     map[string]int // visits per page template (see templateOf)
	frontier     []string       // link targets seen, in discovery order
	entries      []string       // pages found outside the links (discoverEntries), after the frontier
	known        map[string]bool
	seenOn       map[string]string // link target -> the page it was first seen on
	forms        []string          // pages with form fields, in discovery order
	formSig      map[string]string // page -> its form signature
	// multiField holds the pages of forms with two fields or more in the
	// main content: the catalogue's forms (formClass).
	multiField map[string]bool
	// loneNumber holds the pages whose main content has a number field
	// alone (a quantity sent by its own button): the catalogue plays its
	// boundaries there too.
	loneNumber map[string]bool
	signin     string          // URL of the sign-in page
	lastRows   map[string]bool // list pages whose last row was opened
	lastPages  map[string]bool // pages opened as a list's last page (lastPage)
	// seenAt is the step of the latest look at each page (path?query);
	// destroyedAt the step of the latest action on a control named to
	// delete (see gone).
	seenAt      map[string]int
	destroyedAt int
	// lost holds the pages found gone (lose): a later look at their 404
	// does not make them seen again.
	lost       map[string]bool
	catalogued map[string]int // form page -> the catalogue's submissions there
	// catSteps counts the mission's steps spent on the catalogue (its
	// submissions and the trips back to its forms); catTrips marks the
	// trips taken for its share (catalogueDue), one per form and count of
	// submissions there. (A form whose catalogue looked done once is not
	// marked so: a form sent back shows a state whose classes may all
	// have been played, while the form's own have not; a trip that finds
	// nothing burns its count's key, and no other trip follows.)
	catSteps int
	catTrips map[string]bool
	// buttonPages are pages with buttons of their own (noteButtons).
	buttonPages []string
	gen         int // bumped when the session is dropped
	dropped     bool
	priority    []string     // high-risk pages from memory
	tags        map[int]bool // numbers the mission's free text carried (tag)
}

func newCoverage() *coverage {
	return &coverage{visited: map[string]bool{}, visitedT: map[string]int{}, known: map[string]bool{}, formSig: map[string]string{},
		multiField: map[string]bool{}, loneNumber: map[string]bool{}, lastPages: map[string]bool{}, lastRows: map[string]bool{}, seenAt: map[string]int{}, catalogued: map[string]int{}, seenOn: map[string]string{},
		catTrips: map[string]bool{}}
}

// tag is a number for free text that no earlier value of the mission
// carried: drawn by r from 10–999, then from wider ranges once that one
// fills up. A nil coverage only draws.
func (c *coverage) tag(r *rand.Rand) int {
	if c == nil {
		return 10 + r.IntN(990)
	}
	if c.tags == nil {
		c.tags = map[int]bool{}
	}
	return personas.DrawTag(r, c.tags)
}

func (c *coverage) see(link, on string) {
	if link == "" || c.known[link] {
		return
	}
	if on != "" {
		c.seenOn[link] = on
	}
	c.known[link] = true
	c.frontier = append(c.frontier, link)
}

// noteForm remembers a page with form fields, once per form signature.
func (c *coverage) noteForm(v *view) {
	if (!personas.HasFields(v.Els) && !personas.HasRole(v.Els, "radio")) || personas.HasPassword(v.Els) || strings.Contains(v.URL, collector.Prefix) {
		return
	}
	sig := formSig(v)
	if !slices.ContainsFunc(c.forms, func(f string) bool { return c.formSig[f] == sig }) {
		c.forms = append(c.forms, urlx.Path(v.URL))
		c.formSig[urlx.Path(v.URL)] = sig
	}
	for i, e := range v.Els {
		if !e.Fillable() || !e.InMain {
			continue
		}
		if personas.FormFields(v.Els, i) >= 2 {
			c.multiField[urlx.Path(v.URL)] = true
			break
		}
		if numberField(e) {
			c.loneNumber[urlx.Path(v.URL)] = true
		}
	}
}

// numberField: e is a field for a number (input type=number).
func numberField(e personas.Element) bool {
	return personas.FieldOf(e, nil).Kind == personas.FieldNumber
}

// maxButtonPages bounds coverage.buttonPages.
const maxButtonPages = 8

// noteButtons remembers a page whose main content has a button of its own
// (pageButtons), once per page template.
func (c *coverage) noteButtons(v *view) {
	here := urlx.PathQuery(v.URL)
	if len(c.buttonPages) >= maxButtonPages || strings.HasPrefix(here, collector.Prefix) || personas.HasPassword(v.Els) {
		return
	}
	if len(personas.PageButtons(v.Els, 1)) == 0 {
		return
	}
	t := pageTemplate(here)
	if !slices.ContainsFunc(c.buttonPages, func(p string) bool { return pageTemplate(p) == t }) {
		c.buttonPages = append(c.buttonPages, here)
	}
}

// visit counts a visit of the page l (path?query).
func (c *coverage) visit(l string) bool {
	if c.visited[l] {
		return false
	}
	c.visited[l] = true
	c.visitedOrder = append(c.visitedOrder, l)
	c.visitedT[pageTemplate(l)]++
	return true
}

// explored says whether l, or enough pages of its template, were visited:
// two project pages tell as much as twenty.
func (c *coverage) explored(l string) bool {
	return c.visited[l] || c.visitedT[pageTemplate(l)] >= 2
}

// way is how to reach the unvisited page l: the page its link was seen on
// (its link is then followed, as a user would, and a spec replays the
// click, not a typed address), or l itself.
func (c *coverage) way(l, here string) string {
	if from := c.seenOn[l]; from != "" && from != here && !strings.HasPrefix(from, collector.Prefix) {
		return from
	}
	return l
}

// nextUnvisited returns the first priority, frontier or entry page not
// explored yet.
func (c *coverage) nextUnvisited() (string, bool) {
	for _, l := range slices.Concat(c.priority, c.frontier, c.entries) {
		if !c.explored(l) {
			return l, true
		}
	}
	return "", false
}

// takes: trick t has something to do on form page f. A one-field form
// (a search, a note) has no catalogue (formClass), unless its field takes
// a number, and no double submit (a search sent twice changes nothing).
func (c *coverage) takes(t Trick, f string) bool {
	switch t {
	case TrickCatalogue:
		return c.multiField[f] || c.loneNumber[f]
	case TrickDouble:
		return c.multiField[f]
	}
	return true
}

// reDestroy names a control that deletes what it stands for.
var reDestroy = regexp.MustCompile(`(?i)\b(delete|remove|destroy|archive|discard|erase|trash)\b`)

// gone reports whether page (path?query) answered when the team looked at
// it and a control named to delete was used since: a 404 there now is
// what the mission did (the record it deleted), not a broken link.
func (c *coverage) gone(page string) bool {
	if c.lost[page] {
		return true
	}
	at, ok := c.seenAt[page]
	return ok && c.destroyedAt > at
}

// lose records that page is gone (its record deleted): it stays gone,
// and the team has no more trips back to it as a form.
func (c *coverage) lose(page string) {
	if c.lost == nil {
		c.lost = map[string]bool{}
	}
	c.lost[page] = true
	if p := urlx.Path(page); urlx.PathQuery(p) == page {
		c.forms = slices.DeleteFunc(c.forms, func(f string) bool { return f == p })
	}
}

// resolveLink turns a link's href into a same-origin path?query, or false
// for other origins, fragments and non-http schemes.
func resolveLink(base, href string) (string, bool) {
	u, ok := urlx.Resolve(base, href)
	if !ok {
		return "", false
	}
	if b, _ := url.Parse(base); u.Path == b.Path && u.RawQuery == b.RawQuery {
		return "", false
	}
	if strings.HasPrefix(u.Path, collector.Prefix) {
		return "", false
	}
	return urlx.PathQuery(u.String()), true
}

var reIDSeg = regexp.MustCompile(`/[0-9]+(/|$)`)

// templateOf names a page's template: numeric path segments become {n}, so
// /projects/7/edit and /projects/8/edit count as one page for the tricks.
func templateOf(path string) string {
	for reIDSeg.MatchString(path) {
		path = reIDSeg.ReplaceAllString(path, "/{n}$1")
	}
	return path
}

// pageTemplate is templateOf the path plus the query's keys: /projects and
// /projects?status=x are different screens, /projects?status=x and
// /projects?status=y are the same one.
func pageTemplate(l string) string {
	u, err := url.Parse(l)
	if err != nil {
		return l
	}
	keys := make([]string, 0, len(u.Query()))
	for k := range u.Query() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return templateOf(u.Path) + "?" + strings.Join(keys, "&")
}

// formSig identifies a form page for the form tricks: its template and the
// names of its fields, so the steps of a wizard differ and the edit pages
// of many records do not.
func formSig(v *view) string {
	return personas.FormSignature(templateOf(urlx.Path(v.URL)), v.Els)
}

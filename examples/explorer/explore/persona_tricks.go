package explore

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// plan returns the next macro of trick t on the page, or nil. The
// persona's tricks are personas' (TrickPlayer, on the team's board); the
// catalogue is the app model's input classes, played by the sweep.
func (m *member) plan(t Trick, v *view) []step {
	if t == TrickCatalogue {
		// Class after class of the input catalogue, each in every
		// field of the form that takes it (the app model's targets),
		// until the form has had its share; the sweep does the rest.
		key := string(t) + ":" + formSig(v)
		if m.tried[key] || !personas.HasFields(v.Els) || personas.HasPassword(v.Els) {
			return nil
		}
		macro, done := v.Sweep.formClass(m, v, catalogueOrder)
		if done {
			m.tried[key] = true
		}
		return macro
	}
	pg := personas.TrickPage{URL: v.URL, Elements: v.Els, Template: templateOf(urlx.Path(v.URL)), Form: formSig(v)}
	return m.steps(m.tricks.Plan(t, pg, teamBoard{m: m, v: v}))
}

// steps turns a trick's moves into the member's steps.
func (m *member) steps(moves []personas.Move) []step {
	if len(moves) == 0 {
		return nil
	}
	out := make([]step, 0, len(moves))
	for _, mv := range moves {
		st := step{in: mv.Intent, why: mv.Why, watch: mv.Watch, lead: mv.Lead}
		if mv.Hold {
			st.before = m.hold
		}
		out = append(out, st)
	}
	return out
}

// teamBoard is the team's side of a member's tricks (personas.Board):
// the mission's coverage and its app model.
type teamBoard struct {
	m *member
	v *view
}

func (b teamBoard) Value(e personas.Element) string { return validFor(e, b.v) }
func (b teamBoard) Tag() int                        { return b.v.Cov.tag(b.v.Rand) }
func (b teamBoard) Played(e personas.Element) bool  { return b.v.Sweep.playedHere(e) }
func (b teamBoard) ListPages() []string             { return listPages(b.v) }

func (b teamBoard) Cover(played map[string][]personas.InputClass) { b.v.Sweep.cover(b.v, played) }

// Session is the mission's session as the drop-session trick sees it. A
// member acting as one of Config.Users started from that account's
// stored session: with no sign-in page met, dropping it would leave the
// team no way back but a password it must not type, so it is kept.
func (b teamBoard) Session() personas.SessionInfo {
	c := b.v.Cov
	start := urlx.PathQuery(b.v.Start)
	var pages []string
	for _, l := range c.visitedOrder {
		// Pages the team can open by address: a link's target, an
		// entry, the start page (not a form's answer to a POST).
		if c.known[l] || l == start || slices.Contains(c.entries, l) {
			pages = append(pages, l)
		}
	}
	return personas.SessionInfo{SignIn: c.signin, Pages: pages, ButtonPages: c.buttonPages,
		Dropped: c.dropped || b.m.acct != nil && c.signin == "", FormsLeft: b.m.pendingForms(c), Spent: b.v.Spent, Start: start, Template: pageTemplate}
}

// DropSession starts the session's next generation: sign-in pages are
// signed in on again.
func (b teamBoard) DropSession() {
	b.v.Cov.dropped = true
	b.v.Cov.gen++
}

// minRows is how many links of one URL template make a list.
const minRows = 3

// lastRow opens the last row of a list at its end: on a page with no next
// page, the last of the in-main links that share a URL template (the rows
// of a list), when no page of it was opened yet. The first rows are what
// the team meets anyway; the oldest record, at the list's end, is the
// other boundary (the data the app was seeded with, made by another
// version of it). On a page with a next page, its list's last page is
// opened first (lastPage), where the last row is. Once per page.
func lastRow(v *view) (step, bool) {
	if v.Cov == nil || v.Cov.lastRows[urlx.PathQuery(v.URL)] {
		return step{}, false
	}
	if hasNextLink(v.Els) {
		v.Cov.lastRows[urlx.PathQuery(v.URL)] = true
		if e, l, ok := lastPage(v); ok && !v.Cov.visited[l] {
			v.Cov.lastPages[l] = true
			return step{in: browser.Click(e.Ref), why: "the list's last page: " + e.Name}, true
		}
		return step{}, false
	}
	rows := map[string][]personas.Element{}
	var order []string
	for _, e := range v.Els {
		if e.Role != "link" || !e.InMain || e.URL == "" {
			continue
		}
		l, ok := resolveLink(v.URL, e.URL)
		if !ok {
			continue
		}
		t := templateOf(urlx.Path(l))
		if !strings.Contains(t, "{n}") {
			continue
		}
		if len(rows[t]) == 0 {
			order = append(order, t)
		}
		rows[t] = append(rows[t], e)
	}
	v.Cov.lastRows[urlx.PathQuery(v.URL)] = true
	least := minRows
	if v.Cov.lastPages[urlx.PathQuery(v.URL)] {
		least = 1 // a list's last page may hold one row
	}
	for _, t := range order {
		rs := rows[t]
		if len(rs) < least {
			continue
		}
		last := rs[len(rs)-1]
		if l, _ := resolveLink(v.URL, last.URL); !v.Cov.visited[l] {
			return step{in: browser.Click(last.Ref), why: "the list's last row: " + last.Name}, true
		}
	}
	return step{}, false
}

// reLastPage names a pager's link to its last page.
var reLastPage = regexp.MustCompile(`(?i)^\s*(last( page)?|»»|⇥)\s*$`)

// lastPage is the link of the page's pager to its list's last page: one
// named so, else the page number link with the highest number, and the
// page (path and query) it opens.
func lastPage(v *view) (personas.Element, string, bool) {
	best, top := -1, 0
	for i, e := range v.Els {
		if e.Role != "link" || e.URL == "" || !e.InMain {
			continue
		}
		name := strings.TrimSpace(e.Name)
		if reLastPage.MatchString(name) {
			best, top = i, math.MaxInt
			break
		}
		if n, err := strconv.Atoi(name); err == nil && n > top && n < 100000 {
			best, top = i, n
		}
	}
	if best < 0 || top < 2 {
		return personas.Element{}, "", false
	}
	l, ok := resolveLink(v.URL, v.Els[best].URL)
	if !ok || l == urlx.PathQuery(v.URL) {
		return personas.Element{}, "", false
	}
	return v.Els[best], l, true
}

// hasNextLink: the page links to a next page of its list.
func hasNextLink(els []personas.Element) bool {
	return slices.ContainsFunc(els, func(e personas.Element) bool { return e.Role == "link" && personas.NextLink(e.Name) })
}

// The input catalogue's share of a mission (catalogueDue). Server faults
// hide behind one input class in one field of a record's form (a zero, a
// quote, a value past a column's width), and each class costs a whole
// submission of the form: left to the order of the tricks and the sweep's
// cheaper one-step targets, the catalogue got a handful of submissions
// per mission. From catalogueFrom of the budget on (discovery first), the
// team keeps at least catalogueShare of its steps on it while record
// forms have classes left.
const (
	catalogueShare = 0.3
	catalogueFrom  = 0.15
	// catalogueSlack is the share's allowance for going on with the next
	// class on a form the last submission was sent back to.
	catalogueSlack = 0.1
)

// catalogueDue is the catalogue's next step when its share is owed: any
// member plays it (the catalogue is a coverage target of the app model,
// whoever takes it), once it has played its own form tricks. On a record
// form with classes left it submits the next class there; elsewhere it
// goes back to the record form the catalogue played least on.
func (m *member) catalogueDue(v *view) (step, bool) {
	c := v.Cov
	here := urlx.Path(v.URL)
	share := catalogueShare
	if m.lastCat && c != nil && c.takes(TrickCatalogue, here) {
		// Its submission was sent back to the form, which is loaded and
		// filled: the next class here costs least now.
		share += catalogueSlack
	}
	if v.Sweep == nil || c == nil || v.Spent < catalogueFrom || float64(c.catSteps) >= share*float64(v.Steps) || m.pendingOwn(c) > 0 ||
		m.lead && !m.leadCat {
		// (A member that just came back to a form for another trick
		// plays that trick there first.)
		return step{}, false
	}
	if c.takes(TrickCatalogue, here) && !personas.HasPassword(v.Els) {
		if macro, _ := v.Sweep.formClass(m, v, catalogueOrder); len(macro) > 0 {
			for i := range macro {
				macro[i].cat = true
			}
			m.q = macro[1:]
			return macro[0], true
		}
	}
	forms := slices.Clone(c.forms)
	slices.SortStableFunc(forms, func(a, b string) int { return c.catalogued[a] - c.catalogued[b] })
	for _, f := range forms {
		k := f + ":" + strconv.Itoa(c.catalogued[f])
		if f == here || !c.takes(TrickCatalogue, f) || c.catTrips[k] {
			continue
		}
		c.catTrips[k] = true
		return step{in: browser.Navigate(f), why: "back to " + f + " for the catalogue's share", lead: true, cat: true}, true
	}
	return step{}, false
}

package explore

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// plan returns the next macro of trick t on the page, or nil.
func (m *member) plan(t Trick, v *view) []step {
	path := templateOf(urlx.Path(v.URL))
	key := string(t) + ":" + formSig(v)
	switch t {
	case TrickClickButtons:
		primary, _ := submitButton(v.Els, 0)
		if submitRank(primary.Name) == len(submitWords) || !sendsForm(v.Els, indexOf(v.Els, primary.Ref)) {
			// Nothing that looks like a submit button, or one with no
			// fields before it (a dialog's "Confirm"): a button to press.
			primary = personas.Element{}
		}
		// A dialog's dismiss button (Cancel, Close) goes after the
		// screen's other buttons: clicked first, it takes the dialog's
		// other buttons away before they were tried.
		var last *personas.Element
		for i, e := range v.Els {
			if e.Role != "button" || !e.InMain || primary.Ref != "" && e.Ref == primary.Ref || m.tried["btn:"+path+":"+e.Name] || e.Has("disabled") || v.Sweep.playedHere(e) {
				continue
			}
			if strings.Contains(strings.ToLower(e.Name), "delete") || strings.Contains(strings.ToLower(e.Name), "sign out") {
				continue
			}
			if dismiss(e.Name) {
				if last == nil {
					last = &v.Els[i]
				}
				continue
			}
			last = &v.Els[i]
			break
		}
		if last != nil {
			m.tried["btn:"+path+":"+last.Name] = true
			return []step{{in: clickRef(last.Ref), why: "try control " + last.Name, watch: 700 * time.Millisecond}}
		}
	case TrickValidForm:
		if m.tried[key] || !hasFields(v.Els) && !hasRole(v.Els, "radio") || hasPassword(v.Els) {
			return nil
		}
		m.tried[key] = true
		return formPlan(v, func(e personas.Element) (string, bool) {
			if e.Value != "" {
				return "", false
			}
			return validFor(e, v), true
		}, false, nil)
	case TrickXSS:
		if m.tried[key] || !hasFields(v.Els) || hasPassword(v.Els) {
			return nil
		}
		m.tried[key] = true
		played := map[string][]personas.InputClass{}
		macro := formPlan(v, func(e personas.Element) (string, bool) {
			if f := personas.FieldOf(e, nil); e.Role == "spinbutton" || f.Kind != personas.FieldText && f.Kind != personas.FieldTextarea && f.Kind != personas.FieldSearch ||
				strings.Contains(strings.ToLower(e.Name), "mail") {
				return validFor(e, v), true
			}
			played[e.Ref] = []personas.InputClass{personas.ClassMarkup}
			return collector.XSSPayload, true
		}, false, nil)
		if len(macro) > 0 {
			v.Sweep.cover(v, played)
		}
		if len(macro) > 0 && !queryForm(v.Els) {
			// Stored payloads show where the app lists what was made (a
			// search's or a filter's query is not stored: it shows, if
			// at all, on the page its submission opens).
			for _, l := range listPages(v) {
				macro = append(macro, step{in: nav(l), why: "see the payload where the app lists it"})
			}
		}
		return macro
	case TrickExotic:
		// Text a plain-text field must take: a name with an apostrophe
		// and letters outside Latin-1 (the catalogue's quotes and
		// non_latin classes in one value). One submission tries every
		// free-text field of the form, where the coverage sweep tries one
		// field per submission; the other fields get valid values.
		if m.tried[key] || !hasFields(v.Els) || hasPassword(v.Els) {
			return nil
		}
		m.tried[key] = true
		played := map[string][]personas.InputClass{}
		macro := formPlan(v, func(e personas.Element) (string, bool) {
			if f := personas.FieldOf(e, nil); e.Role != "spinbutton" && (f.Kind == personas.FieldText || f.Kind == personas.FieldTextarea) && f.Pattern == "" &&
				!strings.Contains(strings.ToLower(e.Name), "mail") {
				// Its apostrophe is one of the quotes class's characters, not
				// all of them: that class keeps its own target.
				played[e.Ref] = []personas.InputClass{personas.ClassNonLatin}
				return exoticText(f, v), true
			}
			if e.Value != "" {
				return "", false
			}
			return validFor(e, v), true
		}, false, nil)
		if len(macro) > 0 {
			v.Sweep.cover(v, played)
		}
		return macro
	case TrickLong:
		if m.tried[key] || !hasFields(v.Els) || hasPassword(v.Els) {
			return nil
		}
		m.tried[key] = true
		long := strings.Repeat("Lorem ipsum dolor sit amet ", 6) // 162 characters
		first := true
		return formPlan(v, func(e personas.Element) (string, bool) {
			if e.Role == "textbox" && first && !strings.Contains(strings.ToLower(e.Name), "mail") {
				first = false
				return long, true
			}
			if e.Value != "" {
				return "", false
			}
			return validFor(e, v), true
		}, false, nil)
	case TrickCatalogue:
		// Class after class of the input catalogue, each in every
		// field of the form that takes it (the app model's targets),
		// until the form has had its share; the sweep does the rest.
		if m.tried[key] || !hasFields(v.Els) || hasPassword(v.Els) {
			return nil
		}
		macro, done := v.Sweep.formClass(m, v, catalogueOrder)
		if done {
			m.tried[key] = true
		}
		return macro
	case TrickDouble:
		// A record's form (two fields or more): a search or a filter
		// sent twice changes nothing.
		if m.tried[key] || !hasFields(v.Els) || hasRole(v.Els, "searchbox") || hasPassword(v.Els) || !recordForm(v.Els) {
			return nil
		}
		m.tried[key] = true
		return formPlan(v, func(e personas.Element) (string, bool) {
			if e.Value != "" {
				return "", false
			}
			return validFor(e, v), true
		}, true, m.hold)
	case TrickSelect:
		for _, e := range sortFirst(v.Els) {
			if e.Role != "combobox" || !e.InMain {
				continue
			}
			if i := indexOf(v.Els, e.Ref); inForm(v.Els, e.Ref) && formFields(v.Els, i) > 0 {
				// A choice of a form with fields to fill: the sweep
				// sends it with the rest of the form filled.
				continue
			}
			// The options at the end of a list are the least tried.
			for _, o := range slices.Backward(e.Options) {
				k := "sel:" + path + ":" + e.Name + ":" + o
				if m.tried[k] {
					continue
				}
				m.tried[k] = true
				b, ok := submitButton(v.Els, indexOf(v.Els, e.Ref)+1)
				if !ok {
					return []step{{in: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, why: "choose " + e.Name + ": " + o}}
				}
				return []step{{in: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, why: "choose " + e.Name + ": " + o},
					{in: clickRef(b.Ref), why: "apply"}}
			}
		}
	case TrickPaginate:
		for _, e := range v.Els {
			n := strings.ToLower(e.Name)
			if e.Role != "link" || !(n == "next" || strings.HasPrefix(n, "next ") || n == "›" || n == "»") {
				continue
			}
			k := "next:" + urlx.PathQuery(v.URL)
			if m.tried[k] {
				continue
			}
			m.tried[k] = true
			return []step{{in: clickRef(e.Ref), why: "next page"}}
		}
	case TrickDropSession:
		// Late: the session is dropped once the other tricks are done, or
		// half the budget is spent. Then every screen seen so far (one
		// page per template) is opened again without a session: each
		// must send the user to sign in, never fail.
		if v.Cov.dropped || v.Cov.signin == "" || len(v.Cov.visited) < 4 || strings.Contains(v.URL, collector.Prefix) ||
			m.pendingForms(v.Cov) > 0 && v.Spent < 0.5 {
			return nil
		}
		own := pageButtons(v.Els, maxStaleButtons)
		stale := len(own) > 0
		if here := urlx.PathQuery(v.URL); !stale && !m.tried["drop-via"] {
			// A page with buttons of its own is where the session is
			// best dropped: they are clicked on the page as it was
			// loaded, and must then ask to sign in, not fail.
			m.tried["drop-via"] = true
			if i := slices.IndexFunc(v.Cov.buttonPages, func(p string) bool { return p != here }); i >= 0 {
				return []step{{in: nav(v.Cov.buttonPages[i]), why: "to " + v.Cov.buttonPages[i] + ", whose own buttons are clicked once the session is gone", lead: true}}
			}
		}
		v.Cov.dropped = true
		macro := []step{{in: browser.Intent{Action: browser.ActClearSiteData}, why: "clear cookies and storage", before: func() { v.Cov.gen++ }}}
		if stale {
			// The page stays as it was loaded (a stale page): its
			// buttons' requests go without a session.
			for _, b := range own {
				macro = append(macro, step{in: clickRef(b.Ref), why: "click " + b.Name + " on the page loaded before the session went", watch: 700 * time.Millisecond})
			}
		}
		seen := map[string]bool{pageTemplate(v.Cov.signin): true}
		for _, l := range append([]string{urlx.PathQuery(v.URL)}, v.Cov.visitedOrder...) {
			if t := pageTemplate(l); !seen[t] && !strings.HasPrefix(l, collector.Prefix) && len(macro) <= maxSessionPages {
				seen[t] = true
				macro = append(macro, step{in: nav(l), why: "come back with the session gone"})
			}
		}
		return append(macro, step{in: nav(v.Cov.signin), why: "sign in again"})
	case TrickKeyboard:
		if m.tried[key] {
			return nil
		}
		m.tried[key] = true
		tab := browser.Intent{Action: browser.ActPress, Key: "Tab"}
		return []step{{in: tab, why: "keyboard"}, {in: tab, why: "keyboard"}, {in: tab, why: "keyboard"}}
	}
	return nil
}

// sortFirst puts sort controls first: power users sort before they filter.
func sortFirst(els []personas.Element) []personas.Element {
	out := slices.Clone(els)
	slices.SortStableFunc(out, func(a, b personas.Element) int {
		as, bs := strings.Contains(strings.ToLower(a.Name), "sort"), strings.Contains(strings.ToLower(b.Name), "sort")
		switch {
		case as && !bs:
			return -1
		case bs && !as:
			return 1
		}
		return 0
	})
	return out
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
			return step{in: clickRef(e.Ref), why: "the list's last page: " + e.Name}, true
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
			return step{in: clickRef(last.Ref), why: "the list's last row: " + last.Name}, true
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
	for _, e := range els {
		n := strings.ToLower(strings.TrimSpace(e.Name))
		if e.Role == "link" && (n == "next" || strings.HasPrefix(n, "next ") || n == "›" || n == "»") {
			return true
		}
	}
	return false
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
	if c.takes(TrickCatalogue, here) && !hasPassword(v.Els) {
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
		return step{in: nav(f), why: "back to " + f + " for the catalogue's share", lead: true, cat: true}, true
	}
	return step{}, false
}

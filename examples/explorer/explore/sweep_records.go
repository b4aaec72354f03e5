package explore

import (
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// maxRevisit bounds the revisit queue.
const maxRevisit = 4

// queueRevisit queues pages to open after a record was made, each once.
// A new batch (the queue was empty) starts a new since.
func (sw *sweep) queueRevisit(pages []string) {
	if len(sw.revisit) == 0 {
		sw.since = map[string]bool{}
		sw.revisitCat = false
	}
	for _, l := range pages {
		if !slices.Contains(sw.revisit, l) && len(sw.revisit) < maxRevisit {
			sw.revisit = append(sw.revisit, l)
		}
	}
}

// listPages are the pages likely to list a record made on the page of
// v: its path's visited ancestors (/things/new → /things) and the start
// page.
func listPages(v *view) []string {
	var out []string
	u, err := url.Parse(v.URL)
	if err != nil {
		return nil
	}
	p := strings.TrimSuffix(u.Path, "/")
	for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p, '/') {
		p = p[:i]
		if v.Cov != nil && v.Cov.visited[p] && len(out) < 2 {
			out = append(out, p)
		}
	}
	if start := urlx.PathQuery(v.Start); start != "" && !slices.Contains(out, start) {
		out = append(out, start)
	}
	return out
}

// typedValues counts the texts the mission typed, so a table row that
// repeats because the explorer itself entered the same values twice is
// told from a row the app stored twice for one submission.
type typedValues map[string]int

func (tv typedValues) add(v string) {
	if v = strings.TrimSpace(v); v != "" {
		tv[v]++
	}
}

// ownName is what an element that shows a text the mission typed is
// named in the app model: such elements are the mission's own records
// (a list item it added, a note it wrote), one control however many
// there are, not a new control per record.
const ownName = "{typed}"

// shows reports whether name shows a text the mission typed (of at
// least 6 characters, with a letter): the whole text, or a part of it of
// at least 12 characters (a list cuts long cells).
func (tv typedValues) shows(name string) bool {
	name = strings.TrimSpace(name)
	if len(name) < 6 {
		return false
	}
	for v := range tv {
		if len(v) < 6 || !strings.ContainsFunc(v, unicode.IsLetter) {
			continue
		}
		if strings.Contains(name, v) || len(name) >= 12 && strings.Contains(v, name) {
			return true
		}
	}
	return false
}

// ownRecords renames, in els, the script-handled elements (role
// "clickable") that show a text the mission typed to ownName, so that the
// app model and the personas see one such control per screen.
func (tv typedValues) ownRecords(els []personas.Element) {
	if len(tv) == 0 {
		return
	}
	for i, e := range els {
		if e.Role == "clickable" && tv.shows(e.Name) {
			els[i].Name = ownName
		}
	}
}

var reCell = regexp.MustCompile(`(?is)<t[dh]\b[^>]*>(.*?)(?:</t[dh]>|$)`)

// ownRepeat reports whether the duplicated row in evidence (its HTML) is
// the explorer's own doing: some cell holds a value it typed more than
// once, and none a value it typed only once (which, shown twice, would
// mean one submission stored twice). Cells the explorer did not type are
// not evidence either way; a cut cell matches the value it starts.
func (tv typedValues) ownRepeat(evidence string) bool {
	many := false
	for _, m := range reCell.FindAllStringSubmatch(evidence, -1) {
		cell := strings.TrimSpace(html.UnescapeString(findings.ReTag.ReplaceAllString(m[1], "")))
		if cell == "" {
			continue
		}
		n := tv[cell]
		if cut := strings.TrimRight(strings.TrimSuffix(cell, "…"), ". "); len(cut) >= 12 {
			// A cell the app may have cut: every value typed that starts
			// so (two long texts of one opening are two records, and one
			// of them may be exactly as long as the cell).
			for v, c := range tv {
				if v != cell && strings.HasPrefix(v, cut) {
					n += c
				}
			}
		}
		switch {
		case n == 1 && len(cell) >= 6 && strings.ContainsFunc(cell, unicode.IsLetter):
			// Typed once, shown twice: the app stored it twice. (A
			// short value, a number, says nothing of which record it
			// came from: a count of 3 is on many rows.)
			return false
		case n > 1:
			many = true
		}
	}
	return many
}

// holdsOnce reports whether a row (its HTML) shows a value the explorer
// typed exactly once.
func (tv typedValues) holdsOnce(evidence string) bool {
	for _, m := range reCell.FindAllStringSubmatch(evidence, -1) {
		cell := strings.TrimSpace(html.UnescapeString(findings.ReTag.ReplaceAllString(m[1], "")))
		if cell != "" && tv[cell] == 1 {
			return true
		}
	}
	return false
}

// submitted notes an action's outcome: a click or key press on a page with
// form fields (not on a link), or on the submit of a flow's field-less
// last screen (a review shown where the fields were sent), that took the
// browser to a record's page (a URL template with an id) it had not seen
// before made a record there;
// its buttons and the pages that list it come next (see next). Saving an
// edit returns to a page seen before: no record was made.
func (sw *sweep) submitted(in browser.Intent, ok bool, v *view, to string) {
	if sw == nil {
		return
	}
	sw.opened = ok && opens(in, v)
	if !ok || v == nil || (in.Action != browser.ActClick && in.Action != browser.ActPress && in.Action != browser.ActDblclick) {
		return
	}
	here := urlx.PathQuery(v.URL)
	review := false
	if i := slices.IndexFunc(v.Els, func(e personas.Element) bool { return e.Ref == in.Target }); i >= 0 &&
		(personas.SubmitLike(v.Els[i]) || in.Action == browser.ActPress && in.Key == "Enter" && v.Els[i].Fillable()) {
		sw.submit, sw.sent = true, formNames(v.Els) // see flowStep
		sw.double = in.Action == browser.ActDblclick
		// A flow's last screen may only show what its steps sent (a
		// review) under the address the fields were sent from: its
		// submit makes the record.
		review = len(sw.sent) == 0 && sw.sentAt == here
		if len(sw.sent) > 0 {
			sw.sentAt = here
		}
	}
	from := personas.URLTemplate(v.URL)
	tpl := personas.URLTemplate(to)
	if tpl == from || !strings.Contains(tpl, "{id}") || !personas.HasFields(v.Els) && !review {
		return
	}
	if i := slices.IndexFunc(v.Els, func(e personas.Element) bool { return e.Ref == in.Target }); in.Target != "" && i >= 0 && v.Els[i].Role == "link" {
		return // a link followed from a page with a form
	}
	if v.Cov != nil && v.Cov.visited[urlx.PathQuery(to)] {
		return // a page seen before: an edit saved, not a record made
	}
	sw.made = true
	if sw.madeFrom[from] == 0 || in.Action == browser.ActDblclick {
		// The first record a form made is looked for where the app lists
		// it, and so is each double submission (a row stored twice);
		// payloads queue their own revisits (pendingTarget.revisit).
		sw.queueRevisit(listPages(v))
	}
	sw.madeFrom[from]++
}

// followUp is what a made record calls for next, before anything else:
// its page's own buttons, then the pages that list it.
func (sw *sweep) followUp(v *view) (step, bool) {
	if sw == nil {
		return step{}, false
	}
	for len(sw.recheck) > 0 {
		name := sw.recheck[0]
		sw.recheck = sw.recheck[1:]
		for _, e := range v.Els {
			if e.Role == "button" && e.InMain && e.Name == name {
				return step{in: browser.Click(e.Ref), why: "try " + name + " on the record just made", watch: 400 * time.Millisecond}, true
			}
		}
	}
	for len(sw.revisit) > 0 {
		l := sw.revisit[0]
		sw.revisit = sw.revisit[1:]
		if l != urlx.PathQuery(v.URL) && !sw.since[l] {
			return step{in: browser.Navigate(l), why: "see the submitted record where the app lists it", cat: sw.revisitCat}, true
		}
	}
	return step{}, false
}

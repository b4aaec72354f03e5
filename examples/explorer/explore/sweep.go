package explore

import (
	"math"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// sweep is the mission's model of the app (personas.Model: abstract
// states, their controls, one coverage target per state, action and input
// class) and the coverage objective over it. When a persona's own tricks
// and the unexplored links run out, it takes the best untried target
// reachable from where the browser is, as its persona prefers, and plays
// it as a short macro: the other fields of the form filled with valid
// values, the target's field with its input class, then the form's own
// submit path. A mission ends only when its budget is spent or every
// target it discovered was tried.
type sweep struct {
	model *personas.Model
	cur   personas.StateID // the state of the latest look ("" before the first)
	pend  *pendingTarget   // the macro under way
	// done counts the actions played per page template and, for controls
	// outside the main content (navigation, banner, skip links), across
	// every page: a state seen again with other structure need not
	// replay what its template already showed.
	done map[string]int
	// revisit holds the pages to open after a record was submitted, so
	// what was typed is seen wherever the app shows it; since holds the
	// pages looked at since the latest batch was queued (one already seen
	// after the submission needs no revisit).
	revisit []string
	since   map[string]bool
	// revisitCat: the revisits queued are (also) the input catalogue's,
	// and count in its share of the mission (coverage.catSteps).
	revisitCat bool
	// typed counts what the mission typed.
	typed typedValues
	// made is set when the latest action submitted a form that took the
	// browser to a record's page; recheck then holds the names of that
	// page's own buttons, to be clicked once for the new record (an
	// abstract state merges all records, so its targets were tried on
	// another one).
	made    bool
	recheck []string
	// rechecked counts the rechecks per record page template and
	// button name: a button works or throws on the app's own records
	// alike, so maxRecheck new records per page template tell (two: the
	// first "made" may have been an edit of a record not seen before).
	rechecked map[string]int
	// here counts the one-step targets played per page template by
	// sweep.here (a cap, so the tricks keep their share).
	hereN map[string]int
	// refused holds "template|class" for the forms that sent a widened
	// submission of that input class back (validation, or the browser's
	// constraints): their fields get the class one at a time from then on.
	refused map[string]bool
	// rows counts the further instances of a repeated control played per
	// page template (see again).
	rows map[string]int
	// retry holds "page|action" for the button clicks the browser could
	// not do (an open dialog in the way, say): the control is clicked
	// once more on its page's next screen (see again).
	retry map[string]bool
	// catN counts the catalogue trick's submissions per page (see
	// formClass).
	catN map[string]int
	// madeFrom counts the records made per form page template.
	madeFrom map[string]int
	// submit: the latest action submitted a form, whose field names sent
	// holds; step is set when the page after it is another form (the
	// next step of a flow), and steps counts the steps walked since the
	// flow's first form.
	submit bool
	sent   []string
	// sentAt is the page (path and query) the last submission that sent
	// fields was made on.
	sentAt string
	step   bool
	stepAt string // the step's page
	steps  int
	// double: the flow began with a double submission, so each of its
	// steps is submitted twice too (the duplicate is made at the last).
	double bool
	// opened: the latest action opened a page by its address (opens).
	opened bool
	// code: code ran during the macro under way that had not run before
	// (newCode); its transition yields one more.
	code bool
	// links keeps each state's links (as last seen, at most maxLinks):
	// a link target is preferred while the page it opens is unexplored
	// (one a click revealed, never followed when it was new).
	links map[personas.StateID][]personas.Element
}

// maxLinks bounds the links sweep.links keeps per state.
const maxLinks = 200

// newCode notes that code ran that no earlier step had run: the target
// of the macro under way yields one more.
func (sw *sweep) newCode() {
	if sw != nil && sw.pend != nil {
		sw.code = true
	}
}

// opens: the action opens a page by a GET of its own address: a
// navigation, or a click of a same-origin link (not a hash route, not a
// link its script handles).
func opens(in browser.Intent, v *view) bool {
	switch in.Action {
	case browser.ActNavigate:
		return true
	case browser.ActClick:
		if v == nil {
			return false
		}
		i := slices.IndexFunc(v.Els, func(e personas.Element) bool { return e.Ref == in.Target })
		if i < 0 || v.Els[i].Role != "link" || v.Els[i].URL == "" || hashRoute(v.Els[i].URL) || scriptLink(v.Els[i].URL) {
			return false
		}
		_, ok := resolveLink(v.URL, v.Els[i].URL)
		return ok
	}
	return false
}

// maxRecheck bounds the records a record page's buttons are rechecked on.
const maxRecheck = 2

// pendingTarget is a target whose macro is being played: the transition
// is recorded at the first look after its last step.
type pendingTarget struct {
	from personas.StateID
	key  personas.ActionKey
	left int
	// revisit: the pages to open if the macro's form made a record.
	revisit []string
	// cat: the macro is the input catalogue's (formClass); so are the
	// revisits it queues (see sweep.revisitCat).
	cat bool
	// also are the targets of the same input class on the form's other
	// fields that the macro filled in the same submission (see widen);
	// they count as tried with key unless the form sent the submission
	// back and one of their values was one the app may refuse (strict),
	// or the server failed on the submission (broke).
	also   []personas.ActionKey
	strict bool
	broke  bool
	class  personas.InputClass
}

func newSweep() *sweep {
	return &sweep{model: personas.NewModel(personas.Limits{}), done: map[string]int{}, typed: typedValues{}, hereN: map[string]int{},
		refused: map[string]bool{}, rows: map[string]int{}, retry: map[string]bool{}, catN: map[string]int{}, madeFrom: map[string]int{}}
}

// doneKeys are the keys of sweep.done a target counts under.
func (sw *sweep) doneKeys(id personas.StateID, k personas.ActionKey) []string {
	st, ok := sw.model.State(id)
	if !ok {
		return nil
	}
	// The page's path template: /things?page= and /things?q= are one
	// page for this (its filter box need not be played on every page of
	// the list).
	page, _, _ := strings.Cut(st.Template, "?")
	keys := []string{page + "|" + string(k)}
	a, err := personas.ParseActionKey(k)
	if err != nil {
		return keys
	}
	for _, c := range st.Controls {
		if !c.InMain && c.Role == a.Role && c.Name == a.Name && c.Href == a.Href {
			return append(keys, "chrome|"+string(k))
		}
	}
	return keys
}

func (sw *sweep) markDone(id personas.StateID, k personas.ActionKey) {
	for _, d := range sw.doneKeys(id, k) {
		sw.done[d]++
	}
}

// seen is how often the target's action was played where it counts.
func (sw *sweep) seen(t personas.Target) int {
	n := 0
	for _, d := range sw.doneKeys(t.State, t.Key()) {
		n += sw.done[d]
	}
	return n
}

// observe adds the page to the model and records the transition of a
// finished macro.
func (sw *sweep) observe(url string, els []personas.Element) {
	if sw == nil || strings.Contains(url, collector.Prefix) {
		return
	}
	id := sw.model.Observe(url, els)
	if id != "" {
		sw.keepLinks(id, url, els)
	}
	if p := sw.pend; p != nil && p.left <= 0 {
		if id != "" {
			sw.model.Transition(p.from, p.key, id, 0)
			if sw.code {
				sw.model.Credit(p.from, p.key, 1)
			}
		}
		sw.code = false
		sw.markDone(p.from, p.key)
		sw.pend = nil
		sw.settleAlso(p, id)
		if from, ok := sw.model.State(p.from); ok && id != "" && id != p.from && len(p.revisit) > 0 {
			if to, ok := sw.model.State(id); ok && to.Template != from.Template {
				// A form took the browser elsewhere: a record was made.
				sw.queueRevisit(p.revisit)
				sw.revisitCat = sw.revisitCat || p.cat
			}
		}
	}
	if sw.opened {
		// A page opened by its address or a link's: the model may open
		// it directly again (one step to a far target, not a walk from
		// the start page).
		sw.opened = false
		if id != "" {
			sw.model.Transition("", personas.NavigateKey(urlx.PathQuery(url)), id, 0)
		}
	}
	sw.flowStep(url, els)
	if sw.made {
		sw.made = false
		sw.recheck = sw.recheck[:0]
		tpl := templateOf(urlx.Path(url))
		for _, e := range els {
			if e.Role == "button" && e.InMain && !e.Has("disabled") && len(sw.recheck) < 4 && !slices.Contains(sw.recheck, e.Name) &&
				!strings.Contains(strings.ToLower(e.Name), "delete") && sw.rechecked[tpl+"|"+e.Name] < maxRecheck {
				if sw.rechecked == nil {
					sw.rechecked = map[string]int{}
				}
				sw.rechecked[tpl+"|"+e.Name]++
				sw.recheck = append(sw.recheck, e.Name)
			}
		}
	}
	if id != "" {
		sw.cur = id
	}
	if sw.since != nil {
		sw.since[urlx.PathQuery(url)] = true
	}
}

// keepLinks records the same-origin links of state id (see sweep.links),
// their URLs resolved against the page's.
func (sw *sweep) keepLinks(id personas.StateID, page string, els []personas.Element) {
	var ls []personas.Element
	for _, e := range els {
		if e.Role != "link" || e.URL == "" || len(ls) == maxLinks {
			continue
		}
		if l, ok := resolveLink(page, e.URL); ok {
			e.URL = l
			ls = append(ls, e)
		}
	}
	if sw.links == nil {
		sw.links = map[personas.StateID][]personas.Element{}
	}
	sw.links[id] = ls
}

// linkNew: t follows a link of its state to a page cov has not explored.
func (sw *sweep) linkNew(t personas.Target, cov *coverage) bool {
	if cov == nil || t.Action.Kind != personas.ActionClick || t.Action.Role != "link" {
		return false
	}
	e, ok := personas.Locate(t.Action, sw.links[t.State])
	return ok && !cov.explored(e.URL)
}

// settleAlso records the widened part of a finished macro: when the form
// took the submission (the browser left its screen) or no value in it
// was one the app may refuse, every field's target of the class was
// tried; when the form sent back a submission holding values it may
// refuse, or the server failed on it, one field's value may have hidden
// another field's fault (the first column the server chokes on is the
// only one it reports), so those targets stay untried and the form's
// fields get the class one at a time.
func (sw *sweep) settleAlso(p *pendingTarget, to personas.StateID) {
	if len(p.also) == 0 {
		return
	}
	from, ok := sw.model.State(p.from)
	if !ok {
		return
	}
	// Sent back: the page after it still shows the field (a form that
	// posts elsewhere may show itself again at another address).
	back := to == "" || to == p.from
	if st, ok := sw.model.State(to); ok && !back {
		a := mustAction(p.key)
		back = slices.ContainsFunc(st.Controls, func(c personas.Control) bool { return c.Role == a.Role && c.Name == a.Name })
	}
	if back && p.strict || p.broke {
		sw.refused[refusedKey(from.Template, p.class)] = true
		return
	}
	for _, k := range p.also {
		if to != "" {
			sw.model.Transition(p.from, k, to, 0)
		}
		sw.markDone(p.from, k)
	}
}

// acted counts one played step of the macro under way; a failed step
// fails its target (the browser could not do it) and ends the macro: it
// returns true when the member's queue must be dropped.
func (sw *sweep) acted(ok bool) bool {
	if sw == nil || sw.pend == nil {
		return false
	}
	sw.pend.left--
	if ok {
		return false
	}
	if st, ok := sw.model.State(sw.pend.from); ok {
		if a := mustAction(sw.pend.key); a.Kind == personas.ActionClick && a.Role == "button" {
			page, _, _ := strings.Cut(st.Template, "?")
			sw.retry[page+"|"+string(sw.pend.key)] = true
		}
	}
	sw.model.Fail(sw.pend.from, sw.pend.key)
	sw.markDone(sw.pend.from, sw.pend.key)
	sw.pend = nil
	return true
}

// serverFailed notes that the server answered a request of the macro
// under way with an error (see settleAlso).
func (sw *sweep) serverFailed() {
	if sw != nil && sw.pend != nil && len(sw.pend.also) > 0 {
		sw.pend.broke = true
	}
}

// merged accounts for n steps of the pending macro that member.batch
// played within one.
func (sw *sweep) merged(n int) {
	if sw != nil && sw.pend != nil {
		sw.pend.left -= n
	}
}

// work is the supervisor's coverage signal: 1 while untried targets
// remain within reach, else 0.
func (sw *sweep) work() int {
	if sw == nil || sw.model.Exhausted() {
		return 0
	}
	return 1
}

// abandon gives up the macro under way (the loop detector stepped in):
// its target counts as failed.
func (sw *sweep) abandon() {
	if sw == nil || sw.pend == nil {
		return
	}
	sw.model.Fail(sw.pend.from, sw.pend.key)
	sw.pend = nil
}

// next picks member m's next target and returns the first step of its
// macro (the rest go on m's queue), or false when no target is left.
func (sw *sweep) next(m *member, v *view) (step, bool) {
	if st, ok := sw.followUp(v); ok {
		return st, true
	}
	persona := preference(m.p)
	width := sw.widths()
	signin := sw.signinStates()
	prefer := func(t personas.Target) float64 {
		// What its page template (or, for navigation and banner
		// controls, any page) already showed comes last.
		p := persona(t) - 4*float64(min(sw.seen(t), 1))
		switch a := t.Action; {
		case signin[t.State] && (a.Kind == personas.ActionFill || a.Kind == personas.ActionPress):
			// The sign-in form's input classes, and signing out, come
			// after everything else: each costs the session, and the
			// team signs in again before it can go on.
			p -= 20
		case a.Kind == personas.ActionClick && personas.SignOut(a.Name):
			p -= 20
		case a.Kind == personas.ActionClick && personas.Dismiss(a.Name):
			// A dialog's Cancel after its other buttons (it closes them).
			p--
		}
		if a := t.Action; a.Kind == personas.ActionClick && a.Role == "link" {
			// A link's page was found by following it when it was new
			// (see member.decide): what is left is moving about. A link
			// to a page nobody explored yet (one a click revealed, which
			// was not there to follow) opens a new screen.
			if sw.linkNew(t, v.Cov) {
				p += 3
			} else {
				p -= 2
			}
		}
		if a := t.Action; a.Kind == personas.ActionFill && a.Class != personas.ClassValid {
			// One submission tries the class on every field of the
			// form (see widen): a wide form's class is worth a detour.
			if n := width[string(t.State)+"|"+string(a.Class)]; n > 1 {
				p += math.Log2(float64(n))
			}
		}
		return p
	}
	for range 8 {
		t, path, ok := sw.model.NextFar(sw.cur, prefer, hopCost)
		if !ok {
			return step{}, false
		}
		key := t.Key()
		in, _ := sw.model.Input(t)
		if len(path) > 0 {
			// On the way: the path's first action, from here.
			key = path[0]
			in, _ = sw.model.Input(personas.Target{State: sw.cur, Action: mustAction(key)})
		}
		a, err := personas.ParseActionKey(key)
		if err != nil {
			sw.model.Fail(sw.cur, key)
			continue
		}
		if a.Kind == personas.ActionNavigate {
			sw.pend = &pendingTarget{from: sw.cur, key: key, left: 1}
			return step{in: browser.Navigate(a.Arg), why: "coverage: open " + a.Arg}, true
		}
		if len(path) == 0 && sw.blocked(v, t, in) {
			continue
		}
		var wide map[string]string
		var also []personas.ActionKey
		strict := false
		switch {
		case len(path) == 0 && a.Kind == personas.ActionFill:
			wide, also, strict = sw.widen(v, a, in)
		case len(path) == 0 && a.Kind == personas.ActionSelect:
			wide, also = sw.widenOptions(v, a)
		}
		macro := targetMacroWith(m, v, a, in, wide)
		if len(macro) == 0 {
			sw.model.Fail(sw.cur, key)
			continue
		}
		sw.pend = &pendingTarget{from: sw.cur, key: key, left: len(macro), also: also, strict: strict, class: in.Class}
		if a.Kind == personas.ActionFill && (in.Class == personas.ClassMarkup || in.Class == personas.ClassNonLatin || in.Class == personas.ClassQuotes) {
			sw.pend.revisit = listPages(v)
		}
		m.q = macro[1:]
		return macro[0], true
	}
	return step{}, false
}

// hopCost is what a step of the way to a target costs against its
// score: a target that is clearly better may be a few steps away.
const hopCost = 1.5

func mustAction(k personas.ActionKey) personas.Action {
	a, _ := personas.ParseActionKey(k)
	return a
}

// preference is how persona p leans over the model's own order of
// targets (personas.Persona.Preference: the catalogue's order of classes
// and the persona's lean), and what every member knows of double clicks.
func preference(p Persona) func(personas.Target) float64 {
	lean := p.Preference()
	return func(t personas.Target) float64 {
		a := t.Action
		s := lean(t)
		switch {
		case a.Kind == personas.ActionDblClick && a.Role == "clickable":
			s += 2 // a handler listens for exactly that (double-click to edit)
		case a.Kind == personas.ActionDblClick && (a.Role != "button" || !personas.SubmitNamed(a.Name)):
			// Twice on a control that sends nothing is a toggle undone.
			s -= 2
		}
		return s
	}
}

// snapshot is a copy of the model for the graph state (nil without one).
func (sw *sweep) snapshot() *personas.Model {
	if sw == nil || len(sw.model.States) == 0 {
		return nil
	}
	return sw.model.Clone()
}

// restore takes the model back from the graph state after a resume, when
// this process has none yet (a copy: the state keeps its own).
func (sw *sweep) restore(m *personas.Model) {
	if sw == nil || m == nil || len(sw.model.States) > 0 {
		return
	}
	sw.model = m.Clone()
}

// signinStates are the states with a password field: sign-in forms.
func (sw *sweep) signinStates() map[personas.StateID]bool {
	out := map[personas.StateID]bool{}
	for id, st := range sw.model.States {
		for _, c := range st.Controls {
			if c.Field != nil && c.Field.Kind == personas.FieldPassword || strings.Contains(strings.ToLower(c.Name), "password") {
				out[id] = true
				break
			}
		}
	}
	return out
}

// widths counts the untried fill targets per state and input class: how
// many fields one widened submission of the class may try there.
func (sw *sweep) widths() map[string]int {
	out := map[string]int{}
	for id, st := range sw.model.States {
		for _, t := range st.Targets {
			if t.Status == personas.TargetUntried && t.Action.Kind == personas.ActionFill {
				out[string(id)+"|"+string(t.Action.Class)]++
			}
		}
	}
	return out
}

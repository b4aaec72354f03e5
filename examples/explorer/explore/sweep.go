package explore

import (
	"encoding/json"
	"fmt"
	"html"
	"log/slog"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/internal/clip"
	"github.com/agentgraph/agentgraph/examples/explorer/internal/urlx"
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
}

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

// maxSteps bounds the steps of one flow that nextStep walks.
const maxSteps = 5

// formNames are the names of the fields of the main content.
func formNames(els []personas.Element) []string {
	var out []string
	for _, e := range els {
		if e.InMain && formControl(e) && !e.Has("disabled") {
			out = append(out, e.Role+"\x00"+e.Name)
		}
	}
	return out
}

// flowStep notes, at the look after an action, whether the form it
// submitted answered with another form: fields in the main content, none
// of the submitted form's (a form sent back with errors shows its own
// fields again), and a button to go on.
func (sw *sweep) flowStep(url string, els []personas.Element) {
	if !sw.submit {
		return // no submission since the last look: the flow stands
	}
	sent := sw.sent
	sw.submit, sw.sent, sw.step = false, nil, false
	if len(sent) == 0 { // the form sent no fields
		sw.steps, sw.double = 0, false
		return
	}
	now := formNames(els)
	if len(now) == 0 && urlx.PathQuery(url) == sw.sentAt && sw.steps < maxSteps {
		// No fields, under the address the fields were sent from, and a
		// button that goes on: the flow's review screen, whose submit
		// stores what the steps sent.
		if _, ok := reviewSubmit(els); ok {
			sw.step, sw.stepAt = true, urlx.PathQuery(url)
			return
		}
	}
	if len(now) == 0 || slices.ContainsFunc(now, func(n string) bool { return slices.Contains(sent, n) }) {
		sw.steps, sw.double = 0, false
		return
	}
	if to, from := templateOf(urlx.Path(url)), templateOf(urlx.Path(sw.sentAt)); to != from && strings.HasSuffix(to, "/{n}") {
		// The submission landed on a record's own page (its form made
		// or saved it): that page's forms (a note, a comment) are the
		// record's, not the flow's next step.
		sw.steps, sw.double = 0, false
		return
	}
	if _, ok := submitButton(els, 0); !ok || sw.steps >= maxSteps {
		sw.steps, sw.double = 0, false
		return
	}
	sw.step, sw.stepAt = true, urlx.PathQuery(url)
}

// reviewSubmit is the button of a field-less review screen that goes on:
// one whose name says it sends (submitWords), not one that steps back.
func reviewSubmit(els []personas.Element) (personas.Element, bool) {
	var cands []personas.Element
	for _, e := range els {
		if e.Role == "button" && !reBackward.MatchString(e.Name) {
			cands = append(cands, e)
		}
	}
	b, ok := submitButton(cands, 0)
	if !ok || submitRank(b.Name) == len(submitWords) {
		return personas.Element{}, false
	}
	return b, true
}

// reBackward names the controls that step back in a flow.
var reBackward = regexp.MustCompile(`(?i)\b(back|previous|prev)\b`)

// stepPending: the page is a flow's next step the team has not gone on
// from yet.
func (sw *sweep) stepPending(v *view) bool {
	return sw != nil && sw.step && urlx.PathQuery(v.URL) == sw.stepAt
}

// nextStep is the macro that fills a flow's next step validly and goes
// on, or nil when the page is not one.
func (sw *sweep) nextStep(m *member, v *view) []step {
	if sw == nil || !sw.step || sw.pend != nil {
		return nil
	}
	sw.step = false
	if urlx.PathQuery(v.URL) != sw.stepAt {
		return nil // the browser left the step
	}
	macro := formPlan(v, func(e personas.Element) (string, bool) {
		if e.Value != "" || personas.FieldOf(e, nil).Kind == personas.FieldPassword {
			return "", false
		}
		return validFor(e, v), true
	}, sw.double, m.hold)
	if b, ok := reviewSubmit(v.Els); ok && len(macro) == 0 && len(formNames(v.Els)) == 0 {
		// The review screen: its submit alone (twice, in a double
		// submission's flow).
		if sw.double {
			macro = []step{{in: browser.Intent{Action: browser.ActDblclick, Target: b.Ref}, before: m.hold, why: "double-click submit on a slow network"}}
		} else {
			macro = []step{{in: clickRef(b.Ref), why: "submit " + b.Name}}
		}
	}
	if len(macro) == 0 {
		return nil
	}
	sw.steps++
	macro[0].why = "the flow's next step: " + macro[0].why
	return macro
}

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
	// back and one of their values was one the app may refuse (strict).
	also   []personas.ActionKey
	strict bool
	class  personas.InputClass
}

func newSweep() *sweep {
	return &sweep{model: personas.NewModel(personas.Limits{}), done: map[string]int{}, typed: typedValues{}, hereN: map[string]int{},
		refused: map[string]bool{}, rows: map[string]int{}, catN: map[string]int{}, madeFrom: map[string]int{}}
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

// settleAlso records the widened part of a finished macro: when the form
// took the submission (the browser left its screen) or no value in it
// was one the app may refuse, every field's target of the class was
// tried; when the form sent back a submission holding values it may
// refuse, one of them may have hidden another field's fault, so those
// targets stay untried and the form's fields get the class one at a time.
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
	if back && p.strict {
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
	sw.model.Fail(sw.pend.from, sw.pend.key)
	sw.markDone(sw.pend.from, sw.pend.key)
	sw.pend = nil
	return true
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
	persona := preference(m.p.Name)
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
		case a.Kind == personas.ActionClick && reSignOut.MatchString(a.Name):
			p -= 20
		case a.Kind == personas.ActionClick && dismiss(a.Name):
			// A dialog's Cancel after its other buttons (it closes them).
			p--
		}
		if a := t.Action; a.Kind == personas.ActionClick && a.Role == "link" {
			// A link's page was found by following it when it was new
			// (see member.decide): what is left is moving about.
			p -= 2
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
			return step{in: nav(a.Arg), why: "coverage: open " + a.Arg}, true
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

// maxHere bounds sweep.here per page template.
const maxHere = 6

// here is the best untried one-step target of the page the browser is on
// (choosing an option, ticking a box, pressing an in-page button,
// following a link to a view of the page: no form to fill, no
// navigation): every visit of a screen tries some of its
// own controls before the team moves on, so controls outside forms get
// their turn within the budget. At most maxHere per page template.
func (sw *sweep) here(m *member, v *view) (step, bool) {
	if sw == nil || sw.pend != nil {
		return step{}, false
	}
	st, ok := sw.model.State(sw.cur)
	if !ok {
		return step{}, false
	}
	page, _, _ := strings.Cut(st.Template, "?")
	if sw.hereN[page] >= maxHere {
		return step{}, false
	}
	inMain := map[string]bool{}
	for _, c := range st.Controls {
		if c.InMain {
			inMain[c.Role+"\x00"+c.Name] = true
		}
	}
	persona := preference(m.p.Name)
	flow := sw.stepPending(v)
	best, bestScore := personas.Target{}, math.Inf(-1)
	for _, t := range st.Targets {
		a := t.Action
		if t.Status != personas.TargetUntried || !inMain[a.Role+"\x00"+a.Name] || sw.seen(t) > 0 {
			continue
		}
		if flow && reBackward.MatchString(a.Name) {
			continue // going back would leave the flow's step
		}
		switch {
		case a.Kind == personas.ActionSelect, a.Kind == personas.ActionCheck, a.Kind == personas.ActionUncheck:
			if e, ok := personas.Locate(a, v.Els); !ok || inForm(v.Els, e.Ref) {
				// A form's choice waits for the sweep, which submits it.
				continue
			}
		case a.Kind == personas.ActionClick && a.Role == "link":
			if e, ok := personas.Locate(a, v.Els); !ok || !hashRoute(e.URL) && !scriptLink(e.URL) {
				continue
			}
			// A link to a view of this page (#/month): a hash route
			// renders in place, as a tab would; a link to nowhere ("#",
			// "javascript:") is a button its script handles.
		case a.Kind == personas.ActionClick && !reNotSubmit.MatchString(a.Name) && !reSignOut.MatchString(a.Name) &&
			(submitRank(a.Name) == len(submitWords) || !sendsForm(v.Els, locateIndex(a, v.Els))):
			// An in-page button that submits nothing (nor deletes: a
			// destructive button waits for the sweep, after the screen's
			// other controls).
		default:
			continue
		}
		if s := sw.model.Score(t) + persona(t); s > bestScore {
			best, bestScore = t, s
		}
	}
	if math.IsInf(bestScore, -1) {
		return step{}, false
	}
	in, _ := sw.model.Input(best)
	macro := targetMacro(m, v, best.Action, in)
	if len(macro) != 1 {
		return step{}, false
	}
	sw.hereN[page]++
	sw.pend = &pendingTarget{from: sw.cur, key: best.Key(), left: 1}
	macro[0].why = "this screen's own control: " + strings.TrimPrefix(macro[0].why, "coverage: ")
	return macro[0], true
}

// scriptLink: a link's href goes nowhere ("#", "javascript:…"): its
// click handler is what it does.
func scriptLink(href string) bool {
	h := strings.ToLower(strings.TrimSpace(href))
	return h == "#" || strings.HasPrefix(h, "javascript:")
}

// locateIndex is the index of a's element in els, or -1.
func locateIndex(a personas.Action, els []personas.Element) int {
	e, ok := personas.Locate(a, els)
	if !ok {
		return -1
	}
	return indexOf(els, e.Ref)
}

// hashRoute: a link's href names a view of the page itself ("#/month",
// "#!/month", "#month"), not the top of the page ("#") or nothing.
func hashRoute(href string) bool {
	return len(href) > 1 && href[0] == '#'
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

// hopCost is what a step of the way to a target costs against its
// score: a target that is clearly better may be a few steps away.
const hopCost = 1.5

func mustAction(k personas.ActionKey) personas.Action {
	a, _ := personas.ParseActionKey(k)
	return a
}

// targetMacro is the steps that play action a (with input in) on the
// page v: empty fields before a submit filled validly, the target's own
// steps, and for a field the form's submit (its button, else Enter).
func targetMacro(m *member, v *view, a personas.Action, in personas.Input) []step {
	return targetMacroWith(m, v, a, in, nil)
}

// targetMacroWith is targetMacro with the form's other fields filled with
// wide's values (by element ref) where it has one.
func targetMacroWith(m *member, v *view, a personas.Action, in personas.Input, wide map[string]string) []step {
	el, ok := personas.Locate(a, v.Els)
	if !ok {
		return nil
	}
	what := a.String()
	switch a.Kind {
	case personas.ActionFill:
		i := indexOf(v.Els, el.Ref)
		macro := fillOthersWith(v, el, i, wide)
		val := in.Value
		if in.Class == personas.ClassValid {
			val = validFor(el, v) // free text made unique: records stay apart
		}
		macro = append(macro, step{in: fillRef(el.Ref, val), why: fmt.Sprintf("coverage: %s (%s)", what, clip.String(val, 40))})
		last := i
		for j := i + 1; j < len(v.Els); j++ {
			e := v.Els[j]
			if e.InMain == el.InMain && submitLike(e) {
				break // the form's own submit: what follows is another form
			}
			if e.InMain == el.InMain && formControl(e) {
				last = j
			}
		}
		if b, ok := submitButton(v.Els, last+1); ok && el.InMain {
			return append(macro, step{in: clickRef(b.Ref), why: "submit " + b.Name})
		}
		return append(macro, step{in: browser.Intent{Action: browser.ActPress, Target: el.Ref, Key: "Enter"}, why: "submit with Enter"})
	case personas.ActionPress:
		var macro []step
		if el.Fillable() && el.Value == "" && a.Arg == "Enter" {
			macro = append(macro, step{in: fillRef(el.Ref, validFor(el, v)), why: "fill " + el.Name})
		}
		for _, it := range a.Intents(el, in) {
			macro = append(macro, step{in: it, why: "coverage: " + what})
		}
		return macro
	case personas.ActionClick, personas.ActionDblClick:
		var macro []step
		if el.Role == "button" && el.InMain && submitRank(el.Name) < len(submitWords) && sendsForm(v.Els, indexOf(v.Els, el.Ref)) {
			// A submit button: a valid form first, so the click goes
			// through the app's own validation to what lies behind it.
			macro = fillOthers(v, el, indexOf(v.Els, el.Ref))
		}
		if a.Kind == personas.ActionDblClick && len(macro) == 0 && (el.Role != "button" || submitRank(el.Name) == len(submitWords)) {
			// Not a submit: a plain double click (to edit, to open).
			return []step{{in: browser.Intent{Action: browser.ActDblclick, Target: el.Ref}, why: "coverage: " + what, watch: 400 * time.Millisecond}}
		}
		if a.Kind == personas.ActionDblClick {
			// A submit double-clicked: two submissions a few milliseconds
			// apart, the first answer held back as a slow network would.
			return append(macro, step{in: browser.Intent{Action: browser.ActDblclick, Target: el.Ref}, before: m.hold,
				why: "coverage: " + what + " (slow network)", watch: 400 * time.Millisecond})
		}
		return append(macro, step{in: clickRef(el.Ref), why: "coverage: " + what, watch: 400 * time.Millisecond})
	}
	var macro []step
	for _, it := range a.Intents(el, in) {
		macro = append(macro, step{in: it, why: "coverage: " + what})
	}
	if a.Kind == personas.ActionSelect || a.Kind == personas.ActionCheck || a.Kind == personas.ActionUncheck {
		// A choice inside a form is a value the form sends: it is
		// submitted, with the rest of the form valid (and the form's
		// other choices set as wide says), or it tests nothing.
		i := indexOf(v.Els, el.Ref)
		if b, ok := formSubmit(v.Els, i); ok && len(macro) > 0 {
			macro = append(fillOthers(v, el, i), macro...)
			for _, e := range v.Els {
				if o, ok := wide[e.Ref]; ok && e.Ref != el.Ref && e.Role == "combobox" {
					macro = append(macro, step{in: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, why: "choose " + e.Name + " (" + clip.String(o, 40) + ")"})
				}
			}
			return append(macro, step{in: clickRef(b.Ref), why: "submit " + b.Name})
		}
	}
	return macro
}

// inForm: the element ref sits in a form with a submit button.
func inForm(els []personas.Element, ref string) bool {
	_, ok := formSubmit(els, indexOf(els, ref))
	return ok
}

// formSubmit is the submit button of the form around els[at] when it sits
// in one: the first submit-like button of its region (main content) after
// it, with no link between them (a link ends a form: what follows it is
// another part of the page).
func formSubmit(els []personas.Element, at int) (personas.Element, bool) {
	if at < 0 || at >= len(els) || !els[at].InMain {
		return personas.Element{}, false
	}
	for j := at + 1; j < len(els); j++ {
		e := els[j]
		if !e.InMain {
			continue
		}
		if e.Role == "link" {
			return personas.Element{}, false
		}
		if submitLike(e) {
			return e, !e.Has("disabled")
		}
	}
	return personas.Element{}, false
}

// widenOptions picks, for a choice target a inside a form, an untried
// option of each other select of the form: one submission tries an option
// of every select (options are all values the form must take), so a
// form's choices take as many submissions as its longest select has
// options, not as many as all its options.
func (sw *sweep) widenOptions(v *view, a personas.Action) (map[string]string, []personas.ActionKey) {
	st, ok := sw.model.State(sw.cur)
	if !ok || a.Kind != personas.ActionSelect {
		return nil, nil
	}
	el, ok := personas.Locate(a, v.Els)
	if !ok {
		return nil, nil
	}
	b, ok := formSubmit(v.Els, indexOf(v.Els, el.Ref))
	if !ok {
		return nil, nil
	}
	wide := map[string]string{}
	var also []personas.ActionKey
	for _, t := range st.Targets {
		ta := t.Action
		if t.Status != personas.TargetUntried || ta.Kind != personas.ActionSelect || ta.Key() == a.Key() {
			continue
		}
		e, ok := personas.Locate(ta, v.Els)
		if !ok || e.Ref == el.Ref || e.Role != "combobox" || e.Has("disabled") {
			continue
		}
		if eb, ok := formSubmit(v.Els, indexOf(v.Els, e.Ref)); !ok || eb.Ref != b.Ref {
			continue // not the same form
		}
		if _, dup := wide[e.Ref]; dup {
			continue
		}
		wide[e.Ref] = ta.Arg
		also = append(also, ta.Key())
	}
	return wide, also
}

// formControl: an element a form submits.
func formControl(e personas.Element) bool {
	return e.Fillable() || e.Role == "combobox" || e.Role == "checkbox" || e.Role == "radio"
}

// fillOthers fills, with valid values, the empty fields of el's region
// (main content or not) that come before the submit button after el: the
// rest of the form, so the one value under test is the only odd one.
func fillOthers(v *view, el personas.Element, at int) []step {
	return fillOthersWith(v, el, at, nil)
}

// fillOthersWith is fillOthers with wide's values (by element ref) typed
// into the fields it names, empty or not.
func fillOthersWith(v *view, el personas.Element, at int, wide map[string]string) []step {
	var macro []step
	radioDone := false
	for j, e := range v.Els {
		if j == at || e.InMain != el.InMain || e.Has("disabled") {
			continue
		}
		if e.Role == "button" && j > at {
			break // the form ends at the first button after el
		}
		f := personas.FieldOf(e, nil)
		if val, ok := wide[e.Ref]; ok && e.Fillable() {
			macro = append(macro, step{in: fillRef(e.Ref, val), why: fmt.Sprintf("fill %s (%s)", e.Name, clip.String(val, 40))})
			continue
		}
		switch {
		case e.Fillable() && e.Value == "" && f.Kind != personas.FieldPassword:
			macro = append(macro, step{in: fillRef(e.Ref, validFor(e, v)), why: "fill " + e.Name})
		case e.Role == "combobox" && len(e.Options) > 0 && f.Required && e.Value == "":
			o := personas.ValidValue(f)
			macro = append(macro, step{in: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, why: "choose " + e.Name})
		case e.Role == "radio" && f.Required && !radioDone && !e.Has("checked"):
			radioDone = true
			macro = append(macro, step{in: browser.Intent{Action: browser.ActCheck, Target: e.Ref}, why: "choose " + e.Name})
		case e.Role == "checkbox" && f.Required && !e.Has("checked"):
			macro = append(macro, step{in: browser.Intent{Action: browser.ActCheck, Target: e.Ref}, why: "tick " + e.Name})
		}
	}
	return macro
}

// preference is how a persona leans over the model's own order of
// targets: its strategy over the model.
func preference(persona string) func(personas.Target) float64 {
	return func(t personas.Target) float64 {
		a := t.Action
		p := classBias(a)
		switch persona {
		case personas.Adversarial:
			if a.Kind == personas.ActionFill && a.Class != personas.ClassValid {
				p += 2
			}
		case personas.NewUser, personas.Explorer:
			if a.Kind == personas.ActionClick {
				p++
			}
		case personas.PowerUser, personas.DataHeavy:
			switch a.Kind {
			case personas.ActionSelect, personas.ActionCheck, personas.ActionUncheck, personas.ActionPress:
				p += 1.5
			}
		case personas.Impatient:
			if a.Kind == personas.ActionDblClick {
				p += 3
			}
		case personas.Accessibility:
			if a.Kind == personas.ActionPress {
				p++
			}
		}
		switch {
		case a.Kind == personas.ActionDblClick && a.Role == "clickable":
			p += 2 // a handler listens for exactly that (double-click to edit)
		case a.Kind == personas.ActionDblClick && (a.Role != "button" || submitRank(a.Name) == len(submitWords)):
			// Twice on a control that sends nothing is a toggle undone.
			p -= 2
		}
		return p
	}
}

// classBias orders the catalogue's classes within a field by how often
// they break an app (the classic equivalence classes and boundaries
// first, the exotic variants of a class after).
func classBias(a personas.Action) float64 {
	if a.Kind != personas.ActionFill {
		return 0
	}
	switch a.Class {
	case personas.ClassValid:
		// Every other target's macro fills the field validly already,
		// and so does a submit button's: alone it tells little.
		return -3
	case personas.ClassMarkup, personas.ClassQuotes:
		// Injection: the classes whose bugs are the most severe.
		return 1.5
	case personas.ClassEmpty, personas.ClassNonLatin, personas.ClassLong256,
		personas.ClassNegative, personas.ClassZero, personas.ClassHuge, personas.ClassAboveMax:
		return 1
	case personas.ClassEmoji, personas.ClassRTL, personas.ClassLong10001, personas.ClassWhitespace, personas.ClassPadded,
		personas.ClassMin, personas.ClassMax, personas.ClassBelowMin:
		return -1.5
	}
	return 0
}

// Coverage is what a mission's app model saw and tried (the model's
// personas.Stats), why the mission ended, and for the report the
// untried targets and the state graph.
type Coverage struct {
	personas.Stats
	// Stopped says why the mission ended: its budget spent, every
	// target tried, or an error.
	Stopped string `json:"stopped,omitempty"`
	// Untried lists up to 50 untried targets, reachable states first.
	Untried []string `json:"untried,omitempty"`
	// Graph is the state graph as a Mermaid flowchart.
	Graph string `json:"graph,omitempty"`
	// Entries are the pages discovery found outside the app's links
	// (sitemaps, robots.txt, conventional and configured paths).
	Entries []string `json:"entries,omitempty"`
	// JS is the app's JavaScript the mission ran (nil: not collected).
	JS *JSCoverage `json:"js,omitempty"`
}

// coverage reports the model at the end of a mission.
func (sw *sweep) coverage(stopped string) *Coverage {
	if sw == nil {
		return nil
	}
	return &Coverage{Stats: sw.model.Stats(), Stopped: stopped, Untried: sw.model.Untried(50), Graph: sw.model.Mermaid()}
}

// summary is c without the graph and the untried list (for summary.json).
func (c *Coverage) summary() *Coverage {
	if c == nil {
		return nil
	}
	return &Coverage{Stats: c.Stats, Stopped: c.Stopped, Entries: c.Entries, JS: c.JS}
}

// markdown is c as test_report.md's Coverage section.
func (c *Coverage) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Coverage\n\n- Ended: %s\n- States: %d, transitions: %d\n- Targets: %d discovered, %d tried, %d failed\n",
		c.Stopped, c.States, c.Transitions, c.Targets, c.Tried, c.Failed)
	if tr := c.Truncated.String(); tr != "" {
		fmt.Fprintf(&b, "- Limits: %s\n", tr)
	}
	if len(c.Entries) > 0 {
		fmt.Fprintf(&b, "- Entry points found outside the app's links: %s\n", strings.Join(c.Entries, ", "))
	}
	if c.JS != nil {
		fmt.Fprintf(&b, "- JavaScript executed: %s\n", c.JS)
	}
	if len(c.Untried) > 0 {
		b.WriteString("\n### Untried targets\n\n")
		for _, u := range c.Untried {
			fmt.Fprintf(&b, "- %s\n", u)
		}
	}
	if c.Graph != "" {
		b.WriteString("\n### State graph\n\n```mermaid\n" + c.Graph + "```\n")
	}
	return b.String()
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
		cell := strings.TrimSpace(html.UnescapeString(reTag.ReplaceAllString(m[1], "")))
		if cell == "" {
			continue
		}
		n := tv[cell]
		if cut := strings.TrimRight(strings.TrimSuffix(cell, "…"), ". "); n == 0 && len(cut) >= 12 {
			// A cell the app cut: every value typed that starts so (two
			// long texts of one opening are two records).
			for v, c := range tv {
				if strings.HasPrefix(v, cut) {
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
		cell := strings.TrimSpace(html.UnescapeString(reTag.ReplaceAllString(m[1], "")))
		if cell != "" && tv[cell] == 1 {
			return true
		}
	}
	return false
}

// snapshot is the model as JSON for the graph state (nil without one).
func (sw *sweep) snapshot() []byte {
	if sw == nil || len(sw.model.States) == 0 {
		return nil
	}
	b, err := json.Marshal(sw.model)
	if err != nil {
		return nil
	}
	return b
}

// restore takes the model back from the graph state after a resume, when
// this process has none yet; a model that does not read back is left
// out (said in the trace) and the mission builds a new one.
func (sw *sweep) restore(b []byte, trace *slog.Logger) {
	if sw == nil || len(b) == 0 || len(sw.model.States) > 0 {
		return
	}
	m := personas.NewModel(personas.Limits{})
	if err := json.Unmarshal(b, m); err != nil {
		if trace != nil {
			trace.Warn("resume: app model left out", "err", err)
		}
		return
	}
	sw.model = m
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
		(submitLike(v.Els[i]) || in.Action == browser.ActPress && in.Key == "Enter" && v.Els[i].Fillable()) {
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
	if tpl == from || !strings.Contains(tpl, "{id}") || !hasFields(v.Els) && !review {
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
				return step{in: clickRef(e.Ref), why: "try " + name + " on the record just made", watch: 400 * time.Millisecond}, true
			}
		}
	}
	for len(sw.revisit) > 0 {
		l := sw.revisit[0]
		sw.revisit = sw.revisit[1:]
		if l != urlx.PathQuery(v.URL) && !sw.since[l] {
			return step{in: nav(l), why: "see the submitted record where the app lists it", cat: sw.revisitCat}, true
		}
	}
	return step{}, false
}

// reSignOut names the controls that end the session.
var reSignOut = regexp.MustCompile(`(?i)\b(sign|log)\s*-?\s*(out|off)\b|\blogout\b`)

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

// widen extends a fill target of input class c to its whole form: every
// other field of the form (the fields between the buttons around the
// target's field) with an untried target of class c gets that class's
// value in the same submission, the others valid values, so one
// submission tries the class on every field. Only values the app must
// accept join: one it may refuse would hide the others. A class the form
// sent back before is not widened (see settleAlso). strict reports
// whether the target's own value is one the app may refuse (neither
// valid nor lenient): then a refusal says nothing of the other fields.
func (sw *sweep) widen(v *view, a personas.Action, in personas.Input) (map[string]string, []personas.ActionKey, bool) {
	st, ok := sw.model.State(sw.cur)
	if !ok || in.Class == "" || in.Class == personas.ClassValid || sw.refused[refusedKey(st.Template, in.Class)] {
		return nil, nil, false
	}
	el, ok := personas.Locate(a, v.Els)
	if !ok {
		return nil, nil, false
	}
	lo, hi := formSpan(v.Els, indexOf(v.Els, el.Ref))
	wide := map[string]string{}
	var also []personas.ActionKey
	strict := !in.Valid && !in.Lenient
	for _, t := range st.Targets {
		ta := t.Action
		if t.Status != personas.TargetUntried || ta.Kind != personas.ActionFill || ta.Class != in.Class || ta.Key() == a.Key() {
			continue
		}
		e, ok := personas.Locate(ta, v.Els)
		if !ok || e.Ref == el.Ref || e.InMain != el.InMain || !e.Fillable() {
			continue
		}
		if j := indexOf(v.Els, e.Ref); j < lo || j >= hi {
			continue
		}
		if _, dup := wide[e.Ref]; dup {
			continue
		}
		tin, ok := sw.model.Input(personas.Target{State: sw.cur, Action: ta})
		if !ok || !tin.Valid {
			// Only values the app must take: one it may refuse (or
			// the browser's own checks block, as an address with
			// letters outside ASCII) would stop the whole submission.
			continue
		}
		wide[e.Ref] = tin.Value
		also = append(also, ta.Key())
	}
	if len(also) == 0 {
		return nil, nil, false
	}
	return wide, also, strict
}

// refusedKey is sweep.refused's key: the page's path template (a form
// shown again with ?error= is the same form) and the class.
func refusedKey(template string, c personas.InputClass) string {
	page, _, _ := strings.Cut(template, "?")
	return page + "|" + string(c)
}

// formSpan is the index range of the form around els[at]: from after the
// last submit-like button of its region before it to the first one after
// it (a button inside a form that submits nothing, such as a file
// picker's, does not end it).
func formSpan(els []personas.Element, at int) (lo, hi int) {
	lo, hi = 0, len(els)
	if at < 0 || at >= len(els) {
		return lo, hi
	}
	for j := at - 1; j >= 0; j-- {
		if submitLike(els[j]) && els[j].InMain == els[at].InMain {
			lo = j + 1
			break
		}
	}
	for j := at + 1; j < len(els); j++ {
		if submitLike(els[j]) && els[j].InMain == els[at].InMain {
			hi = j
			break
		}
	}
	return lo, hi
}

// submitLike: a button named like a form's submit.
func submitLike(e personas.Element) bool {
	return e.Role == "button" && submitRank(e.Name) < len(submitWords) && !reNotSubmit.MatchString(e.Name)
}

// cover marks as tried the current state's fill targets that a persona's
// trick played (by element ref, the input classes its value stands
// for), so the coverage sweep does not play them again.
func (sw *sweep) cover(v *view, played map[string][]personas.InputClass) {
	if sw == nil || len(played) == 0 {
		return
	}
	st, ok := sw.model.State(sw.cur)
	if !ok {
		return
	}
	for _, t := range st.Targets {
		if t.Status != personas.TargetUntried || t.Action.Kind != personas.ActionFill {
			continue
		}
		e, ok := personas.Locate(t.Action, v.Els)
		if ok && slices.Contains(played[e.Ref], t.Action.Class) {
			sw.model.Transition(sw.cur, t.Key(), "", 0)
			sw.markDone(sw.cur, t.Key())
		}
	}
}

// blocked settles a fill target of the current state whose value the
// browser's own validation would stop (personas.BrowserBlocks): it is
// counted as tried, with no submission spent on it.
func (sw *sweep) blocked(v *view, t personas.Target, in personas.Input) bool {
	if t.Action.Kind != personas.ActionFill || t.State != sw.cur {
		return false
	}
	e, ok := personas.Locate(t.Action, v.Els)
	if !ok || !personas.BrowserBlocks(personas.FieldOf(e, nil), in.Value) {
		return false
	}
	sw.model.Transition(sw.cur, t.Key(), "", 0)
	sw.markDone(sw.cur, t.Key())
	return true
}

// credit marks as tried the current state's one-step target that a
// persona's own step played (a button clicked, a box ticked, an option
// chosen), so the sweep does not play it again: a trick's click is as
// much coverage as the sweep's.
func (sw *sweep) credit(v *view, in browser.Intent) {
	if sw == nil || v == nil || in.Target == "" {
		return
	}
	st, ok := sw.model.State(sw.cur)
	if !ok {
		return
	}
	for _, t := range st.Targets {
		if t.Status != personas.TargetUntried || !oneStep(t.Action.Kind) {
			continue
		}
		e, ok := personas.Locate(t.Action, v.Els)
		if !ok || e.Ref != in.Target {
			continue
		}
		its := t.Action.Intents(e, personas.Input{})
		if len(its) != 1 || its[0].Action != in.Action || its[0].ValueOrEmpty() != in.ValueOrEmpty() {
			continue
		}
		sw.model.Transition(sw.cur, t.Key(), "", 0)
		sw.markDone(sw.cur, t.Key())
	}
}

// oneStep: an action kind played as one intent on one control.
func oneStep(k personas.ActionKind) bool {
	switch k {
	case personas.ActionClick, personas.ActionDblClick, personas.ActionCheck, personas.ActionUncheck, personas.ActionSelect:
		return true
	}
	return false
}

// playedHere reports whether clicking e was already played on this page
// template (by the sweep or credited to it).
func (sw *sweep) playedHere(e personas.Element) bool {
	if sw == nil {
		return false
	}
	st, ok := sw.model.State(sw.cur)
	if !ok {
		return false
	}
	for _, t := range st.Targets {
		if t.Action.Kind != personas.ActionClick || t.Action.Role != e.Role || t.Action.Name != e.Name {
			continue
		}
		if t.Status != personas.TargetUntried || sw.seen(t) > 0 {
			return true
		}
	}
	return false
}

// maxRows bounds the further instances of one repeated control that
// again plays per page template.
const maxRows = 4

// again plays a control that the screen repeats (the same button on every
// row of a list, shown or revealed on hover) on its other rows, once its
// target was tried on the first: what a row's action does may depend on
// the row's data. The rows are taken from the last one back, so a row
// whose button goes away once used does not shift the next one. Buttons
// named to destroy or cancel are left alone; at most maxRows rows per
// control and page template.
func (sw *sweep) again(v *view) (step, bool) {
	if sw == nil || sw.pend != nil {
		return step{}, false
	}
	st, ok := sw.model.State(sw.cur)
	if !ok {
		return step{}, false
	}
	page, _, _ := strings.Cut(st.Template, "?")
	for _, t := range st.Targets {
		a := t.Action
		// Tried here, or on another state of the page's template (the
		// screen changed once a row was played: the target is new to
		// that state, yet here() counts it played).
		played := t.Status == personas.TargetTried || t.Status == personas.TargetUntried && sw.seen(t) > 0
		if !played || a.Kind != personas.ActionClick || a.Role != "button" || reNotSubmit.MatchString(a.Name) || submitRank(a.Name) < len(submitWords) {
			continue
		}
		first, ok := personas.Locate(a, v.Els)
		if !ok || !first.InMain {
			continue
		}
		var same []personas.Element
		for _, e := range v.Els {
			if e.Role == first.Role && e.Name == first.Name && e.InMain && !e.Has("disabled") {
				same = append(same, e)
			}
		}
		k := page + "|" + string(a.Key())
		n := sw.rows[k]
		if len(same) < 2 || n >= maxRows || n >= len(same)-1 {
			continue
		}
		sw.rows[k] = n + 1
		e := same[len(same)-1-n]
		return step{in: clickRef(e.Ref), why: fmt.Sprintf("%s on another row", e.Name), watch: 400 * time.Millisecond}, true
	}
	return step{}, false
}

// catalogueOrder is the order the catalogue trick plays a form's input
// classes in: the values a form must take and that most often break what
// stores them (text longer than a column, quotes, letters outside
// Latin-1) first, as each is one submission for every text field of the
// form; then the number boundaries (one past the maximum, zero, below
// zero: where a column's range or a division breaks), with text past the
// next common limit (1001 characters: a long text's column) between them,
// and emptiness, which a form may refuse and so go one field at a time;
// then the rarer format classes.
var catalogueOrder = []personas.InputClass{
	personas.ClassLong256, personas.ClassQuotes, personas.ClassNonLatin, personas.ClassAboveMax, personas.ClassLong1001, personas.ClassZero,
	personas.ClassNegative, personas.ClassEmpty, personas.ClassHuge, personas.ClassWhitespace, personas.ClassBelowMin,
	personas.ClassMalformed, personas.ClassDecimal, personas.ClassInvalidDate,
}

// maxCatalogue bounds the catalogue trick's submissions per page
// template; the coverage sweep plays what is left.
const maxCatalogue = 10

// formClass is the catalogue trick: on a form of at least two fields, the
// first class of order with an untried fill target there, played as a
// widened submission (see widen); done when none is left or the page had
// its share (a macro of another target under way is not done: later).
func (sw *sweep) formClass(m *member, v *view, order []personas.InputClass) (macro []step, done bool) {
	if sw == nil {
		return nil, true
	}
	if sw.pend != nil {
		return nil, false // busy with another target: later
	}
	st, ok := sw.model.State(sw.cur)
	if !ok {
		return nil, false
	}
	page, _, _ := strings.Cut(st.Template, "?")
	if sw.catN[page] >= maxCatalogue {
		return nil, true
	}
	for _, c := range order {
		for _, t := range st.Targets {
			a := t.Action
			if t.Status != personas.TargetUntried || a.Kind != personas.ActionFill || a.Class != c {
				continue
			}
			el, ok := personas.Locate(a, v.Els)
			if !ok || !el.InMain || formFields(v.Els, indexOf(v.Els, el.Ref)) < 2 {
				continue
			}
			in, ok := sw.model.Input(t)
			if !ok || sw.blocked(v, t, in) {
				continue
			}
			wide, also, strict := sw.widen(v, a, in)
			macro := targetMacroWith(m, v, a, in, wide)
			if len(macro) == 0 {
				continue
			}
			sw.catN[page]++
			if v.Cov != nil {
				v.Cov.catalogued[urlx.Path(v.URL)]++
			}
			sw.pend = &pendingTarget{from: sw.cur, key: a.Key(), left: len(macro), also: also, strict: strict, class: c, cat: true}
			if c == personas.ClassQuotes || c == personas.ClassNonLatin {
				sw.pend.revisit = listPages(v) // shown where the app lists it
			}
			macro[0].why = "catalogue: " + strings.TrimPrefix(macro[0].why, "coverage: ")
			for i := range macro {
				macro[i].cat = true
			}
			return macro, false
		}
	}
	return nil, true
}

// formFields counts the fillable fields of the form around els[at].
func formFields(els []personas.Element, at int) int {
	lo, hi := formSpan(els, at)
	n := 0
	for _, e := range els[lo:hi] {
		if e.Fillable() && e.InMain == els[at].InMain {
			n++
		}
	}
	return n
}

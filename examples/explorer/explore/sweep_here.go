package explore

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/personas"
)

// maxHere bounds sweep.here per page template.
const maxHere = 8

// here is the best untried one-step target of the page the browser is on
// (choosing an option, ticking a box, pressing an in-page button,
// following a link to a view of the page: no form to fill, no
// navigation): every visit of a screen tries some of its
// own controls before the team moves on, so controls outside forms get
// their turn within the budget. Controls none of whose targets was tried
// come first (each select, box and button once before a select's other
// options or a box unticked). At most maxHere per page template.
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
	played := map[string]bool{} // controls with a target tried here
	for _, t := range st.Targets {
		if t.Status != personas.TargetUntried || sw.seen(t) > 0 {
			played[t.Action.Role+"\x00"+t.Action.Name] = true
		}
	}
	persona := preference(m.p)
	flow := sw.stepPending(v)
	best, bestScore := personas.Target{}, math.Inf(-1)
	for _, t := range st.Targets {
		a := t.Action
		if t.Status != personas.TargetUntried || !inMain[a.Role+"\x00"+a.Name] || sw.seen(t) > 0 {
			continue
		}
		if flow && personas.Backward(a.Name) {
			continue // going back would leave the flow's step
		}
		switch {
		case a.Kind == personas.ActionSelect, a.Kind == personas.ActionCheck, a.Kind == personas.ActionUncheck:
			if e, ok := personas.Locate(a, v.Els); !ok || personas.InForm(v.Els, e.Ref) && !choicesOnly(v.Els, a, e) {
				// A form's choice waits for the sweep, which submits it
				// with the rest of the form filled.
				continue
			}
		case a.Kind == personas.ActionClick && a.Role == "link":
			if e, ok := personas.Locate(a, v.Els); !ok || !hashRoute(e.URL) && !scriptLink(e.URL) {
				continue
			}
			// A link to a view of this page (#/month): a hash route
			// renders in place, as a tab would; a link to nowhere ("#",
			// "javascript:") is a button its script handles.
		case a.Kind == personas.ActionClick && !personas.NotSubmit(a.Name) && !personas.SignOut(a.Name) &&
			(!personas.SubmitNamed(a.Name) || !personas.SendsForm(v.Els, locateIndex(a, v.Els))):
			// An in-page button that submits nothing (nor deletes: a
			// destructive button waits for the sweep, after the screen's
			// other controls).
		default:
			continue
		}
		s := sw.model.Score(t) + persona(t)
		if played[a.Role+"\x00"+a.Name] {
			s -= 10
		}
		if s > bestScore {
			best, bestScore = t, s
		}
	}
	if math.IsInf(bestScore, -1) {
		return step{}, false
	}
	in, _ := sw.model.Input(best)
	var wide map[string]string
	var also []personas.ActionKey
	e, _ := personas.Locate(best.Action, v.Els)
	if personas.InForm(v.Els, e.Ref) {
		// A form of choices only (a list's filter and sort): the
		// choice and the form's submit, an option of each other select
		// with it (see widenOptions).
		wide, also = sw.widenOptions(v, best.Action)
	}
	macro := targetMacroWith(m, v, best.Action, in, wide)
	if len(macro) == 0 || len(macro) > 1 && !personas.InForm(v.Els, e.Ref) {
		return step{}, false
	}
	sw.hereN[page]++
	sw.pend = &pendingTarget{from: sw.cur, key: best.Key(), left: len(macro), also: also}
	macro[0].why = "this screen's own control: " + strings.TrimPrefix(macro[0].why, "coverage: ")
	m.q = macro[1:]
	return macro[0], true
}

// choicesOnly: a's control is a select in a form that has nothing to
// type (a list's filter and sort form): choosing and applying is as
// cheap as a select outside any form.
func choicesOnly(els []personas.Element, a personas.Action, e personas.Element) bool {
	return a.Kind == personas.ActionSelect && personas.FormFields(els, personas.IndexOf(els, e.Ref)) == 0
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
	return personas.IndexOf(els, e.Ref)
}

// hashRoute: a link's href names a view of the page itself ("#/month",
// "#!/month", "#month"), not the top of the page ("#") or nothing.
func hashRoute(href string) bool {
	return len(href) > 1 && href[0] == '#'
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
// control and page template. A button whose click the browser could not
// do (sweep.retry: an open dialog in the way, say) is clicked once more
// first, on the page's next screen.
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
		if !played || a.Kind != personas.ActionClick || a.Role != "button" || personas.NotSubmit(a.Name) || personas.SubmitNamed(a.Name) {
			continue
		}
		first, ok := personas.Locate(a, v.Els)
		if !ok || !first.InMain {
			continue
		}
		k := page + "|" + string(a.Key())
		if sw.retry[k] {
			// Its click failed on an earlier screen of the page (a
			// dialog over it, say), so it was never done: once more.
			delete(sw.retry, k)
			return step{in: browser.Click(first.Ref), why: fmt.Sprintf("%s again: the browser could not click it before", first.Name), watch: 400 * time.Millisecond}, true
		}
		var same []personas.Element
		for _, e := range v.Els {
			if e.Role == first.Role && e.Name == first.Name && e.InMain && !e.Has("disabled") {
				same = append(same, e)
			}
		}
		n := sw.rows[k]
		if len(same) < 2 || n >= maxRows || n >= len(same)-1 {
			continue
		}
		sw.rows[k] = n + 1
		e := same[len(same)-1-n]
		return step{in: browser.Click(e.Ref), why: fmt.Sprintf("%s on another row", e.Name), watch: 400 * time.Millisecond}, true
	}
	return step{}, false
}

package explore

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

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
		i := personas.IndexOf(v.Els, el.Ref)
		macro := fillOthersWith(v, el, i, wide)
		val := in.Value
		if in.Class == personas.ClassValid {
			val = validFor(el, v) // free text made unique: records stay apart
		}
		macro = append(macro, step{in: browser.Fill(el.Ref, val), why: fmt.Sprintf("coverage: %s (%s)", what, clip.String(val, 40))})
		last := i
		for j := i + 1; j < len(v.Els); j++ {
			e := v.Els[j]
			if e.InMain == el.InMain && personas.SubmitLike(e) {
				break // the form's own submit: what follows is another form
			}
			if e.InMain == el.InMain && personas.FormControl(e) {
				last = j
			}
		}
		if b, ok := personas.SubmitAfter(v.Els, last+1); ok && el.InMain {
			return append(macro, step{in: browser.Click(b.Ref), why: "submit " + b.Name})
		}
		return append(macro, step{in: browser.Intent{Action: browser.ActPress, Target: el.Ref, Key: "Enter"}, why: "submit with Enter"})
	case personas.ActionPress:
		var macro []step
		if el.Fillable() && el.Value == "" && a.Arg == "Enter" {
			macro = append(macro, step{in: browser.Fill(el.Ref, validFor(el, v)), why: "fill " + el.Name})
		}
		for _, it := range a.Intents(el, in) {
			macro = append(macro, step{in: it, why: "coverage: " + what})
		}
		return macro
	case personas.ActionClick, personas.ActionDblClick:
		var macro []step
		if el.Role == "button" && el.InMain && personas.SubmitNamed(el.Name) && personas.SendsForm(v.Els, personas.IndexOf(v.Els, el.Ref)) {
			// A submit button: a valid form first, so the click goes
			// through the app's own validation to what lies behind it.
			macro = fillOthers(v, el, personas.IndexOf(v.Els, el.Ref))
		}
		if a.Kind == personas.ActionDblClick && len(macro) == 0 && (el.Role != "button" || !personas.SubmitNamed(el.Name)) {
			// Not a submit: a plain double click (to edit, to open).
			return []step{{in: browser.Intent{Action: browser.ActDblclick, Target: el.Ref}, why: "coverage: " + what, watch: 400 * time.Millisecond}}
		}
		if a.Kind == personas.ActionDblClick {
			// A submit double-clicked: two submissions a few milliseconds
			// apart, the first answer held back as a slow network would.
			return append(macro, step{in: browser.Intent{Action: browser.ActDblclick, Target: el.Ref}, before: m.hold,
				why: "coverage: " + what + " (slow network)", watch: 400 * time.Millisecond})
		}
		return append(macro, step{in: browser.Click(el.Ref), why: "coverage: " + what, watch: 400 * time.Millisecond})
	}
	var macro []step
	for _, it := range a.Intents(el, in) {
		macro = append(macro, step{in: it, why: "coverage: " + what})
	}
	if a.Kind == personas.ActionSelect || a.Kind == personas.ActionCheck || a.Kind == personas.ActionUncheck {
		// A choice inside a form is a value the form sends: it is
		// submitted, with the rest of the form valid (and the form's
		// other choices set as wide says), or it tests nothing.
		i := personas.IndexOf(v.Els, el.Ref)
		if b, ok := personas.FormSubmit(v.Els, i); ok && len(macro) > 0 {
			macro = append(fillOthers(v, el, i), macro...)
			for _, e := range v.Els {
				if o, ok := wide[e.Ref]; ok && e.Ref != el.Ref && e.Role == "combobox" {
					macro = append(macro, step{in: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, why: "choose " + e.Name + " (" + clip.String(o, 40) + ")"})
				}
			}
			return append(macro, step{in: browser.Click(b.Ref), why: "submit " + b.Name})
		}
	}
	return macro
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
	b, ok := personas.FormSubmit(v.Els, personas.IndexOf(v.Els, el.Ref))
	if !ok {
		return nil, nil
	}
	wide := map[string]string{}
	var also []personas.ActionKey
	for _, t := range st.Targets {
		ta := t.Action
		if t.Status != personas.TargetUntried || ta.Kind != personas.ActionSelect || ta.Key() == a.Key() || sw.seen(t) > 0 {
			// (An option chosen on another state of this page, the
			// same list with other filters, was tried too.)
			continue
		}
		e, ok := personas.Locate(ta, v.Els)
		if !ok || e.Ref == el.Ref || e.Role != "combobox" || e.Has("disabled") {
			continue
		}
		if eb, ok := personas.FormSubmit(v.Els, personas.IndexOf(v.Els, e.Ref)); !ok || eb.Ref != b.Ref {
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
			macro = append(macro, step{in: browser.Fill(e.Ref, val), why: fmt.Sprintf("fill %s (%s)", e.Name, clip.String(val, 40))})
			continue
		}
		switch {
		case e.Fillable() && (e.Value == "" || staleValue(v, e.Value)) && f.Kind != personas.FieldPassword:
			macro = append(macro, step{in: browser.Fill(e.Ref, validFor(e, v)), why: "fill " + e.Name})
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

// staleValue: a field holds a text the mission typed before (a form sent
// back keeps what was sent): it is typed afresh, or the next submission
// would store the earlier one a second time, which a list then shows as
// a duplicate the app did not make.
func staleValue(v *view, value string) bool {
	return v.Sweep != nil && v.Sweep.typed.shows(value)
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
	lo, hi := personas.FormSpan(v.Els, personas.IndexOf(v.Els, el.Ref))
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
		if j := personas.IndexOf(v.Els, e.Ref); j < lo || j >= hi {
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
// browser's own validation would stop (personas.BrowserBlocks), or cut
// at the field's maxlength (what is sent is then a value of the maximum
// length, the class "max"): it is counted as tried, with no submission
// spent on it.
func (sw *sweep) blocked(v *view, t personas.Target, in personas.Input) bool {
	if t.Action.Kind != personas.ActionFill || t.State != sw.cur {
		return false
	}
	e, ok := personas.Locate(t.Action, v.Els)
	if !ok {
		return false
	}
	f := personas.FieldOf(e, nil)
	if !personas.BrowserBlocks(f, in.Value) && (f.MaxLength <= 0 || utf8.RuneCountInString(in.Value) <= f.MaxLength) {
		return false
	}
	sw.model.Transition(sw.cur, t.Key(), "", 0)
	sw.markDone(sw.cur, t.Key())
	return true
}

// catalogueOrder is the order the catalogue trick plays a form's input
// classes in: the values a form must take and that most often break what
// stores them (text longer than a column, quotes, letters outside
// Latin-1) first, as each is one submission for every text field of the
// form; then the number boundaries (one past the maximum, zero, below
// zero: where a column's range or a division breaks), with text past the
// next common limits (1001 characters, and 10001 in a textarea, whose
// column is often some thousands wide) between them,
// and emptiness, which a form may refuse and so go one field at a time;
// then the rarer format classes.
var catalogueOrder = []personas.InputClass{
	personas.ClassLong256, personas.ClassQuotes, personas.ClassNonLatin, personas.ClassAboveMax, personas.ClassLong1001, personas.ClassLong10001,
	personas.ClassZero, personas.ClassNegative, personas.ClassEmpty, personas.ClassHuge, personas.ClassWhitespace, personas.ClassBelowMin,
	personas.ClassMalformed, personas.ClassDecimal, personas.ClassInvalidDate,
}

// maxCatalogue bounds the catalogue trick's submissions per page
// template; the coverage sweep plays what is left.
const maxCatalogue = 10

// formClass is the catalogue trick: on a form of at least two fields (or
// a number field alone, whose boundaries are its classes), the
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
			if !ok || !el.InMain || personas.FormFields(v.Els, personas.IndexOf(v.Els, el.Ref)) < 2 && !numberField(el) || !catalogueFits(c, el) {
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

// catalogueFits: the catalogue plays class c on the field el. Text of
// 10001 characters goes into textareas only (long text's place); the
// coverage sweep plays it in the other fields.
func catalogueFits(c personas.InputClass, el personas.Element) bool {
	return c != personas.ClassLong10001 || personas.FieldOf(el, nil).Kind == personas.FieldTextarea
}

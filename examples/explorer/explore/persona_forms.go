package explore

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/personas"
)

func hasPassword(els []personas.Element) bool {
	for _, e := range els {
		if e.Fillable() && strings.Contains(strings.ToLower(e.Name), "password") {
			return true
		}
	}
	return false
}

func intent(a browser.Action) browser.Intent { return browser.Intent{Action: a} }

func clickRef(ref string) browser.Intent {
	return browser.Intent{Action: browser.ActClick, Target: ref}
}

func fillRef(ref, v string) browser.Intent {
	return browser.Intent{Action: browser.ActFill, Target: ref, Value: &v}
}

func nav(u string) browser.Intent { return browser.Intent{Action: browser.ActNavigate, URL: u} }

// submitWords rank button names by how surely they submit a form.
var submitWords = []string{"submit", "create", "continue", "next", "sign in", "log in", "login", "search", "apply", "send", "update", "save", "confirm", "ok", "go"}

func submitRank(name string) int {
	n := strings.ToLower(name)
	for i, w := range submitWords {
		if strings.Contains(n, w) {
			return i
		}
	}
	return len(submitWords)
}

// submitButton is the in-main button after the fields that most looks like
// it submits them.
// reNotSubmit names buttons that undo or destroy rather than send: never a
// form's submit, whatever their place after the field.
var reNotSubmit = regexp.MustCompile(`(?i)\b(delete|remove|cancel|close|clear|reset|discard|dismiss|undo)\b`)

// reDismiss is a control whose whole name says it only closes what is
// open (a dialog's Cancel, a banner's ×), not one that names what it
// closes ("Close the account…" opens a confirmation).
var reDismiss = regexp.MustCompile(`(?i)^\s*(cancel|close|dismiss|no|no,? thanks|not now|never ?mind|keep editing|go back|×|✕|✖|x)\s*$`)

// reSideButton names a form's side button that acts on the form itself.
var reSideButton = regexp.MustCompile(`(?i)\b(delete|remove|clear|reset|discard|undo)\b`)

// dismiss: name is a dismiss control's (reDismiss).
func dismiss(name string) bool { return reDismiss.MatchString(name) }

// recordForm: the page's main content holds a form of two fields or more.
func recordForm(els []personas.Element) bool {
	for i, e := range els {
		if e.InMain && e.Fillable() && formFields(els, i) >= 2 {
			return true
		}
	}
	return false
}

// sendsForm: the button els[i] sends fields: a form control comes between
// it and the nearest button or link before it (in its region). A
// "Confirm" with nothing to fill before it is a button like any other.
func sendsForm(els []personas.Element, i int) bool {
	if i < 0 || i >= len(els) {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		e := els[j]
		switch {
		case e.InMain != els[i].InMain:
		case e.Role == "button" && (e.Has("file input") || reSideButton.MatchString(e.Name) || dismiss(e.Name) || reBackward.MatchString(e.Name)):
			// A form's own side buttons (a file chooser, Back, Clear,
			// Cancel) do not end it; a button that names what it closes
			// ("Close the account…", which opens its confirmation) does.
		case e.Role == "button" || e.Role == "link":
			return false
		case formControl(e):
			return true
		}
	}
	return false
}

func submitButton(els []personas.Element, after int) (personas.Element, bool) {
	best, rank := -1, len(submitWords)+1
	for i := after; i < len(els); i++ {
		e := els[i]
		if e.Role != "button" || !e.InMain || e.Has("disabled") || reNotSubmit.MatchString(e.Name) {
			continue
		}
		if r := submitRank(e.Name); r < rank {
			best, rank = i, r
		}
	}
	if best < 0 {
		return personas.Element{}, false
	}
	return els[best], true
}

// validFor is a valid value for the field e, from its kind, label and
// constraints (personas.ValidValue); free text gets a number no other value
// of the mission had (coverage.tag), so two records the explorer creates
// never read the same (a list showing two equal rows is then the app's
// doing).
func validFor(e personas.Element, v *view) string {
	f := personas.FieldOf(e, nil)
	val := personas.ValidValue(f)
	if (f.Kind == personas.FieldText || f.Kind == personas.FieldTextarea) && f.Pattern == "" && strings.ContainsFunc(val, unicode.IsLetter) &&
		!strings.ContainsAny(val, "@/") {
		tail := fmt.Sprintf(" %d", v.Cov.tag(v.Rand))
		if f.MaxLength == 0 || utf8.RuneCountInString(val+tail) <= f.MaxLength {
			val += tail
		}
	}
	return val
}

// exoticText is legal text that trips careless code: an apostrophe
// (quoting), letters outside Latin-1 (encodings, Latin-1 columns) and a
// number no other value of the mission had (so two records never read the
// same), within the field's maxlength.
func exoticText(f personas.Field, vw *view) string {
	v := fmt.Sprintf("O'Brien \u212Bngstr\u00f6m \u03a9 \u6771\u4eac %d", vw.Cov.tag(vw.Rand))
	if f.MaxLength > 0 && utf8.RuneCountInString(v) > f.MaxLength {
		v = string([]rune(v)[:f.MaxLength])
	}
	return v
}

// formPlan fills the page's in-main fields with fill(name) and submits.
func formPlan(v *view, fill func(e personas.Element) (string, bool), double bool, hold func()) []step {
	var out []step
	last := -1
	radios := map[string]bool{}
	for i, e := range v.Els {
		if !e.InMain || e.Has("disabled") {
			continue
		}
		switch {
		case e.Fillable():
			val, ok := fill(e)
			if !ok {
				continue
			}
			out = append(out, step{in: fillRef(e.Ref, val), why: "fill " + e.Name})
			last = i
		case e.Role == "combobox" && len(e.Options) > 0 && e.Value == "":
			// A required choice left on its placeholder blocks the form
			// in the browser: the form is filled to be sent.
			if f := personas.FieldOf(e, nil); f.Required {
				o := personas.ValidValue(f)
				out = append(out, step{in: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, why: "choose " + e.Name})
				last = i
			}
		case e.Role == "radio":
			if !radios["any"] && !e.Has("checked") {
				out = append(out, step{in: clickRef(e.Ref), why: "choose " + e.Name})
			}
			radios["any"] = true
			last = i
		case e.Role == "checkbox":
			last = i
		}
	}
	if last < 0 {
		return nil
	}
	b, ok := submitButton(v.Els, last+1)
	if !ok {
		// No button: a filter or search field submits on Enter.
		if f := v.Els[last]; f.Fillable() && !double && len(out) > 0 {
			return append(out, step{in: browser.Intent{Action: browser.ActPress, Target: f.Ref, Key: "Enter"}, why: "submit with Enter"})
		}
		return nil
	}
	if double {
		// An impatient double click: two clicks a few milliseconds apart,
		// the first answer held back as a slow network would.
		out = append(out, step{in: browser.Intent{Action: browser.ActDblclick, Target: b.Ref}, before: hold, why: "double-click submit on a slow network"})
	} else {
		out = append(out, step{in: clickRef(b.Ref), why: "submit " + b.Name})
	}
	return out
}

// reQuery names a field that queries what the app holds rather than
// adding to it.
var reQuery = regexp.MustCompile(`(?i)\b(search|filter|find|query|look ?up)\b`)

// queryForm: the main content's only text to fill is a search or a
// filter (a search box, or one field named so).
func queryForm(els []personas.Element) bool {
	var fields []personas.Element
	for _, e := range els {
		if e.InMain && e.Fillable() {
			fields = append(fields, e)
		}
	}
	if len(fields) == 0 {
		return false
	}
	if len(fields) == 1 && reQuery.MatchString(fields[0].Name) {
		return true
	}
	for _, e := range fields {
		if personas.FieldOf(e, nil).Kind != personas.FieldSearch && e.Role != "searchbox" {
			return false
		}
	}
	return true
}

func hasFields(els []personas.Element) bool {
	for _, e := range els {
		if e.InMain && e.Fillable() {
			return true
		}
	}
	return false
}

func hasRole(els []personas.Element, role string) bool {
	for _, e := range els {
		if e.Role == role && e.InMain {
			return true
		}
	}
	return false
}

func indexOf(els []personas.Element, ref string) int {
	for i, e := range els {
		if e.Ref == ref {
			return i
		}
	}
	return 0
}

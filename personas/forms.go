package personas

import (
	"regexp"
	"strings"
)

// Reading a page's forms from its controls. A snapshot has no <form>
// elements, only controls in document order, so a form is what lies
// between two submit-like buttons of one region (the main content, or
// the rest of the page). The explorer's app model and the tricks of
// every persona read forms with these functions.

// submitWords rank button names by how surely they submit a form.
var submitWords = []string{"submit", "create", "continue", "next", "sign in", "log in", "login", "search", "apply", "send", "update", "save", "confirm", "ok", "go"}

// submitRank is the index of the first of submitWords that name
// contains, or len(submitWords).
func submitRank(name string) int {
	n := strings.ToLower(name)
	for i, w := range submitWords {
		if strings.Contains(n, w) {
			return i
		}
	}
	return len(submitWords)
}

// SubmitNamed reports whether a control's name says it sends a form
// ("Save", "Create project", "Search", "Next").
func SubmitNamed(name string) bool { return submitRank(name) < len(submitWords) }

var (
	// reNotSubmit names buttons that undo or destroy rather than send.
	reNotSubmit = regexp.MustCompile(`(?i)\b(delete|remove|cancel|close|clear|reset|discard|dismiss|undo)\b`)
	// reDismiss is a control whose whole name says it only closes what
	// is open (a dialog's Cancel, a banner's ×), not one that names what
	// it closes ("Close the account…" opens a confirmation).
	reDismiss = regexp.MustCompile(`(?i)^\s*(cancel|close|dismiss|no|no,? thanks|not now|never ?mind|keep editing|go back|×|✕|✖|x)\s*$`)
	// reSideButton names a form's side button that acts on the form itself.
	reSideButton = regexp.MustCompile(`(?i)\b(delete|remove|clear|reset|discard|undo)\b`)
	// reBackward names the controls that step back in a flow.
	reBackward = regexp.MustCompile(`(?i)\b(back|previous|prev)\b`)
	// reQuery names a field that queries what the app holds rather than
	// adding to it.
	reQuery = regexp.MustCompile(`(?i)\b(search|filter|find|query|look ?up)\b`)
)

// NotSubmit reports whether a button's name says it undoes or destroys
// (Delete, Cancel, Reset…): never a form's submit, wherever it sits.
func NotSubmit(name string) bool { return reNotSubmit.MatchString(name) }

// Dismiss reports whether a control's whole name says it only closes
// what is open (Cancel, Close, ×).
func Dismiss(name string) bool { return reDismiss.MatchString(name) }

// Backward reports whether a control's name says it steps back (Back,
// Previous).
func Backward(name string) bool { return reBackward.MatchString(name) }

// SubmitLike reports whether e is a button named like a form's submit.
func SubmitLike(e Element) bool {
	return e.Role == "button" && SubmitNamed(e.Name) && !NotSubmit(e.Name)
}

// FormControl reports whether e is something a form submits.
func FormControl(e Element) bool {
	return e.Fillable() || e.Role == "combobox" || e.Role == "checkbox" || e.Role == "radio"
}

// IndexOf is the index of the element with ref in els, or 0.
func IndexOf(els []Element, ref string) int {
	for i, e := range els {
		if e.Ref == ref {
			return i
		}
	}
	return 0
}

// SubmitAfter is the main content's button at or after index after that
// most looks like it submits the fields before it: the best ranked by
// name, else the first that neither undoes nor destroys.
func SubmitAfter(els []Element, after int) (Element, bool) {
	best, rank := -1, len(submitWords)+1
	for i := max(after, 0); i < len(els); i++ {
		e := els[i]
		if e.Role != "button" || !e.InMain || e.Has("disabled") || NotSubmit(e.Name) {
			continue
		}
		if r := submitRank(e.Name); r < rank {
			best, rank = i, r
		}
	}
	if best < 0 {
		return Element{}, false
	}
	return els[best], true
}

// SendsForm reports whether the button els[i] sends fields: a form
// control comes between it and the nearest button or link before it (in
// its region). A "Confirm" with nothing to fill before it is a button
// like any other.
func SendsForm(els []Element, i int) bool {
	if i < 0 || i >= len(els) {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		e := els[j]
		switch {
		case e.InMain != els[i].InMain:
		case e.Role == "button" && (e.Has("file input") || reSideButton.MatchString(e.Name) || Dismiss(e.Name) || Backward(e.Name)):
			// A form's own side buttons (a file chooser, Back, Clear,
			// Cancel) do not end it; a button that names what it closes
			// ("Close the account…", which opens its confirmation) does.
		case e.Role == "button" || e.Role == "link":
			return false
		case FormControl(e):
			return true
		}
	}
	return false
}

// FormSubmit is the submit button of the form around els[at] when it
// sits in one: the first submit-like button of the main content after
// it, with no link between them (a link ends a form: what follows it is
// another part of the page).
func FormSubmit(els []Element, at int) (Element, bool) {
	if at < 0 || at >= len(els) || !els[at].InMain {
		return Element{}, false
	}
	for j := at + 1; j < len(els); j++ {
		e := els[j]
		if !e.InMain {
			continue
		}
		if e.Role == "link" {
			return Element{}, false
		}
		if SubmitLike(e) {
			return e, !e.Has("disabled")
		}
	}
	return Element{}, false
}

// InForm reports whether the element ref sits in a form with a submit
// button (FormSubmit).
func InForm(els []Element, ref string) bool {
	_, ok := FormSubmit(els, IndexOf(els, ref))
	return ok
}

// FormSpan is the index range [lo, hi) of the form around els[at]: from
// after the submit-like button of its region before it to the next one.
func FormSpan(els []Element, at int) (lo, hi int) {
	lo, hi = 0, len(els)
	if at < 0 || at >= len(els) {
		return lo, hi
	}
	for j := at - 1; j >= 0; j-- {
		if SubmitLike(els[j]) && els[j].InMain == els[at].InMain {
			lo = j + 1
			break
		}
	}
	for j := at + 1; j < len(els); j++ {
		if SubmitLike(els[j]) && els[j].InMain == els[at].InMain {
			hi = j
			break
		}
	}
	return lo, hi
}

// FormFields counts the fillable fields of the form around els[at].
func FormFields(els []Element, at int) int {
	if at < 0 || at >= len(els) {
		return 0
	}
	lo, hi := FormSpan(els, at)
	n := 0
	for _, e := range els[lo:hi] {
		if e.Fillable() && e.InMain == els[at].InMain {
			n++
		}
	}
	return n
}

// RecordForm reports whether the main content holds a form of two fields
// or more: one that makes or changes a record, not a search.
func RecordForm(els []Element) bool {
	for i, e := range els {
		if e.InMain && e.Fillable() && FormFields(els, i) >= 2 {
			return true
		}
	}
	return false
}

// QueryForm reports whether the main content's only text to fill is a
// search or a filter (a search box, or one field named so).
func QueryForm(els []Element) bool {
	var fields []Element
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
		if FieldOf(e, nil).Kind != FieldSearch && e.Role != "searchbox" {
			return false
		}
	}
	return true
}

// HasFields reports whether the main content has a field to fill.
func HasFields(els []Element) bool {
	for _, e := range els {
		if e.InMain && e.Fillable() {
			return true
		}
	}
	return false
}

// HasRole reports whether the main content has a control of role.
func HasRole(els []Element, role string) bool {
	for _, e := range els {
		if e.Role == role && e.InMain {
			return true
		}
	}
	return false
}

// HasPassword reports whether the page has a password field.
func HasPassword(els []Element) bool {
	for _, e := range els {
		if e.Fillable() && strings.Contains(strings.ToLower(e.Name), "password") {
			return true
		}
	}
	return false
}

// FormSignature identifies a form page for the form tricks' memo: the
// page's URL template (the caller's, as its memo keys use it) and the
// roles and names of the fields in its main content, numbers in names
// generalised. The steps of a wizard differ; the edit pages of many
// records do not.
func FormSignature(template string, els []Element) string {
	var b strings.Builder
	b.WriteString(template)
	for _, e := range els {
		if e.InMain && (e.Fillable() || e.Role == "radio" || e.Role == "combobox") {
			b.WriteString("|" + e.Role + ":" + reDigits.ReplaceAllString(e.Name, "#"))
		}
	}
	return b.String()
}

package bugfarm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// catalogue is every class, in the order the placement tries them.
func catalogue() []Class {
	return []Class{ClassPageError, ClassConsole, ClassRejection, ClassServerError, ClassStoredXSS,
		ClassReflected, ClassBrokenLink, ClassSlow, ClassDead, ClassDouble, ClassSession,
		ClassBanner, ClassA11y, ClassDeep}
}

// xssPayload is what XSS triggers type: it calls the driver's hook.
const xssPayload = `<img src=x onerror="__bfxss(this)">`

// maxServerBugs bounds the server_error bugs of one app.
const maxServerBugs = 3

// placeBugs draws 10 to 20 bugs onto the app's slots. Every class that has
// a slot is tried first, in a drawn order; the rest are drawn at random.
func (s *site) placeBugs(r *rand.Rand) {
	slots, keys := s.slots(r)
	used := map[string]bool{}
	inputs := map[Input]bool{}
	servers := 0
	target := 10 + r.IntN(11)
	place := func(c Class) bool {
		var cand []int
		for i, sl := range slots {
			if used[keys[i]] || !slices.Contains(sl.classes, c) {
				continue
			}
			if c == ClassServerError && (inputs[sl.input] || servers >= maxServerBugs) {
				continue
			}
			cand = append(cand, i)
		}
		if len(cand) == 0 {
			return false
		}
		i := cand[r.IntN(len(cand))]
		used[keys[i]] = true
		p := &placed{Bug: Bug{ID: fmt.Sprintf("bf%d-%02d", s.seed, len(s.bugs)+1), Class: c}}
		if c == ClassServerError {
			p.Input = slots[i].input
			inputs[p.Input] = true
			servers++
		}
		slots[i].put(p)
		p.Trigger = settle(p.Trigger)
		p.Depth = depth(p.Trigger, len(s.enter()))
		s.bugs = append(s.bugs, p)
		return true
	}
	order := catalogue()
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, c := range order {
		if len(s.bugs) < target {
			place(c)
		}
	}
	// one to three input classes break the server
	for more := r.IntN(maxServerBugs); more > 0 && len(s.bugs) < target; more-- {
		place(ClassServerError)
	}
	for tries := 0; len(s.bugs) < target && tries < 400; tries++ {
		place(order[r.IntN(len(order))])
	}
}

// settleMS is how long a trigger lets a submitted form land before it
// navigates away on its own.
const settleMS = "500"

// settle puts a short wait between a click or key press and a following
// goto, so the goto cannot cancel the request the click sent (a sign-in,
// a create).
func settle(steps []Step) []Step {
	out := make([]Step, 0, len(steps)+2)
	for i, st := range steps {
		if st.Op == OpGoto && i > 0 {
			switch steps[i-1].Op {
			case OpClick, OpDblClick, OpPress:
				out = append(out, Step{Op: OpWait, Value: settleMS})
			}
		}
		out = append(out, st)
	}
	return out
}

// depth counts the user actions of a trigger after signing in.
func depth(steps []Step, signIn int) int {
	n := 0
	for _, st := range steps[signIn:] {
		if st.Op != OpWait {
			n++
		}
	}
	return n
}

// slots lists every place a bug can go, with a key per exclusive place.
func (s *site) slots(r *rand.Rand) ([]slot, []string) {
	var out []slot
	var keys []string
	add := func(key string, sl slot) {
		out = append(out, sl)
		keys = append(keys, key)
	}
	js := []Class{ClassPageError, ClassConsole}
	for _, pg := range s.pages {
		for _, w := range pg.Widgets {
			classes := slices.Clone(js)
			switch w.Kind {
			case wFetch:
				classes = []Class{ClassRejection, ClassConsole, ClassDead, ClassSlow, ClassBanner}
			case wRole:
				if w.Tag != "a" {
					classes = append(classes, ClassDead)
				}
			case wModal, wHover:
				classes = append(classes, ClassDead)
			case wSelect, wToggle, wRouter:
				classes = append(classes, ClassRejection)
			}
			add("w:"+w.ID, slot{classes: classes, put: s.putWidget(r, w)})
			if w.Kind == wFetch && s.creds != nil {
				add("w:"+w.ID, slot{classes: []Class{ClassSession}, put: s.putFetchSession(w)})
			}
			if w.Kind == wFetch && w.Param != nil {
				for _, in := range []Input{InputNegative, InputZero, InputOutOfRange} {
					add("w:"+w.ID, slot{classes: []Class{ClassServerError}, input: in, put: s.putFetchServer(w, in)})
				}
			}
			switch {
			case w.Kind == wSelect:
				add("name:"+w.ID, slot{classes: []Class{ClassA11y}, put: s.putName(w, "select-name")})
			case w.Kind == wToggle, w.Kind == wKeys:
				add("name:"+w.ID, slot{classes: []Class{ClassA11y}, put: s.putName(w, "label")})
			case w.Kind == wFetch && w.Icon:
				add("name:"+w.ID, slot{classes: []Class{ClassA11y}, put: s.putName(w, "button-name")})
			}
		}
		if pg.Kind != pSignIn {
			add("load:"+pg.Path, slot{classes: []Class{ClassConsole, ClassRejection}, put: s.putLoad(r, pg)})
		}
		for i, l := range pg.Related {
			add("link:"+pg.Path+strconv.Itoa(i), slot{classes: []Class{ClassBrokenLink}, put: s.putLink(pg, l)})
		}
		if pg.Kind == pReports || pg.Kind == pSearch || pg.Kind == pView {
			add("slow:"+pg.Path, slot{classes: []Class{ClassSlow}, put: s.putSlow(pg)})
		}
		if s.creds != nil && pg.Kind != pSignIn && pg.Kind != pNew && pg.Kind != pEdit {
			add("session:"+pg.Path, slot{classes: []Class{ClassSession}, put: s.putSession(pg)})
		}
	}
	for _, f := range s.fields {
		for _, in := range inputsFor(f) {
			add("new:"+f.Key, slot{classes: []Class{ClassServerError}, input: in, put: s.putFieldServer(f, in, false)})
			if !s.multi || r.IntN(2) == 0 {
				add("edit:"+f.Key, slot{classes: []Class{ClassServerError}, input: in, put: s.putFieldServer(f, in, true)})
			}
		}
		if f.textual() && (f.MaxLen == 0 || f.MaxLen >= 40) {
			sinks := []pageKind{pView}
			if f.Key == s.fields[0].Key {
				sinks = append(sinks, pList, pHome)
			}
			sink := sinks[r.IntN(len(sinks))]
			add("xss", slot{classes: []Class{ClassStoredXSS}, put: s.putStored(f, sink)})
		}
	}
	add("list.q", slot{classes: []Class{ClassReflected}, put: s.putReflected(s.byKind[pList])})
	if pg := s.byKind[pSearch]; pg != nil {
		add("search.q", slot{classes: []Class{ClassReflected}, put: s.putReflected(pg)})
		add("search.q", slot{classes: []Class{ClassServerError}, input: InputQuote, put: s.putSearchQuote(pg)})
	}
	dup5x := r.IntN(3) == 0
	if s.fetchForms {
		// two native submits in one double click race in the browser (the
		// second may cancel the first before it is sent); two fetches do not
		add("double", slot{classes: []Class{ClassDouble}, put: s.putDouble(dup5x)})
	}
	add("export", slot{classes: []Class{ClassBanner}, put: s.putExport()})
	add("timeline", slot{classes: []Class{ClassDeep}, put: s.putTimeline()})
	if s.multi {
		add("wizard", slot{classes: []Class{ClassDeep}, put: s.putWizard()})
	}
	add("logo", slot{classes: []Class{ClassA11y}, put: s.putLogo()})
	add("img", slot{classes: []Class{ClassA11y}, put: s.putImage()})
	return out, keys
}

// inputsFor lists the input classes a form field can break on.
func inputsFor(f field) []Input {
	switch f.Kind {
	case kText:
		in := []Input{InputQuote, InputNonLatin1}
		if f.MaxLen > 0 {
			in = append(in, InputLong)
		}
		if f.Required {
			in = append(in, InputEmpty)
		}
		return in
	case kTextarea:
		return []Input{InputQuote, InputLong}
	case kNumber:
		return []Input{InputNegative, InputZero, InputOutOfRange}
	}
	return nil
}

// ---- triggers ----

// enter returns the sign-in steps (none when the app has no sign-in).
func (s *site) enter() []Step {
	if s.creds == nil {
		return nil
	}
	return []Step{
		{Op: OpGoto, Path: "/signin"},
		{Op: OpFill, Selector: "#" + s.domID("signin-user"), Value: s.creds.User},
		{Op: OpFill, Selector: "#" + s.domID("signin-password"), Value: s.creds.Password},
		{Op: OpClick, Selector: "#" + s.domID("signin-submit")},
	}
}

// visit signs in when needed and opens path.
func (s *site) visit(path string) []Step {
	return append(s.enter(), Step{Op: OpGoto, Path: path})
}

// fill types v into field f of the record form.
func (s *site) fill(f field, v string) Step {
	sel := "#" + s.domID("f-") + f.Key
	switch f.Kind {
	case kSelect:
		return Step{Op: OpSelect, Selector: sel, Value: v}
	case kRadio:
		return Step{Op: OpCheck, Selector: fmt.Sprintf("%s-%d", sel, max(0, slices.Index(f.Options, v)))}
	case kCheckbox:
		return Step{Op: OpCheck, Selector: sel}
	}
	return Step{Op: OpFill, Selector: sel, Value: v}
}

// create fills the create form (every step of the wizard) with valid values
// and over, and submits it. With stop, it ends with the submit of the step
// holding that field.
func (s *site) create(over map[string]string, stop string) []Step {
	steps := s.visit(s.byKind[pNew].Path)
	groups := s.wizardGroups()
	for _, g := range groups {
		for _, f := range g {
			v, ok := over[f.Key]
			if !ok {
				if !f.Required {
					continue
				}
				v = f.Sample
			}
			steps = append(steps, s.fill(f, v))
		}
		btn := "#" + s.domID("record-submit")
		if s.multi {
			btn = "#" + s.domID("wizard-next")
		}
		steps = append(steps, Step{Op: OpClick, Selector: btn})
		if stop != "" && slices.ContainsFunc(g, func(f field) bool { return f.Key == stop }) {
			return steps
		}
	}
	if s.multi {
		steps = append(steps, Step{Op: OpClick, Selector: "#" + s.domID("wizard-confirm")})
	}
	return steps
}

// act returns the steps that use widget w (after visiting its page), and
// the selector of its last control.
func (s *site) act(w *widget) ([]Step, string) {
	id := "#" + w.ID
	hot := ""
	if len(w.Options) > 0 {
		hot = w.Options[w.Hot].Value
	}
	switch w.Kind {
	case wSelect:
		return []Step{{Op: OpSelect, Selector: id, Value: hot}}, id
	case wToggle:
		return []Step{{Op: OpCheck, Selector: id}}, id
	case wRadio:
		sel := fmt.Sprintf("#%s-%d", w.ID, w.Hot)
		return []Step{{Op: OpCheck, Selector: sel}}, sel
	case wFetch:
		var st []Step
		if w.Param != nil {
			st = append(st, Step{Op: OpFill, Selector: id + "-n", Value: w.Param.Sample})
		}
		return append(st, Step{Op: OpClick, Selector: id}), id
	case wRole:
		return []Step{{Op: OpClick, Selector: id}}, id
	case wCombo:
		sel := fmt.Sprintf("#%s-opt-%d", w.ID, w.Hot)
		return []Step{{Op: OpClick, Selector: id}, {Op: OpClick, Selector: sel}}, sel
	case wModal:
		return []Step{{Op: OpClick, Selector: id + "-open"}, {Op: OpClick, Selector: id + "-confirm"}}, id + "-confirm"
	case wHover:
		sel := fmt.Sprintf("#%s-act-%d", w.ID, w.Hot)
		return []Step{{Op: OpHover, Selector: fmt.Sprintf("#%s-row-%d", w.ID, w.Hot)}, {Op: OpClick, Selector: sel}}, sel
	case wShadow:
		sel := w.Tag + " button"
		return []Step{{Op: OpClick, Selector: sel}}, sel
	case wKeys:
		return []Step{{Op: OpFill, Selector: id, Value: "Call the supplier"}, {Op: OpPress, Selector: id, Key: "Enter"}}, id
	case wFrame:
		return []Step{{Op: OpClick, Selector: "#sync", Frame: id}}, "#sync"
	case wRouter:
		sel := fmt.Sprintf(`#%s a[href="%s/%s"]`, w.ID, w.page.Path, hot)
		return []Step{{Op: OpClick, Selector: sel}}, sel
	case wHash:
		sel := fmt.Sprintf(`#%s a[href="#/%s"]`, w.ID, hot)
		return []Step{{Op: OpClick, Selector: sel}}, sel
	case wDblEdit:
		sel := "#dbl-" + s.dblField().Key
		return []Step{{Op: OpDblClick, Selector: sel}}, sel
	}
	return nil, id
}

// dblField is the record field the double-click editor fires on.
func (s *site) dblField() field {
	for _, f := range s.fields[1:] {
		if f.textual() {
			return f
		}
	}
	return s.fields[0]
}

// ---- messages ----

var (
	readProps = []string{"unit", "length", "items", "id", "config", "label", "value", "rows"}
	callees   = []string{"formatCurrency", "renderBadge", "applyFilter", "toLocaleDate", "trackEvent"}
)

// jsError draws an uncaught-error message: its constructor and its text.
func jsError(r *rand.Rand, id string) (string, string) {
	p := readProps[r.IntN(len(readProps))]
	switch r.IntN(4) {
	case 0:
		return "TypeError", fmt.Sprintf("Cannot read properties of undefined (reading '%s') [%s]", p, id)
	case 1:
		return "TypeError", fmt.Sprintf("%s.map is not a function [%s]", p, id)
	case 2:
		return "ReferenceError", fmt.Sprintf("%s is not defined [%s]", callees[r.IntN(len(callees))], id)
	}
	return "RangeError", fmt.Sprintf("Invalid time value [%s]", id)
}

func consoleMsg(r *rand.Rand, what, id string) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("Failed to load %s: 500 (Internal Server Error) [%s]", what, id)
	case 1:
		return fmt.Sprintf("Error: could not render %s: state is undefined [%s]", what, id)
	}
	return fmt.Sprintf("Unhandled error in %s handler: Invalid array length [%s]", what, id)
}

func rejectMsg(r *rand.Rand, id string) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("Request failed with status code 502 [%s]", id)
	case 1:
		return fmt.Sprintf("Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON [%s]", id)
	}
	return fmt.Sprintf("NetworkError when attempting to fetch resource [%s]", id)
}

// serverMsg is the 500 body of a server_error bug.
func serverMsg(in Input, f field, table, id string) string {
	var m string
	switch in {
	case InputQuote:
		m = fmt.Sprintf("pq: syntax error at or near \"s\" (SQLSTATE 42601)\nquery: UPDATE %s SET %s = '...'", table, f.Key)
	case InputNegative:
		m = fmt.Sprintf("ValueError: math domain error\n  File \"app/%s.py\", line 212, in unit_cost\n    return sqrt(%s) * rate", table, f.Key)
	case InputZero:
		m = fmt.Sprintf("ZeroDivisionError: integer division or modulo by zero\n  File \"app/%s.py\", line 88, in per_unit\n    return total // %s", table, f.Key)
	case InputOutOfRange:
		m = fmt.Sprintf("ERROR: value out of range for type smallint (SQLSTATE 22003)\ncolumn: %s.%s", table, f.Key)
	case InputEmpty:
		m = fmt.Sprintf("sqlite3.IntegrityError: NOT NULL constraint failed: %s.%s", table, f.Key)
	case InputLong:
		m = fmt.Sprintf("ERROR: value too long for type character varying(%d) (SQLSTATE 22001)\ncolumn: %s.%s", colLimit(f), table, f.Key)
	case InputNonLatin1:
		m = fmt.Sprintf("UnicodeEncodeError: 'latin-1' codec can't encode character '\\u0141' in position 0: ordinal not in range(256)\ncolumn: %s.%s", table, f.Key)
	}
	return "Internal Server Error\n\n" + m + "\n[" + id + "]\n"
}

// badValue is the value of input class in for field f.
func badValue(in Input, f field) string {
	switch in {
	case InputQuote:
		return "O'Brien's " + strings.ToLower(f.Label)
	case InputNegative:
		return "-" + strconv.Itoa(max(f.Min, 3))
	case InputZero:
		return "0"
	case InputOutOfRange:
		return strconv.Itoa(f.Max*10 + 7)
	case InputEmpty:
		return ""
	case InputLong:
		return strings.TrimSpace(strings.Repeat("Lorem ipsum dolor sit amet ", 1+colLimit(f)/27))
	case InputNonLatin1:
		return "Łódź 東京"
	}
	return ""
}

// trips reports whether v is of input class in for field f.
func trips(in Input, f field, v string) bool {
	switch in {
	case InputQuote:
		return strings.Contains(v, "'")
	case InputNegative, InputZero, InputOutOfRange:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return false
		}
		return in == InputNegative && n < 0 || in == InputZero && n == 0 || in == InputOutOfRange && n > f.Max
	case InputEmpty:
		return strings.TrimSpace(v) == ""
	case InputLong:
		return len([]rune(v)) > colLimit(f)
	case InputNonLatin1:
		if !utf8.ValidString(v) {
			return false
		}
		for _, c := range v {
			if c > 0xff {
				return true
			}
		}
	}
	return false
}

// colLimit is the column width behind a text field.
func colLimit(f field) int {
	if f.MaxLen > 0 {
		return f.MaxLen
	}
	return 255
}

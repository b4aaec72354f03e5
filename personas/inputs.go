package personas

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// InputClass names a kind of value typed into (or chosen in) a field.
// A coverage target is a state, an action and an input class.
type InputClass string

// The input classes of the catalogue.
const (
	ClassValid      InputClass = "valid"      // a plausible value for the field
	ClassEmpty      InputClass = "empty"      // nothing
	ClassWhitespace InputClass = "whitespace" // spaces and a tab only
	ClassPadded     InputClass = "padded"     // a valid value with leading and trailing spaces
	ClassMalformed  InputClass = "malformed"  // the wrong format for the kind (an email without @)

	// Boundaries: of the value for numbers and dates, of the length for text.
	ClassBelowMin    InputClass = "below_min"    // min−1 (minlength−1 characters)
	ClassMin         InputClass = "min"          // min (minlength characters)
	ClassMax         InputClass = "max"          // max (maxlength characters)
	ClassAboveMax    InputClass = "above_max"    // max+1 (maxlength+1 characters)
	ClassZero        InputClass = "zero"         // 0
	ClassNegative    InputClass = "negative"     // −1
	ClassHuge        InputClass = "huge"         // far beyond any integer type
	ClassDecimal     InputClass = "decimal"      // a decimal in an integer field
	ClassInvalidDate InputClass = "invalid_date" // a day that does not exist

	ClassQuotes InputClass = "quotes" // quotes and SQL metacharacters
	ClassMarkup InputClass = "markup" // an HTML/JS payload that logs XSSMarker when it runs

	ClassLong256   InputClass = "long_256"   // 256 characters
	ClassLong1001  InputClass = "long_1001"  // 1001 characters
	ClassLong10001 InputClass = "long_10001" // 10001 characters

	ClassNonLatin InputClass = "non_latin" // letters outside Latin-1 (Å as U+212B, Greek, CJK)
	ClassEmoji    InputClass = "emoji"     // emoji, with a ZWJ sequence
	ClassRTL      InputClass = "rtl"       // right-to-left text and a direction override

	ClassOption    InputClass = "option"     // one option of a select, or one radio
	ClassToggleOn  InputClass = "toggle_on"  // check a checkbox or switch
	ClassToggleOff InputClass = "toggle_off" // uncheck it
)

// FieldKind is what a field is, as its element type says (input type,
// textarea, select…).
type FieldKind string

// The field kinds.
const (
	FieldText            FieldKind = "text"
	FieldTextarea        FieldKind = "textarea"
	FieldEmail           FieldKind = "email"
	FieldNumber          FieldKind = "number"
	FieldRange           FieldKind = "range"
	FieldDate            FieldKind = "date"
	FieldTime            FieldKind = "time"
	FieldDateTime        FieldKind = "datetime-local"
	FieldMonth           FieldKind = "month"
	FieldWeek            FieldKind = "week"
	FieldURL             FieldKind = "url"
	FieldTel             FieldKind = "tel"
	FieldPassword        FieldKind = "password"
	FieldSearch          FieldKind = "search"
	FieldColor           FieldKind = "color"
	FieldSelect          FieldKind = "select"
	FieldCheckbox        FieldKind = "checkbox"
	FieldRadio           FieldKind = "radio"
	FieldFile            FieldKind = "file"
	FieldContentEditable FieldKind = "contenteditable"
)

// Field describes one form control: what the catalogue needs to choose
// values for it. Min, Max and Step keep the DOM's text (numbers or dates).
type Field struct {
	Kind      FieldKind `json:"kind"`
	Name      string    `json:"name,omitempty"` // label or accessible name
	Required  bool      `json:"required,omitempty"`
	Min       string    `json:"min,omitempty"`
	Max       string    `json:"max,omitempty"`
	Step      string    `json:"step,omitempty"`
	MinLength int       `json:"minlength,omitempty"`
	MaxLength int       `json:"maxlength,omitempty"`
	Pattern   string    `json:"pattern,omitempty"`
	Options   []string  `json:"options,omitempty"`
}

// Input is one concrete value of an input class for a field.
type Input struct {
	Class InputClass `json:"class"`
	Value string     `json:"value"`
	// Valid: the app should accept the value. When false it should refuse
	// it with a message; a crash or a silent acceptance is a bug.
	Valid bool `json:"valid"`
	// Lenient: accepting and refusing are both correct; only a failure
	// (a server error, a page error, lost or garbled data) is a bug.
	Lenient bool   `json:"lenient,omitempty"`
	Note    string `json:"note,omitempty"`
}

// FieldOf derives a field from a snapshot element and, when the snapshot
// gives them, its DOM attributes (type, required, min, max, step,
// minlength, maxlength, pattern, name, id, placeholder, aria-label,
// contenteditable, and "tag" for the element's tag name). attrs may be nil.
//
// The engine's snapshot notes, kept in e.Flags ("type=email", "required",
// "min=1", "maxlength=80", …), stand in for attributes attrs lacks.
func FieldOf(e Element, attrs map[string]string) Field {
	attrs = flagAttrs(e, attrs)
	f := Field{Name: strings.TrimSpace(e.Name), Options: e.Options}
	for _, k := range []string{"aria-label", "placeholder", "name", "id"} {
		if f.Name == "" {
			f.Name = strings.TrimSpace(attrs[k])
		}
	}
	switch e.Role {
	case "searchbox":
		f.Kind = FieldSearch
	case "spinbutton":
		f.Kind = FieldNumber
	case "slider":
		f.Kind = FieldRange
	case "checkbox", "switch", "menuitemcheckbox":
		f.Kind = FieldCheckbox
	case "radio", "menuitemradio":
		f.Kind = FieldRadio
	case "combobox", "listbox":
		if len(e.Options) > 0 {
			f.Kind = FieldSelect
		} else {
			f.Kind = FieldText
		}
	default:
		f.Kind = FieldText
	}
	if e.Has("multiline") {
		f.Kind = FieldTextarea
	}
	switch strings.ToLower(attrs["tag"]) {
	case "textarea":
		f.Kind = FieldTextarea
	case "select":
		f.Kind = FieldSelect
	}
	if t := FieldKind(strings.ToLower(strings.TrimSpace(attrs["type"]))); t != "" {
		switch t {
		case FieldText, FieldEmail, FieldNumber, FieldRange, FieldDate, FieldTime, FieldDateTime, FieldMonth, FieldWeek,
			FieldURL, FieldTel, FieldPassword, FieldSearch, FieldColor, FieldCheckbox, FieldRadio, FieldFile:
			f.Kind = t
		}
	}
	if v, ok := attrs["contenteditable"]; ok && v != "false" {
		f.Kind = FieldContentEditable
	}
	_, req := attrs["required"]
	f.Required = req && attrs["required"] != "false" || attrs["aria-required"] == "true" || e.Has("required")
	f.Min, f.Max, f.Step = attrs["min"], attrs["max"], attrs["step"]
	f.MinLength = atoiPos(attrs["minlength"])
	f.MaxLength = atoiPos(attrs["maxlength"])
	f.Pattern = attrs["pattern"]
	return f
}

// flagAttrs adds the attributes the element's snapshot notes give to a
// copy of attrs (attrs wins).
func flagAttrs(e Element, attrs map[string]string) map[string]string {
	var out map[string]string
	for _, f := range e.Flags {
		k, v, ok := strings.Cut(f, "=")
		switch {
		case f == "required":
			k, v = "required", ""
		case !ok || !slices.Contains([]string{"type", "min", "max", "minlength", "maxlength"}, k):
			continue
		}
		if _, has := attrs[k]; has {
			continue
		}
		if out == nil {
			out = maps.Clone(attrs)
			if out == nil {
				out = map[string]string{}
			}
		}
		out[k] = v
	}
	if out == nil {
		return attrs
	}
	return out
}

func atoiPos(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// sense is what a field holds, from its kind and, for free text, its
// label words: a text box labelled "Email" holds an email.
type sense int

const (
	senseText sense = iota
	senseEmail
	senseURL
	senseTel
	senseNumber
	senseDate
	senseChoice // select, radio, checkbox
	senseNone   // file, color: no catalogue beyond a valid value
)

func (f Field) sense() sense {
	switch f.Kind {
	case FieldEmail:
		return senseEmail
	case FieldURL:
		return senseURL
	case FieldTel:
		return senseTel
	case FieldNumber, FieldRange:
		return senseNumber
	case FieldDate, FieldTime, FieldDateTime, FieldMonth, FieldWeek:
		return senseDate
	case FieldSelect, FieldRadio, FieldCheckbox:
		return senseChoice
	case FieldFile, FieldColor:
		return senseNone
	case FieldPassword, FieldTextarea, FieldContentEditable, FieldSearch:
		return senseText
	}
	l := newLabel(f.Name)
	switch {
	case l.any("email", "e mail", "mail"):
		return senseEmail
	case l.any("phone", "telephone", "tel", "mobile", "fax", "cell"):
		return senseTel
	case l.any("url", "website", "homepage", "web site", "link url"):
		return senseURL
	case l.any("date", "birthday", "birthdate", "dob", "due", "deadline", "expiry", "expires", "start date", "end date"):
		return senseDate
	case l.numeric():
		return senseNumber
	}
	return senseText
}

// label is a field name split into lower-case words ("firstName" →
// "first name"), for matching general terms.
type label struct{ s string }

func newLabel(name string) label {
	var b strings.Builder
	b.WriteByte(' ')
	prev := ' '
	for _, r := range name {
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '%':
			b.WriteRune(unicode.ToLower(r))
		default:
			r = ' '
			if prev != ' ' {
				b.WriteByte(' ')
			}
		}
		prev = r
	}
	b.WriteByte(' ')
	return label{b.String()}
}

// any reports whether one of the words or phrases occurs as whole words.
func (l label) any(words ...string) bool {
	for _, w := range words {
		if strings.Contains(l.s, " "+w+" ") {
			return true
		}
	}
	return false
}

func (l label) numeric() bool {
	return l.any("quantity", "qty", "amount", "price", "cost", "budget", "total", "age", "count",
		"percent", "percentage", "%", "year", "weight", "height", "width", "length", "salary", "fee", "rate", "score",
		"limit", "duration", "minutes", "hours", "days", "seats", "guests", "stock")
}

// nonNegative: the label names a count or money, which are never negative.
func (l label) nonNegative() bool {
	return l.any("quantity", "qty", "amount", "price", "cost", "budget", "total", "age", "count", "year", "weight",
		"height", "width", "length", "salary", "fee", "seats", "guests", "stock", "duration")
}

// decimalLabel: the label names money or a measure, which take decimals.
func (l label) decimalLabel() bool {
	return l.any("price", "cost", "amount", "budget", "total", "salary", "fee", "rate", "weight", "height", "width", "length", "percent", "percentage", "%")
}

// ValidValue is a plausible accepted value for f: what the other fields of
// a form get while one field takes an invalid class, so one invalid field
// does not hide another's bug. A select gets its first real option, a
// required checkbox "on" (check it), an optional one "", a radio its own
// name, a file field "".
func ValidValue(f Field) string {
	switch f.Kind {
	case FieldSelect:
		for _, o := range f.Options {
			if !placeholderOption(o) {
				return o
			}
		}
		if len(f.Options) > 0 {
			return f.Options[0]
		}
		return ""
	case FieldCheckbox:
		if f.Required {
			return "on"
		}
		return ""
	case FieldRadio:
		return f.Name
	case FieldFile:
		return ""
	case FieldColor:
		return "#336699"
	}
	l := newLabel(f.Name)
	var v string
	switch f.sense() {
	case senseEmail:
		v = "qa.tester@example.com"
	case senseURL:
		v = "https://example.com/"
	case senseTel:
		v = "+1 555 0100"
	case senseNumber:
		v = fmtNum(f.validNumber(l))
	case senseDate:
		v = f.validDate()
	default:
		v = textFor(f.Kind, l)
	}
	return f.fitText(v)
}

// textFor is a valid free text for a label in general terms.
func textFor(k FieldKind, l label) string {
	switch {
	case k == FieldPassword || l.any("password", "passphrase", "pin"):
		return "Correct-Horse-42"
	case k == FieldSearch || l.any("search", "query", "filter", "find", "keyword", "keywords"):
		return "test"
	case l.any("first name", "given name", "forename"):
		return "Ada"
	case l.any("last name", "surname", "family name"):
		return "Lovelace"
	case l.any("username", "user", "login", "handle", "nickname", "account"):
		return "qa_tester"
	case l.any("zip", "postal", "postcode", "zip code", "post code"):
		return "12345"
	case l.any("city", "town"):
		return "Springfield"
	case l.any("country"):
		return "Norway"
	case l.any("address", "street"):
		return "1 Main Street"
	case l.any("company", "organisation", "organization", "employer"):
		return "Example Ltd"
	case l.any("card"):
		return "4242 4242 4242 4242"
	case l.any("cvc", "cvv"):
		return "123"
	case l.any("name", "full name"):
		return "Ada Lovelace"
	case l.any("title", "subject", "heading", "summary", "label", "tag"):
		return "QA sample title"
	case k == FieldTextarea || k == FieldContentEditable || l.any("description", "comment", "comments", "message", "note", "notes", "bio", "body", "details", "content", "feedback", "text", "reason"):
		return "A short note written by the QA explorer."
	}
	return "QA sample"
}

// patternCandidates are tried, in order, when the plausible value does not
// match the field's pattern.
var patternCandidates = []string{"12345", "ABC123", "abc", "ABC", "abc123", "A1b2C3d4", "Abcdef1!", "qa.tester@example.com",
	"+15550100", "5550100", "https://example.com/", "2024-06-15", "AB-1234", "ab-cd", "1"}

// fitText makes a text value fit minlength, maxlength and the pattern.
func (f Field) fitText(v string) string {
	if re := f.patternRE(); re != nil && !re.MatchString(v) {
		for _, c := range patternCandidates {
			if re.MatchString(c) {
				v = c
				break
			}
		}
	}
	if f.MinLength > 0 && utf8.RuneCountInString(v) < f.MinLength {
		v += strings.Repeat("x", f.MinLength-utf8.RuneCountInString(v))
	}
	if f.MaxLength > 0 && utf8.RuneCountInString(v) > f.MaxLength {
		v = string([]rune(v)[:f.MaxLength])
	}
	return v
}

// patternRE compiles the pattern attribute as HTML does (the whole value
// must match); nil when Go's regexp cannot read it.
func (f Field) patternRE() *regexp.Regexp {
	if f.Pattern == "" {
		return nil
	}
	re, err := regexp.Compile(`^(?:` + f.Pattern + `)$`)
	if err != nil {
		return nil
	}
	return re
}

func placeholderOption(o string) bool {
	l := strings.ToLower(strings.TrimSpace(o))
	return l == "" || strings.HasPrefix(l, "select") || strings.HasPrefix(l, "choose") || strings.HasPrefix(l, "pick") ||
		strings.HasPrefix(l, "--") || strings.HasPrefix(l, "—") || l == "none" || l == "-"
}

// numeric attributes of a field.
type numSpec struct {
	min, max, step float64
	hasMin, hasMax bool
	integer        bool
}

func parseNum(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func (f Field) numSpec() numSpec {
	var n numSpec
	n.min, n.hasMin = parseNum(f.Min)
	n.max, n.hasMax = parseNum(f.Max)
	if n.hasMin && n.hasMax && n.min > n.max {
		n.hasMax = false
	}
	n.step = 1
	l := newLabel(f.Name)
	switch s := strings.ToLower(strings.TrimSpace(f.Step)); {
	case s == "any":
		n.integer = false
	case s != "":
		if v, ok := parseNum(s); ok && v > 0 {
			n.step = v
		}
		n.integer = n.step == math.Trunc(n.step)
	case f.Kind == FieldNumber || f.Kind == FieldRange:
		n.integer = true // HTML's default step is 1
	default:
		n.integer = !l.decimalLabel()
	}
	if !n.integer && f.Step == "" {
		n.step = 0.01
	}
	return n
}

func (n numSpec) in(v float64) bool {
	return (!n.hasMin || v >= n.min) && (!n.hasMax || v <= n.max)
}

// validNumber is a plausible value for the label, inside min and max and
// on the step grid.
func (f Field) validNumber(l label) float64 {
	n := f.numSpec()
	// A small count: what every numeric column and range takes. Large
	// values, zero and negatives are classes of their own.
	v := 3.0
	switch {
	case l.any("year"):
		v = 2024
	case l.any("age"):
		v = 30
	case l.any("percent", "percentage", "%", "score"):
		v = 50
	case l.any("price", "cost", "amount", "budget", "total", "salary", "fee"):
		v = 120
	case l.any("quantity", "qty", "count", "seats", "guests"):
		v = 2
	}
	if n.hasMin && n.hasMax {
		v = n.min + math.Floor((n.max-n.min)/2/n.step)*n.step
	} else if n.hasMin && v < n.min {
		v = n.min
	} else if n.hasMax && v > n.max {
		v = n.max
	}
	if math.IsInf(v, 0) || math.IsNaN(v) || !n.in(v) { // extreme attributes
		v = n.min
	}
	return v
}

func fmtNum(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if strings.Contains(s, ".") && len(s) > 12 { // step arithmetic noise
		s = strconv.FormatFloat(v, 'f', 4, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// date formats per kind.
func (f Field) dateLayout() string {
	switch f.Kind {
	case FieldTime:
		return "15:04"
	case FieldDateTime:
		return "2006-01-02T15:04"
	case FieldMonth:
		return "2006-01"
	}
	return time.DateOnly
}

var sampleDay = time.Date(2024, 6, 15, 14, 30, 0, 0, time.UTC)

func (f Field) validDate() string {
	if f.Kind == FieldWeek {
		return "2024-W24"
	}
	layout := f.dateLayout()
	d := sampleDay
	lo, okLo := time.Parse(layout, f.Min)
	hi, okHi := time.Parse(layout, f.Max)
	switch {
	case okLo == nil && okHi == nil && !hi.Before(lo):
		d = lo.Add(hi.Sub(lo) / 2)
	case okLo == nil && d.Before(lo):
		d = lo
	case okHi == nil && d.After(hi):
		d = hi
	}
	return d.Format(layout)
}

// Catalogue returns the input classes that apply to f with concrete
// values, in a fixed order: valid first, then emptiness, boundaries,
// format, injection, length and script classes. It is deterministic. A
// file field has none (the browser engine does not upload files).
func Catalogue(f Field) []Input {
	valid := ValidValue(f)
	switch f.Kind {
	case FieldSelect:
		out := make([]Input, 0, len(f.Options))
		for _, o := range f.Options {
			out = append(out, Input{Class: ClassOption, Value: o, Valid: !(f.Required && placeholderOption(o))})
		}
		return out
	case FieldRadio:
		return []Input{{Class: ClassOption, Value: f.Name, Valid: true}}
	case FieldCheckbox:
		return []Input{{Class: ClassToggleOn, Value: "on", Valid: true}, {Class: ClassToggleOff, Value: "off", Valid: !f.Required}}
	case FieldFile:
		return nil
	case FieldColor:
		return []Input{{Class: ClassValid, Value: valid, Valid: true}}
	}
	out := []Input{{Class: ClassValid, Value: valid, Valid: true}, {Class: ClassEmpty, Value: "", Valid: !f.Required}}
	switch f.sense() {
	case senseNumber:
		return append(out, f.numberInputs()...)
	case senseDate:
		return append(out, f.dateInputs()...)
	}
	out = append(out,
		Input{Class: ClassWhitespace, Value: "  \t ", Valid: !f.Required, Note: "should count as empty"},
		f.padded(valid))
	out = append(out, f.lengthBounds()...)
	tok := f.token()
	switch f.sense() {
	case senseEmail:
		return append(out,
			Input{Class: ClassMalformed, Value: "qa.tester.example.com", Valid: false, Note: "no @"},
			Input{Class: ClassQuotes, Value: "o'brien@example.com", Valid: true, Note: "an apostrophe is legal in an address"},
			Input{Class: ClassMarkup, Value: `"<img src onerror=console.error('` + XSSMarker + tok + `')>"@example.com`, Valid: false},
			Input{Class: ClassLong256, Value: longEmail(256), Valid: false, Note: "longer than an address may be"},
			Input{Class: ClassNonLatin, Value: "\u212Bngstr\u00f6m@example.com", Valid: false, Lenient: true, Note: "non-ASCII local part"})
	case senseURL:
		return append(out,
			Input{Class: ClassMalformed, Value: "example dot com", Valid: false},
			Input{Class: ClassQuotes, Value: "https://example.com/?q=%27%20OR%20%271%27=%271", Valid: true},
			Input{Class: ClassMarkup, Value: "javascript:console.error('" + XSSMarker + tok + "')", Valid: false, Note: "a script URL must never be accepted as a link"},
			Input{Class: ClassLong256, Value: longURL(256), Valid: true, Lenient: true},
			Input{Class: ClassLong1001, Value: longURL(1001), Valid: true, Lenient: true},
			Input{Class: ClassNonLatin, Value: "https://example.com/\u212Bngstr\u00f6m/\u6771\u4eac", Valid: true, Lenient: true})
	case senseTel:
		return append(out,
			Input{Class: ClassMalformed, Value: "call me maybe", Valid: false},
			Input{Class: ClassQuotes, Value: "' OR 1=1 --", Valid: false},
			Input{Class: ClassMarkup, Value: f.markup(tok), Valid: false},
			Input{Class: ClassLong256, Value: strings.Repeat("5", 256), Valid: false},
			Input{Class: ClassNonLatin, Value: "\u0665\u0665\u0665 \u0660\u0661\u0660\u0660", Valid: true, Lenient: true, Note: "Arabic-Indic digits"})
	}
	// free text
	plain := f.Pattern == ""
	out = append(out,
		Input{Class: ClassQuotes, Value: `O'Brien "Bobby"; DROP TABLE x;-- ' OR '1'='1 \ %_`, Valid: plain, Lenient: !plain,
			Note: "to be stored and shown literally"},
		Input{Class: ClassMarkup, Value: f.markup(tok), Valid: plain, Lenient: true, Note: "must be shown as text, never run"})
	for _, c := range []struct {
		class InputClass
		n     int
	}{{ClassLong256, 256}, {ClassLong1001, 1001}, {ClassLong10001, 10001}} {
		out = append(out, f.longText(c.class, c.n))
	}
	return append(out,
		Input{Class: ClassNonLatin, Value: f.fitText("\u212Bngstr\u00f6m \u03a9mega \u6771\u4eac"), Valid: plain, Lenient: !plain},
		Input{Class: ClassEmoji, Value: f.fitText("QA \U0001F9EA\U0001F469\u200D\U0001F4BB \u2705"), Valid: plain, Lenient: !plain},
		Input{Class: ClassRTL, Value: f.fitText("\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \u202Eevil\u202C"), Valid: plain, Lenient: !plain})
}

// padded is the valid value with spaces around it: the app should trim it.
func (f Field) padded(valid string) Input {
	v := "  " + valid + "  "
	in := Input{Class: ClassPadded, Value: v, Valid: true, Note: "should be trimmed"}
	if f.MaxLength > 0 && utf8.RuneCountInString(v) > f.MaxLength {
		in.Lenient = true
	}
	return in
}

// lengthBounds are minlength−1, minlength, maxlength and maxlength+1
// characters of text.
func (f Field) lengthBounds() []Input {
	var out []Input
	if f.MinLength > 1 {
		out = append(out, Input{Class: ClassBelowMin, Value: filler(f.MinLength - 1), Valid: false, Note: fmt.Sprintf("%d characters, minlength %d", f.MinLength-1, f.MinLength)})
	}
	if f.MinLength > 0 {
		out = append(out, Input{Class: ClassMin, Value: filler(f.MinLength), Valid: true, Note: fmt.Sprintf("%d characters, minlength", f.MinLength)})
	}
	if f.MaxLength > 0 {
		out = append(out,
			Input{Class: ClassMax, Value: filler(f.MaxLength), Valid: true, Note: fmt.Sprintf("%d characters, maxlength", f.MaxLength)},
			Input{Class: ClassAboveMax, Value: filler(f.MaxLength + 1), Valid: false, Lenient: true,
				Note: fmt.Sprintf("%d characters, maxlength %d (a browser may cut it; the server must check too)", f.MaxLength+1, f.MaxLength)})
	}
	return out
}

// longText is n characters of words; valid when maxlength allows it, or
// for long-text kinds; otherwise either outcome is correct.
func (f Field) longText(c InputClass, n int) Input {
	in := Input{Class: c, Value: filler(n), Note: fmt.Sprintf("%d characters", n)}
	switch {
	case f.MaxLength > 0:
		in.Valid = n <= f.MaxLength
		in.Lenient = !in.Valid
	case f.Kind == FieldTextarea || f.Kind == FieldContentEditable:
		in.Valid = true
	default:
		in.Lenient = true
	}
	return in
}

// numberInputs are the boundaries of a number field.
func (f Field) numberInputs() []Input {
	n := f.numSpec()
	l := newLabel(f.Name)
	var out []Input
	if f.Kind != FieldNumber && f.Kind != FieldRange {
		out = append(out, Input{Class: ClassWhitespace, Value: "  \t ", Valid: !f.Required})
	}
	if n.hasMin {
		out = append(out,
			Input{Class: ClassBelowMin, Value: fmtNum(n.min - n.step), Valid: false, Note: "min−1"},
			Input{Class: ClassMin, Value: fmtNum(n.min), Valid: true, Note: "min"})
	}
	if n.hasMax {
		out = append(out,
			Input{Class: ClassMax, Value: fmtNum(n.max), Valid: true, Note: "max"},
			Input{Class: ClassAboveMax, Value: fmtNum(n.max + n.step), Valid: false, Note: "max+1"})
	} else {
		// No maximum the page states: the app may keep one to itself (a
		// column's range, a business rule). One past a signed 32-bit
		// integer is above any such maximum and still a number every
		// parser reads (Huge is not).
		out = append(out, Input{Class: ClassAboveMax, Value: "2147483648", Valid: false, Lenient: true, Note: "past a 32-bit integer: above a maximum the page does not state"})
	}
	bounded := n.hasMin || n.hasMax
	out = append(out, Input{Class: ClassZero, Value: "0", Valid: n.in(0), Lenient: !bounded})
	neg := Input{Class: ClassNegative, Value: "-1", Valid: n.in(-1), Lenient: !bounded}
	if !bounded && l.nonNegative() {
		neg.Valid, neg.Lenient = false, false
	}
	out = append(out, neg,
		Input{Class: ClassHuge, Value: "99999999999999999999", Valid: !n.hasMax, Lenient: !n.hasMax, Note: "beyond 64-bit integers"})
	if n.integer {
		d := math.Floor(f.validNumber(l)) + 0.5
		if !n.in(d) {
			d = 1.5
		}
		out = append(out, Input{Class: ClassDecimal, Value: fmtNum(d), Valid: false, Note: "a decimal in an integer field"})
	}
	if f.Kind != FieldNumber && f.Kind != FieldRange {
		out = append(out,
			Input{Class: ClassMalformed, Value: "twelve", Valid: false, Note: "letters in a number"},
			Input{Class: ClassQuotes, Value: "1' OR '1'='1", Valid: false},
			Input{Class: ClassMarkup, Value: f.markup(f.token()), Valid: false})
	}
	return out
}

// dateInputs are the boundaries of a date field; a text field that holds
// a date also gets an impossible day (a native date input cannot take one).
func (f Field) dateInputs() []Input {
	var out []Input
	if f.Kind == FieldDate {
		if lo, err := time.Parse(time.DateOnly, f.Min); err == nil {
			out = append(out,
				Input{Class: ClassBelowMin, Value: lo.AddDate(0, 0, -1).Format(time.DateOnly), Valid: false, Note: "the day before min"},
				Input{Class: ClassMin, Value: lo.Format(time.DateOnly), Valid: true, Note: "min"})
		}
		if hi, err := time.Parse(time.DateOnly, f.Max); err == nil {
			out = append(out,
				Input{Class: ClassMax, Value: hi.Format(time.DateOnly), Valid: true, Note: "max"},
				Input{Class: ClassAboveMax, Value: hi.AddDate(0, 0, 1).Format(time.DateOnly), Valid: false, Note: "the day after max"})
		}
		_, err := time.Parse(time.DateOnly, f.Max)
		out = append(out, Input{Class: ClassHuge, Value: "9999-12-31", Valid: err != nil, Lenient: err != nil, Note: "the last day a date input takes"})
	}
	if f.Kind == FieldText {
		out = append(out,
			Input{Class: ClassWhitespace, Value: "  \t ", Valid: !f.Required},
			Input{Class: ClassInvalidDate, Value: "2023-02-30", Valid: false, Note: "30 February"},
			Input{Class: ClassMalformed, Value: "the day after tomorrow", Valid: false, Lenient: true},
			Input{Class: ClassMarkup, Value: f.markup(f.token()), Valid: false})
	}
	return out
}

// token names the field's XSS probe, so the xss oracle's finding points at
// the value typed (see XSSMarker).
func (f Field) token() string {
	h := fnv.New32a()
	h.Write([]byte(string(f.Kind) + "\x00" + f.Name))
	return fmt.Sprintf("in%08x", h.Sum32())
}

// markup is the package's first XSS payload with the field's token.
func (f Field) markup(tok string) string { return fmt.Sprintf(xssPayloads[0], tok) }

const lorem = "Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "

// filler is n ASCII characters of words, not ending in a space.
func filler(n int) string {
	if n <= 0 {
		return ""
	}
	b := []byte(strings.Repeat(lorem, n/len(lorem)+1)[:n])
	if b[n-1] == ' ' {
		b[n-1] = '.'
	}
	return string(b)
}

func longEmail(n int) string {
	const dom = "@example.com"
	return strings.Repeat("a", max(1, n-len(dom))) + dom
}

func longURL(n int) string {
	const base = "https://example.com/"
	return base + strings.Repeat("a", max(1, n-len(base)))
}

// InputFor finds the input of class c (for a select's option, with value
// arg) in f's catalogue.
func InputFor(f Field, c InputClass, arg string) (Input, bool) {
	for _, in := range Catalogue(f) {
		if in.Class == c && (c != ClassOption || in.Value == arg || arg == "" && f.Kind == FieldRadio) {
			return in, true
		}
	}
	return Input{}, false
}

// BrowserBlocks reports whether the browser's own constraint validation
// stops a form from being sent with value in field f: a required field
// left empty, a number outside the field's min and max, an address
// without an @ in an email field. Such a value never reaches the app
// (unless its form says novalidate), so it tests only the browser.
func BrowserBlocks(f Field, value string) bool {
	switch {
	case value == "":
		return f.Required
	case f.Kind == FieldNumber || f.Kind == FieldRange:
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return false
		}
		if lo, err := strconv.ParseFloat(f.Min, 64); err == nil && n < lo {
			return true
		}
		if hi, err := strconv.ParseFloat(f.Max, 64); err == nil && n > hi {
			return true
		}
	case f.Kind == FieldEmail:
		local, domain, ok := strings.Cut(value, "@")
		return !ok || local == "" || domain == "" || strings.ContainsFunc(value, unicode.IsSpace) ||
			strings.ContainsFunc(local, func(r rune) bool { return r > unicode.MaxASCII })
	}
	return false
}

package personas

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
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
	ClassMarkup InputClass = "markup" // an HTML/JS payload that logs collector.XSSMarker when it runs

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

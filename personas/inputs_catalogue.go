package personas

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/browser/collector"
)

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
			Input{Class: ClassMarkup, Value: `"<img src onerror=console.error('` + collector.XSSMarker + tok + `')>"@example.com`, Valid: false},
			Input{Class: ClassLong256, Value: longEmail(256), Valid: false, Note: "longer than an address may be"},
			Input{Class: ClassNonLatin, Value: "\u212Bngstr\u00f6m@example.com", Valid: false, Lenient: true, Note: "non-ASCII local part"})
	case senseURL:
		return append(out,
			Input{Class: ClassMalformed, Value: "example dot com", Valid: false},
			Input{Class: ClassQuotes, Value: "https://example.com/?q=%27%20OR%20%271%27=%271", Valid: true},
			Input{Class: ClassMarkup, Value: "javascript:console.error('" + collector.XSSMarker + tok + "')", Valid: false, Note: "a script URL must never be accepted as a link"},
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
// the value typed (see collector.XSSMarker).
func (f Field) token() string {
	h := fnv.New32a()
	h.Write([]byte(string(f.Kind) + "\x00" + f.Name))
	return fmt.Sprintf("in%08x", h.Sum32())
}

// markupProbe is the catalogue's XSS probe; %s is the field's token.
const markupProbe = `<img src onerror="console.error('` + collector.XSSMarker + `%s')">`

// markup is the XSS probe with the field's token.
func (f Field) markup(tok string) string { return fmt.Sprintf(markupProbe, tok) }

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

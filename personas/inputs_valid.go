package personas

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

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

// DrawTag draws a number from r that used does not hold yet, records it
// in used and returns it: a tag that makes one run's free text unique.
// It starts with three digits and widens when they are crowded.
func DrawTag(r *rand.Rand, used map[int]bool) int {
	for lo, hi := 10, 1000; hi < 1e15; lo, hi = hi, hi*10 {
		for range 32 {
			if n := lo + r.IntN(hi-lo); !used[n] {
				used[n] = true
				return n
			}
		}
	}
	n := int(1e15) + len(used)
	for used[n] {
		n++
	}
	used[n] = true
	return n
}

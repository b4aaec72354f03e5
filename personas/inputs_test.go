package personas

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func classes(ins []Input) []InputClass {
	out := make([]InputClass, 0, len(ins))
	for _, in := range ins {
		out = append(out, in.Class)
	}
	return out
}

func inputOf(t *testing.T, ins []Input, c InputClass) Input {
	t.Helper()
	for _, in := range ins {
		if in.Class == c {
			return in
		}
	}
	require.Failf(t, "class missing", "%s not in %v", c, classes(ins))
	return Input{}
}

func TestFieldOf(t *testing.T) {
	tests := []struct {
		name  string
		el    Element
		attrs map[string]string
		want  Field
	}{
		{"textbox", Element{Role: "textbox", Name: "Title"}, nil, Field{Kind: FieldText, Name: "Title"}},
		{"searchbox", Element{Role: "searchbox", Name: "Find"}, nil, Field{Kind: FieldSearch, Name: "Find"}},
		{"spinbutton", Element{Role: "spinbutton", Name: "Qty"}, nil, Field{Kind: FieldNumber, Name: "Qty"}},
		{"combobox with options", Element{Role: "combobox", Name: "Size", Options: []string{"S", "M"}}, nil,
			Field{Kind: FieldSelect, Name: "Size", Options: []string{"S", "M"}}},
		{"combobox without options", Element{Role: "combobox", Name: "City"}, nil, Field{Kind: FieldText, Name: "City"}},
		{"checkbox", Element{Role: "checkbox", Name: "Agree"}, map[string]string{"required": ""}, Field{Kind: FieldCheckbox, Name: "Agree", Required: true}},
		{"switch", Element{Role: "switch", Name: "Dark"}, nil, Field{Kind: FieldCheckbox, Name: "Dark"}},
		{"radio", Element{Role: "radio", Name: "Express"}, nil, Field{Kind: FieldRadio, Name: "Express"}},
		{"attributes", Element{Role: "textbox", Name: "Code"},
			map[string]string{"type": "TEL", "required": "required", "minlength": "3", "maxlength": "9", "pattern": "[0-9]+"},
			Field{Kind: FieldTel, Name: "Code", Required: true, MinLength: 3, MaxLength: 9, Pattern: "[0-9]+"}},
		{"number attributes", Element{Role: "spinbutton"}, map[string]string{"min": "1", "max": "10", "step": "any", "aria-label": "Count"},
			Field{Kind: FieldNumber, Name: "Count", Min: "1", Max: "10", Step: "any"}},
		{"name from placeholder", Element{Role: "textbox"}, map[string]string{"placeholder": "you@host", "name": "mail"},
			Field{Kind: FieldText, Name: "you@host"}},
		{"textarea tag", Element{Role: "textbox", Name: "Notes"}, map[string]string{"tag": "TEXTAREA"}, Field{Kind: FieldTextarea, Name: "Notes"}},
		{"contenteditable", Element{Role: "textbox", Name: "Body"}, map[string]string{"contenteditable": "true"}, Field{Kind: FieldContentEditable, Name: "Body"}},
		{"unknown type keeps role", Element{Role: "textbox", Name: "X"}, map[string]string{"type": "weird"}, Field{Kind: FieldText, Name: "X"}},
		{"bad lengths", Element{Role: "textbox", Name: "X"}, map[string]string{"maxlength": "-4", "minlength": "many", "required": "false"}, Field{Kind: FieldText, Name: "X"}},
		{"aria-required", Element{Role: "textbox", Name: "X"}, map[string]string{"aria-required": "true"}, Field{Kind: FieldText, Name: "X", Required: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, FieldOf(tc.el, tc.attrs))
		})
	}
}

func TestCatalogueClassesPerKind(t *testing.T) {
	text := []InputClass{ClassValid, ClassEmpty, ClassWhitespace, ClassPadded, ClassQuotes, ClassMarkup,
		ClassLong256, ClassLong1001, ClassLong10001, ClassNonLatin, ClassEmoji, ClassRTL}
	tests := []struct {
		name string
		f    Field
		want []InputClass
	}{
		{"free text", Field{Kind: FieldText, Name: "Title"}, text},
		{"textarea", Field{Kind: FieldTextarea, Name: "Notes"}, text},
		{"search", Field{Kind: FieldSearch, Name: "Search by date"}, text},
		{"text with lengths", Field{Kind: FieldText, Name: "Code", MinLength: 3, MaxLength: 8},
			append([]InputClass{ClassValid, ClassEmpty, ClassWhitespace, ClassPadded, ClassBelowMin, ClassMin, ClassMax, ClassAboveMax}, text[4:]...)},
		{"email by kind", Field{Kind: FieldEmail, Name: "Contact"},
			[]InputClass{ClassValid, ClassEmpty, ClassWhitespace, ClassPadded, ClassMalformed, ClassQuotes, ClassMarkup, ClassLong256, ClassNonLatin}},
		{"email by label", Field{Kind: FieldText, Name: "E-mail address"},
			[]InputClass{ClassValid, ClassEmpty, ClassWhitespace, ClassPadded, ClassMalformed, ClassQuotes, ClassMarkup, ClassLong256, ClassNonLatin}},
		{"url", Field{Kind: FieldURL},
			[]InputClass{ClassValid, ClassEmpty, ClassWhitespace, ClassPadded, ClassMalformed, ClassQuotes, ClassMarkup, ClassLong256, ClassLong1001, ClassNonLatin}},
		{"phone by label", Field{Kind: FieldText, Name: "Mobile phone"},
			[]InputClass{ClassValid, ClassEmpty, ClassWhitespace, ClassPadded, ClassMalformed, ClassQuotes, ClassMarkup, ClassLong256, ClassNonLatin}},
		{"number unbounded", Field{Kind: FieldNumber, Name: "Value"},
			[]InputClass{ClassValid, ClassEmpty, ClassAboveMax, ClassZero, ClassNegative, ClassHuge, ClassDecimal}},
		{"number bounded", Field{Kind: FieldNumber, Min: "1", Max: "10"},
			[]InputClass{ClassValid, ClassEmpty, ClassBelowMin, ClassMin, ClassMax, ClassAboveMax, ClassZero, ClassNegative, ClassHuge, ClassDecimal}},
		{"number with decimal step", Field{Kind: FieldNumber, Step: "0.5"},
			[]InputClass{ClassValid, ClassEmpty, ClassAboveMax, ClassZero, ClassNegative, ClassHuge}},
		{"quantity in a text box", Field{Kind: FieldText, Name: "Quantity"},
			[]InputClass{ClassValid, ClassEmpty, ClassWhitespace, ClassAboveMax, ClassZero, ClassNegative, ClassHuge, ClassDecimal, ClassMalformed, ClassQuotes, ClassMarkup}},
		{"native date", Field{Kind: FieldDate, Min: "2024-01-01", Max: "2024-12-31"},
			[]InputClass{ClassValid, ClassEmpty, ClassBelowMin, ClassMin, ClassMax, ClassAboveMax, ClassHuge}},
		{"date in a text box", Field{Kind: FieldText, Name: "Due date"},
			[]InputClass{ClassValid, ClassEmpty, ClassWhitespace, ClassInvalidDate, ClassMalformed, ClassMarkup}},
		{"time", Field{Kind: FieldTime}, []InputClass{ClassValid, ClassEmpty}},
		{"select", Field{Kind: FieldSelect, Options: []string{"Choose…", "Red", "Blue"}}, []InputClass{ClassOption, ClassOption, ClassOption}},
		{"checkbox", Field{Kind: FieldCheckbox}, []InputClass{ClassToggleOn, ClassToggleOff}},
		{"radio", Field{Kind: FieldRadio, Name: "Fast"}, []InputClass{ClassOption}},
		{"file", Field{Kind: FieldFile}, []InputClass{}},
		{"color", Field{Kind: FieldColor}, []InputClass{ClassValid}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Catalogue(tc.f)
			assert.Equal(t, tc.want, classes(got))
			assert.Equal(t, got, Catalogue(tc.f), "deterministic")
			seen := map[string]bool{}
			for _, in := range got {
				k := string(in.Class) + "\x00" + in.Value
				assert.False(t, seen[k], "duplicate %s", in.Class)
				seen[k] = true
			}
		})
	}

	// A number with no stated maximum still gets one past a maximum the
	// app may keep to itself: a number every parser reads.
	for _, in := range Catalogue(Field{Kind: FieldNumber, Name: "Copies", Min: "1"}) {
		if in.Class == ClassAboveMax {
			assert.Equal(t, "2147483648", in.Value)
			assert.True(t, in.Lenient, "the app may take it or refuse it")
		}
	}
}

func TestCatalogueNumberBoundaries(t *testing.T) {
	tests := []struct {
		name string
		f    Field
		want map[InputClass]Input
	}{
		{"integer 1..10", Field{Kind: FieldNumber, Min: "1", Max: "10"}, map[InputClass]Input{
			ClassValid:    {Class: ClassValid, Value: "5", Valid: true},
			ClassBelowMin: {Class: ClassBelowMin, Value: "0", Valid: false},
			ClassMin:      {Class: ClassMin, Value: "1", Valid: true},
			ClassMax:      {Class: ClassMax, Value: "10", Valid: true},
			ClassAboveMax: {Class: ClassAboveMax, Value: "11", Valid: false},
			ClassZero:     {Class: ClassZero, Value: "0", Valid: false},
			ClassNegative: {Class: ClassNegative, Value: "-1", Valid: false},
			ClassHuge:     {Class: ClassHuge, Value: "99999999999999999999", Valid: false},
			ClassDecimal:  {Class: ClassDecimal, Value: "5.5", Valid: false},
		}},
		{"step 0.5 from -2", Field{Kind: FieldNumber, Min: "-2", Max: "3", Step: "0.5"}, map[InputClass]Input{
			ClassBelowMin: {Class: ClassBelowMin, Value: "-2.5", Valid: false},
			ClassAboveMax: {Class: ClassAboveMax, Value: "3.5", Valid: false},
			ClassZero:     {Class: ClassZero, Value: "0", Valid: true},
			ClassNegative: {Class: ClassNegative, Value: "-1", Valid: true},
		}},
		{"step 5", Field{Kind: FieldNumber, Min: "0", Max: "100", Step: "5"}, map[InputClass]Input{
			ClassValid:    {Class: ClassValid, Value: "50", Valid: true},
			ClassBelowMin: {Class: ClassBelowMin, Value: "-5", Valid: false},
			ClassAboveMax: {Class: ClassAboveMax, Value: "105", Valid: false},
		}},
		{"unbounded quantity", Field{Kind: FieldNumber, Name: "Quantity"}, map[InputClass]Input{
			ClassValid:    {Class: ClassValid, Value: "2", Valid: true},
			ClassNegative: {Class: ClassNegative, Value: "-1", Valid: false},
			ClassZero:     {Class: ClassZero, Value: "0", Valid: true, Lenient: true},
			ClassDecimal:  {Class: ClassDecimal, Value: "2.5", Valid: false},
		}},
		{"unbounded value", Field{Kind: FieldNumber, Name: "Offset"}, map[InputClass]Input{
			ClassNegative: {Class: ClassNegative, Value: "-1", Valid: true, Lenient: true},
			ClassHuge:     {Class: ClassHuge, Value: "99999999999999999999", Valid: true, Lenient: true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Catalogue(tc.f)
			for c, want := range tc.want {
				in := inputOf(t, got, c)
				in.Note = ""
				assert.Equal(t, want, in, string(c))
			}
		})
	}
}

func TestCatalogueDateBoundaries(t *testing.T) {
	got := Catalogue(Field{Kind: FieldDate, Min: "2024-03-01", Max: "2024-12-31"})
	assert.Equal(t, "2024-02-29", inputOf(t, got, ClassBelowMin).Value, "leap day before min")
	assert.Equal(t, "2025-01-01", inputOf(t, got, ClassAboveMax).Value)
	assert.False(t, inputOf(t, got, ClassHuge).Valid)
	v := inputOf(t, got, ClassValid).Value
	d, err := time.Parse(time.DateOnly, v)
	require.NoError(t, err)
	assert.False(t, d.Before(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) || d.After(time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)), v)
	bad := inputOf(t, Catalogue(Field{Kind: FieldText, Name: "Start date"}), ClassInvalidDate)
	_, err = time.Parse(time.DateOnly, bad.Value)
	assert.Error(t, err, "an invalid date does not parse")
	assert.False(t, bad.Valid)
}

func TestCatalogueLengths(t *testing.T) {
	for _, f := range []Field{{Kind: FieldText, Name: "Title"}, {Kind: FieldTextarea}, {Kind: FieldPassword}} {
		got := Catalogue(f)
		for c, n := range map[InputClass]int{ClassLong256: 256, ClassLong1001: 1001, ClassLong10001: 10001} {
			v := inputOf(t, got, c).Value
			assert.Equal(t, n, utf8.RuneCountInString(v), "%s %s", f.Kind, c)
			assert.NotEqual(t, " ", v[len(v)-1:], "no trailing space to trim")
		}
	}
	bounded := Catalogue(Field{Kind: FieldText, MinLength: 4, MaxLength: 300})
	for c, n := range map[InputClass]int{ClassBelowMin: 3, ClassMin: 4, ClassMax: 300, ClassAboveMax: 301} {
		assert.Len(t, inputOf(t, bounded, c).Value, n, string(c))
	}
	assert.True(t, inputOf(t, bounded, ClassLong256).Valid, "256 fits a maxlength of 300")
	assert.False(t, inputOf(t, bounded, ClassLong1001).Valid)
	assert.True(t, inputOf(t, bounded, ClassLong1001).Lenient)
	assert.True(t, inputOf(t, Catalogue(Field{Kind: FieldTextarea}), ClassLong10001).Valid, "a textarea takes long text")
	assert.Len(t, inputOf(t, Catalogue(Field{Kind: FieldEmail}), ClassLong256).Value, 256)
	assert.Len(t, inputOf(t, Catalogue(Field{Kind: FieldURL}), ClassLong1001).Value, 1001)
}

func TestCatalogueOptionsAndToggles(t *testing.T) {
	f := Field{Kind: FieldSelect, Required: true, Options: []string{"-- pick one --", "Red", "Blue", ""}}
	got := Catalogue(f)
	require.Len(t, got, 4)
	for i, o := range f.Options {
		assert.Equal(t, o, got[i].Value)
	}
	assert.Equal(t, []bool{false, true, true, false}, []bool{got[0].Valid, got[1].Valid, got[2].Valid, got[3].Valid})
	f.Required = false
	assert.True(t, Catalogue(f)[0].Valid, "an optional select may stay unset")

	cb := Catalogue(Field{Kind: FieldCheckbox, Required: true})
	assert.Equal(t, []Input{{Class: ClassToggleOn, Value: "on", Valid: true}, {Class: ClassToggleOff, Value: "off", Valid: false}}, cb)
	in, ok := InputFor(Field{Kind: FieldRadio, Name: "Fast"}, ClassOption, "")
	require.True(t, ok)
	assert.Equal(t, "Fast", in.Value)
	in, ok = InputFor(f, ClassOption, "Blue")
	require.True(t, ok)
	assert.Equal(t, "Blue", in.Value)
	_, ok = InputFor(f, ClassOption, "Green")
	assert.False(t, ok)
}

func TestCatalogueInjection(t *testing.T) {
	a, b := Field{Kind: FieldText, Name: "Title"}, Field{Kind: FieldText, Name: "Notes"}
	ma, mb := inputOf(t, Catalogue(a), ClassMarkup), inputOf(t, Catalogue(b), ClassMarkup)
	assert.Contains(t, ma.Value, collector.XSSMarker)
	assert.NotEqual(t, ma.Value, mb.Value, "each field has its own probe token")
	assert.Equal(t, ma.Value, inputOf(t, Catalogue(a), ClassMarkup).Value)
	assert.True(t, ma.Lenient, "escaping and refusing are both fine")
	q := inputOf(t, Catalogue(Field{Kind: FieldText, Name: "Last name"}), ClassQuotes)
	assert.True(t, q.Valid, "an apostrophe in a name must be accepted")
	assert.Contains(t, q.Value, "'")
	assert.Contains(t, q.Value, "--")
	u := inputOf(t, Catalogue(Field{Kind: FieldURL, Name: "Website"}), ClassMarkup)
	assert.True(t, strings.HasPrefix(u.Value, "javascript:"))
	assert.False(t, u.Valid)
	nl := inputOf(t, Catalogue(a), ClassNonLatin)
	for _, r := range []rune{'\u212B'} {
		assert.Contains(t, nl.Value, string(r), "Å outside Latin-1")
	}
	assert.Contains(t, inputOf(t, Catalogue(a), ClassRTL).Value, "\u202E")
	assert.True(t, inputOf(t, Catalogue(a), ClassEmoji).Valid)
	assert.False(t, inputOf(t, Catalogue(Field{Kind: FieldText, Pattern: "[a-z]+"}), ClassEmoji).Valid, "a pattern may refuse emoji")
}

func TestValidValue(t *testing.T) {
	tests := []struct {
		f    Field
		want string
	}{
		{Field{Kind: FieldEmail}, "qa.tester@example.com"},
		{Field{Kind: FieldText, Name: "Your email"}, "qa.tester@example.com"},
		{Field{Kind: FieldText, Name: "workEmail"}, "qa.tester@example.com"},
		{Field{Kind: FieldText, Name: "Phone number"}, "+1 555 0100"},
		{Field{Kind: FieldURL, Name: "Link"}, "https://example.com/"},
		{Field{Kind: FieldText, Name: "First name"}, "Ada"},
		{Field{Kind: FieldText, Name: "surname"}, "Lovelace"},
		{Field{Kind: FieldText, Name: "Full name"}, "Ada Lovelace"},
		{Field{Kind: FieldText, Name: "Message"}, "A short note written by the QA explorer."},
		{Field{Kind: FieldText, Name: "Image caption"}, "QA sample"},
		{Field{Kind: FieldPassword, Name: "Secret"}, "Correct-Horse-42"},
		{Field{Kind: FieldNumber, Name: "Quantity"}, "2"},
		{Field{Kind: FieldNumber, Name: "Quantity", Min: "5"}, "5"},
		{Field{Kind: FieldNumber, Name: "Age", Max: "18"}, "18"},
		{Field{Kind: FieldText, Name: "Price"}, "120"},
		{Field{Kind: FieldNumber, Min: "10", Max: "20"}, "15"},
		{Field{Kind: FieldDate}, "2024-06-15"},
		{Field{Kind: FieldDate, Min: "2030-01-01"}, "2030-01-01"},
		{Field{Kind: FieldDateTime}, "2024-06-15T14:30"},
		{Field{Kind: FieldTime}, "14:30"},
		{Field{Kind: FieldMonth}, "2024-06"},
		{Field{Kind: FieldText, Name: "Title", MaxLength: 4}, "QA s"},
		{Field{Kind: FieldText, Name: "Code", MinLength: 12}, "QA samplexxx"},
		{Field{Kind: FieldText, Name: "Code", Pattern: "[0-9]{5}"}, "12345"},
		{Field{Kind: FieldText, Pattern: "[A-Z]{2}-[0-9]{4}"}, "AB-1234"},
		{Field{Kind: FieldText, Pattern: "(unclosed"}, "QA sample"},
		{Field{Kind: FieldSelect, Options: []string{"Select…", "Small", "Large"}}, "Small"},
		{Field{Kind: FieldSelect}, ""},
		{Field{Kind: FieldCheckbox, Required: true}, "on"},
		{Field{Kind: FieldCheckbox}, ""},
		{Field{Kind: FieldRadio, Name: "Express"}, "Express"},
		{Field{Kind: FieldFile}, ""},
	}
	for _, tc := range tests {
		t.Run(string(tc.f.Kind)+" "+tc.f.Name+" "+tc.f.Pattern, func(t *testing.T) {
			assert.Equal(t, tc.want, ValidValue(tc.f))
		})
	}
}

// The valid value and the valid class respect the field's own constraints,
// whatever they are.
func TestValidValueRespectsConstraints(t *testing.T) {
	fields := []Field{
		{Kind: FieldNumber, Min: "3", Max: "7"},
		{Kind: FieldNumber, Min: "0.5", Max: "0.75", Step: "0.05"},
		{Kind: FieldNumber, Min: "100"},
		{Kind: FieldNumber, Max: "-5"},
		{Kind: FieldText, Name: "Postcode", MaxLength: 3},
		{Kind: FieldText, Name: "Title", MinLength: 20, MaxLength: 25},
		{Kind: FieldText, Pattern: "[a-z]+"},
		{Kind: FieldText, Name: "Quantity", Min: "2", Max: "4"},
	}
	for _, f := range fields {
		v := ValidValue(f)
		in := inputOf(t, Catalogue(f), ClassValid)
		assert.Equal(t, v, in.Value)
		if n, ok := parseNum(f.Min); ok {
			x, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err, v)
			assert.GreaterOrEqual(t, x, n, "%+v", f)
		}
		if n, ok := parseNum(f.Max); ok {
			x, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err, v)
			assert.LessOrEqual(t, x, n, "%+v", f)
		}
		if f.MaxLength > 0 {
			assert.LessOrEqual(t, utf8.RuneCountInString(v), f.MaxLength)
		}
		assert.GreaterOrEqual(t, utf8.RuneCountInString(v), f.MinLength)
		if re := f.patternRE(); re != nil {
			assert.Regexp(t, re, v)
		}
	}
}

// Hostile or broken attributes give a catalogue, never a panic.
func TestCatalogueBadInput(t *testing.T) {
	weird := []map[string]string{
		{"min": "abc", "max": "def", "step": "0"},
		{"min": "10", "max": "1", "step": "-3"},
		{"min": "NaN", "max": "Inf", "step": "1e400"},
		{"type": "date", "min": "yesterday", "max": "2024-13-45"},
		{"type": "number", "step": "any"},
		{"pattern": "(((", "maxlength": "0", "minlength": "99999999999999999999"},
		{"type": "week"}, {"type": "file"}, {"type": "color"},
	}
	for _, a := range weird {
		for _, role := range []string{"textbox", "spinbutton", "combobox", "slider", "", "BUTTON"} {
			f := FieldOf(Element{Role: role, Name: "\u202E\x00 weird 9"}, a)
			assert.NotPanics(t, func() { _ = Catalogue(f); _ = ValidValue(f) })
		}
	}
	f := FieldOf(Element{Role: "spinbutton"}, map[string]string{"min": "10", "max": "1"})
	assert.Equal(t, "10", inputOf(t, Catalogue(f), ClassValid).Value, "a max below min is ignored, the value keeps to min")
	f = FieldOf(Element{Role: "spinbutton"}, map[string]string{"min": "-1e300", "max": "1e300", "step": "1e-300"})
	v, err := strconv.ParseFloat(ValidValue(f), 64)
	require.NoError(t, err)
	assert.False(t, v < -1e300 || v > 1e300, "finite and in range: %v", v)
}

func TestLabelWords(t *testing.T) {
	tests := []struct {
		name string
		want sense
	}{
		{"E-mail", senseEmail},
		{"workEmail", senseEmail},
		{"contact_email", senseEmail},
		{"Start-date", senseDate},
		{"Message", senseText},
		{"Page title", senseText},
		{"Account holder", senseText},
		{"Discount %", senseNumber},
		{"Your age", senseNumber},
		{"Mobile", senseTel},
		{"Homepage", senseURL},
		{"", senseText},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Field{Kind: FieldText, Name: tc.name}.sense())
		})
	}
}

// What the browser's constraint validation stops never reaches the app.
func TestBrowserBlocks(t *testing.T) {
	req := Field{Kind: FieldText, Required: true}
	assert.True(t, BrowserBlocks(req, ""))
	assert.False(t, BrowserBlocks(req, "   "), "whitespace is a value to the browser")
	assert.False(t, BrowserBlocks(Field{Kind: FieldText}, ""))
	n := Field{Kind: FieldNumber, Min: "1", Max: "50"}
	assert.True(t, BrowserBlocks(n, "0"))
	assert.True(t, BrowserBlocks(n, "-1"))
	assert.True(t, BrowserBlocks(n, "51"))
	assert.False(t, BrowserBlocks(n, "50"))
	assert.False(t, BrowserBlocks(Field{Kind: FieldNumber}, "-1"), "no bounds: the app must decide")
	assert.False(t, BrowserBlocks(Field{Kind: FieldText, Max: "5"}, "9"), "max means nothing on text")
	e := Field{Kind: FieldEmail}
	assert.True(t, BrowserBlocks(e, "not an address"))
	assert.True(t, BrowserBlocks(e, "\u212Bngstr\u00f6m@example.com"), "a local part outside ASCII")
	assert.False(t, BrowserBlocks(e, "o'brien@example.com"))
	assert.False(t, BrowserBlocks(Field{Kind: FieldText}, "not an address"), "an email by its label only")
}

package browser

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// LocatorExpr is a Playwright Test locator expression relative to `page`,
// parsed into its calls: getByTestId('save'), getByRole('button', { name:
// 'Save', exact: true }), locator('#email').first(), …. The tape records
// locators as text; ParseLocator reads that text back into this structure
// and String renders it again with every argument escaped, so a spec never
// contains code taken from a tape.
type LocatorExpr struct {
	Steps []LocatorStep
}

// LocatorStep is one call of a locator chain.
type LocatorStep struct {
	// Method is one of getByTestId, getByRole, getByLabel, getByText,
	// getByPlaceholder, getByAltText, getByTitle, locator, frameLocator,
	// contentFrame, first, last, nth.
	Method string
	// Arg is the string argument (the test id, the role, the text, the
	// selector); empty for contentFrame, first, last and nth.
	Arg string
	// Exact is the { exact: true } option.
	Exact bool
	// Name is getByRole's name option.
	Name *string
	// Flags are getByRole's boolean options (checked, disabled, expanded,
	// includeHidden, pressed, selected).
	Flags map[string]bool
	// Level is getByRole's level option (0: unset); N is nth's index.
	Level, N int
}

// argKinds says which arguments each method takes.
type argKind int

const (
	argNone   argKind = iota // first()
	argString                // locator('…')
	argText                  // getByText('…'[, { exact: true }])
	argRole                  // getByRole('button'[, { … }])
	argInt                   // nth(2)
)

var locatorMethods = map[string]argKind{
	"getByTestId": argString, "locator": argString, "frameLocator": argString,
	"getByRole": argRole, "getByLabel": argText, "getByText": argText, "getByPlaceholder": argText,
	"getByAltText": argText, "getByTitle": argText,
	"contentFrame": argNone, "first": argNone, "last": argNone, "nth": argInt,
}

// roleFlags are getByRole's boolean options, in rendering order.
var roleFlags = []string{"checked", "disabled", "expanded", "includeHidden", "pressed", "selected"}

// maxLocatorLen bounds a locator expression on a tape.
const maxLocatorLen = 4096

// String renders the expression as TypeScript (without the leading
// `page.`); every string is a single-quoted, escaped literal.
func (l LocatorExpr) String() string {
	var b strings.Builder
	for i, s := range l.Steps {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Method + "(")
		switch locatorMethods[s.Method] {
		case argString:
			b.WriteString(jsString(s.Arg))
		case argText:
			b.WriteString(jsString(s.Arg))
			if s.Exact {
				b.WriteString(", { exact: true }")
			}
		case argInt:
			b.WriteString(strconv.Itoa(s.N))
		case argRole:
			b.WriteString(jsString(s.Arg))
			var opts []string
			if s.Name != nil {
				opts = append(opts, "name: "+jsString(*s.Name))
			}
			if s.Exact {
				opts = append(opts, "exact: true")
			}
			for _, f := range roleFlags {
				if v, ok := s.Flags[f]; ok {
					opts = append(opts, f+": "+strconv.FormatBool(v))
				}
			}
			if s.Level > 0 {
				opts = append(opts, "level: "+strconv.Itoa(s.Level))
			}
			if len(opts) > 0 {
				b.WriteString(", { " + strings.Join(opts, ", ") + " }")
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// ParseLocator reads a locator expression of the forms the engine records
// (see LocatorExpr). Anything else — other methods, code, comments,
// template literals, unbalanced quotes — is an error.
func ParseLocator(src string) (LocatorExpr, error) {
	if len(src) > maxLocatorLen {
		return LocatorExpr{}, fmt.Errorf("locator longer than %d bytes", maxLocatorLen)
	}
	if !utf8.ValidString(src) {
		return LocatorExpr{}, errors.New("locator is not valid UTF-8")
	}
	p := &locParser{src: src}
	var out LocatorExpr
	for {
		st, err := p.step()
		if err != nil {
			return LocatorExpr{}, fmt.Errorf("locator %s: %w", clip(strconv.Quote(src), 120), err)
		}
		out.Steps = append(out.Steps, st)
		p.space()
		if p.eof() {
			break
		}
		if !p.accept('.') {
			return LocatorExpr{}, fmt.Errorf("locator %s: unexpected %s at offset %d; want '.' and a locator method", clip(strconv.Quote(src), 120), p.near(), p.i)
		}
	}
	if len(out.Steps) > 32 {
		return LocatorExpr{}, fmt.Errorf("locator %s: more than 32 calls", clip(strconv.Quote(src), 120))
	}
	return out, nil
}

type locParser struct {
	src string
	i   int
}

func (p *locParser) eof() bool { return p.i >= len(p.src) }

func (p *locParser) space() {
	for !p.eof() && p.src[p.i] == ' ' {
		p.i++
	}
}

func (p *locParser) accept(c byte) bool {
	p.space()
	if !p.eof() && p.src[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *locParser) near() string {
	if p.eof() {
		return "end of input"
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.i:])
	return strconv.QuoteRune(r)
}

func (p *locParser) expect(c byte) error {
	if !p.accept(c) {
		return fmt.Errorf("unexpected %s at offset %d; want %q", p.near(), p.i, c)
	}
	return nil
}

func (p *locParser) ident() string {
	p.space()
	start := p.i
	for !p.eof() {
		c := p.src[p.i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.i > start && c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.src[start:p.i]
}

func (p *locParser) step() (LocatorStep, error) {
	at := p.i
	name := p.ident()
	kind, ok := locatorMethods[name]
	if !ok {
		if name == "" {
			return LocatorStep{}, fmt.Errorf("unexpected %s at offset %d; want a locator method", p.near(), p.i)
		}
		return LocatorStep{}, fmt.Errorf("unknown locator method %q at offset %d", name, at)
	}
	st := LocatorStep{Method: name}
	if err := p.expect('('); err != nil {
		return st, err
	}
	switch kind {
	case argInt:
		n, err := p.integer()
		if err != nil {
			return st, err
		}
		st.N = n
	case argString, argText, argRole:
		s, err := p.str()
		if err != nil {
			return st, err
		}
		st.Arg = s
		if kind == argRole && !isRole(s) {
			return st, fmt.Errorf("role %q is not a lowercase ARIA role name", s)
		}
		if kind != argString && p.accept(',') {
			if err := p.options(&st, kind == argRole); err != nil {
				return st, err
			}
		}
	}
	if err := p.expect(')'); err != nil {
		return st, err
	}
	return st, nil
}

func isRole(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// options reads { key: value, … }: exact only, or getByRole's options.
func (p *locParser) options(st *LocatorStep, role bool) error {
	if err := p.expect('{'); err != nil {
		return err
	}
	seen := map[string]bool{}
	for first := true; ; first = false {
		if p.accept('}') {
			return nil
		}
		if !first {
			if err := p.expect(','); err != nil {
				return err
			}
			if p.accept('}') {
				return nil
			}
		}
		at := p.i
		key := p.ident()
		if seen[key] {
			return fmt.Errorf("option %q given twice", key)
		}
		seen[key] = true
		if err := p.expect(':'); err != nil {
			return err
		}
		switch {
		case key == "exact":
			v, err := p.boolean()
			if err != nil {
				return err
			}
			st.Exact = v
		case role && key == "name":
			s, err := p.str()
			if err != nil {
				return err
			}
			st.Name = &s
		case role && key == "level":
			n, err := p.integer()
			if err != nil {
				return err
			}
			if n < 1 || n > 6 {
				return fmt.Errorf("level %d is not 1..6", n)
			}
			st.Level = n
		case role && isFlag(key):
			v, err := p.boolean()
			if err != nil {
				return err
			}
			if st.Flags == nil {
				st.Flags = map[string]bool{}
			}
			st.Flags[key] = v
		default:
			return fmt.Errorf("unknown option %q at offset %d", key, at)
		}
	}
}

func isFlag(k string) bool {
	for _, f := range roleFlags {
		if f == k {
			return true
		}
	}
	return false
}

func (p *locParser) boolean() (bool, error) {
	switch at := p.i; p.ident() {
	case "true":
		return true, nil
	case "false":
		return false, nil
	default:
		p.i = at
		return false, fmt.Errorf("unexpected %s at offset %d; want true or false", p.near(), p.i)
	}
}

func (p *locParser) integer() (int, error) {
	p.space()
	start := p.i
	if !p.eof() && p.src[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for !p.eof() && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	if p.i == digits || p.i-digits > 6 {
		return 0, fmt.Errorf("unexpected %s at offset %d; want an integer of at most 6 digits", p.near(), start)
	}
	return strconv.Atoi(p.src[start:p.i])
}

// str reads a single- or double-quoted JavaScript string literal and
// returns its value. Raw line breaks and unknown escapes are errors.
func (p *locParser) str() (string, error) {
	p.space()
	if p.eof() || p.src[p.i] != '\'' && p.src[p.i] != '"' {
		return "", fmt.Errorf("unexpected %s at offset %d; want a quoted string", p.near(), p.i)
	}
	quote := p.src[p.i]
	start := p.i
	p.i++
	var b strings.Builder
	for {
		if p.eof() {
			return "", fmt.Errorf("string at offset %d is not closed", start)
		}
		r, size := utf8.DecodeRuneInString(p.src[p.i:])
		switch {
		case r == rune(quote):
			p.i++
			return b.String(), nil
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			return "", fmt.Errorf("line break inside the string at offset %d", start)
		case r == '\\':
			p.i++
			if err := p.escape(&b); err != nil {
				return "", err
			}
			continue
		}
		b.WriteRune(r)
		p.i += size
	}
}

func (p *locParser) escape(b *strings.Builder) error {
	if p.eof() {
		return errors.New("dangling backslash")
	}
	c := p.src[p.i]
	p.i++
	simple := map[byte]string{'\\': `\`, '\'': `'`, '"': `"`, 'n': "\n", 'r': "\r", 't': "\t", 'b': "\b", 'f': "\f", 'v': "\v"}
	if s, ok := simple[c]; ok {
		b.WriteString(s)
		return nil
	}
	switch c {
	case '0':
		if !p.eof() && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			return fmt.Errorf("octal escape at offset %d", p.i-2)
		}
		b.WriteByte(0)
		return nil
	case 'x':
		return p.hexEscape(b, 2)
	case 'u':
		if !p.eof() && p.src[p.i] == '{' {
			end := strings.IndexByte(p.src[p.i:], '}')
			if end < 2 || end > 7 {
				return fmt.Errorf("bad \\u{…} escape at offset %d", p.i-2)
			}
			n, err := strconv.ParseUint(p.src[p.i+1:p.i+end], 16, 32)
			if err != nil || n > utf8.MaxRune {
				return fmt.Errorf("bad \\u{…} escape at offset %d", p.i-2)
			}
			b.WriteRune(rune(n))
			p.i += end + 1
			return nil
		}
		return p.hexEscape(b, 4)
	}
	return fmt.Errorf("unknown escape \\%c at offset %d", c, p.i-2)
}

func (p *locParser) hexEscape(b *strings.Builder, n int) error {
	if p.i+n > len(p.src) {
		return fmt.Errorf("short hex escape at offset %d", p.i-2)
	}
	v, err := strconv.ParseUint(p.src[p.i:p.i+n], 16, 32)
	if err != nil {
		return fmt.Errorf("bad hex escape at offset %d", p.i-2)
	}
	p.i += n
	b.WriteRune(rune(v)) // a lone surrogate becomes U+FFFD
	return nil
}

package browser

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/mxschmitt/playwright-go"
)

// selectorOf reads the selector string of a playwright-go locator. The
// library keeps it unexported; Normalize() puts the resolved selector there.
func selectorOf(l playwright.Locator) string {
	v := reflect.ValueOf(l)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	f := v.FieldByName("selector")
	if !f.IsValid() || f.Kind() != reflect.String {
		return ""
	}
	return f.String()
}

var (
	reTestID = regexp.MustCompile(`^internal:testid=\[([\w-]+)=("(?:[^"\\]|\\.)*")([si]?)\]$`)
	reRole   = regexp.MustCompile(`^internal:role=([a-z]+)((?:\[[^\]]*\])*)$`)
	reAttrs  = regexp.MustCompile(`\[([a-z-]+)=("(?:[^"\\]|\\.)*"|[^\]]*?)([si]?)\]`)
	reQuoted = regexp.MustCompile(`^internal:(label|text)=("(?:[^"\\]|\\.)*")([si]?)$`)
	reAttr   = regexp.MustCompile(`^internal:attr=\[(placeholder|alt|title)=("(?:[^"\\]|\\.)*")([si]?)\]$`)
	reNth    = regexp.MustCompile(`^nth=(-?\d+)$`)
)

// JSLocator renders a Playwright selector (as produced by Normalize or by
// ParseTarget) as a Playwright Test locator expression relative to `page`,
// e.g. getByTestId('save') or getByRole('button', { name: 'Save' }).
// Unknown forms fall back to locator('<selector>'), which Playwright accepts.
// The result always parses with ParseLocator.
func JSLocator(selector string) string {
	return LocatorOf(selector).String()
}

// LocatorOf is JSLocator's structured form.
func LocatorOf(selector string) LocatorExpr {
	var out LocatorExpr
	for _, p := range splitChain(selector) {
		out.Steps = append(out.Steps, stepOf(strings.TrimSpace(p)))
	}
	return out
}

// roleOptionKeys maps internal:role attributes to getByRole options.
var roleOptionKeys = map[string]string{"checked": "checked", "disabled": "disabled", "expanded": "expanded",
	"include-hidden": "includeHidden", "pressed": "pressed", "selected": "selected"}

func stepOf(p string) LocatorStep {
	if m := reTestID.FindStringSubmatch(p); m != nil && m[1] == "data-testid" {
		return LocatorStep{Method: "getByTestId", Arg: jsonUnquote(m[2])}
	}
	if m := reRole.FindStringSubmatch(p); m != nil {
		if st, ok := roleStep(m[1], m[2]); ok {
			return st
		}
	}
	if m := reQuoted.FindStringSubmatch(p); m != nil {
		fn := map[string]string{"label": "getByLabel", "text": "getByText"}[m[1]]
		return LocatorStep{Method: fn, Arg: jsonUnquote(m[2]), Exact: m[3] == "s"}
	}
	if m := reAttr.FindStringSubmatch(p); m != nil {
		fn := map[string]string{"placeholder": "getByPlaceholder", "alt": "getByAltText", "title": "getByTitle"}[m[1]]
		return LocatorStep{Method: fn, Arg: jsonUnquote(m[2]), Exact: m[3] == "s"}
	}
	if m := reNth.FindStringSubmatch(p); m != nil && len(m[1]) <= 6 {
		switch m[1] {
		case "0":
			return LocatorStep{Method: "first"}
		case "-1":
			return LocatorStep{Method: "last"}
		}
		n, _ := strconv.Atoi(m[1])
		return LocatorStep{Method: "nth", N: n}
	}
	if p == "internal:control=enter-frame" {
		return LocatorStep{Method: "contentFrame"}
	}
	return LocatorStep{Method: "locator", Arg: p}
}

// roleStep turns internal:role=<role><attrs> into getByRole; ok=false for
// attributes getByRole has no option for.
func roleStep(role, attrs string) (LocatorStep, bool) {
	st := LocatorStep{Method: "getByRole", Arg: role}
	rest := reAttrs.ReplaceAllString(attrs, "")
	if rest != "" || !isRole(role) {
		return st, false
	}
	for _, a := range reAttrs.FindAllStringSubmatch(attrs, -1) {
		key, val, flag := a[1], a[2], a[3]
		switch {
		case key == "name":
			name := jsonUnquote(val)
			st.Name = &name
			st.Exact = flag == "s"
		case key == "level" && len(val) == 1 && val >= "1" && val <= "6":
			st.Level = int(val[0] - '0')
		case roleOptionKeys[key] != "" && (val == "true" || val == "false"):
			if st.Flags == nil {
				st.Flags = map[string]bool{}
			}
			st.Flags[roleOptionKeys[key]] = val == "true"
		default:
			return st, false
		}
	}
	return st, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func jsonUnquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return strings.Trim(s, `"`)
}

// jsString renders s as a single-quoted JavaScript string literal.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\u2028':
			b.WriteString(`\u2028`)
		case '\u2029':
			b.WriteString(`\u2029`)
		default:
			if r < 0x20 {
				b.WriteString(`\x` + strconv.FormatInt(int64(r)+0x100, 16)[1:])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// splitChain splits a selector on " >> " outside quotes.
func splitChain(s string) []string {
	var parts []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>' && i+1 < len(s) && s[i+1] == '>':
			parts = append(parts, s[start:i])
			i++
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

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
func JSLocator(selector string) string {
	parts := splitChain(selector)
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(jsPart(strings.TrimSpace(p)))
	}
	return b.String()
}

func jsPart(p string) string {
	if m := reTestID.FindStringSubmatch(p); m != nil && m[1] == "data-testid" {
		return "getByTestId(" + jsString(jsonUnquote(m[2])) + ")"
	}
	if m := reRole.FindStringSubmatch(p); m != nil {
		var opts []string
		for _, a := range reAttrs.FindAllStringSubmatch(m[2], -1) {
			key, val, flag := a[1], a[2], a[3]
			switch {
			case key == "name":
				opts = append(opts, "name: "+jsString(jsonUnquote(val)))
				if flag == "s" {
					opts = append(opts, "exact: true")
				}
			case val == "true" || val == "false" || isDigits(val):
				opts = append(opts, key+": "+val)
			default:
				opts = append(opts, key+": "+jsString(jsonUnquote(val)))
			}
		}
		if len(opts) == 0 {
			return "getByRole(" + jsString(m[1]) + ")"
		}
		return "getByRole(" + jsString(m[1]) + ", { " + strings.Join(opts, ", ") + " })"
	}
	if m := reQuoted.FindStringSubmatch(p); m != nil {
		fn := map[string]string{"label": "getByLabel", "text": "getByText"}[m[1]]
		return fn + "(" + jsString(jsonUnquote(m[2])) + exactOpt(m[3]) + ")"
	}
	if m := reAttr.FindStringSubmatch(p); m != nil {
		fn := map[string]string{"placeholder": "getByPlaceholder", "alt": "getByAltText", "title": "getByTitle"}[m[1]]
		return fn + "(" + jsString(jsonUnquote(m[2])) + exactOpt(m[3]) + ")"
	}
	if m := reNth.FindStringSubmatch(p); m != nil {
		switch m[1] {
		case "0":
			return "first()"
		case "-1":
			return "last()"
		}
		return "nth(" + m[1] + ")"
	}
	return "locator(" + jsString(p) + ")"
}

func exactOpt(flag string) string {
	if flag == "s" {
		return ", { exact: true }"
	}
	return ""
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

package config

import (
	"fmt"
	"strings"
)

// UnsetError reports a ${NAME} without default whose variable is not set.
type UnsetError struct{ Name string }

func (e *UnsetError) Error() string {
	return fmt.Sprintf("${%s} is not set and has no default (use ${%s:-default})", e.Name, e.Name)
}

// Expand replaces ${NAME} with the value of NAME and ${NAME:-default} with
// the value of NAME, or default when NAME is unset or empty; lookup supplies
// the values. $$ stands for one literal $; any other $ is kept as it is.
// Defaults are literal text (no nested ${…}). A ${NAME} whose NAME is unset
// is an *UnsetError; an unset but empty variable expands to "".
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i += 2
		case '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("unterminated ${ in %q", s)
			}
			expr := s[i+2 : i+2+end]
			name, def, hasDef := strings.Cut(expr, ":-")
			if !validName(name) {
				return "", fmt.Errorf("bad variable name %q in ${%s} (want letters, digits and _)", name, expr)
			}
			if strings.Contains(def, "${") {
				return "", fmt.Errorf("nested ${ in the default of ${%s} is not supported", name)
			}
			v, ok := lookup(name)
			switch {
			case ok && (v != "" || !hasDef):
				b.WriteString(v)
			case hasDef:
				b.WriteString(def)
			default:
				return "", &UnsetError{Name: name}
			}
			i += 2 + end + 1
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String(), nil
}

func validName(n string) bool {
	if n == "" || (n[0] >= '0' && n[0] <= '9') {
		return false
	}
	for _, c := range n {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

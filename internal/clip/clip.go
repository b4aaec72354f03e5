// Package clip cuts the long texts the explorer quotes (response bodies,
// tool output, error messages) to a bound.
package clip

import "unicode/utf8"

// String is s cut to n bytes, with an ellipsis where it was cut.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// UTF8 is at most n bytes of s, not splitting a rune.
func UTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

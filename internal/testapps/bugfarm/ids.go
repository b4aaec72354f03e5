package bugfarm

import (
	"regexp"
	"strings"
)

var idRE = regexp.MustCompile(`(?i)bf\d+-\d{2,}`)

// FindIDs returns the bug ids ("bf<seed>-<nn>") that occur in text, each
// once, lowercase, in order of first occurrence (case-insensitive). An id
// only counts on its own: "bf1-03" is not found in "bf11-03", "xbf1-03" or
// "bf1-031".
func FindIDs(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range idRE.FindAllStringIndex(text, -1) {
		if m[0] > 0 && isWordByte(text[m[0]-1]) {
			continue
		}
		if m[1] < len(text) && isWordByte(text[m[1]]) {
			continue
		}
		id := strings.ToLower(text[m[0]:m[1]])
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

package llm

import (
	"fmt"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
)

// CutMarker is put where Truncate removed text; %d is the number of
// characters (runes) removed.
const CutMarker = "\n[… %d characters cut …]\n"

// Truncate keeps at most max runes of s: its head and its tail (each about
// half) joined by CutMarker. s is returned unchanged when it fits or max <= 0.
// It never splits a UTF-8 character and works on byte offsets (no []rune
// copy of s).
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	// the marker's length depends on the count it shows: settle it
	cut := n - max
	var keep int
	for range 3 {
		keep = max - utf8.RuneCountInString(fmt.Sprintf(CutMarker, cut))
		if keep < 2 {
			return s[:runeOffset(s, max)]
		}
		cut = n - keep
	}
	head := (keep + 1) / 2
	tail := keep - head
	end := len(s)
	for range tail {
		_, size := utf8.DecodeLastRuneInString(s[:end])
		end -= size
	}
	return s[:runeOffset(s, head)] + fmt.Sprintf(CutMarker, cut) + s[end:]
}

// runeOffset is the byte offset of the k-th rune of s.
func runeOffset(s string, k int) int {
	off := 0
	for range k {
		_, size := utf8.DecodeRuneInString(s[off:])
		off += size
	}
	return off
}

// Budget caps what a Model sends: each text part of each message is cut to
// PerMessage runes (head+tail, see Truncate). Tool call results are cut too;
// tool call arguments are never changed.
type Budget struct {
	PerMessage int // 0: no cap
}

// Apply returns msgs with long texts cut; msgs itself is not modified.
func (b Budget) Apply(msgs []llms.MessageContent) []llms.MessageContent {
	if b.PerMessage <= 0 {
		return msgs
	}
	out := make([]llms.MessageContent, len(msgs))
	for i, m := range msgs {
		parts := make([]llms.ContentPart, len(m.Parts))
		for j, p := range m.Parts {
			switch v := p.(type) {
			case llms.TextContent:
				parts[j] = llms.TextContent{Text: Truncate(v.Text, b.PerMessage)}
			case llms.ToolCallResponse:
				v.Content = Truncate(v.Content, b.PerMessage)
				parts[j] = v
			default:
				parts[j] = p
			}
		}
		out[i] = llms.MessageContent{Role: m.Role, Parts: parts}
	}
	return out
}

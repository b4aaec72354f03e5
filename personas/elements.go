package personas

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

// Element is one addressable control of a snapshot.
type Element struct {
	Role string // button, link, textbox, checkbox, combobox, …
	Name string // accessible name ("" when it has none)
	Ref  string // e12, h3 or d4: the intent target
	// URL is a link's href as the snapshot shows it.
	URL string
	// Value is a textbox's current text.
	Value string
	// Options are a combobox's or listbox's option names.
	Options []string
	// Flags are the bracketed states: checked, disabled, selected, expanded…
	Flags []string
	// InMain: the element sits inside the page's main landmark (not in its
	// banner, navigation or footer); on a page without one, every
	// element.
	InMain bool
}

// Has reports whether the element carries the flag, e.g. "disabled".
func (e Element) Has(flag string) bool {
	for _, f := range e.Flags {
		if f == flag || strings.HasPrefix(f, flag+"=") {
			return true
		}
	}
	return false
}

// Clickable reports whether a click is the element's natural action.
func (e Element) Clickable() bool {
	switch e.Role {
	case "button", "link", "menuitem", "tab", "checkbox", "radio", "switch", "option", "treeitem", "menuitemcheckbox", "menuitemradio":
		return !e.Has("disabled")
	}
	return false
}

// Fillable reports whether the element takes typed text.
func (e Element) Fillable() bool {
	switch e.Role {
	case "textbox", "searchbox", "spinbutton":
		return !e.Has("disabled")
	}
	return false
}

var (
	reLine   = regexp.MustCompile(`^(\s*)- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*)(?: → (\S+))?(?::\s*(.*)| \(shown on hover .*\))?$`)
	reFlag   = regexp.MustCompile(`\[([^\]]*)\]`)
	reURL    = regexp.MustCompile(`^\s*- /url: (.*)$`)
	reOption = regexp.MustCompile(`^\s*- option "((?:[^"\\]|\\.)*)"`)
	reRefTag = regexp.MustCompile(` ?\[ref=[a-z0-9]+\]`)
)

// ParseElements extracts the controls that carry a ref from a snapshot's
// text, in document order. Lines it does not understand are skipped.
func ParseElements(snap browser.Snapshot) []Element {
	var out []Element
	last := -1
	lastIndent := 0
	mainIndent := -1 // indent of the main landmark's line while inside it
	hasMain := false
	for _, ln := range strings.Split(snap.Text, "\n") {
		if last >= 0 && strings.Contains(ln, "- /url: ") {
			if m := reURL.FindStringSubmatch(ln); m != nil {
				out[last].URL = unquoteScalar(strings.TrimSpace(m[1]))
				continue
			}
		}
		if t := strings.TrimLeft(ln, " "); strings.HasPrefix(t, "- ") {
			indent := indentOf(ln)
			if mainIndent >= 0 && indent <= mainIndent {
				mainIndent = -1
			}
			if r := strings.TrimPrefix(t, "- main"); r != t && (r == "" || r[0] == ' ' || r[0] == ':') {
				mainIndent, hasMain = indent, true
			}
		}
		// A native select's options have no ref: they are its select's
		// values. An option with a ref (a listbox of the page's own
		// making) is an element of its own, clicked like a button.
		if last >= 0 && strings.Contains(ln, "- option ") && !strings.Contains(ln, "[ref=") {
			if m := reOption.FindStringSubmatch(ln); m != nil && indentOf(ln) > lastIndent {
				if r := out[last].Role; r == "combobox" || r == "listbox" {
					out[last].Options = append(out[last].Options, unquote(m[1]))
				}
			}
		}
		if !strings.Contains(ln, "[ref=") {
			continue
		}
		ln, notes := cutNotes(ln)
		m := reLine.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		var el Element
		el.Role, el.Name = m[2], unquote(m[3])
		for _, f := range reFlag.FindAllStringSubmatch(m[4], -1) {
			if ref, ok := strings.CutPrefix(f[1], "ref="); ok {
				el.Ref = ref
			} else {
				el.Flags = append(el.Flags, f[1])
			}
		}
		if el.Ref == "" {
			continue
		}
		el.Flags = append(el.Flags, notes...)
		el.URL = m[5]
		if v := strings.TrimSpace(m[6]); v != "" && (el.Role == "textbox" || el.Role == "searchbox" || el.Role == "spinbutton") {
			el.Value = unquoteScalar(v)
		}
		el.InMain = mainIndent >= 0 && len(m[1]) > mainIndent || slices.Contains(notes, "in main")
		hasMain = hasMain || el.InMain
		out = append(out, el)
		last, lastIndent = len(out)-1, len(m[1])
	}
	if !hasMain {
		// A page without a main landmark: all of it is its main content.
		for i := range out {
			out[i].InMain = true
		}
	}
	return out
}

// reNote is the engine's note on a control's line, right after its ref:
// the field's input type, a file input, a control in a shadow root or a
// frame, an element acting through script handlers only or editable, a
// field's constraints, a textarea ("multiline"), a control shown only on
// hover or focus (the engine's supplements, listed
// after the tree, say "in main" for what sits in the main landmark).
var reNote = regexp.MustCompile(`(\[ref=[a-z0-9]+\]) \(((?:type=|file input|in shadow root|in frame |handler only|contenteditable|hover |focus |required|min=|max=|minlength=|maxlength=|multiline)(?:[^()"]|"(?:[^"\\]|\\.)*")*)\)`)

// cutNotes removes the engine's note from a snapshot line and returns its
// parts ("type=email", "in shadow root", …), which become the element's
// flags.
func cutNotes(ln string) (string, []string) {
	m := reNote.FindStringSubmatchIndex(ln)
	if m == nil {
		return ln, nil
	}
	notes := strings.Split(ln[m[4]:m[5]], "; ")
	return ln[:m[0]] + ln[m[2]:m[3]] + ln[m[1]:], notes
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

func unquote(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}

// unquoteScalar reads a YAML scalar of the snapshot: the snapshot quotes
// a value (a URL, a textbox's text) that would not read back plainly.
func unquoteScalar(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return unquote(s[1 : len(s)-1])
	}
	return s
}

// StateHash fingerprints a page state: the URL path and query plus the
// snapshot's structure with refs, text values and numbers removed, so the
// same screen hashes the same across visits and runs.
func StateHash(snap browser.Snapshot) string {
	h := sha256.New()
	h.Write([]byte(pathQuery(snap.URL)))
	h.Write([]byte{0})
	h.Write([]byte(normalizeSnapshot(snap.Text)))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

var reDigits = regexp.MustCompile(`[0-9]+`)

// normalizeSnapshot drops the header line and refs, and turns every run
// of digits into '#'.
func normalizeSnapshot(text string) string {
	if strings.HasPrefix(text, "page: ") {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		} else {
			text = ""
		}
	}
	b := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' && strings.HasPrefix(text[i+1:], "[ref="), c == '[' && strings.HasPrefix(text[i:], "[ref="):
			j := strings.IndexByte(text[i:], ']')
			if j < 0 {
				b = append(b, c)
				continue
			}
			i += j
		case c >= '0' && c <= '9':
			b = append(b, '#')
			for i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
				i++
			}
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// sameScreen compares two snapshots ignoring refs (they are renumbered
// when the page re-renders).
func sameScreen(a, b browser.Snapshot) bool {
	strip := func(s browser.Snapshot) string {
		lines := strings.Split(s.Text, "\n")
		if len(lines) > 0 && strings.HasPrefix(lines[0], "page: ") {
			lines = lines[1:]
		}
		return reRefTag.ReplaceAllString(strings.Join(lines, "\n"), "")
	}
	return a.URL == b.URL && a.Title == b.Title && strip(a) == strip(b)
}

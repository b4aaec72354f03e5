package explore

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

// element is one addressable control of a snapshot.
type element struct {
	Role   string
	Name   string
	Ref    string
	URL    string   // a link's /url
	Value  string   // a textbox's current text
	Opts   []string // a combobox's option names
	Flags  []string // checked, disabled, selected…
	InMain bool     // inside the page's main landmark
	Form   int      // index of the enclosing form-like group (search, form), 0 when none
}

var (
	reLine = regexp.MustCompile(`^(\s*)- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*)(?: → (\S+))?(?::\s*(.*))?$`)
	reFlag = regexp.MustCompile(`\[([^\]=]+)(?:=([^\]]*))?\]`)
	reOpt  = regexp.MustCompile(`^\s*- option "((?:[^"\\]|\\.)*)"`)
	reURL  = regexp.MustCompile(`^\s*- /url: "?([^"]*)"?$`)
)

// parseElements extracts the controls that carry a ref, in document order.
func parseElements(snap browser.Snapshot) []element {
	var out []element
	mainIndent, formIndent := -1, -1
	form := 0
	var last *element
	lastIndent := -1
	for _, line := range strings.Split(snap.Text, "\n") {
		if m := reURL.FindStringSubmatch(line); m != nil && last != nil {
			last.URL = m[1]
			continue
		}
		if m := reOpt.FindStringSubmatch(line); m != nil && last != nil && last.Role == "combobox" {
			last.Opts = append(last.Opts, strings.ReplaceAll(m[1], `\"`, `"`))
			continue
		}
		m := reLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent := len(m[1])
		if mainIndent >= 0 && indent <= mainIndent {
			mainIndent = -1
		}
		if formIndent >= 0 && indent <= formIndent {
			formIndent = -1
		}
		role, name := m[2], strings.ReplaceAll(m[3], `\"`, `"`)
		if role == "main" {
			mainIndent = indent
		}
		if role == "form" || role == "search" {
			formIndent = indent
			form++
		}
		el := element{Role: role, Name: name, InMain: mainIndent >= 0 && indent > mainIndent}
		if formIndent >= 0 && indent > formIndent {
			el.Form = form
		}
		for _, f := range reFlag.FindAllStringSubmatch(m[4], -1) {
			if f[1] == "ref" {
				el.Ref = f[2]
				continue
			}
			el.Flags = append(el.Flags, f[1])
		}
		if m[5] != "" {
			el.URL = m[5]
		}
		if el.Ref == "" {
			last = nil
			continue
		}
		if role == "textbox" || role == "searchbox" || role == "spinbutton" {
			el.Value = strings.Trim(m[6], `"`)
		}
		out = append(out, el)
		last = &out[len(out)-1]
		lastIndent = indent
	}
	_ = lastIndent
	return out
}

func (e element) has(flag string) bool {
	for _, f := range e.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

func (e element) fillable() bool {
	return e.Role == "textbox" || e.Role == "searchbox" || e.Role == "spinbutton"
}

var reNum = regexp.MustCompile(`[0-9]+`)

// pageState fingerprints a page: its path and query plus the roles and
// names of its controls, numbers removed, so the same screen hashes the same.
func pageState(snap browser.Snapshot, els []element) string {
	var b strings.Builder
	b.WriteString(pathQuery(snap.URL))
	for _, e := range els {
		b.WriteString("|" + e.Role + ":" + reNum.ReplaceAllString(e.Name, "#"))
	}
	return b.String()
}

// pathQuery is the path and query of a URL (the URL itself when it does not
// parse).
func pathQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.RawQuery != "" {
		return u.Path + "?" + u.RawQuery
	}
	return u.Path
}

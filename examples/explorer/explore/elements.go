package explore

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/personas"
)

var reNum = regexp.MustCompile(`[0-9]+`)

// pageState fingerprints a page: its path and query plus the roles and
// names of its controls, numbers removed, so the same screen hashes the same.
func pageState(snap browser.Snapshot, els []personas.Element) string {
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

// clip cuts s to n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// pathOf is raw's path (raw itself when it does not parse).
func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Path
}

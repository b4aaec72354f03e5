package explore

import (
	"regexp"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

var reNum = regexp.MustCompile(`[0-9]+`)

// pageState fingerprints a page: its path and query plus the roles and
// names of its controls, numbers removed, so the same screen hashes the same.
func pageState(snap browser.Snapshot, els []personas.Element) string {
	var b strings.Builder
	b.WriteString(urlx.PathQuery(snap.URL))
	for _, e := range els {
		b.WriteString("|" + e.Role + ":" + reNum.ReplaceAllString(e.Name, "#"))
	}
	return b.String()
}

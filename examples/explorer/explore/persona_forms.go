package explore

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/personas"
)

func intent(a browser.Action) browser.Intent { return browser.Intent{Action: a} }

// validFor is a valid value for the field e, from its kind, label and
// constraints (personas.ValidValue); free text gets a number no other value
// of the mission had (coverage.tag), so two records the explorer creates
// never read the same (a list showing two equal rows is then the app's
// doing).
func validFor(e personas.Element, v *view) string {
	f := personas.FieldOf(e, nil)
	val := personas.ValidValue(f)
	if (f.Kind == personas.FieldText || f.Kind == personas.FieldTextarea) && f.Pattern == "" && strings.ContainsFunc(val, unicode.IsLetter) &&
		!strings.ContainsAny(val, "@/") {
		tail := fmt.Sprintf(" %d", v.Cov.tag(v.Rand))
		if f.MaxLength == 0 || utf8.RuneCountInString(val+tail) <= f.MaxLength {
			val += tail
		}
	}
	return val
}

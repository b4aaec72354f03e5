package personas

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

// Helpers the built-in strategies share; custom strategies may use them
// too.

// Click is a click intent on el.
func Click(el Element) browser.Intent {
	return browser.Intent{Action: browser.ActClick, Target: el.Ref}
}

// Fill is a fill intent typing v into el.
func Fill(el Element, v string) browser.Intent {
	return browser.Intent{Action: browser.ActFill, Target: el.Ref, Value: &v}
}

// Press is a key press on el (or on the page when el has no ref).
func Press(el Element, key string) browser.Intent {
	return browser.Intent{Action: browser.ActPress, Target: el.Ref, Key: key}
}

// Navigate is a navigation intent.
func Navigate(url string) browser.Intent {
	return browser.Intent{Action: browser.ActNavigate, URL: url}
}

// Named returns the elements whose lower-cased name contains one of words,
// ordered by the first word they match, then document order.
func Named(els []Element, keep func(Element) bool, words ...string) []Element {
	var out []Element
	for _, w := range words {
		for _, e := range els {
			if keep != nil && !keep(e) {
				continue
			}
			if strings.Contains(strings.ToLower(e.Name), w) && !slices.ContainsFunc(out, func(o Element) bool { return o.Ref == e.Ref }) {
				out = append(out, e)
			}
		}
	}
	return out
}

// Filter returns the elements keep accepts.
func Filter(els []Element, keep func(Element) bool) []Element {
	var out []Element
	for _, e := range els {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// Pick returns a random element, or false for none.
func Pick(r *rand.Rand, els []Element) (Element, bool) {
	if len(els) == 0 {
		return Element{}, false
	}
	return els[r.IntN(len(els))], true
}

// SubmitButton is the main content's button that most looks like it
// submits the page's fields (SubmitAfter from the first control).
func SubmitButton(els []Element) (Element, bool) { return SubmitAfter(els, 0) }

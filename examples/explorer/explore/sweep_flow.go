package explore

import (
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// maxSteps bounds the steps of one flow that nextStep walks.
const maxSteps = 5

// formNames are the names of the fields of the main content.
func formNames(els []personas.Element) []string {
	var out []string
	for _, e := range els {
		if e.InMain && personas.FormControl(e) && !e.Has("disabled") {
			out = append(out, e.Role+"\x00"+e.Name)
		}
	}
	return out
}

// flowStep notes, at the look after an action, whether the form it
// submitted answered with another form: fields in the main content, none
// of the submitted form's (a form sent back with errors shows its own
// fields again), and a button to go on.
func (sw *sweep) flowStep(url string, els []personas.Element) {
	if !sw.submit {
		return // no submission since the last look: the flow stands
	}
	sent := sw.sent
	sw.submit, sw.sent, sw.step = false, nil, false
	if len(sent) == 0 { // the form sent no fields
		sw.steps, sw.double = 0, false
		return
	}
	now := formNames(els)
	if len(now) == 0 && urlx.PathQuery(url) == sw.sentAt && sw.steps < maxSteps {
		// No fields, under the address the fields were sent from, and a
		// button that goes on: the flow's review screen, whose submit
		// stores what the steps sent.
		if _, ok := reviewSubmit(els); ok {
			sw.step, sw.stepAt = true, urlx.PathQuery(url)
			return
		}
	}
	if len(now) == 0 || slices.ContainsFunc(now, func(n string) bool { return slices.Contains(sent, n) }) {
		sw.steps, sw.double = 0, false
		return
	}
	if to, from := templateOf(urlx.Path(url)), templateOf(urlx.Path(sw.sentAt)); to != from && strings.HasSuffix(to, "/{n}") {
		// The submission landed on a record's own page (its form made
		// or saved it): that page's forms (a note, a comment) are the
		// record's, not the flow's next step.
		sw.steps, sw.double = 0, false
		return
	}
	if _, ok := personas.SubmitAfter(els, 0); !ok || sw.steps >= maxSteps {
		sw.steps, sw.double = 0, false
		return
	}
	sw.step, sw.stepAt = true, urlx.PathQuery(url)
}

// reviewSubmit is the button of a field-less review screen that goes on:
// one whose name says it sends (personas.SubmitNamed), not one that steps
// back.
func reviewSubmit(els []personas.Element) (personas.Element, bool) {
	var cands []personas.Element
	for _, e := range els {
		if e.Role == "button" && !personas.Backward(e.Name) {
			cands = append(cands, e)
		}
	}
	b, ok := personas.SubmitAfter(cands, 0)
	if !ok || !personas.SubmitNamed(b.Name) {
		return personas.Element{}, false
	}
	return b, true
}

// stepPending: the page is a flow's next step the team has not gone on
// from yet.
func (sw *sweep) stepPending(v *view) bool {
	return sw != nil && sw.step && urlx.PathQuery(v.URL) == sw.stepAt
}

// nextStep is the macro that fills a flow's next step validly and goes
// on, or nil when the page is not one.
func (sw *sweep) nextStep(m *member, v *view) []step {
	if sw == nil || !sw.step || sw.pend != nil {
		return nil
	}
	sw.step = false
	if urlx.PathQuery(v.URL) != sw.stepAt {
		return nil // the browser left the step
	}
	macro := m.steps(personas.FormMoves(v.Els, func(e personas.Element) (string, bool) {
		if e.Value != "" || personas.FieldOf(e, nil).Kind == personas.FieldPassword {
			return "", false
		}
		return validFor(e, v), true
	}, sw.double))
	if b, ok := reviewSubmit(v.Els); ok && len(macro) == 0 && len(formNames(v.Els)) == 0 {
		// The review screen: its submit alone (twice, in a double
		// submission's flow).
		if sw.double {
			macro = []step{{in: browser.Intent{Action: browser.ActDblclick, Target: b.Ref}, before: m.hold, why: "double-click submit on a slow network"}}
		} else {
			macro = []step{{in: browser.Click(b.Ref), why: "submit " + b.Name}}
		}
	}
	if len(macro) == 0 {
		return nil
	}
	sw.steps++
	macro[0].why = "the flow's next step: " + macro[0].why
	return macro
}

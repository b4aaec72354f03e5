package main

import (
	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/eval"
)

func val(s string) *string { return &s }

// scripted is the offline agent: a fixed intent list per task. table-sort
// claims success without clicking the sort button — the lane must catch it.
func scripted() *eval.Scripted {
	click := func(t string) browser.Intent { return browser.Intent{Action: browser.ActClick, Target: t} }
	fill := func(t, v string) browser.Intent {
		return browser.Intent{Action: browser.ActFill, Target: t, Value: val(v)}
	}
	enter := func(t string) browser.Intent {
		return browser.Intent{Action: browser.ActPress, Target: t, Key: "Enter"}
	}
	text := func(t string) browser.Intent { return browser.Intent{Action: browser.ActExtractText, Target: t} }
	return &eval.Scripted{Scripts: map[string]eval.Script{
		"contact-form":     {Intents: []browser.Intent{fill("label=Name", "Ada"), fill("label=Email", "ada@example.com"), click(`role=button[name="Send"]`)}, Claim: true, Answer: "message sent"},
		"signup-invalid":   {Intents: []browser.Intent{fill("label=Email", "not-an-email"), click("#go"), text("#err")}, Claim: true, Answer: "Please enter a valid email address"},
		"nav-about":        {Intents: []browser.Intent{click(`role=link[name="About"]`)}, Claim: true},
		"nav-docs-install": {Intents: []browser.Intent{click(`role=link[name="Docs"]`), click(`role=link[name="Install"]`)}, Claim: true},
		"table-rows":       {Intents: []browser.Intent{text("#t")}, Claim: true, Answer: "5"},
		"table-sort":       {Intents: []browser.Intent{text("#t")}, Claim: true, Answer: "sorted"}, // the wrong claim
		"pricing-pro":      {Intents: []browser.Intent{click(`role=button[name="Choose Pro"]`)}, Claim: true},
		"pricing-annual":   {Intents: []browser.Intent{click("label=Pay yearly")}, Claim: true},
		"modal-open":       {Intents: []browser.Intent{click("#open")}, Claim: true},
		"modal-close":      {Intents: []browser.Intent{click("#open"), click("#close")}, Claim: true},
		"search-results":   {Intents: []browser.Intent{fill("#q", "desk"), enter("#q")}, Claim: true},
		"search-empty":     {Intents: []browser.Intent{fill("#q", "zzz"), enter("#q")}, Claim: true, Answer: "No results"},
	}}
}

package personas

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

// ErrDone is returned by a Strategy that has nothing more to try. The
// driver stops without an error.
var ErrDone = errors.New("personas: strategy done")

// Persona is one member of the QA team: who it is, what it looks for, how
// its system prompt reads, and how it acts offline, without a model: its
// lean over the app model's targets (Prefer) and its tricks, played alike
// in the explorer's team and by Run, and, for Run, an optional strategy
// of its own.
type Persona struct {
	// Name is the registry key, e.g. "adversarial" (lower case, no spaces).
	Name string
	// Role is one sentence, e.g. "a hostile tester who feeds the app
	// malicious input".
	Role string
	// Focus lists what the persona looks for, one item each.
	Focus []string
	// Keywords route mission prompts to this persona's team (see Registry.Route).
	Keywords []string
	// NewStrategy returns a fresh strategy of the persona's own for one
	// run of [Run], asked before its tricks and the app model (see
	// [Persona.Strategy]; it returns [ErrPass] to hand a step on).
	// Strategies keep state across steps, so every run needs its own.
	// Optional: the built-ins have none, and the explorer's team plays a
	// persona by its tricks and lean only.
	NewStrategy func() Strategy
	// Prefer is the persona's lean over the app model's targets (added to
	// the model's score and ClassBias, see [Persona.Preference]): which
	// targets it goes for first, wherever it runs offline. Nil: none.
	Prefer func(Target) float64
	// Tricks are the sequences the persona plays offline, tried in order
	// on every page (see [Trick] and [TrickPlayer]). None: it plays the
	// app model alone (and, in the explorer's team, the moves every
	// member makes).
	Tricks []Trick
}

// Validate checks the fields a registry relies on.
func (p Persona) Validate() error {
	switch {
	case p.Name == "":
		return errors.New("personas: persona has no name")
	case strings.ContainsAny(p.Name, " \t\n") || p.Name != strings.ToLower(p.Name):
		return fmt.Errorf("personas: persona name %q: use lower case without spaces", p.Name)
	case strings.TrimSpace(p.Role) == "":
		return fmt.Errorf("personas: persona %q has no role", p.Name)
	}
	for _, t := range p.Tricks {
		if !slices.Contains(Tricks(), t) {
			return fmt.Errorf("personas: persona %q: unknown trick %q", p.Name, t)
		}
	}
	return nil
}

// Step is what a strategy sees before choosing its next action.
type Step struct {
	// N counts the strategy's steps from 0.
	N int
	// Start is the URL the run started at.
	Start string
	// Snapshot is the page as it is now; Elements are its parsed controls.
	Snapshot browser.Snapshot
	Elements []Element
	// Tape holds the run's latest actions, oldest first.
	Tape []browser.Entry
	// Rand is the run's seeded source: the only randomness a strategy may
	// use, so a fixed seed gives the same run.
	Rand *rand.Rand
	// Hold holds the app's next answer to a POST back for a while, as a
	// slow network would (a double submit's two requests then race); nil
	// when the run's collector cannot.
	Hold func()
	// Instrumented says the app is served through a collector
	// (RunOptions.Collector), so its own paths (collector.ClearSiteDataPath)
	// exist.
	Instrumented bool
}

// Last is the latest tape entry, or false when the tape is empty.
func (s Step) Last() (browser.Entry, bool) {
	if len(s.Tape) == 0 {
		return browser.Entry{}, false
	}
	return s.Tape[len(s.Tape)-1], true
}

// Strategy picks a persona's next browser intent offline. It must be
// deterministic given the same steps and the same Rand.
type Strategy interface {
	Next(s Step) (browser.Intent, error)
}

// StrategyFunc adapts a function to Strategy.
type StrategyFunc func(s Step) (browser.Intent, error)

// Next calls f.
func (f StrategyFunc) Next(s Step) (browser.Intent, error) { return f(s) }

// App describes the application under test for prompts.
type App struct {
	Name        string
	BaseURL     string
	Description string
	// Pages are notable paths with a short note each, e.g. "/checkout: payment form".
	Pages []string
}

// PromptInput is everything a system prompt is built from besides the
// persona itself.
type PromptInput struct {
	App App
	// Mission is the current mission's goal, if any.
	Mission string
	// Supplement is the persona's learned prompt supplement (for example
	// memory.QA.Supplement); empty when nothing was learned yet.
	Supplement string
	// BrowserRules overrides DefaultBrowserRules when not empty.
	BrowserRules string
}

// DefaultBrowserRules tells a model how to act through the browser tools.
func DefaultBrowserRules() string {
	var b strings.Builder
	b.WriteString(`Act only through the browser tools, one JSON intent per call, e.g. {"action":"click","target":"e12"}.
- Take a snapshot first and after every page change; target elements by the refs of the latest snapshot (e12), or by stable selectors: testid=…, role=button[name="…"], label=…, text=…, placeholder=…, #id. XPath, CSS paths and positional selectors are refused.
- Stay within the app's origin; navigation elsewhere is refused.
- Every action returns health findings (page errors, console errors, HTTP errors, error banners, stack traces); report each real defect with its evidence and the page.
- Do not repeat an action that failed the same way twice; read the error and change course.
Actions:`)
	for _, a := range browser.Actions() {
		b.WriteString("\n- " + browser.Usage(a))
	}
	return b.String()
}

// SystemPrompt builds the persona's system prompt: role, app context,
// focus, browser rules and the learned supplement, in that order.
func (p Persona) SystemPrompt(in PromptInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, %s, testing a web application for bugs.\n", p.Name, strings.TrimSuffix(strings.TrimSpace(p.Role), "."))
	b.WriteString("\n## Application\n")
	if in.App.Name != "" {
		fmt.Fprintf(&b, "Name: %s\n", in.App.Name)
	}
	if in.App.BaseURL != "" {
		fmt.Fprintf(&b, "URL: %s\n", in.App.BaseURL)
	}
	if d := strings.TrimSpace(in.App.Description); d != "" {
		b.WriteString(d + "\n")
	}
	for _, pg := range in.App.Pages {
		b.WriteString("- " + pg + "\n")
	}
	if m := strings.TrimSpace(in.Mission); m != "" {
		b.WriteString("\n## Mission\n" + m + "\n")
	}
	if len(p.Focus) > 0 {
		b.WriteString("\n## Focus\n")
		for _, f := range p.Focus {
			b.WriteString("- " + f + "\n")
		}
	}
	rules := strings.TrimSpace(in.BrowserRules)
	if rules == "" {
		rules = DefaultBrowserRules()
	}
	b.WriteString("\n## Browser rules\n" + rules + "\n")
	if s := strings.TrimSpace(in.Supplement); s != "" {
		b.WriteString("\n## Learned from earlier sessions\n" + s + "\n")
	}
	return b.String()
}

package personas

import (
	"errors"
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toyApp is an app without a browser: pages by path, each a list of
// elements; a click on a link goes to its URL, anything else stays.
type toyApp struct {
	pages map[string][]Element
	at    string
	// fail makes every intent on this ref fail.
	fail string
}

func (a *toyApp) step(s Strategy, n int, tape []browser.Entry) (browser.Intent, browser.Entry, error) {
	els := a.pages[a.at]
	in, err := s.Next(Step{N: n, Snapshot: browser.Snapshot{URL: "http://app.test" + a.at}, Elements: els, Tape: tape})
	if err != nil {
		return in, browser.Entry{}, err
	}
	e := browser.Entry{Action: in.Action, Params: in, OK: in.Target != a.fail || a.fail == ""}
	switch in.Action {
	case browser.ActNavigate:
		a.at = pathQuery(in.URL)
	case browser.ActClick:
		for _, el := range els {
			if el.Ref == in.Target && el.URL != "" && e.OK {
				a.at = pathQuery(el.URL)
			}
		}
	}
	return in, e, nil
}

// formPage is a page without a main landmark (so all of it is main
// content, as ParseElements says).
func formPage() []Element {
	return []Element{
		{Ref: "e1", Role: "textbox", Name: "Email", InMain: true},
		{Ref: "e2", Role: "textbox", Name: "Comment", InMain: true},
		{Ref: "e3", Role: "button", Name: "Post", InMain: true},
		{Ref: "e4", Role: "link", Name: "About", URL: "/about", InMain: true},
	}
}

// The strategy types one field's class with the other empty fields valid
// and submits by the page's own button; which target comes first is the
// persona's lean.
func TestModelStrategyLeans(t *testing.T) {
	reg := NewRegistry()
	first := func(name string) []browser.Intent {
		p, err := reg.Get(name)
		require.NoError(t, err)
		p.NewStrategy = nil // the model, played by the persona's preference
		app := &toyApp{pages: map[string][]Element{"/": formPage(), "/about": {{Ref: "e9", Role: "link", Name: "Home", URL: "/"}}}, at: "/"}
		s := p.Strategy()
		var out []browser.Intent
		var tape []browser.Entry
		for n := range 4 {
			in, e, err := app.step(s, n, tape)
			require.NoError(t, err)
			out = append(out, in)
			tape = append(tape, e)
		}
		return out
	}

	hostile := first(Adversarial)
	require.Len(t, hostile, 4)
	// Two fields: one gets a hostile class, the other a valid value
	// first, then the form goes by its button.
	assert.Equal(t, browser.ActFill, hostile[0].Action)
	assert.Equal(t, browser.ActFill, hostile[1].Action)
	assert.NotEqual(t, hostile[0].Target, hostile[1].Target)
	assert.Equal(t, browser.Intent{Action: browser.ActClick, Target: "e3"}, hostile[2])
	valid := func(ref string) string {
		for _, e := range formPage() {
			if e.Ref == ref {
				return ValidValue(FieldOf(e, nil))
			}
		}
		return ""
	}
	assert.Equal(t, valid(hostile[0].Target), hostile[0].ValueOrEmpty(), "the other field is valid")
	assert.NotEqual(t, valid(hostile[1].Target), hostile[1].ValueOrEmpty(), "the target's field gets its class")

	clicks := first(NewUser)
	assert.Equal(t, browser.ActClick, clicks[0].Action, "a new user clicks before typing: %v", clicks)
}

// A target whose intent failed is not played again, and a small app is
// done when every reachable target was tried.
func TestModelStrategyFailsAndEnds(t *testing.T) {
	pages := map[string][]Element{"/": {
		{Ref: "e1", Role: "button", Name: "Broken"},
		{Ref: "e2", Role: "button", Name: "Fine"},
	}}
	app := &toyApp{pages: pages, at: "/", fail: "e1"}
	s := ModelStrategy(nil)
	var tape []browser.Entry
	clicks := map[string]int{}
	done := false
	for n := range 100 {
		in, e, err := app.step(s, n, tape)
		if errors.Is(err, ErrDone) {
			done = true
			break
		}
		require.NoError(t, err)
		if in.Action == browser.ActClick {
			clicks[in.Target]++
		}
		tape = append(tape, e)
	}
	assert.True(t, done, "every target tried: the strategy ends")
	assert.Equal(t, 1, clicks["e1"], "a failed click is not tried again")
	assert.Positive(t, clicks["e2"])
}

// A persona's own strategy goes first; ErrPass hands the step to the app
// model, and the model's target (a form's fields and its submission) is
// finished before the own strategy is asked again.
func TestOwnStrategyOverModel(t *testing.T) {
	asked := 0
	p := Persona{Name: "reloader", Role: "reloads now and then", Prefer: leanHostile,
		NewStrategy: func() Strategy {
			return StrategyFunc(func(s Step) (browser.Intent, error) {
				asked++
				if s.N%5 == 0 {
					return browser.Intent{Action: browser.ActReload}, nil
				}
				return browser.Intent{}, ErrPass
			})
		}}
	require.NoError(t, p.Validate())
	app := &toyApp{pages: map[string][]Element{"/": formPage(), "/about": {{Ref: "e9", Role: "link", Name: "Home", URL: "/"}}}, at: "/"}
	s := p.Strategy()
	var got []browser.Intent
	var tape []browser.Entry
	for n := range 5 {
		in, e, err := app.step(s, n, tape)
		require.NoError(t, err)
		got = append(got, in)
		tape = append(tape, e)
	}
	assert.Equal(t, browser.ActReload, got[0].Action, "its own move first")
	// Then the model: a hostile class in one field, the other valid, the
	// submit; the own strategy is not asked meanwhile.
	assert.Equal(t, []browser.Action{browser.ActFill, browser.ActFill, browser.ActClick}, []browser.Action{got[1].Action, got[2].Action, got[3].Action})
	assert.Equal(t, "e3", got[3].Target)
	assert.Equal(t, 3, asked, "asked at steps 0, 1 (passed) and 4, not during the model's form")
}

// A custom persona can be a name, a role and a lean: it registers, and
// its strategy is the model played by that lean (selects first here).
func TestPreferOnlyPersona(t *testing.T) {
	p := Persona{Name: "filters", Role: "a user who lives in the filters", Prefer: func(t Target) float64 {
		if t.Action.Kind == ActionSelect {
			return 5
		}
		return 0
	}}
	reg := NewRegistry()
	require.NoError(t, reg.Register(p))
	got, err := reg.Get("filters")
	require.NoError(t, err)
	page := []Element{
		{Ref: "e1", Role: "button", Name: "Refresh"},
		{Ref: "e2", Role: "combobox", Name: "Show", Options: []string{"All", "Open", "Closed"}},
	}
	app := &toyApp{pages: map[string][]Element{"/": page}, at: "/"}
	in, _, err := app.step(got.Strategy(), 0, nil)
	require.NoError(t, err)
	assert.Equal(t, browser.ActSelectOption, in.Action, "%v", in)
	assert.Equal(t, "e2", in.Target)
}

// The built-ins' leans: each persona goes for its own kind of target
// first, over the catalogue's order of classes.
func TestBuiltinLeans(t *testing.T) {
	probe := map[string]Target{
		"click":    {Action: Action{Kind: ActionClick, Role: "button", Name: "Go"}},
		"markup":   {Action: Action{Kind: ActionFill, Role: "textbox", Name: "Name", Class: ClassMarkup}},
		"valid":    {Action: Action{Kind: ActionFill, Role: "textbox", Name: "Name", Class: ClassValid}},
		"select":   {Action: Action{Kind: ActionSelect, Role: "combobox", Name: "Show", Arg: "All"}},
		"press":    {Action: Action{Kind: ActionPress, Arg: "Escape"}},
		"dblclick": {Action: Action{Kind: ActionDblClick, Role: "button", Name: "Save"}},
	}
	want := map[string]map[string]float64{
		NewUser:       {"click": 1, "markup": 1.5, "valid": -3, "select": 0, "press": 0, "dblclick": 0},
		Explorer:      {"click": 1, "markup": 1.5, "valid": -3, "select": 0, "press": 0, "dblclick": 0},
		Adversarial:   {"click": 0, "markup": 3.5, "valid": -3, "select": 0, "press": 0, "dblclick": 0},
		PowerUser:     {"click": 0, "markup": 1.5, "valid": -3, "select": 1.5, "press": 1.5, "dblclick": 0},
		DataHeavy:     {"click": 0, "markup": 1.5, "valid": -3, "select": 1.5, "press": 1.5, "dblclick": 0},
		Impatient:     {"click": 0, "markup": 1.5, "valid": -3, "select": 0, "press": 0, "dblclick": 3},
		Accessibility: {"click": 0, "markup": 1.5, "valid": -3, "select": 0, "press": 1, "dblclick": 0},
		ReturningUser: {"click": 0, "markup": 1.5, "valid": -3, "select": 0, "press": 0, "dblclick": 0},
	}
	reg := NewRegistry()
	for name, w := range want {
		p, err := reg.Get(name)
		require.NoError(t, err)
		pref := p.Preference()
		for k, tg := range probe {
			assert.Equal(t, w[k], pref(tg), "%s %s", name, k)
		}
	}
}

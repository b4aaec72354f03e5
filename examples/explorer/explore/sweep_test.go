package explore

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/personas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A form page as the snapshot gives it: three fields, a submit button,
// a navigation link outside the main content.
func formView() *view {
	els := []personas.Element{
		{Role: "link", Name: "Home", Ref: "e1", URL: "/"},
		{Role: "textbox", Name: "Title", Ref: "e2", InMain: true, Flags: []string{"required", "maxlength=80"}},
		{Role: "spinbutton", Name: "Copies", Ref: "e3", InMain: true, Flags: []string{"min=1", "max=50"}},
		{Role: "textbox", Name: "Notes", Ref: "e4", InMain: true, Value: "kept"},
		{Role: "button", Name: "Create thing", Ref: "e5", InMain: true},
	}
	cov := newCoverage()
	cov.visit("/things")
	cov.visit("/")
	return &view{URL: "http://app.test/things/new", Els: els, Cov: cov, Rand: rand.New(rand.NewPCG(1, 1)), Start: "/"}
}

func intents(ss []step) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.in.JSON())
	}
	return out
}

// One field at a time: the field under test gets its class's value, the
// other empty fields a valid one, and the form is sent by its button.
func TestTargetMacroFillsOneFieldAtATime(t *testing.T) {
	v := formView()
	m := newMember(leaning(Persona{Name: personas.Adversarial}), session.Credentials{}, nil)
	a := personas.Action{Kind: personas.ActionFill, Role: "spinbutton", Name: "Copies", Class: personas.ClassNegative}
	macro := targetMacro(m, v, a, personas.Input{Class: personas.ClassNegative, Value: "-1"})
	got := intents(macro)
	require.Len(t, got, 3, "%v", got)
	assert.Contains(t, got[0], `"target":"e2"`, "the empty required title gets a valid value first")
	assert.NotContains(t, got[0], `"value":""`)
	assert.Equal(t, `{"action":"fill","target":"e3","value":"-1"}`, got[1])
	assert.Equal(t, `{"action":"click","target":"e5"}`, got[2])
	for _, s := range macro {
		assert.NotEqual(t, "e4", s.in.Target, "a field with a value is left as it is")
		assert.NotEqual(t, "e1", s.in.Target)
	}

	// Without a button the field is sent with Enter.
	v.Els = v.Els[:4]
	macro = targetMacro(m, v, personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: "Notes", Class: personas.ClassQuotes}, personas.Input{Value: "O'Brien"})
	got = intents(macro)
	assert.Equal(t, `{"action":"press","target":"e4","key":"Enter"}`, got[len(got)-1])

	// A control the page does not have: no macro.
	assert.Nil(t, targetMacro(m, v, personas.Action{Kind: personas.ActionClick, Role: "button", Name: "Gone"}, personas.Input{}))
}

// A submit button's click sends a valid form; a double click on it holds
// the first answer back and double-clicks.
func TestTargetMacroSubmitAndDouble(t *testing.T) {
	v := formView()
	held := 0
	m := newMember(leaning(Persona{Name: personas.Impatient}), session.Credentials{}, func() { held++ })
	macro := targetMacro(m, v, personas.Action{Kind: personas.ActionDblClick, Role: "button", Name: "Create thing"}, personas.Input{})
	require.GreaterOrEqual(t, len(macro), 3)
	last := macro[len(macro)-1]
	assert.Equal(t, browser.Intent{Action: browser.ActDblclick, Target: "e5"}, last.in)
	require.NotNil(t, last.before)
	last.before()
	assert.Equal(t, 1, held)
	filled := 0
	for _, s := range macro[:len(macro)-1] {
		if s.in.Action == browser.ActFill {
			filled++
		}
	}
	assert.Equal(t, 2, filled, "title and copies are filled before the submit")
}

func TestValidValuesAreUniqueText(t *testing.T) {
	v := formView()
	a := fillOthers(v, v.Els[4], 4)
	b := fillOthers(v, v.Els[4], 4)
	require.Len(t, a, 2)
	assert.NotEqual(t, *a[0].in.Value, *b[0].in.Value, "two records never read the same")
}

func TestListPages(t *testing.T) {
	v := formView()
	assert.Equal(t, []string{"/things", "/"}, listPages(v))
	v.URL = "http://app.test/things/7/edit"
	assert.Equal(t, []string{"/things", "/"}, listPages(v), "/things/7 was never visited")
	v.URL = "http://app.test/"
	assert.Equal(t, []string{"/"}, listPages(v))
}

// The sweep plays targets until none is left, records the transitions,
// and prefers what the page template has not shown yet.
func TestSweepRunsOutOfTargets(t *testing.T) {
	sw := newSweep()
	v := formView()
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	sw.observe(v.URL, v.Els)
	require.Equal(t, 1, sw.work())
	played := 0
	for played < 500 {
		st, ok := sw.next(m, v)
		if !ok {
			break
		}
		played++
		steps := append([]step{st}, m.q...)
		m.q = nil
		for range steps {
			require.False(t, sw.acted(true))
		}
		sw.observe(v.URL, v.Els) // the page does not change
	}
	assert.Less(t, played, 500)
	assert.Positive(t, played)
	assert.Equal(t, 0, sw.work(), "every target tried")
	s := sw.model.Stats()
	assert.Equal(t, s.Targets, s.Tried+s.Failed)
	assert.Positive(t, s.Tried)

	// A failed step fails its target and drops the rest of the macro.
	sw2 := newSweep()
	sw2.observe(v.URL, v.Els)
	_, ok := sw2.next(m, v)
	require.True(t, ok)
	assert.True(t, sw2.acted(false))
	assert.Equal(t, 1, sw2.model.Stats().Failed)
}

// The navigation link outside the main content is played once for the
// whole app, not once per page.
func TestSweepChromeOnce(t *testing.T) {
	sw := newSweep()
	a := formView()
	b := formView()
	b.URL = "http://app.test/other"
	b.Els = []personas.Element{{Role: "link", Name: "Home", Ref: "e1", URL: "/"}, {Role: "button", Name: "Refresh", Ref: "e9", InMain: true}}
	sw.observe(a.URL, a.Els)
	home := personas.Action{Kind: personas.ActionClick, Role: "link", Name: "Home"}.Key()
	sw.markDone(sw.cur, home)
	sw.observe(b.URL, b.Els)
	t2 := personas.Target{State: sw.cur, Action: personas.Action{Kind: personas.ActionClick, Role: "link", Name: "Home"}}
	assert.Equal(t, 1, sw.seen(t2))
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	st, ok := sw.next(m, b)
	require.True(t, ok)
	assert.True(t, strings.Contains(st.why, "Refresh"), "the page's own control before the chrome seen elsewhere: %s", st.why)
}

// The model goes into the graph state and comes back on resume.
func TestSweepSnapshotRestore(t *testing.T) {
	sw := newSweep()
	assert.Nil(t, sw.snapshot(), "nothing seen yet")
	v := formView()
	sw.observe(v.URL, v.Els)
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	_, ok := sw.next(m, v)
	require.True(t, ok)
	sw.acted(false) // one target failed
	model := sw.snapshot()
	require.NotNil(t, model)
	// It rides in the graph state, which the checkpointer serializes as JSON.
	b, err := json.Marshal(State{AppModel: model})
	require.NoError(t, err)
	var st State
	require.NoError(t, json.Unmarshal(b, &st))

	back := newSweep()
	back.restore(nil)
	assert.Empty(t, back.model.States, "no model in the state: none restored")
	back.restore(st.AppModel)
	assert.Equal(t, sw.model.Stats(), back.model.Stats())
	back.restore(personas.NewModel(personas.Limits{}))
	assert.Equal(t, sw.model.Stats(), back.model.Stats(), "a model in hand is kept")
	// Copies both ways: the state's model is not the team's.
	assert.NotSame(t, st.AppModel, back.model)
	assert.NotSame(t, model, sw.model)
}

// A form that took the browser to a record's page made a record: the
// page's own buttons are clicked once for it, then the list pages opened.
func TestSweepRecheckNewRecord(t *testing.T) {
	sw := newSweep()
	v := formView()
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e5"}, true, v, "http://app.test/things/42")
	require.True(t, sw.made)
	assert.Equal(t, []string{"/things", "/"}, sw.revisit)
	rec := &view{URL: "http://app.test/things/42", Cov: v.Cov, Rand: v.Rand, Start: "/", Els: []personas.Element{
		{Role: "button", Name: "Show history", Ref: "e7", InMain: true},
		{Role: "button", Name: "Delete", Ref: "e8", InMain: true},
		{Role: "link", Name: "Edit", Ref: "e9", InMain: true, URL: "/things/42/edit"},
	}}
	sw.observe(rec.URL, rec.Els)
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	st, ok := sw.next(m, rec)
	require.True(t, ok)
	assert.Equal(t, "e7", st.in.Target, "the new record's own button first")
	st, ok = sw.next(m, rec)
	require.True(t, ok)
	assert.Equal(t, browser.ActNavigate, st.in.Action, "then the list: %s", st.why)
	assert.Equal(t, "/things", st.in.URL)

	// Staying on the form's template, or a failed click, made nothing.
	sw2 := newSweep()
	sw2.submitted(browser.Intent{Action: browser.ActClick}, true, v, "http://app.test/things/new?error=1")
	sw2.submitted(browser.Intent{Action: browser.ActClick}, false, v, "http://app.test/things/7")
	assert.False(t, sw2.made)

	// The form's next record: its buttons were rechecked on the first
	// one of the page template already.
	for i, n := range []int{43, 44} {
		sw.recheck = nil
		sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e5"}, true, v, fmt.Sprintf("http://app.test/things/%d", n))
		rec.URL = fmt.Sprintf("http://app.test/things/%d", n)
		sw.observe(rec.URL, rec.Els)
		if i == 0 {
			assert.Equal(t, []string{"Show history"}, sw.recheck, "a second record is rechecked")
		} else {
			assert.Empty(t, sw.recheck, "not a third: maxRecheck per record page and button")
		}
	}
}

// Revisits after a made record: each page once however many sources
// queue it, and none of a page the browser looked at after the
// submission.
func TestSweepRevisitOnce(t *testing.T) {
	sw := newSweep()
	v := formView()
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e5"}, true, v, "http://app.test/things/42")
	sw.queueRevisit([]string{"/things", "/", "/things"}) // the macro's own list
	assert.Equal(t, []string{"/things", "/"}, sw.revisit)
	rec := &view{URL: "http://app.test/things/42", Cov: v.Cov, Rand: v.Rand, Start: "/"}
	sw.observe(rec.URL, nil)
	sw.observe("http://app.test/things?sort=name", nil)
	sw.observe("http://app.test/things", nil) // the team went there itself
	st, ok := sw.followUp(rec)
	require.True(t, ok)
	assert.Equal(t, "/", st.in.URL, "the list already seen is skipped: %s", st.why)
	_, ok = sw.followUp(rec)
	assert.False(t, ok, "nothing left to revisit")
	assert.False(t, st.cat, "a record's revisits are not the catalogue's")

	// The revisits a catalogue submission queues (a payload class shown
	// where the app lists it) count in the catalogue's share.
	sw.observe(v.URL, v.Els)
	sw.pend = &pendingTarget{from: sw.cur, key: "k", revisit: []string{"/things", "/"}, cat: true}
	sw.observe("http://app.test/things/43", nil)
	st, ok = sw.followUp(&view{URL: "http://app.test/things/43", Cov: v.Cov})
	require.True(t, ok)
	assert.True(t, st.cat, "%s", st.why)
	sw.revisit = nil
	sw.queueRevisit([]string{"/"})
	assert.False(t, sw.revisitCat, "a new batch starts uncounted")
	sw.revisit = nil

	// A second record of the same form is not looked for again (its
	// payloads queue their own revisits); a double submission is, and a
	// new batch forgets what was seen before it.
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e5"}, true, v, "http://app.test/things/43")
	_, ok = sw.followUp(rec)
	assert.False(t, ok, "the form's second record")
	sw.submitted(browser.Intent{Action: browser.ActDblclick, Target: "e5"}, true, v, "http://app.test/things/44")
	st, ok = sw.followUp(rec)
	require.True(t, ok)
	assert.Equal(t, "/things", st.in.URL)

	// Saving an edit returns to a page seen before, and a link followed
	// from a page with a form goes to a record that was there: neither
	// made one.
	sw3 := newSweep()
	v.Cov.visit("/things/7")
	sw3.submitted(browser.Intent{Action: browser.ActClick, Target: "e5"}, true, v, "http://app.test/things/7")
	assert.False(t, sw3.made, "an edit saved")
	lv := formView()
	lv.Els = append(lv.Els, personas.Element{Role: "link", Name: "Thing 9", Ref: "e9", URL: "/things/9", InMain: true})
	sw3.submitted(browser.Intent{Action: browser.ActClick, Target: "e9"}, true, lv, "http://app.test/things/9")
	assert.False(t, sw3.made, "a link followed")
}

// The exotic-text trick puts legal but awkward text in every free-text
// field at once (within its maxlength, the value already there
// replaced), a valid value elsewhere, and submits.
func TestExoticTextTrick(t *testing.T) {
	v := formView()
	v.Els = append(v.Els[:4:4], personas.Element{Role: "textbox", Name: "Email", Ref: "e6", InMain: true, Flags: []string{"type=email"}},
		personas.Element{Role: "textbox", Name: "Code", Ref: "e7", InMain: true, Flags: []string{"maxlength=4"}}, v.Els[4])
	m := newMember(leaning(Persona{Name: personas.Adversarial}), session.Credentials{}, nil)
	macro := m.plan(TrickExotic, v)
	require.Len(t, macro, 6, "%v", intents(macro))
	byRef := map[string]string{}
	for _, s := range macro[:5] {
		require.Equal(t, browser.ActFill, s.in.Action)
		byRef[s.in.Target] = s.in.ValueOrEmpty()
	}
	assert.Contains(t, byRef["e2"], "O'Brien \u212Bngstr\u00f6m")
	assert.Contains(t, byRef["e4"], "O'Brien \u212Bngstr\u00f6m", "a filled text field too")
	assert.Equal(t, "O'Br", byRef["e7"], "within maxlength")
	assert.Regexp(t, `^\d+$`, byRef["e3"], "a number field gets a valid number")
	assert.Contains(t, byRef["e6"], "@", "an email field gets an address")
	assert.Equal(t, "e5", macro[5].in.Target)
	assert.Nil(t, m.plan(TrickExotic, v), "once per form")
	adv, err := personas.NewRegistry().Get(personas.Adversarial)
	require.NoError(t, err)
	assert.Contains(t, adv.Tricks, TrickExotic)
}

// A fill target's input class goes into every field of its form that has
// an untried target of that class, in one submission; the targets count
// as tried when the form takes it, and stay untried (the class then goes
// one field at a time) when the form sends back values it may refuse.
func TestSweepWidensAClassToTheForm(t *testing.T) {
	v := formView()
	v.Els = append(v.Els, personas.Element{Role: "textbox", Name: "Search", Ref: "e6", InMain: true}, personas.Element{Role: "button", Name: "Go", Ref: "e7", InMain: true})
	sw := newSweep()
	sw.observe(v.URL, v.Els)
	form := sw.cur
	title := personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: "Title", Class: personas.ClassQuotes}
	in, ok := sw.model.Input(personas.Target{State: form, Action: title})
	require.True(t, ok)
	wide, also, strict := sw.widen(v, title, in)
	notes := personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: "Notes", Class: personas.ClassQuotes}.Key()
	assert.Equal(t, []personas.ActionKey{notes}, also, "the other text field of the form; not the number, not the next form's search box")
	require.Contains(t, wide, "e4")
	assert.Contains(t, wide["e4"], "'")
	assert.False(t, strict, "quotes are legal text")

	m := newMember(leaning(Persona{Name: personas.Adversarial}), session.Credentials{}, nil)
	macro := targetMacroWith(m, v, title, in, wide)
	got := intents(macro)
	assert.Contains(t, strings.Join(got, "\n"), `"target":"e4","value":"O'Brien`, "the field with a value gets the class too")
	assert.Equal(t, `{"action":"click","target":"e5"}`, got[len(got)-1])

	// The form took it (the browser left for the new record): both tried.
	sw.pend = &pendingTarget{from: form, key: title.Key(), left: 0, also: also, class: in.Class}
	sw.observe("http://app.test/things/9", []personas.Element{{Role: "link", Name: "Home", Ref: "e1", URL: "/"}})
	st, _ := sw.model.State(form)
	status := map[personas.ActionKey]personas.TargetStatus{}
	for _, tg := range st.Targets {
		status[tg.Key()] = tg.Status
	}
	assert.Equal(t, personas.TargetTried, status[title.Key()])
	assert.Equal(t, personas.TargetTried, status[notes])

	// Empty is a value the required title refuses: the other fields
	// join where empty is valid (the optional number and notes); sent
	// back, their targets stay untried and the class is not widened
	// again.
	sw.observe(v.URL, v.Els)
	empty := personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: "Title", Class: personas.ClassEmpty}
	in, ok = sw.model.Input(personas.Target{State: form, Action: empty})
	require.True(t, ok)
	wide, also, strict = sw.widen(v, empty, in)
	notesEmpty := personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: "Notes", Class: personas.ClassEmpty}
	copiesEmpty := personas.Action{Kind: personas.ActionFill, Role: "spinbutton", Name: "Copies", Class: personas.ClassEmpty}
	require.ElementsMatch(t, []personas.ActionKey{notesEmpty.Key(), copiesEmpty.Key()}, also)
	assert.True(t, strict)
	assert.Equal(t, map[string]string{"e3": "", "e4": ""}, wide)
	sw.pend = &pendingTarget{from: form, key: empty.Key(), left: 0, also: also, strict: strict, class: in.Class}
	sw.observe(v.URL+"?error=1", v.Els)
	st, _ = sw.model.State(form)
	for _, tg := range st.Targets {
		switch tg.Key() {
		case empty.Key():
			assert.Equal(t, personas.TargetTried, tg.Status)
		case notesEmpty.Key(), copiesEmpty.Key():
			assert.Equal(t, personas.TargetUntried, tg.Status, "may have been hidden by the title's message")
		}
	}
	in, _ = sw.model.Input(personas.Target{State: form, Action: notesEmpty})
	wide, also, _ = sw.widen(v, notesEmpty, in)
	assert.Nil(t, wide)
	assert.Nil(t, also)

	// Values the app may refuse never join: above the title's maxlength
	// is for the title alone.
	over := personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: "Notes", Class: personas.ClassLong256}
	in, _ = sw.model.Input(personas.Target{State: form, Action: over})
	_, also, _ = sw.widen(v, over, in)
	assert.Empty(t, also, "256 characters in a title of at most 80")
}

// A widened submission the server failed on (its first bad column is all
// it reports) leaves the class's other fields untried, even when the
// browser left the form for an error page, and the class goes one field
// at a time on that form from then on.
func TestSweepServerErrorUnwidens(t *testing.T) {
	v := formView()
	sw := newSweep()
	sw.observe(v.URL, v.Els)
	form := sw.cur
	title := personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: "Title", Class: personas.ClassQuotes}
	notes := personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: "Notes", Class: personas.ClassQuotes}
	in, ok := sw.model.Input(personas.Target{State: form, Action: title})
	require.True(t, ok)
	_, also, strict := sw.widen(v, title, in)
	require.Equal(t, []personas.ActionKey{notes.Key()}, also)
	require.False(t, strict, "quotes are legal text: a refusal alone would not unwiden")

	sw.pend = &pendingTarget{from: form, key: title.Key(), left: 0, also: also, class: in.Class}
	sw.serverFailed()
	sw.observe("http://app.test/things/new", []personas.Element{{Role: "heading", Name: "Internal Server Error", Ref: "e1"}})
	st, _ := sw.model.State(form)
	for _, tg := range st.Targets {
		switch tg.Key() {
		case title.Key():
			assert.Equal(t, personas.TargetTried, tg.Status)
		case notes.Key():
			assert.Equal(t, personas.TargetUntried, tg.Status, "its fault may have been hidden by the title's")
		}
	}
	sw.observe(v.URL, v.Els)
	in, _ = sw.model.Input(personas.Target{State: form, Action: notes})
	wide, also, _ := sw.widen(v, notes, in)
	assert.Nil(t, wide, "one field at a time now")
	assert.Nil(t, also)

	// Without the server's failure the same submission tries both.
	sw2 := newSweep()
	sw2.observe(v.URL, v.Els)
	in, _ = sw2.model.Input(personas.Target{State: sw2.cur, Action: title})
	_, also, _ = sw2.widen(v, title, in)
	require.Equal(t, []personas.ActionKey{notes.Key()}, also)
	sw2.pend = &pendingTarget{from: sw2.cur, key: title.Key(), left: 0, also: also, class: in.Class}
	sw2.observe("http://app.test/things/9", []personas.Element{{Role: "link", Name: "Home", Ref: "e1", URL: "/"}})
	st, _ = sw2.model.State(form)
	for _, tg := range st.Targets {
		if tg.Key() == notes.Key() {
			assert.Equal(t, personas.TargetTried, tg.Status)
		}
	}
}

// A trick's submission marks the targets it played: the sweep does not
// play the class on those fields again.
func TestTrickCoversTargets(t *testing.T) {
	v := formView()
	sw := newSweep()
	sw.observe(v.URL, v.Els)
	v.Sweep = sw
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickXSS}}), session.Credentials{}, nil)
	require.NotEmpty(t, m.plan(TrickXSS, v))
	st, _ := sw.model.State(sw.cur)
	tried := map[personas.ActionKey]bool{}
	for _, tg := range st.Targets {
		if tg.Status == personas.TargetTried {
			tried[tg.Key()] = true
		}
	}
	for _, name := range []string{"Title", "Notes"} {
		assert.True(t, tried[personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: name, Class: personas.ClassMarkup}.Key()], name)
		assert.False(t, tried[personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: name, Class: personas.ClassQuotes}.Key()], name)
	}
}

// At a list's end (no next page) the last row is opened once, unless it
// was visited; a page with a next page waits for its end.
func TestLastRow(t *testing.T) {
	rows := func(next bool) *view {
		els := []personas.Element{
			{Role: "link", Name: "Home", Ref: "e1", URL: "/"},
			{Role: "link", Name: "Gamma", Ref: "e2", URL: "/things/3", InMain: true},
			{Role: "link", Name: "Beta", Ref: "e3", URL: "/things/2", InMain: true},
			{Role: "link", Name: "Alpha", Ref: "e4", URL: "/things/1", InMain: true},
			{Role: "link", Name: "New thing", Ref: "e5", URL: "/things/new", InMain: true},
		}
		if next {
			els = append(els, personas.Element{Role: "link", Name: "Next", Ref: "e6", URL: "/things?page=2", InMain: true})
		}
		return &view{URL: "http://app.test/things", Els: els, Cov: newCoverage()}
	}
	_, ok := lastRow(rows(true))
	assert.False(t, ok, "not the list's end, and no pager to its last page")

	// A pager: its highest page number is the list's last page, opened
	// once; a link named "Last" wins over numbers.
	paged := rows(true)
	paged.Els = append(paged.Els,
		personas.Element{Role: "link", Name: "2", Ref: "e7", URL: "/things?page=2", InMain: true},
		personas.Element{Role: "link", Name: "3", Ref: "e8", URL: "?page=3", InMain: true})
	st, ok := lastRow(paged)
	require.True(t, ok)
	assert.Equal(t, "e8", st.in.Target, st.why)
	_, ok = lastRow(paged)
	assert.False(t, ok, "once per page")
	// The last page may hold one row: it is opened all the same.
	last := &view{URL: "http://app.test/things?page=3", Cov: paged.Cov, Els: []personas.Element{
		{Role: "link", Name: "Oldest", Ref: "e1", URL: "/things/1", InMain: true},
		{Role: "link", Name: "2", Ref: "e2", URL: "/things?page=2", InMain: true},
	}}
	st, ok = lastRow(last)
	require.True(t, ok)
	assert.Equal(t, "e1", st.in.Target)
	one := &view{URL: "http://app.test/other", Cov: paged.Cov, Els: last.Els[:1]}
	_, ok = lastRow(one)
	assert.False(t, ok, "one link elsewhere is no list")
	paged = rows(true)
	paged.Els = append(paged.Els,
		personas.Element{Role: "link", Name: "7", Ref: "e7", URL: "/things?page=7", InMain: true},
		personas.Element{Role: "link", Name: "Last", Ref: "e8", URL: "/things?page=9", InMain: true})
	st, ok = lastRow(paged)
	require.True(t, ok)
	assert.Equal(t, "e8", st.in.Target)
	paged = rows(true)
	paged.Cov.visit("/things?page=3")
	paged.Els = append(paged.Els, personas.Element{Role: "link", Name: "3", Ref: "e8", URL: "/things?page=3", InMain: true})
	_, ok = lastRow(paged)
	assert.False(t, ok, "the last page was seen")

	v := rows(false)
	st, ok = lastRow(v)
	require.True(t, ok)
	assert.Equal(t, "e4", st.in.Target)
	_, ok = lastRow(v)
	assert.False(t, ok, "once per page")

	v = rows(false)
	v.Cov.visit("/things/1")
	_, ok = lastRow(v)
	assert.False(t, ok, "already seen")

	v = rows(false)
	v.Els = v.Els[:3]
	_, ok = lastRow(v)
	assert.False(t, ok, "two links are no list")
}

// A button every row repeats is played on other rows once tried on the
// first, from the last row back, at most maxRows times; destructive
// ones are not.
func TestSweepAgainOnOtherRows(t *testing.T) {
	v := &view{URL: "http://app.test/pins", Cov: newCoverage()}
	for i, n := range []string{"Unpin", "Unpin", "Unpin", "Unpin", "Unpin", "Unpin", "Delete", "Delete"} {
		v.Els = append(v.Els, personas.Element{Role: "button", Name: n, Ref: fmt.Sprintf("h%d", i), InMain: true})
	}
	sw := newSweep()
	sw.observe(v.URL, v.Els)
	_, ok := sw.again(v)
	assert.False(t, ok, "not tried on the first row yet")
	for _, n := range []string{"Unpin", "Delete"} {
		k := personas.Action{Kind: personas.ActionClick, Role: "button", Name: n}.Key()
		sw.model.Transition(sw.cur, k, "", 0)
	}
	var got []string
	for {
		st, ok := sw.again(v)
		if !ok {
			break
		}
		got = append(got, st.in.Target)
	}
	assert.Equal(t, []string{"h5", "h4", "h3", "h2"}, got)

	// The first row's click changed the screen (another state of the
	// page): the rows are still played there.
	sw = newSweep()
	sw.observe(v.URL, v.Els)
	k := personas.Action{Kind: personas.ActionClick, Role: "button", Name: "Unpin"}.Key()
	first := sw.cur
	sw.pend = &pendingTarget{from: sw.cur, key: k, left: 0}
	changed := &view{URL: v.URL, Cov: v.Cov, Els: append(slices.Clone(v.Els[1:]), personas.Element{Role: "button", Name: "Show unpinned", Ref: "e9", InMain: true})}
	sw.observe(changed.URL, changed.Els)
	require.NotEqual(t, first, sw.cur, "another state")
	st, ok := sw.again(changed)
	require.True(t, ok, "the row's button, played on the page's other state")
	assert.Equal(t, "h5", st.in.Target)
}

// A row's button the browser could not click (a dialog left open over the
// list) is clicked once more on the page's next screen, before the other
// rows; not while the dialog's screen lasts, and only once.
func TestSweepRetriesAFailedClick(t *testing.T) {
	rows := []personas.Element{}
	for i := range 3 {
		rows = append(rows, personas.Element{Role: "button", Name: "Unpin", Ref: fmt.Sprintf("h%d", i), InMain: true})
	}
	withDialog := &view{URL: "http://app.test/pins", Cov: newCoverage(), Els: append(slices.Clone(rows),
		personas.Element{Role: "dialog", Name: "Archive all?", Ref: "e8"},
		personas.Element{Role: "button", Name: "Confirm", Ref: "e9", InMain: true})}
	sw := newSweep()
	sw.observe(withDialog.URL, withDialog.Els)
	dialog := sw.cur
	unpin := personas.Action{Kind: personas.ActionClick, Role: "button", Name: "Unpin"}.Key()
	sw.pend = &pendingTarget{from: dialog, key: unpin, left: 1}
	require.True(t, sw.acted(false), "the click timed out: the macro ends")
	_, ok := sw.again(withDialog)
	assert.False(t, ok, "not again while the dialog is open")

	closed := &view{URL: withDialog.URL, Cov: withDialog.Cov, Els: slices.Clone(rows)}
	sw.observe(closed.URL, closed.Els)
	require.NotEqual(t, dialog, sw.cur)
	st, ok := sw.again(closed)
	require.True(t, ok)
	assert.Equal(t, "h0", st.in.Target, "the row whose click failed, first")
	assert.Contains(t, st.why, "again")
	st, ok = sw.again(closed)
	require.True(t, ok)
	assert.Equal(t, "h2", st.in.Target, "then the other rows, from the last")
}

// Going back to a form for a trick leads to the trick: the member says
// so, and its turn goes on for the next step.
func TestBackToFormLeads(t *testing.T) {
	form := formView()
	cov := form.Cov
	cov.noteForm(form)
	m := newMember(leaning(Persona{Name: personas.NewUser, Tricks: []Trick{TrickValidForm}}), session.Credentials{}, nil)
	other := &view{URL: "http://app.test/about", Cov: cov, Rand: form.Rand, Start: "/"}
	st, ok := m.next(other)
	require.True(t, ok)
	assert.Equal(t, "/things/new", st.in.URL)
	assert.True(t, m.lead)
	st, ok = m.next(form)
	require.True(t, ok)
	assert.Equal(t, browser.ActFillForm, st.in.Action, "the trick, on the form")
	assert.False(t, m.lead)
}

// A member that came back to a form for a trick plays it before the
// screen's own controls: a button beside the form that leaves the page
// would spend the trip. Without the trip the screen's controls come
// first, as before.
func TestBackToFormTrickBeforeScreenControls(t *testing.T) {
	for _, came := range []bool{true, false} {
		form := formView()
		form.Els = append(form.Els, personas.Element{Role: "button", Name: "Download all", Ref: "e9", InMain: true})
		cov := form.Cov
		cov.noteForm(form)
		sw := newSweep()
		form.Sweep = sw
		m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickXSS}}), session.Credentials{}, nil)
		if came {
			other := &view{URL: "http://app.test/about", Cov: cov, Rand: form.Rand, Start: "/", Sweep: sw}
			sw.observe(other.URL, other.Els)
			st, ok := m.next(other)
			require.True(t, ok)
			require.Equal(t, "/things/new", st.in.URL)
			require.True(t, m.lead)
		}
		sw.observe(form.URL, form.Els)
		st, ok := m.next(form)
		require.True(t, ok)
		if came {
			assert.Equal(t, browser.ActFillForm, st.in.Action, "the trick it came for: %s", st.why)
			assert.Contains(t, st.in.JSON(), "__agxss", "the XSS probe")
		} else {
			assert.NotEqual(t, browser.ActFillForm, st.in.Action, "the screen's own controls first: %s", st.why)
		}
	}
}

// The catalogue trick plays a form's classes in catalogue order, each as
// one widened submission, and stops at its share of the page.
func TestCatalogueTrick(t *testing.T) {
	v := formView()
	sw := newSweep()
	sw.observe(v.URL, v.Els)
	v.Sweep = sw
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickCatalogue}}), session.Credentials{}, nil)
	macro := m.plan(TrickCatalogue, v)
	got := strings.Join(intents(macro), "\n")
	require.NotNil(t, sw.pend)
	assert.Equal(t, personas.ClassLong256, sw.pend.class, "text longer than a column first")
	assert.Regexp(t, `"value":"Lorem[^"]{240,}"`, got)
	assert.Equal(t, `{"action":"click","target":"e5"}`, intents(macro)[len(macro)-1])
	classes := []personas.InputClass{sw.pend.class}
	for {
		for range macro {
			sw.acted(true)
		}
		sw.observe(v.URL, v.Els) // sent back: the form again
		macro = m.plan(TrickCatalogue, v)
		if len(macro) == 0 {
			break
		}
		classes = append(classes, sw.pend.class)
	}
	require.GreaterOrEqual(t, len(classes), 3, "%v", classes)
	assert.Contains(t, classes, personas.ClassQuotes)
	assert.Contains(t, classes, personas.ClassNonLatin)
	for i := 1; i < len(classes); i++ {
		assert.LessOrEqual(t, slices.Index(catalogueOrder, classes[i-1]), slices.Index(catalogueOrder, classes[i]), "in catalogue order: %v", classes)
	}
	assert.LessOrEqual(t, len(classes), maxCatalogue, "its share of the page")
	assert.True(t, m.tried[string(TrickCatalogue)+":"+formSig(v)])

	// A lone field (a filter box) is no form for it.
	lone := &view{URL: "http://app.test/things", Cov: newCoverage(), Els: []personas.Element{
		{Role: "textbox", Name: "Filter", Ref: "e1", InMain: true}, {Role: "button", Name: "Apply", Ref: "e2", InMain: true}}}
	sw2 := newSweep()
	sw2.observe(lone.URL, lone.Els)
	lone.Sweep = sw2
	assert.Empty(t, m.plan(TrickCatalogue, lone))
}

// On a sign-in form the sweep plays the page's other controls before the
// form's input classes, and never signs out while anything else is left.
func TestSweepSignInLast(t *testing.T) {
	v := &view{URL: "http://app.test/signin", Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Els: []personas.Element{
		{Role: "textbox", Name: "Email", Ref: "e1", InMain: true},
		{Role: "textbox", Name: "Password", Ref: "e2", InMain: true, Flags: []string{"type=password"}},
		{Role: "button", Name: "Sign in", Ref: "e3", InMain: true},
		{Role: "button", Name: "Sign out", Ref: "e4", InMain: true},
		{Role: "link", Name: "Forgot your password?", Ref: "e5", InMain: true, URL: "/reset"},
	}}
	sw := newSweep()
	sw.observe(v.URL, v.Els)
	m := newMember(leaning(Persona{Name: personas.Adversarial}), session.Credentials{}, nil)
	var order []personas.Action
	for range 3 {
		_, ok := sw.next(m, v)
		require.True(t, ok)
		require.NotNil(t, sw.pend)
		order = append(order, mustAction(sw.pend.key))
		m.q = nil
		sw.pend.left = 0
		sw.observe(v.URL, v.Els)
	}
	for _, a := range order {
		assert.NotEqual(t, personas.ActionFill, a.Kind, "the form's classes come last: %v", order)
		assert.NotEqual(t, "Sign out", a.Name, "%v", order)
	}
}

// A choice inside a form is submitted with the form, together with an
// untried option of the form's other selects; a choice outside any form
// (a filter before the list's links) is played on its own, and is what
// the screen's own controls (sweep.here) try.
func TestSweepSubmitsAFormsChoices(t *testing.T) {
	els := []personas.Element{
		{Role: "link", Name: "Home", Ref: "e1", URL: "/"},
		{Role: "combobox", Name: "Show", Ref: "e2", InMain: true, Options: []string{"All", "Open", "Closed"}, Value: "All"},
		{Role: "link", Name: "Row one", Ref: "e3", URL: "/rows/1", InMain: true},
		{Role: "textbox", Name: "Title", Ref: "e4", InMain: true},
		{Role: "combobox", Name: "Colour", Ref: "e5", InMain: true, Options: []string{"Red", "Green"}, Value: "Red"},
		{Role: "combobox", Name: "Size", Ref: "e6", InMain: true, Options: []string{"Small", "Large", "Huge"}, Value: "Small"},
		{Role: "checkbox", Name: "Urgent", Ref: "e7", InMain: true},
		{Role: "button", Name: "Save", Ref: "e8", InMain: true},
	}
	v := &view{URL: "http://app.test/rows", Els: els, Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Start: "/"}
	assert.False(t, personas.InForm(els, "e2"), "a link ends the filter's part of the page")
	for _, ref := range []string{"e4", "e5", "e6", "e7"} {
		assert.True(t, personas.InForm(els, ref), ref)
	}
	sw := newSweep()
	sw.observe(v.URL, v.Els)
	m := newMember(leaning(Persona{Name: personas.PowerUser}), session.Credentials{}, nil)

	colour := personas.Action{Kind: personas.ActionSelect, Role: "combobox", Name: "Colour", Class: personas.ClassOption, Arg: "Green"}
	wide, also := sw.widenOptions(v, colour)
	require.Len(t, also, 1, "one option of the form's other select, none of the filter's")
	a := mustAction(also[0])
	assert.Equal(t, "Size", a.Name)
	assert.Equal(t, map[string]string{"e6": a.Arg}, wide)

	in, _ := sw.model.Input(personas.Target{State: sw.cur, Action: colour})
	got := strings.Join(intents(targetMacroWith(m, v, colour, in, wide)), "\n")
	assert.Contains(t, got, `"target":"e4","value":`, "the empty title filled validly")
	assert.Contains(t, got, `{"action":"select_option","target":"e5","value":"Green"}`)
	assert.Contains(t, got, `{"action":"select_option","target":"e6","value":"`+a.Arg+`"}`)
	assert.True(t, strings.HasSuffix(got, `{"action":"click","target":"e8"}`), "submitted: %s", got)

	tick := personas.Action{Kind: personas.ActionCheck, Role: "checkbox", Name: "Urgent"}
	got = strings.Join(intents(targetMacro(m, v, tick, personas.Input{})), "\n")
	assert.True(t, strings.HasSuffix(got, `{"action":"click","target":"e7"}`+"\n"+`{"action":"click","target":"e8"}`), "ticked and submitted: %s", got)

	filter := personas.Action{Kind: personas.ActionSelect, Role: "combobox", Name: "Show", Class: personas.ClassOption, Arg: "Open"}
	assert.Equal(t, []string{`{"action":"select_option","target":"e2","value":"Open"}`}, intents(targetMacro(m, v, filter, personas.Input{})))
	wide, also = sw.widenOptions(v, filter)
	assert.Nil(t, wide)
	assert.Nil(t, also)

	for range 3 {
		st, ok := sw.here(m, v)
		if !ok {
			break
		}
		assert.Equal(t, "e2", st.in.Target, "only the filter is this screen's own control: %s", st.in.JSON())
		sw.pend = nil
	}
}

// A form that answers with its next step (a wizard) is walked to its end
// with valid values, a required choice set; a form sent back with its own
// fields is not a next step, and a flow begun by a double submission is
// double-submitted at each step.
func TestSweepWalksAFlowToItsEnd(t *testing.T) {
	step1 := []personas.Element{
		{Role: "textbox", Name: "Title (required)", Ref: "e2", InMain: true, Flags: []string{"required"}},
		{Role: "combobox", Name: "Size (required)", Ref: "e3", InMain: true, Options: []string{"Choose…", "Small", "Large"}, Flags: []string{"required"}},
		{Role: "button", Name: "Next", Ref: "e4", InMain: true},
	}
	step2 := []personas.Element{
		{Role: "textbox", Name: "Contact email", Ref: "e5", InMain: true, Flags: []string{"type=email"}},
		{Role: "button", Name: "Back", Ref: "e6", InMain: true},
		{Role: "button", Name: "Create item", Ref: "e7", InMain: true},
	}
	cov := newCoverage()
	v1 := &view{URL: "http://app.test/items/new", Els: step1, Cov: cov, Rand: rand.New(rand.NewPCG(1, 1)), Start: "/"}
	m := newMember(leaning(Persona{Name: personas.Adversarial}), session.Credentials{}, nil)

	valid := m.plan(TrickValidForm, v1)
	got := strings.Join(intents(valid), "\n")
	assert.Contains(t, got, `{"action":"select_option","target":"e3","value":"Small"}`, "the required choice is set, not left on its placeholder")

	sw := newSweep()
	sw.observe(v1.URL, step1)
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e4"}, true, v1, v1.URL)
	sw.observe(v1.URL, step1) // sent back: its own fields again
	assert.Nil(t, sw.nextStep(m, v1))

	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e4"}, true, v1, v1.URL)
	sw.observe(v1.URL, step2)
	sw.observe(v1.URL, step2) // a second look before the team's next step
	v2 := &view{URL: v1.URL, Els: step2, Cov: cov, Rand: v1.Rand, Start: "/"}
	require.True(t, sw.stepPending(v2))
	hs, ok := sw.here(m, v2)
	assert.False(t, ok, "Back would leave the step: not the step's own control: %s", hs.why)
	macro := sw.nextStep(m, v2)
	require.Len(t, macro, 2, "%v", intents(macro))
	assert.Equal(t, browser.ActFill, macro[0].in.Action)
	assert.Equal(t, `{"action":"click","target":"e7"}`, macro[1].in.JSON(), "the step's own submit, not Back")
	assert.Nil(t, sw.nextStep(m, v2), "once per step")

	sw.submitted(browser.Intent{Action: browser.ActDblclick, Target: "e4"}, true, v1, v1.URL)
	sw.observe(v1.URL, step2)
	macro = sw.nextStep(m, v2)
	require.NotEmpty(t, macro)
	assert.Equal(t, browser.ActDblclick, macro[len(macro)-1].in.Action, "a double submission all the way")

	// The last step is a review with no fields under the same address:
	// a step too, its submit double-clicked in a double flow, not Back.
	review := []personas.Element{
		{Role: "button", Name: "Back", Ref: "e8", InMain: true},
		{Role: "button", Name: "Create item", Ref: "e9", InMain: true},
	}
	sw.submitted(browser.Intent{Action: browser.ActDblclick, Target: "e7"}, true, v2, v2.URL)
	sw.observe(v1.URL, review)
	v3 := &view{URL: v1.URL, Els: review, Cov: cov, Rand: v1.Rand, Start: "/"}
	require.True(t, sw.stepPending(v3), "the review screen is the flow's step")
	macro = sw.nextStep(m, v3)
	require.Len(t, macro, 1, "%v", intents(macro))
	assert.Equal(t, `{"action":"dblclick","target":"e9"}`, macro[0].in.JSON())
	sw.submitted(macro[0].in, true, v3, "http://app.test/items/7")
	sw.observe("http://app.test/items/7", []personas.Element{{Role: "button", Name: "Edit", Ref: "e10", InMain: true}})
	assert.False(t, sw.stepPending(&view{URL: "http://app.test/items/7"}), "the flow ended")

	// A record's own page after the submission (its note form) is no
	// step either.
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e4"}, true, v1, "http://app.test/items/8")
	sw.observe("http://app.test/items/8", []personas.Element{
		{Role: "textbox", Name: "Add a note", Ref: "e11", InMain: true},
		{Role: "button", Name: "Add note", Ref: "e12", InMain: true},
	})
	assert.False(t, sw.stepPending(&view{URL: "http://app.test/items/8"}), "the record's note form is not the flow's")

	// A field-less page somewhere else, or one with only Back, is no step.
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e4"}, true, v1, v1.URL)
	sw.observe("http://app.test/items/thanks", review)
	assert.False(t, sw.stepPending(&view{URL: "http://app.test/items/thanks"}))
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e4"}, true, v1, v1.URL)
	sw.observe(v1.URL, review[:1])
	assert.False(t, sw.stepPending(&view{URL: v1.URL}), "nothing goes on from Back alone")
}

// What a persona's own step played counts as coverage: the sweep does
// not play it again, and neither does the click-every-button trick.
func TestSweepCreditsTheTeamsSteps(t *testing.T) {
	els := []personas.Element{
		{Role: "button", Name: "Refresh", Ref: "e2", InMain: true},
		{Role: "checkbox", Name: "Reminders", Ref: "e3", InMain: true},
		{Role: "link", Name: "Month", Ref: "e4", URL: "#/month", InMain: true},
		{Role: "link", Name: "Other", Ref: "e5", URL: "/other", InMain: true},
	}
	v := &view{URL: "http://app.test/prefs", Els: els, Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Start: "/"}
	sw := newSweep()
	sw.observe(v.URL, els)
	v.Sweep = sw
	sw.credit(v, browser.Intent{Action: browser.ActClick, Target: "e2"})
	sw.credit(v, browser.Intent{Action: browser.ActClick, Target: "e3"})
	st, _ := sw.model.State(sw.cur)
	status := map[string]personas.TargetStatus{}
	for _, tg := range st.Targets {
		status[string(tg.Key())] = tg.Status
	}
	assert.Equal(t, personas.TargetTried, status[`click button "Refresh"`])
	assert.Equal(t, personas.TargetTried, status[`check checkbox "Reminders" :toggle_on`])
	assert.Equal(t, personas.TargetUntried, status[`uncheck checkbox "Reminders" :toggle_off`])
	assert.True(t, sw.playedHere(els[0]))
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	assert.Nil(t, m.plan(TrickClickButtons, v), "the button was played")

	// A link to a view of the page is this screen's own control; a link
	// to another page is not.
	here, ok := sw.here(m, v)
	require.True(t, ok)
	assert.Equal(t, "e4", here.in.Target, here.why)
	assert.True(t, hashRoute("#/month"))
	assert.False(t, hashRoute("#"))
	assert.True(t, scriptLink("#"), "a link to nowhere is a button")
	assert.True(t, scriptLink("javascript:void(0)"))
	assert.False(t, scriptLink("/things"))
}

// A button named like a submit with nothing to fill before it (a
// dialog's "Confirm") is pressed as any button is: by the screen's own
// controls and by the click-every-button trick.
func TestConfirmWithoutFieldsIsAButton(t *testing.T) {
	els := []personas.Element{
		{Role: "textbox", Name: "Filter", Ref: "e1", InMain: true},
		{Role: "button", Name: "Search", Ref: "e2", InMain: true},
		{Role: "button", Name: "Archive the month…", Ref: "e3", InMain: true},
		{Role: "button", Name: "Confirm", Ref: "e4", InMain: true},
		{Role: "button", Name: "Cancel", Ref: "e5", InMain: true},
	}
	v, sw := sweptView("http://app.test/months", els)
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	var pressed []string
	for range 4 {
		st, ok := sw.here(m, v)
		if !ok {
			break
		}
		pressed = append(pressed, st.in.Target)
		sw.acted(true)
		sw.observe(v.URL, els)
	}
	assert.Contains(t, pressed, "e4", "the dialog's confirm")
	assert.NotContains(t, pressed, "e2", "the search form's own button waits for the sweep")
	assert.NotContains(t, pressed, "e5", "cancel waits too")
	m2 := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	var tricked []string
	for range 4 {
		macro := m2.plan(TrickClickButtons, &view{URL: v.URL, Els: els, Cov: v.Cov, Rand: v.Rand, Start: "/"})
		if len(macro) == 0 {
			break
		}
		tricked = append(tricked, macro[0].in.Target)
	}
	assert.Contains(t, tricked, "e4")
}

// A dialog's dismiss button comes after its other buttons, wherever it
// stands: clicked first, it would close the dialog and leave the others
// untried. A button that names what it closes is no dismiss button.
func TestDismissButtonsLast(t *testing.T) {
	els := []personas.Element{
		{Role: "button", Name: "Close the ledger…", Ref: "e1", InMain: true},
		{Role: "button", Name: "Cancel", Ref: "e2", InMain: true},
		{Role: "button", Name: "×", Ref: "e3", InMain: true},
		{Role: "button", Name: "Yes, close it", Ref: "e4", InMain: true},
	}
	v, _ := sweptView("http://app.test/ledger", els)
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	var order []string
	for range 5 {
		macro := m.plan(TrickClickButtons, v)
		if len(macro) == 0 {
			break
		}
		order = append(order, macro[0].in.Target)
	}
	assert.Equal(t, []string{"e1", "e4", "e2", "e3"}, order)
}

// sweptView is a view of els at url whose sweep has observed it.
func sweptView(url string, els []personas.Element) (*view, *sweep) {
	v := &view{URL: url, Els: els, Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Start: "/"}
	sw := newSweep()
	sw.observe(v.URL, els)
	v.Sweep = sw
	return v, sw
}

// Coming back for the catalogue, a member goes to the form it played
// least on, not to the first form found: a form found late gets the
// catalogue's first classes before an earlier form gets more.
func TestCatalogueBackToLeastPlayedForm(t *testing.T) {
	first := formView()
	cov := first.Cov
	cov.noteForm(first)
	edit := &view{URL: "http://app.test/things/7/edit", Cov: cov, Rand: first.Rand, Start: "/", Els: []personas.Element{
		{Role: "textbox", Name: "Title", Ref: "e2", InMain: true},
		{Role: "spinbutton", Name: "Copies", Ref: "e3", InMain: true},
		{Role: "button", Name: "Save", Ref: "e5", InMain: true},
	}}
	cov.noteForm(edit)
	require.Equal(t, []string{"/things/new", "/things/7/edit"}, cov.forms)
	other := &view{URL: "http://app.test/about", Cov: cov, Rand: first.Rand, Start: "/"}

	cov.catalogued["/things/new"] = 3
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickCatalogue}}), session.Credentials{}, nil)
	st, ok := m.next(other)
	require.True(t, ok)
	assert.Equal(t, "/things/7/edit", st.in.URL, "the form the catalogue played least on")

	// Even: discovery order.
	cov.catalogued["/things/7/edit"] = 3
	m = newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickCatalogue}}), session.Credentials{}, nil)
	st, ok = m.next(other)
	require.True(t, ok)
	assert.Equal(t, "/things/new", st.in.URL)
}

// Coming back to forms follows the persona's own order of its tricks:
// the adversarial persona double-submits every form before it tries
// exotic text on any.
func TestBackToFormInPersonaOrder(t *testing.T) {
	form := formView()
	cov := form.Cov
	cov.noteForm(form)
	other := &view{URL: "http://app.test/about", Cov: cov, Rand: form.Rand, Start: "/"}
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickXSS, TrickDouble, TrickCatalogue, TrickLong, TrickExotic}}), session.Credentials{}, nil)
	m.tried[string(TrickXSS)+":"+formSig(form)] = true
	st, ok := m.next(other)
	require.True(t, ok)
	assert.Equal(t, "/things/new", st.in.URL)
	assert.Contains(t, st.why, string(TrickDouble))
}

// The catalogue's first round comes in the persona's order of tricks;
// its other classes wait until the tricks after it had every form.
func TestCatalogueFirstRoundThenOtherTricks(t *testing.T) {
	form := formView()
	cov := form.Cov
	cov.noteForm(form)
	other := &view{URL: "http://app.test/about", Cov: cov, Rand: form.Rand, Start: "/"}
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickCatalogue, TrickDouble}}), session.Credentials{}, nil)

	st, ok := m.next(other)
	require.True(t, ok)
	assert.Equal(t, "/things/new", st.in.URL)
	assert.Contains(t, st.why, string(TrickCatalogue), "within its first round")

	cov.catalogued["/things/new"] = catalogueRound
	st, ok = m.next(other)
	require.True(t, ok)
	assert.Contains(t, st.why, string(TrickDouble), "its round played: the next trick first")

	m.tried[string(TrickDouble)+":"+formSig(form)] = true
	st, ok = m.next(other)
	require.True(t, ok)
	assert.Equal(t, "/things/new", st.in.URL)
	assert.Contains(t, st.why, string(TrickCatalogue), "then the rest of its classes")
}

// Elements that show what the mission typed are its own records: one
// control, however many it added.
func TestOwnRecordsOneControl(t *testing.T) {
	tv := typedValues{}
	tv.add("Ada Lovelace 378")
	tv.add("Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod")
	tv.add("2")
	els := []personas.Element{
		{Role: "clickable", Name: "Ada Lovelace 378", Ref: "x1"},
		{Role: "clickable", Name: "Lorem ipsum dolor sit amet consectetur adipiscing", Ref: "x2"}, // a cut cell
		{Role: "clickable", Name: "Buy milk", Ref: "x3"},
		{Role: "clickable", Name: "Item 2", Ref: "x4"}, // "2" is too short to tell
		{Role: "button", Name: "Ada Lovelace 378", Ref: "e5"},
	}
	tv.ownRecords(els)
	assert.Equal(t, ownName, els[0].Name)
	assert.Equal(t, ownName, els[1].Name)
	assert.Equal(t, "Buy milk", els[2].Name, "what the app shows of its own")
	assert.Equal(t, "Item 2", els[3].Name)
	assert.Equal(t, "Ada Lovelace 378", els[4].Name, "only script-handled elements")
	assert.Equal(t, "x1", els[0].Ref, "the element is still where it was")

	m := personas.NewModel(personas.Limits{})
	id := m.Observe("http://app.test/notes/1", els)
	st, ok := m.State(id)
	require.True(t, ok)
	n := 0
	for _, tg := range st.Targets {
		if tg.Action.Role == "clickable" && tg.Action.Name == ownName {
			n++
		}
	}
	assert.Positive(t, n, "one control for the records the mission made")
	tv.add("Grace Hopper 12")
	more := append(slices.Clone(els), personas.Element{Role: "clickable", Name: "Grace Hopper 12", Ref: "x9"})
	tv.ownRecords(more)
	assert.Equal(t, id, m.Observe("http://app.test/notes/1", more), "one more record of its own: the same screen")
}

// A flow whose last screen only shows what its steps sent (a review, no
// fields, the same address) makes its record with that screen's submit.
func TestSweepRecordMadeFromReviewStep(t *testing.T) {
	sw := newSweep()
	v := formView() // /things/new with fields
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e5"}, true, v, v.URL)
	require.False(t, sw.made, "the next step of the flow, on the same page")
	review := &view{URL: v.URL, Cov: v.Cov, Rand: v.Rand, Start: "/", Els: []personas.Element{
		{Role: "button", Name: "Back", Ref: "e11", InMain: true},
		{Role: "button", Name: "Create thing", Ref: "e12", InMain: true},
	}}
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e12"}, true, review, "http://app.test/things/43")
	assert.True(t, sw.made, "the review's submit made the record")

	// A field-less page the team came to otherwise makes nothing.
	sw2 := newSweep()
	other := &view{URL: "http://app.test/things/7", Cov: v.Cov, Rand: v.Rand, Start: "/", Els: review.Els}
	sw2.submitted(browser.Intent{Action: browser.ActClick, Target: "e12"}, true, other, "http://app.test/things/43")
	assert.False(t, sw2.made)
}

// The catalogue never comes back to a one-field form (a search box, a
// note): it has no catalogue there.
func TestCatalogueSkipsOneFieldForms(t *testing.T) {
	cov := newCoverage()
	search := &view{URL: "http://app.test/search", Cov: cov, Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Els: []personas.Element{
		{Role: "searchbox", Name: "Search", Ref: "e1", InMain: true},
		{Role: "button", Name: "Search", Ref: "e2", InMain: true},
	}}
	cov.noteForm(search)
	form := formView()
	form.Cov = cov
	cov.noteForm(form)
	require.Equal(t, []string{"/search", "/things/new"}, cov.forms)
	other := &view{URL: "http://app.test/about", Cov: cov, Rand: form.Rand, Start: "/"}
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickCatalogue}}), session.Credentials{}, nil)
	st, ok := m.next(other)
	require.True(t, ok)
	assert.Equal(t, "/things/new", st.in.URL, "the form of two fields, not the search box found first")
}

// A double submit never takes a trip back to a one-field form (a search
// sent twice changes nothing): only to a record's form.
func TestDoubleSubmitSkipsOneFieldForms(t *testing.T) {
	form := formView()
	cov := form.Cov
	search := &view{URL: "http://app.test/find", Cov: cov, Rand: form.Rand, Start: "/", Els: []personas.Element{
		{Role: "textbox", Name: "Words", Ref: "e2", InMain: true},
		{Role: "button", Name: "Go", Ref: "e3", InMain: true},
	}}
	cov.noteForm(search)
	cov.noteForm(form)
	other := &view{URL: "http://app.test/about", Cov: cov, Rand: form.Rand, Start: "/"}
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickDouble}}), session.Credentials{}, nil)
	st, ok := m.next(other)
	require.True(t, ok)
	assert.Equal(t, "/things/new", st.in.URL, "the one-field form found first is not a double submit's: %s", st.why)
	_, ok = m.next(other)
	assert.False(t, ok, "no trip back to the one-field form")
}

// The markup probe looks for its payload where the app lists records
// after a record's form, not after a search or a filter.
func TestXSSListPagesOnlyAfterStoringForms(t *testing.T) {
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickXSS}}), session.Credentials{}, nil)
	navs := func(ss []step) (n int) {
		for _, s := range ss {
			if s.in.Action == browser.ActNavigate {
				n++
			}
		}
		return n
	}
	form := formView()
	assert.Equal(t, 2, navs(m.plan(TrickXSS, form)), "a record's form: its list and the start page")
	for _, f := range []personas.Element{
		{Role: "searchbox", Name: "Q", Ref: "e2", InMain: true},
		{Role: "textbox", Name: "Filter rows", Ref: "e2", InMain: true},
	} {
		v := &view{URL: "http://app.test/things/list", Cov: form.Cov, Rand: form.Rand, Start: "/",
			Els: []personas.Element{f, {Role: "button", Name: "Apply", Ref: "e3", InMain: true}}}
		macro := m.plan(TrickXSS, v)
		require.NotEmpty(t, macro, f.Name)
		assert.Zero(t, navs(macro), "%s: a query is not stored", f.Name)
	}
	note := &view{URL: "http://app.test/things/7", Cov: form.Cov, Rand: form.Rand, Start: "/",
		Els: []personas.Element{{Role: "textbox", Name: "Add a note", Ref: "e2", InMain: true}, {Role: "button", Name: "Add", Ref: "e3", InMain: true}}}
	assert.NotZero(t, navs(m.plan(TrickXSS, note)), "a one-field form that stores (a note) is looked for")
}

// A macro whose submission opened a flow's next step walks the flow to
// its end before the macro's own visits of the list pages.
func TestFlowBeforeQueuedVisits(t *testing.T) {
	step1 := []personas.Element{
		{Role: "textbox", Name: "Title", Ref: "e2", InMain: true},
		{Role: "textbox", Name: "Place", Ref: "e3", InMain: true},
		{Role: "button", Name: "Next", Ref: "e4", InMain: true},
	}
	step2 := []personas.Element{
		{Role: "textbox", Name: "Contact email", Ref: "e5", InMain: true, Flags: []string{"type=email"}},
		{Role: "button", Name: "Create item", Ref: "e7", InMain: true},
	}
	cov := newCoverage()
	cov.visit("/items")
	sw := newSweep()
	v1 := &view{URL: "http://app.test/items/new", Els: step1, Cov: cov, Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Sweep: sw}
	sw.observe(v1.URL, step1)
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickXSS}}), session.Credentials{}, nil)
	var played []step
	for range 2 {
		st, ok := m.next(v1)
		require.True(t, ok)
		played = append(played, st)
	}
	require.Equal(t, browser.ActFillForm, played[0].in.Action, "both fields in one step: %v", intents(played))
	require.Len(t, played[0].in.Fields, 2)
	require.Equal(t, `{"action":"click","target":"e4"}`, played[1].in.JSON(), "%v", intents(played))
	require.NotEmpty(t, m.q)
	require.Equal(t, browser.ActNavigate, m.q[0].in.Action, "the probe's visits are queued")

	sw.submitted(played[1].in, true, v1, v1.URL)
	sw.observe(v1.URL, step2)
	v2 := &view{URL: v1.URL, Els: step2, Cov: cov, Rand: v1.Rand, Start: "/", Sweep: sw}
	st, ok := m.next(v2)
	require.True(t, ok)
	assert.Equal(t, browser.ActFill, st.in.Action, "the flow's step first: %s", st.in.JSON())
	st, _ = m.next(v2)
	assert.Equal(t, `{"action":"click","target":"e7"}`, st.in.JSON(), "its submit stores the payload")
	st, _ = m.next(v2)
	assert.Equal(t, browser.ActNavigate, st.in.Action, "then the visits")
}

// The catalogue's share: past the mission's first steps, while it has had
// less than its share of them, any member that has played its own form
// tricks goes back to a record form and submits the next class there.
func TestCatalogueDueShare(t *testing.T) {
	form := formView()
	cov := form.Cov
	sw := newSweep()
	form.Sweep = sw
	cov.noteForm(form)
	other := &view{URL: "http://app.test/about", Cov: cov, Rand: form.Rand, Start: "/", Sweep: sw, Spent: 0.5, Steps: 100}
	newUser := newMember(leaning(Persona{Name: personas.NewUser, Tricks: []Trick{TrickValidForm}}), session.Credentials{}, nil)

	_, ok := newUser.catalogueDue(other)
	assert.False(t, ok, "the member's own form trick first")
	newUser.tried[string(TrickValidForm)+":"+formSig(form)] = true

	early := *other
	early.Spent, early.Steps = 0.1, 20
	_, ok = newUser.catalogueDue(&early)
	assert.False(t, ok, "discovery first")

	cov.catSteps = 30
	_, ok = newUser.catalogueDue(other)
	assert.False(t, ok, "its share had")
	form.Spent, form.Steps = 0.5, 100
	newUser.lastCat = true
	sw.observe(form.URL, form.Els)
	st, ok := newUser.catalogueDue(form)
	require.True(t, ok, "on the form its last submission was sent back to, a little more")
	assert.True(t, st.cat)
	sw.pend, newUser.q, newUser.lastCat = nil, nil, false
	cov.catalogued["/things/new"] = 0
	cov.catSteps = 10

	st, ok = newUser.catalogueDue(other)
	require.True(t, ok)
	assert.Equal(t, "/things/new", st.in.URL)
	assert.True(t, st.cat && st.lead)
	_, ok = newUser.catalogueDue(other)
	assert.False(t, ok, "one trip per form until it plays there")

	// A member that came back to the form for another trick plays that
	// one there first.
	adv := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickDouble, TrickCatalogue}}), session.Credentials{}, nil)
	st, ok = adv.next(other)
	require.True(t, ok)
	require.Contains(t, st.why, string(TrickDouble))
	form.Spent, form.Steps = 0.5, 100
	_, ok = adv.catalogueDue(form)
	assert.False(t, ok, "the double submit it came for first")

	sw.observe(form.URL, form.Els)
	newUser.lead, newUser.leadCat = true, true // it came for the catalogue
	st, ok = newUser.catalogueDue(form)
	require.True(t, ok)
	assert.Equal(t, browser.ActFill, st.in.Action)
	assert.True(t, st.cat)
	require.NotNil(t, sw.pend)
	assert.Equal(t, personas.ClassLong256, sw.pend.class)
	assert.Equal(t, 1, cov.catalogued["/things/new"])
	for _, s := range newUser.q {
		assert.True(t, s.cat, "every step of the submission counts: %s", s.in.JSON())
	}
	newUser.q = nil
	for range 3 {
		sw.acted(true)
	}
	sw.observe(form.URL, form.Els)
	st, ok = newUser.catalogueDue(other)
	require.True(t, ok, "a new trip once the form had a submission")
	assert.Equal(t, "/things/new", st.in.URL)

	// A list met while the share is owed has its last row opened first
	// (one step), then the share takes the browser back to a form.
	cov.catSteps, cov.catalogued["/things/new"] = 0, 2
	list := &view{URL: "http://app.test/things", Cov: cov, Rand: form.Rand, Start: "/", Sweep: sw, Spent: 0.5, Steps: 100, Els: []personas.Element{
		{Role: "link", Name: "Gamma", Ref: "e2", URL: "/things/3", InMain: true},
		{Role: "link", Name: "Beta", Ref: "e3", URL: "/things/2", InMain: true},
		{Role: "link", Name: "Alpha", Ref: "e4", URL: "/things/1", InMain: true},
	}}
	sw.observe(list.URL, list.Els)
	st, ok = newUser.next(list)
	require.True(t, ok)
	assert.Equal(t, "e4", st.in.Target, "the list's last row: %s", st.why)
	st, ok = newUser.next(list)
	require.True(t, ok)
	assert.True(t, st.cat, "then the catalogue's share: %s", st.why)
}

// A page opened by a link (or by its address) is one the model may open
// directly again: a far target there is one step away, not a walk from
// the start page. A page a form's submission showed is not.
func TestSweepOpensLinkedPagesDirectly(t *testing.T) {
	sw := newSweep()
	cov := newCoverage()
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	home := &view{URL: "http://app.test/", Cov: cov, Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Sweep: sw, Els: []personas.Element{
		{Role: "link", Name: "Things", Ref: "e1", URL: "/things", InMain: true},
		{Role: "link", Name: "Top", Ref: "e2", URL: "#top", InMain: true},
	}}
	sw.observe(home.URL, home.Els)
	cov.visit("/") // as every look does
	things := &view{URL: "http://app.test/things", Cov: cov, Rand: home.Rand, Start: "/", Sweep: sw, Els: []personas.Element{
		{Role: "button", Name: "Refresh list", Ref: "e3", InMain: true},
		{Role: "textbox", Name: "Title", Ref: "e4", InMain: true},
		{Role: "textbox", Name: "Place", Ref: "e5", InMain: true},
		{Role: "button", Name: "Add thing", Ref: "e6", InMain: true},
	}}
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e1"}, true, home, things.URL)
	sw.observe(things.URL, things.Els)
	cov.visit("/things")
	sw.submitted(browser.Intent{Action: browser.ActClick, Target: "e6"}, true, things, "http://app.test/things/added")
	done := &view{URL: "http://app.test/things/added", Cov: cov, Rand: home.Rand, Start: "/", Sweep: sw, Els: []personas.Element{
		{Role: "heading", Name: "Added", Ref: "e7", InMain: true},
	}}
	sw.observe(done.URL, done.Els)
	var urls []string
	for _, e := range sw.model.Entries {
		urls = append(urls, e.URL)
	}
	assert.Equal(t, []string{"/things"}, urls, "the linked page, not the page the form showed")

	st, ok := sw.next(m, done)
	require.True(t, ok)
	assert.Equal(t, `{"action":"navigate","url":"/things"}`, st.in.JSON(), "straight to the page of the untried targets: %s", st.why)

	assert.False(t, opens(browser.Intent{Action: browser.ActClick, Target: "e2"}, home), "a fragment link opens no page")
	assert.True(t, opens(browser.Intent{Action: browser.ActNavigate, URL: "/x"}, nil))
}

// The session is dropped on a page with buttons of its own, which are
// clicked on the page as it was loaded (a stale page) before every
// screen is opened again without a session.
func TestDropSessionOnAPageWithButtons(t *testing.T) {
	cov := newCoverage()
	cov.signin = "/login"
	for _, l := range []string{"/", "/stock", "/stock/1", "/about", "/login"} {
		cov.see(l, "/")
		cov.visit(l)
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	stock := &view{URL: "http://app.test/stock/1", Cov: cov, Rand: rnd, Start: "/", Spent: 0.6, Els: []personas.Element{
		{Role: "button", Name: "Delete", Ref: "e1", InMain: true},
		{Role: "button", Name: "Refresh counts", Ref: "e2", InMain: true},
		{Role: "link", Name: "Home", Ref: "e3", URL: "/"},
		{Role: "button", Name: "Refresh counts", Ref: "e4", InMain: true},
		{Role: "button", Name: "Show history", Ref: "e5", InMain: true},
	}}
	cov.noteButtons(stock)
	about := &view{URL: "http://app.test/about", Cov: cov, Rand: rnd, Start: "/", Spent: 0.6, Els: []personas.Element{{Role: "link", Name: "Home", Ref: "e1", URL: "/"}}}
	cov.noteButtons(about)
	require.Equal(t, []string{"/stock/1"}, cov.buttonPages)

	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickDropSession}}), session.Credentials{}, nil)
	macro := m.plan(TrickDropSession, about)
	require.Len(t, macro, 1)
	assert.Equal(t, "/stock/1", macro[0].in.URL, "to the page with buttons first")
	assert.False(t, cov.dropped)

	macro = m.plan(TrickDropSession, stock)
	require.GreaterOrEqual(t, len(macro), 5)
	assert.Equal(t, browser.ActClearSiteData, macro[0].in.Action)
	assert.Equal(t, `{"action":"click","target":"e2"}`, macro[1].in.JSON(), "its own buttons, not Delete, on the stale page")
	assert.Equal(t, `{"action":"click","target":"e5"}`, macro[2].in.JSON(), "each name once")
	assert.Equal(t, "/stock/1", macro[3].in.URL, "then the screens again, this one first")
	assert.Equal(t, "/login", macro[len(macro)-1].in.URL)
	assert.True(t, cov.dropped)
	assert.Nil(t, m.plan(TrickDropSession, stock), "once")
}

// On an app without a sign-in page the session (cookies and storage) is
// dropped too, once three pages were seen, and the pages are opened again,
// the start page last; there is no sign-in to go back to. A page that was a
// form's answer (no link leads to it: a POST's) is not opened by its
// address.
func TestDropSessionWithoutSignIn(t *testing.T) {
	cov := newCoverage()
	for _, l := range []string{"/", "/board", "/board/export", "/board/7"} {
		if l != "/board/export" {
			cov.see(l, "/")
		}
		cov.visit(l)
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	v := &view{URL: "http://app.test/board/7", Cov: cov, Rand: rnd, Start: "/", Spent: 0.6, Els: []personas.Element{{Role: "link", Name: "Home", Ref: "e1", URL: "/"}}}
	m := newMember(leaning(Persona{Name: personas.ReturningUser, Tricks: []Trick{TrickDropSession}}), session.Credentials{}, nil)
	gen := cov.gen
	macro := m.plan(TrickDropSession, v)
	require.Len(t, macro, 4)
	assert.Equal(t, browser.ActClearSiteData, macro[0].in.Action)
	assert.Equal(t, []string{"/board/7", "/board", "/"}, []string{macro[1].in.URL, macro[2].in.URL, macro[3].in.URL})
	assert.True(t, cov.dropped)
	assert.Equal(t, gen+1, cov.gen, "the session's next generation")
}

// A macro's fills and choices on one screen go as one fill_form step: one
// step of the budget; what must go alone (a held or watched click, a
// chained one, a step that leads elsewhere) stays a step of its own.
func TestBatchFillsAForm(t *testing.T) {
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	red := "Red"
	m.q = []step{
		{in: browser.Fill("e3", "b"), why: "fill B", cat: true},
		{in: browser.Intent{Action: browser.ActSelectOption, Target: "e4", Value: &red}, why: "choose Colour"},
		{in: browser.Intent{Action: browser.ActCheck, Target: "e5"}, why: "tick Terms"},
		{in: browser.Click("e6"), why: "submit", watch: 400 * time.Millisecond},
	}
	sw := newSweep()
	sw.pend = &pendingTarget{left: 5}
	v := &view{URL: "http://app.test/things/new", Cov: newCoverage(), Sweep: sw}
	m.q = append([]step{{in: browser.Fill("e2", "a"), why: "fill A"}}, m.q...)
	st, ok := m.next(v)
	require.True(t, ok)
	require.Equal(t, browser.ActFillForm, st.in.Action)
	assert.Equal(t, []browser.FormField{{Target: "e3", Value: "b"}, {Target: "e4", Value: "Red", Kind: browser.FieldSelect}, {Target: "e5", Kind: browser.FieldCheck}}, st.in.Fields[1:])
	assert.Equal(t, "e2", st.in.Fields[0].Target)
	assert.True(t, st.cat, "a catalogue field makes the step the catalogue's")
	assert.Contains(t, st.why, "choose Colour")
	assert.Equal(t, 2, sw.pend.left, "the macro's steps played within one")
	require.Len(t, m.q, 1)
	assert.Equal(t, browser.ActClick, m.q[0].in.Action)

	// One fill alone stays a fill; a held step is never merged.
	m.q = []step{{in: browser.Fill("e2", "a")}, {in: browser.Fill("e3", "b"), before: func() {}}}
	st, _ = m.next(v)
	assert.Equal(t, browser.ActFill, st.in.Action)
	assert.Len(t, m.q, 1)
}

// A page seen before that answers 404 after the team used a control named
// to delete is the record it deleted, not a broken link.
func TestCoverageGone(t *testing.T) {
	c := newCoverage()
	c.seenAt["/things/7/edit"] = 10
	assert.False(t, c.gone("/things/7/edit"), "nothing deleted")
	c.destroyedAt = 8
	assert.False(t, c.gone("/things/7/edit"), "deleted before the page was seen")
	c.destroyedAt = 12
	assert.True(t, c.gone("/things/7/edit"))
	assert.False(t, c.gone("/things/8"), "a page never seen")

	// Found gone, it stays gone when looked at again (its 404 is a look),
	// and it is no form to go back to.
	c.forms = []string{"/things/new", "/things/7/edit"}
	c.lose("/things/7/edit")
	c.seenAt["/things/7/edit"] = 20
	assert.True(t, c.gone("/things/7/edit"), "a second trip there is not a broken link either")
	assert.Equal(t, []string{"/things/new"}, c.forms)
	c.lose("/things?page=2")
	assert.Equal(t, []string{"/things/new"}, c.forms, "a page with a query is not its path's form")
	assert.True(t, reDestroy.MatchString("Delete project"))
	assert.False(t, reDestroy.MatchString("Save"))
}

// Two rows the mission made with the same values are no duplicate record
// of the app's; a row whose value was typed once and shows twice is. Two
// long texts of one opening, cut alike by the list, are two records.
func TestOwnRepeat(t *testing.T) {
	long1 := "Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor"
	long2 := long1 + " incididunt ut labore et dolore magna aliqua"
	tv := typedValues{}
	for _, v := range []string{long1, long2, "1000", "1000", "Ada Lovelace 7"} {
		tv.add(v)
	}
	row := func(name, n string) string {
		return `<tr><td><a href="/events/4">` + name + `</a></td><td>` + n + `</td><td>2024-06-15</td></tr>`
	}
	assert.True(t, tv.ownRepeat(row("Lorem ipsum dolor sit amet consectetur adipiscing elit sed d", "1000")), "two records of one opening")
	assert.True(t, tv.ownRepeat(row("Lorem ipsum dolor sit amet consectetur…", "1000")), "cut with an ellipsis")
	assert.False(t, tv.ownRepeat(row("Ada Lovelace 7", "1000")), "typed once, shown twice: the app's duplicate")
	assert.False(t, tv.ownRepeat(row("Someone else", "5")), "nothing the mission typed")
	tv.add("3")
	assert.True(t, tv.ownRepeat(`<tr><td>Lorem ipsum dolor sit amet consectetur adipiscing elit sed d</td><td>1000</td><td>3</td></tr>`),
		"a short number typed once tells nothing")
	// One record holds a text exactly as long as the cell (a field's
	// maximum), the other a longer one the app cut to it: two records.
	cell := "Lorem ipsum dolor sit amet consectetur adipiscing elit sed d"
	tv.add(cell)
	assert.True(t, tv.ownRepeat(row(cell, "1000")), "typed once at its full length, and cut from a longer text")
}

// A link to a page the team has not explored (one a click revealed, so
// it was not there to follow when the page was new) comes before a link
// to a page it has; the member sent to the page that links to an
// unvisited page goes there by its address when the link is not on the
// page on arrival.
func TestRevealedLinksAreFollowed(t *testing.T) {
	sw := newSweep()
	cov := newCoverage()
	cov.visit("/")
	cov.visit("/seen")
	m := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	home := &view{URL: "http://app.test/", Cov: cov, Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Sweep: sw, Els: []personas.Element{
		{Role: "link", Name: "Seen page", Ref: "e1", URL: "/seen", InMain: true},
		{Role: "link", Name: "About us", Ref: "e2", URL: "about", InMain: true},
	}}
	sw.observe(home.URL, home.Els)
	st, ok := sw.next(m, home)
	require.True(t, ok)
	assert.Equal(t, `{"action":"click","target":"e2"}`, st.in.JSON(), "the link to the unexplored page first: %s", st.why)
	assert.True(t, sw.linkNew(personas.Target{State: sw.cur, Action: personas.Action{Kind: personas.ActionClick, Role: "link", Name: "About us"}}, cov))
	cov.visit("/about")
	assert.False(t, sw.linkNew(personas.Target{State: sw.cur, Action: personas.Action{Kind: personas.ActionClick, Role: "link", Name: "About us"}}, cov), "explored now")

	// The way through the page that links to it, then the address.
	cov2 := newCoverage()
	cov2.visit("/")
	cov2.visit("/x")
	cov2.see("/hidden", "/")
	m2 := newMember(leaning(Persona{Name: personas.NewUser}), session.Credentials{}, nil)
	x := &view{URL: "http://app.test/x", Cov: cov2, Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Els: []personas.Element{{Role: "heading", Name: "X", Ref: "e1", InMain: true}}}
	st, ok = m2.decide(x)
	require.True(t, ok)
	assert.Equal(t, `{"action":"navigate","url":"/"}`, st.in.JSON(), st.why)
	h := &view{URL: "http://app.test/", Cov: cov2, Rand: x.Rand, Start: "/", Els: []personas.Element{{Role: "button", Name: "Show more", Ref: "e3", InMain: true}}}
	h.Cov.visit("/")
	st, ok = m2.decide(h)
	require.True(t, ok)
	for st.in.Action != browser.ActNavigate {
		// the page's own control (the reveal) may come first
		st, ok = m2.decide(h)
		require.True(t, ok)
	}
	assert.Equal(t, `{"action":"navigate","url":"/hidden"}`, st.in.JSON(), st.why)
}

// The catalogue plays 10001 characters in a form's textarea (after 1001,
// before the number boundaries), never in its one-line fields.
func TestCatalogueLongTextInTextareas(t *testing.T) {
	els := []personas.Element{
		{Role: "textbox", Name: "Title", Ref: "e1", InMain: true, Flags: []string{"required"}},
		{Role: "textbox", Name: "Method", Ref: "e2", InMain: true, Flags: []string{"multiline"}},
		{Role: "spinbutton", Name: "Servings", Ref: "e3", InMain: true},
		{Role: "button", Name: "Save recipe", Ref: "e4", InMain: true},
	}
	v := &view{URL: "http://app.test/recipes/new", Els: els, Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Start: "/"}
	sw := newSweep()
	sw.observe(v.URL, v.Els)
	v.Sweep = sw
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickCatalogue}}), session.Credentials{}, nil)
	var classes []personas.InputClass
	long := 0
	for macro := m.plan(TrickCatalogue, v); len(macro) > 0; macro = m.plan(TrickCatalogue, v) {
		classes = append(classes, sw.pend.class)
		if sw.pend.class == personas.ClassLong10001 {
			long++
			key, err := personas.ParseActionKey(sw.pend.key)
			require.NoError(t, err)
			assert.Equal(t, "Method", key.Name, "in the textarea")
			typed := false
			for _, st := range macro {
				typed = typed || st.in.Target == "e2" && len(st.in.ValueOrEmpty()) >= 10001
			}
			assert.True(t, typed, "10001 characters typed into the textarea")
		}
		for range macro {
			sw.acted(true)
		}
		sw.observe(v.URL, v.Els)
	}
	assert.Equal(t, 1, long, "%v", classes)
	assert.Less(t, slices.Index(classes, personas.ClassLong1001), slices.Index(classes, personas.ClassLong10001), "%v", classes)
	assert.Less(t, slices.Index(classes, personas.ClassLong10001), slices.Index(classes, personas.ClassZero), "%v", classes)
	assert.True(t, catalogueFits(personas.ClassLong10001, els[1]))
	assert.False(t, catalogueFits(personas.ClassLong10001, els[0]))
	assert.True(t, catalogueFits(personas.ClassLong1001, els[0]))
}

// A number field alone beside its own button (a quantity a script sends)
// has the catalogue's number boundaries, where a lone text field (a
// search box) has none.
func TestCatalogueLoneNumberField(t *testing.T) {
	cov := newCoverage()
	page := &view{URL: "http://app.test/settings", Cov: cov, Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Els: []personas.Element{
		{Role: "checkbox", Name: "Notify me", Ref: "e1", InMain: true},
		{Role: "spinbutton", Name: "Estimate (hours)", Ref: "e2", InMain: true, Value: "2"},
		{Role: "button", Name: "Refresh queue", Ref: "e3", InMain: true},
	}}
	cov.noteForm(page)
	assert.True(t, cov.takes(TrickCatalogue, "/settings"))
	assert.False(t, cov.takes(TrickDouble, "/settings"), "no double submit: still one field")
	sw := newSweep()
	sw.observe(page.URL, page.Els)
	page.Sweep = sw
	m := newMember(leaning(Persona{Name: personas.Adversarial, Tricks: []Trick{TrickCatalogue}}), session.Credentials{}, nil)
	var classes []personas.InputClass
	for macro := m.plan(TrickCatalogue, page); len(macro) > 0; macro = m.plan(TrickCatalogue, page) {
		classes = append(classes, sw.pend.class)
		assert.Equal(t, `{"action":"click","target":"e3"}`, macro[len(macro)-1].in.JSON(), "sent by its own button")
		for range macro {
			sw.acted(true)
		}
		sw.observe(page.URL, page.Els)
	}
	for _, c := range []personas.InputClass{personas.ClassAboveMax, personas.ClassZero, personas.ClassNegative} {
		assert.Contains(t, classes, c)
	}

	search := &view{URL: "http://app.test/find", Cov: cov, Rand: page.Rand, Start: "/", Els: []personas.Element{
		{Role: "searchbox", Name: "Words", Ref: "e1", InMain: true},
		{Role: "button", Name: "Find", Ref: "e2", InMain: true},
	}}
	cov.noteForm(search)
	assert.False(t, cov.takes(TrickCatalogue, "/find"))
}

// A screen's own controls are played one each before a select's other
// options or a box unticked: a page of many options still has every
// control touched within its share.
func TestHereEveryControlFirst(t *testing.T) {
	v := &view{URL: "http://app.test/settings", Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Els: []personas.Element{
		{Role: "combobox", Name: "Show", Ref: "e1", InMain: true, Options: []string{"All", "Open", "Waiting", "Closed", "Mine"}},
		{Role: "checkbox", Name: "Compact rows", Ref: "e2", InMain: true},
		{Role: "radio", Name: "Newest first", Ref: "e3", InMain: true},
		{Role: "radio", Name: "Oldest first", Ref: "e4", InMain: true},
		{Role: "button", Name: "Recount", Ref: "e5", InMain: true},
	}}
	sw := newSweep()
	v.Sweep = sw
	sw.observe(v.URL, v.Els)
	m := newMember(leaning(Persona{Name: personas.PowerUser}), session.Credentials{}, nil)
	var refs []string
	for range 5 {
		st, ok := sw.here(m, v)
		require.True(t, ok)
		refs = append(refs, st.in.Target)
		require.False(t, sw.acted(true))
		sw.observe(v.URL, v.Els)
	}
	slices.Sort(refs)
	assert.Equal(t, []string{"e1", "e2", "e3", "e4", "e5"}, refs, "each control once first")
}

// A form of choices only (a list's filter and sort) is played by the
// screen's own turn: a choice, an option of its other select with it,
// and the form's submit.
func TestHereFilterFormOfChoices(t *testing.T) {
	v := &view{URL: "http://app.test/things", Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Els: []personas.Element{
		{Role: "combobox", Name: "Status", Ref: "e1", InMain: true, Options: []string{"All", "Open", "Done"}},
		{Role: "combobox", Name: "Sort", Ref: "e2", InMain: true, Options: []string{"Newest", "Name", "Budget"}},
		{Role: "button", Name: "Apply", Ref: "e3", InMain: true},
	}}
	sw := newSweep()
	v.Sweep = sw
	sw.observe(v.URL, v.Els)
	m := newMember(leaning(Persona{Name: personas.PowerUser}), session.Credentials{}, nil)
	st, ok := sw.here(m, v)
	require.True(t, ok)
	got := append(intents([]step{st}), intents(m.q)...)
	require.Len(t, got, 3, "%v", got)
	assert.Contains(t, got[0], `"action":"select_option"`)
	assert.Contains(t, got[1], `"action":"select_option"`)
	assert.Equal(t, `{"action":"click","target":"e3"}`, got[2])
	assert.Len(t, sw.pend.also, 1, "the other select's option counts as tried with it")

	// With a field to type into, the form's choices wait for the sweep.
	v2 := &view{URL: "http://app.test/things/new", Cov: newCoverage(), Rand: v.Rand, Start: "/", Els: []personas.Element{
		{Role: "textbox", Name: "Title", Ref: "e1", InMain: true},
		{Role: "combobox", Name: "Kind", Ref: "e2", InMain: true, Options: []string{"A", "B"}},
		{Role: "button", Name: "Create", Ref: "e3", InMain: true},
	}}
	sw2 := newSweep()
	v2.Sweep = sw2
	sw2.observe(v2.URL, v2.Els)
	m2 := newMember(leaning(Persona{Name: personas.PowerUser}), session.Credentials{}, nil)
	st, ok = sw2.here(m2, v2)
	if ok {
		assert.NotContains(t, st.in.JSON(), "select_option", st.why)
	}
}

// A value longer than its field's maxlength is one no user can type (the
// browser cuts typing there): it is settled without a submission, as a
// value the browser's validation stops is; in a field without maxlength
// it is played.
func TestBlockedPastMaxlength(t *testing.T) {
	v := &view{URL: "http://app.test/things/new", Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Els: []personas.Element{
		{Role: "textbox", Name: "Code", Ref: "e1", InMain: true, Flags: []string{"required", "maxlength=16"}},
		{Role: "textbox", Name: "Title", Ref: "e2", InMain: true, Flags: []string{"required"}},
		{Role: "button", Name: "Create", Ref: "e3", InMain: true},
	}}
	sw := newSweep()
	sw.observe(v.URL, v.Els)
	target := func(name string, c personas.InputClass) (personas.Target, personas.Input) {
		tg := personas.Target{State: sw.cur, Action: personas.Action{Kind: personas.ActionFill, Role: "textbox", Name: name, Class: c}}
		in, ok := sw.model.Input(tg)
		require.True(t, ok, name)
		return tg, in
	}
	tg, in := target("Code", personas.ClassLong256)
	assert.True(t, sw.blocked(v, tg, in), "256 characters in a 16-character field")
	tg, in = target("Code", personas.ClassMax)
	assert.False(t, sw.blocked(v, tg, in), "exactly its maximum is typed")
	tg, in = target("Title", personas.ClassLong256)
	assert.False(t, sw.blocked(v, tg, in), "no maxlength: the app must say")
}

// A form sent back keeps what was sent: a field holding a text the
// mission typed is typed afresh by the next submission, so one value is
// never stored twice by two submissions (a list would show a duplicate
// the app did not make); an edit form's own values are kept.
func TestStaleValuesTypedAfresh(t *testing.T) {
	sw := newSweep()
	long := strings.Repeat("Lorem ipsum dolor sit amet ", 10)
	sw.typed.add(long)
	v := &view{URL: "http://app.test/things/new", Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Start: "/", Sweep: sw, Els: []personas.Element{
		{Role: "textbox", Name: "Title", Ref: "e1", InMain: true, Value: long},
		{Role: "textbox", Name: "Place", Ref: "e2", InMain: true, Value: "Harbour Street"},
		{Role: "spinbutton", Name: "Copies", Ref: "e3", InMain: true},
		{Role: "button", Name: "Create thing", Ref: "e4", InMain: true},
	}}
	macro := fillOthers(v, v.Els[2], 2)
	got := strings.Join(intents(macro), "\n")
	assert.Contains(t, got, `"target":"e1"`, "the text sent before is replaced")
	assert.NotContains(t, got, long)
	assert.NotContains(t, got, `"target":"e2"`, "a value the mission did not type is the record's own")
}

// A filter form answers with the same list under a query (another state
// of the model): an option its submission already chose there is tried,
// so the next submission's other selects take options not chosen yet.
func TestWidenOptionsAcrossStatesOfOnePage(t *testing.T) {
	filter := func(url string, extra bool) *view {
		els := []personas.Element{
			{Role: "combobox", Name: "Status", Ref: "e1", InMain: true, Options: []string{"All", "Open", "Closed"}, Value: "All"},
			{Role: "combobox", Name: "Sort", Ref: "e2", InMain: true, Options: []string{"Newest", "Oldest", "Name"}, Value: "Newest"},
			{Role: "button", Name: "Apply", Ref: "e3", InMain: true},
			{Role: "link", Name: "Row one", Ref: "e4", URL: "/rows/1", InMain: true},
		}
		if extra {
			// The filtered list shows a control the unfiltered one has
			// not: another structure, another state.
			els = append(els, personas.Element{Role: "button", Name: "Clear filters", Ref: "e5", InMain: true})
		}
		return &view{URL: url, Els: els, Cov: newCoverage(), Rand: rand.New(rand.NewPCG(1, 1)), Start: "/"}
	}
	sw := newSweep()
	v := filter("http://app.test/rows", false)
	sw.observe(v.URL, v.Els)
	first := sw.cur
	status := personas.Action{Kind: personas.ActionSelect, Role: "combobox", Name: "Status", Class: personas.ClassOption, Arg: "Open"}
	_, also := sw.widenOptions(v, status)
	require.Len(t, also, 1)
	chosen := mustAction(also[0]).Arg
	sw.pend = &pendingTarget{from: first, key: status.Key(), left: 0, also: also}
	w := filter("http://app.test/rows?status=Open&sort="+chosen, true)
	sw.observe(w.URL, w.Els)
	require.NotEqual(t, first, sw.cur, "the filtered list is another state")

	closed := personas.Action{Kind: personas.ActionSelect, Role: "combobox", Name: "Status", Class: personas.ClassOption, Arg: "Closed"}
	wide, also := sw.widenOptions(w, closed)
	require.Len(t, also, 1)
	assert.NotEqual(t, chosen, mustAction(also[0]).Arg, "the sort chosen on the unfiltered list was tried: %v", wide)
}

package personas

import (
	"math/rand/v2"
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeBoard is a Board that records what the tricks told it.
type fakeBoard struct {
	played  map[string]bool // button names the model played
	covered map[string][]InputClass
	lists   []string
	session SessionInfo
	drops   int
	tag     int
}

func (b *fakeBoard) Value(e Element) string { return "v-" + e.Name }
func (b *fakeBoard) Tag() int               { b.tag++; return b.tag }
func (b *fakeBoard) Played(e Element) bool  { return b.played[e.Name] }
func (b *fakeBoard) ListPages() []string    { return b.lists }
func (b *fakeBoard) Session() SessionInfo   { return b.session }
func (b *fakeBoard) DropSession()           { b.drops++ }
func (b *fakeBoard) Cover(p map[string][]InputClass) {
	if b.covered == nil {
		b.covered = map[string][]InputClass{}
	}
	for k, v := range p {
		b.covered[k] = append(b.covered[k], v...)
	}
}

func actions(ms []Move) []browser.Action {
	var out []browser.Action
	for _, m := range ms {
		out = append(out, m.Intent.Action)
	}
	return out
}

func inMain(els ...Element) []Element {
	for i := range els {
		els[i].InMain = true
	}
	return els
}

// Each trick is planned once per screen or form, from the page and the
// board: a form's fill and submission, a screen's buttons one at a time
// (not the form's submit, not one the model played), the payloads'
// coverage told to the board and their list pages visited.
func TestTrickPlayerForms(t *testing.T) {
	els := inMain(
		Element{Ref: "e1", Role: "textbox", Name: "Title"},
		Element{Ref: "e2", Role: "textbox", Name: "Email"},
		Element{Ref: "e3", Role: "button", Name: "Save"},
		Element{Ref: "e4", Role: "button", Name: "Refresh"},
		Element{Ref: "e5", Role: "button", Name: "Export"},
		Element{Ref: "e6", Role: "button", Name: "Cancel"},
	)
	pg := TrickPage{URL: "http://app.test/things/new", Elements: els, Template: "/things/new"}
	b := &fakeBoard{lists: []string{"/things"}, played: map[string]bool{"Export": true}}
	tp := NewTrickPlayer(nil)

	valid := tp.Plan(TrickValidForm, pg, b)
	assert.Equal(t, []browser.Action{browser.ActFill, browser.ActFill, browser.ActClick}, actions(valid))
	assert.Equal(t, "v-Title", valid[0].Intent.ValueOrEmpty())
	assert.Equal(t, "e3", valid[2].Intent.Target, "submitted by the form's button")
	assert.Nil(t, tp.Plan(TrickValidForm, pg, b), "once per form")
	assert.True(t, tp.Done(TrickValidForm, "/things/new"))

	xss := tp.Plan(TrickXSS, pg, b)
	require.Len(t, xss, 4, "two fills, the submit, the list page")
	assert.Equal(t, collector.XSSPayload, xss[0].Intent.ValueOrEmpty())
	assert.Equal(t, "v-Email", xss[1].Intent.ValueOrEmpty(), "an email field gets a valid value")
	assert.Equal(t, browser.ActNavigate, xss[3].Intent.Action)
	assert.Equal(t, []InputClass{ClassMarkup}, b.covered["e1"])

	// Buttons: not the submit, not the one the model played, the
	// dialog's dismiss last.
	var clicked []string
	for range 4 {
		m := tp.Plan(TrickClickButtons, pg, b)
		if m == nil {
			break
		}
		clicked = append(clicked, m[0].Intent.Target)
		assert.Positive(t, m[0].Watch)
	}
	assert.Equal(t, []string{"e4", "e6"}, clicked)

	double := tp.Plan(TrickDouble, pg, b)
	require.NotEmpty(t, double)
	last := double[len(double)-1]
	assert.Equal(t, browser.ActDblclick, last.Intent.Action)
	assert.True(t, last.Hold, "the first answer held back")

	search := TrickPage{URL: "http://app.test/find", Template: "/find", Elements: inMain(Element{Ref: "s1", Role: "searchbox", Name: "Search"})}
	assert.Nil(t, tp.Plan(TrickDouble, search, b), "a search sent twice changes nothing")
	enter := tp.Plan(TrickValidForm, search, b)
	require.Len(t, enter, 2)
	assert.Equal(t, "Enter", enter[1].Intent.Key, "no button: Enter")
}

// The session is dropped once enough pages were seen and the persona's
// forms are done: with a sign-in page, every other screen is opened again
// (the page at hand first, the start page after the others) and the
// sign-in page last; without one, the pages alone. A page with buttons of
// its own has them clicked first.
func TestTrickPlayerDropSession(t *testing.T) {
	plain := TrickPage{URL: "http://app.test/b", Template: "/b", Elements: inMain(Element{Ref: "l1", Role: "link", Name: "Home", URL: "/"})}
	b := &fakeBoard{session: SessionInfo{SignIn: "/signin", Pages: []string{"/signin", "/a", "/b"}}}
	tp := NewTrickPlayer(nil)
	assert.Nil(t, tp.Plan(TrickDropSession, plain, b), "two pages besides the sign-in")
	b.session.Pages = append(b.session.Pages, "/c")
	b.session.FormsLeft = 1
	assert.Nil(t, tp.Plan(TrickDropSession, plain, b), "forms left, budget not half spent")
	b.session.Spent = 0.6
	macro := tp.Plan(TrickDropSession, plain, b)
	require.NotEmpty(t, macro)
	assert.Equal(t, browser.ActClearSiteData, macro[0].Intent.Action)
	var urls []string
	for _, m := range macro[1:] {
		urls = append(urls, m.Intent.URL)
	}
	assert.Equal(t, []string{"/b", "/a", "/c", "/signin"}, urls)
	assert.Equal(t, 1, b.drops)

	// Without a sign-in page; on a page with buttons of its own.
	withButtons := TrickPage{URL: "http://app.test/b", Template: "/b", Elements: inMain(
		Element{Ref: "b1", Role: "button", Name: "Reload data"},
		Element{Ref: "b2", Role: "button", Name: "Delete all"})}
	b2 := &fakeBoard{session: SessionInfo{Pages: []string{"/", "/a", "/b"}, Start: "http://app.test/"}}
	macro = NewTrickPlayer(nil).Plan(TrickDropSession, withButtons, b2)
	require.Len(t, macro, 5)
	assert.Equal(t, "b1", macro[1].Intent.Target, "the stale page's own button, not the destructive one")
	assert.Equal(t, []string{"/b", "/a", "/"}, []string{macro[2].Intent.URL, macro[3].Intent.URL, macro[4].Intent.URL})
}

// Bulk: select all (or every row) and the selection's action, once per
// screen; a form's checkboxes are not rows.
func TestTrickPlayerBulk(t *testing.T) {
	rows := inMain(
		Element{Ref: "a", Role: "checkbox", Name: "Select all"},
		Element{Ref: "d", Role: "button", Name: "Delete selected"},
		Element{Ref: "r1", Role: "checkbox", Name: "Select Milk"},
		Element{Ref: "r2", Role: "checkbox", Name: "Select Eggs"},
	)
	pg := TrickPage{URL: "http://app.test/", Template: "/", Elements: rows}
	tp := NewTrickPlayer(nil)
	macro := tp.Plan(TrickBulk, pg, &fakeBoard{})
	assert.Equal(t, []string{"a", "d"}, []string{macro[0].Intent.Target, macro[1].Intent.Target})
	assert.Nil(t, tp.Plan(TrickBulk, pg, &fakeBoard{}), "once per screen")

	noAll := TrickPage{URL: "http://app.test/x", Template: "/x", Elements: inMain(rows[1], rows[2], rows[3])}
	macro = tp.Plan(TrickBulk, noAll, &fakeBoard{})
	assert.Equal(t, []string{"r1", "r2", "d"}, []string{macro[0].Intent.Target, macro[1].Intent.Target, macro[2].Intent.Target})

	form := TrickPage{URL: "http://app.test/f", Template: "/f", Elements: inMain(
		Element{Ref: "n", Role: "textbox", Name: "Name"},
		Element{Ref: "c1", Role: "checkbox", Name: "Urgent"},
		Element{Ref: "c2", Role: "checkbox", Name: "Private"},
		Element{Ref: "s", Role: "button", Name: "Apply"})}
	assert.Nil(t, tp.Plan(TrickBulk, form, &fakeBoard{}), "a form's options are not a list's rows")
}

// ownSteps is a custom persona's strategy that plays every step itself.
type ownSteps struct{}

func (ownSteps) Next(Step) (browser.Intent, error) {
	return browser.Intent{Action: browser.ActScroll}, nil
}

// The run's board notes every page the run saw, also those another
// strategy played on (a custom persona's own steps, the model's way to
// its target): the dropped session reopens them.
func TestRunBoardNotesEveryPage(t *testing.T) {
	p := Persona{Name: "custom", Tricks: []Trick{TrickDropSession}, NewStrategy: func() Strategy { return ownSteps{} }}
	s := p.Strategy()
	om, ok := s.(*overModel)
	require.True(t, ok)
	for i, at := range []string{"/", "/a", "/b?page=2"} {
		els := []Element{{Role: "link", Name: "Next", Ref: "e1", URL: "/c", InMain: true}}
		in, err := s.Next(Step{N: i, Snapshot: browser.Snapshot{URL: "http://app.test" + at}, Elements: els})
		require.NoError(t, err)
		require.Equal(t, browser.ActScroll, in.Action, "the persona's own step")
	}
	assert.Equal(t, []string{"/", "/a", "/b?page=2"}, om.tricks.board.pages)
	assert.True(t, om.tricks.board.links["/c"])
}

// A form's signature is its template and its fields' roles and names:
// the rows of many records' edit forms are one form, a wizard's steps
// are not, and a link or a field outside main content does not count.
func TestFormSignature(t *testing.T) {
	edit := func(n string) []Element {
		return []Element{
			{Role: "link", Name: "Home", URL: "/"},
			{Role: "textbox", Name: "Search", Ref: "e1"},
			{Role: "textbox", Name: "Line " + n + " title", Ref: "e2", InMain: true},
			{Role: "combobox", Name: "Status", Ref: "e3", InMain: true},
			{Role: "button", Name: "Save", Ref: "e4", InMain: true},
		}
	}
	a := FormSignature("/items/{id}/edit", edit("3"))
	assert.Equal(t, "/items/{id}/edit|textbox:Line # title|combobox:Status", a)
	assert.Equal(t, a, FormSignature("/items/{id}/edit", edit("12")))
	step2 := []Element{{Role: "radio", Name: "Express", Ref: "e1", InMain: true}}
	assert.NotEqual(t, a, FormSignature("/items/{id}/edit", step2))
}

// DrawTag never gives a number twice, widens its range when three digits
// are crowded, and depends only on the source it is given.
func TestDrawTag(t *testing.T) {
	used := map[int]bool{}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		before := len(used)
		n := DrawTag(r, used)
		require.Equal(t, before+1, len(used), "a new number each time: %d", n)
		require.GreaterOrEqual(t, n, 10)
	}
	wide := 0
	for n := range used {
		if n >= 1000 {
			wide++
		}
	}
	assert.Greater(t, wide, 1000, "past 990 three-digit numbers, wider ones")
	again := map[int]bool{}
	r1, r2 := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	assert.Equal(t, DrawTag(r1, again), DrawTag(r2, map[int]bool{}), "same source, same tag")
}

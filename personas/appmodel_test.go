package personas

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestURLTemplate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/items/42/edit?tab=x", "/items/{id}/edit?tab="},
		{"http://127.0.0.1:8080/items/42/edit?tab=x", "/items/{id}/edit?tab="},
		{"https://host/", "/"},
		{"https://host", "/"},
		{"/a?b=2&a=1&b=3", "/a?a=&b="},
		{"/users/550e8400-e29b-41d4-a716-446655440000", "/users/{id}"},
		{"/objects/5f3a9c2b1d4e", "/objects/{id}"},
		{"/files/deadbeef", "/files/deadbeef"},
		{"/s/aZ3kf9Qx01LmNpQr", "/s/{id}"},
		{"/posts/blue-shirt-42/comments/7", "/posts/{id}/comments/{id}"},
		{"/api/v2/status", "/api/v2/status"},
		{"/#/items/42?tab=2", "/#/items/{id}?tab="},
		{"/app#!/orders/17", "/app#!/orders/{id}"},
		{"/page#section-3", "/page"},
		{"?page=2", "?page="},
		{"#/settings", "#/settings"},
		{"", ""},
		{"%zz", "%zz"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, URLTemplate(tc.in))
		})
	}
	assert.LessOrEqual(t, len([]rune(URLTemplate("/"+strings.Repeat("a", 5000)))), 300)
}

// listPage is a list screen with rows of data and a toolbar.
func listPage(rows ...string) []Element {
	els := []Element{
		{Role: "link", Name: "Home", Ref: "e1", URL: "/"},
		{Role: "searchbox", Name: "Search", Ref: "e2", InMain: true},
		{Role: "button", Name: "New", Ref: "e3", InMain: true},
		{Role: "heading", Name: "Items", Ref: "e4", InMain: true},
	}
	for i, r := range rows {
		els = append(els,
			Element{Role: "link", Name: r, Ref: fmt.Sprintf("r%d", i), URL: fmt.Sprintf("/items/%d", 100+i), InMain: true},
			Element{Role: "button", Name: "Delete " + r, Ref: fmt.Sprintf("d%d", i), InMain: true},
			Element{Role: "checkbox", Name: fmt.Sprintf("Select row %d", i+1), Ref: fmt.Sprintf("c%d", i), InMain: true},
			Element{Role: "cell", Name: r + " details", Ref: fmt.Sprintf("x%d", i), InMain: true})
	}
	return els
}

func TestStateIdentity(t *testing.T) {
	base := listPage("Alpha", "Beta")
	modal := append(slices.Clone(base),
		Element{Role: "dialog", Name: "Confirm", Ref: "m1"},
		Element{Role: "button", Name: "Cancel", Ref: "m2"}, Element{Role: "button", Name: "OK", Ref: "m3"})
	disabled := slices.Clone(base)
	disabled[2].Flags = []string{"disabled"}
	filled := slices.Clone(base)
	filled[1].Value = "typed"
	tests := []struct {
		name      string
		url       string
		els       []Element
		sameAsTop bool
	}{
		{"same screen", "/items?page=1", base, true},
		{"other page of the same list", "http://h/items?page=7", listPage("Gamma", "Delta", "Epsilon"), true},
		{"one row", "/items?page=2", listPage("Zeta"), true},
		{"no rows", "/items?page=2", listPage(), false},
		{"a modal opened", "/items?page=1", modal, false},
		{"a control disabled", "/items?page=1", disabled, true},
		{"a value typed", "/items?page=1", filled, true},
		{"a panel revealed", "/items?page=1", append(slices.Clone(base), Element{Role: "textbox", Name: "Filter by tag", InMain: true}), false},
		{"digits in names", "/items?page=1", []Element{base[0], base[1], base[2], {Role: "button", Name: "Page 12"}}, false},
		{"other path", "/archive?page=1", base, false},
		{"other query key", "/items?sort=1", base, false},
	}
	m := NewModel(Limits{})
	top := m.Observe("/items?page=1", base)
	require.NotEmpty(t, top)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := m.Observe(tc.url, tc.els)
			require.NotEmpty(t, id)
			if tc.sameAsTop {
				assert.Equal(t, top, id)
			} else {
				assert.NotEqual(t, top, id)
			}
		})
	}
	// Rows of one and of three, with other data: the same state.
	assert.Equal(t, m.Observe("/items?page=2", listPage("Zeta")), m.Observe("/items?page=3", listPage("Eta", "Theta", "Iota")))
	// numbers in names do not make states
	a := m.Observe("/p", []Element{{Role: "button", Name: "Page 2"}})
	b := m.Observe("/p", []Element{{Role: "button", Name: "Page 31"}})
	assert.Equal(t, a, b)
	st, ok := m.State(top)
	require.True(t, ok)
	assert.Equal(t, 8, st.Visits)
	assert.Equal(t, "/items?page=1", st.URL)
	assert.Equal(t, "/items?page=", st.Template)
}

func keysOf(m *Model, id StateID) []string {
	var out []string
	for _, t := range m.States[id].Targets {
		out = append(out, string(t.Key()))
	}
	return out
}

func TestObserveActions(t *testing.T) {
	m := NewModel(Limits{})
	els := []Element{
		{Role: "link", Name: "Docs", URL: "/docs"},
		{Role: "link", Name: "Row 1", URL: "/items/1"},
		{Role: "link", Name: "Row 2", URL: "/items/2"},
		{Role: "button", Name: "Save"},
		{Role: "button", Name: "Menu", Flags: []string{"expanded"}},
		{Role: "button", Name: "Later", Flags: []string{"disabled"}},
		{Role: "checkbox", Name: "Remember"},
		{Role: "radio", Name: "Fast"},
		{Role: "combobox", Name: "Size", Options: []string{"S", "M"}},
		{Role: "option", Name: "S"},
		{Role: "spinbutton", Name: "Count"},
		{Role: "slider", Name: "Volume"},
		{Role: "heading", Name: "Title"},
	}
	id := m.Observe("/form", els)
	keys := keysOf(m, id)
	want := []string{
		`click link "Docs"`,
		`click link →"/items/{id}"`,
		`click button "Save"`, `dblclick button "Save"`,
		`hover button "Menu"`, `click button "Menu"`, `dblclick button "Menu"`,
		`check checkbox "Remember" :toggle_on`, `uncheck checkbox "Remember" :toggle_off`,
		`check radio "Fast" :option`,
		`select combobox "Size" :option ="S"`, `select combobox "Size" :option ="M"`,
	}
	for _, c := range Catalogue(Field{Kind: FieldNumber, Name: "Count"}) {
		want = append(want, `fill spinbutton "Count" :`+string(c.Class))
	}
	want = append(want, `press spinbutton "Count" ="Enter"`,
		`press slider "Volume" ="Home"`, `press slider "Volume" ="End"`, `press slider "Volume" ="ArrowRight"`, `press slider "Volume" ="ArrowLeft"`,
		`press ="Escape"`)
	assert.Equal(t, want, keys)

	// The disabled button gets its targets once it is seen enabled, new
	// options of the select get theirs.
	els[5].Flags = nil
	els[8].Options = []string{"S", "M", "L"}
	require.Equal(t, id, m.Observe("/form", els))
	keys = keysOf(m, id)
	assert.Contains(t, keys, `click button "Later"`)
	assert.Contains(t, keys, `select combobox "Size" :option ="L"`)
	assert.Len(t, keys, len(want)+3)
}

func TestActionKeyRoundTrip(t *testing.T) {
	actions := []Action{
		{Kind: ActionClick, Role: "button", Name: "Save"},
		{Kind: ActionClick, Role: "button"},
		{Kind: ActionClick, Role: "link", Href: "/items/{id}"},
		{Kind: ActionFill, Role: "textbox", Name: `Say "hi" → there :x =y`, Class: ClassLong256},
		{Kind: ActionSelect, Role: "combobox", Name: "Sort", Class: ClassOption, Arg: `A "quoted" = option`},
		{Kind: ActionPress, Arg: "Escape"},
		{Kind: ActionNavigate, Arg: "/items?page=2#top"},
		{Kind: ActionCheck, Role: "radio", Name: "Fast", Class: ClassOption},
	}
	for _, a := range actions {
		t.Run(string(a.Key()), func(t *testing.T) {
			got, err := ParseActionKey(a.Key())
			require.NoError(t, err)
			assert.Equal(t, a, got)
			assert.NotEmpty(t, a.String())
		})
	}
	for _, bad := range []ActionKey{"", `click button "unterminated`, `click button "a" junk`, `fill textbox "a" ="x`, `click button →bad`} {
		_, err := ParseActionKey(bad)
		assert.Error(t, err, string(bad))
	}
}

// A hand-built app: home → list → item; the item has a form; the list a
// dialog. Each state has a few controls.
type handApp struct {
	m                     *Model
	home, list, item, dlg StateID
}

func newHandApp(t *testing.T) handApp {
	t.Helper()
	m := NewModel(Limits{})
	a := handApp{m: m}
	a.home = m.Observe("/", []Element{{Role: "link", Name: "List", URL: "/list"}})
	a.list = m.Observe("/list", []Element{{Role: "link", Name: "Home", URL: "/"}, {Role: "link", Name: "One", URL: "/item/1"}, {Role: "button", Name: "Remove"}})
	a.item = m.Observe("/item/1", []Element{{Role: "link", Name: "Back", URL: "/list"}, {Role: "textbox", Name: "Title"}, {Role: "button", Name: "Save"}})
	a.dlg = m.Observe("/list", []Element{{Role: "link", Name: "Home", URL: "/"}, {Role: "link", Name: "One", URL: "/item/1"},
		{Role: "button", Name: "Remove"}, {Role: "dialog", Name: "Sure?"}, {Role: "button", Name: "Yes"}})
	m.Transition("", NavigateKey("/"), a.home, 0)
	m.Transition(a.home, `click link "List"`, a.list, 2)
	m.Transition(a.list, `click link →"/item/{id}"`, a.item, 1)
	m.Transition(a.list, `click button "Remove"`, a.dlg, 0)
	m.Transition(a.item, `click link "Back"`, a.list, 0)
	return a
}

// tryAll marks every target of a state tried (as the explorer would,
// with self-transitions).
func tryAll(m *Model, id StateID) {
	for _, t := range m.States[id].Targets {
		if t.Status == TargetUntried {
			m.Transition(id, t.Key(), id, 0)
		}
	}
}

func TestNextChoiceOrder(t *testing.T) {
	a := newHandApp(t)
	m := a.m
	// In the current state first: the list's untried targets.
	tg, path, ok := m.Next(a.list, nil)
	require.True(t, ok)
	assert.Equal(t, a.list, tg.State)
	assert.Nil(t, path)
	assert.Equal(t, TargetUntried, tg.Status)

	// Valid input before hostile classes, clicks before the keyboard.
	tryAll(m, a.home)
	tg, path, ok = m.Next(a.item, nil)
	require.True(t, ok)
	assert.Empty(t, path)
	assert.Contains(t, []ActionKey{`fill textbox "Title" :valid`, `click button "Save"`}, tg.Key())

	// prefer: −Inf skips, a bonus wins.
	tg, _, ok = m.Next(a.item, func(t Target) float64 {
		if t.Action.Class == ClassMarkup {
			return 10
		}
		return 0
	})
	require.True(t, ok)
	assert.Equal(t, ActionKey(`fill textbox "Title" :markup`), tg.Key())
	tg, _, ok = m.Next(a.item, func(t Target) float64 {
		if t.Action.Role == "textbox" || t.Action.Role == "button" {
			return math.Inf(-1)
		}
		return math.NaN()
	})
	require.True(t, ok)
	assert.NotEqual(t, "textbox", tg.Action.Role)
	assert.NotEqual(t, "button", tg.Action.Role)

	// A state whose actions led to new states and endpoints wins over a
	// fresh one at the same distance... scored by yield.
	s := m.States[a.list]
	assert.Equal(t, 1+1+1, s.Yield, "two new states and one endpoint")
}

func TestNextShortestPath(t *testing.T) {
	a := newHandApp(t)
	m := a.m
	for _, id := range []StateID{a.home, a.list} {
		tryAll(m, id)
	}
	// From home, nothing left in home or list: the item (two hops) and
	// the dialog (two hops: home → list → dialog).
	tg, path, ok := m.Next(a.home, nil)
	require.True(t, ok)
	require.Len(t, path, 2)
	assert.Equal(t, ActionKey(`click link "List"`), path[0])
	assert.Contains(t, []StateID{a.item, a.dlg}, tg.State)
	if tg.State == a.item {
		assert.Equal(t, ActionKey(`click link →"/item/{id}"`), path[1])
	} else {
		assert.Equal(t, ActionKey(`click button "Remove"`), path[1])
	}

	// From the item with its own targets done: back to the list (one hop),
	// then the dialog (two hops) beats navigating home (nothing there).
	tryAll(m, a.item)
	tg, path, ok = m.Next(a.item, nil)
	require.True(t, ok)
	assert.Equal(t, a.dlg, tg.State)
	assert.Equal(t, []ActionKey{`click link "Back"`, `click button "Remove"`}, path)

	// From an unknown state: through the entry.
	tg, path, ok = m.Next("nowhere", nil)
	require.True(t, ok)
	assert.Equal(t, a.dlg, tg.State)
	assert.Equal(t, []ActionKey{NavigateKey("/"), `click link "List"`, `click button "Remove"`}, path)

	// A failed step is forgotten: the way to the dialog is gone.
	m.Fail(a.list, `click button "Remove"`)
	_, _, ok = m.Next(a.home, nil)
	assert.False(t, ok, "the dialog is unreachable now")
	assert.True(t, m.Exhausted())
	assert.Equal(t, TargetFailed, m.States[a.list].Targets[m.States[a.list].target(`click button "Remove"`)].Status)
}

func TestExhausted(t *testing.T) {
	a := newHandApp(t)
	m := a.m
	assert.False(t, m.Exhausted())
	for _, id := range []StateID{a.home, a.list, a.item} {
		tryAll(m, id)
		assert.False(t, m.Exhausted(), "the dialog is left")
	}
	tryAll(m, a.dlg)
	assert.True(t, m.Exhausted())
	_, _, ok := m.Next(a.home, nil)
	assert.False(t, ok)

	// A state nothing leads to does not hold exhaustion back.
	m.Observe("/orphan", []Element{{Role: "button", Name: "Lost"}})
	assert.True(t, m.Exhausted())
	assert.Contains(t, strings.Join(m.Untried(0), "\n"), "(no known way there)")
	assert.True(t, NewModel(Limits{}).Exhausted(), "nothing discovered")
}

func TestModelJSONRoundTrip(t *testing.T) {
	a := newHandApp(t)
	tryAll(a.m, a.home)
	a.m.Fail(a.item, `click button "Save"`)
	raw, err := json.Marshal(a.m)
	require.NoError(t, err)
	var back Model
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, a.m, &back)
	assert.Equal(t, a.m.Stats(), back.Stats())
	t1, p1, ok1 := a.m.Next(a.home, nil)
	t2, p2, ok2 := back.Next(a.home, nil)
	assert.Equal(t, ok1, ok2)
	assert.Equal(t, t1, t2)
	assert.Equal(t, p1, p2)
	// The resumed model goes on: the same screen is the same state.
	assert.Equal(t, a.item, back.Observe("/item/9", []Element{{Role: "link", Name: "Back", URL: "/list"}, {Role: "textbox", Name: "Title"}, {Role: "button", Name: "Save"}}))
	// A target on its own keeps its state.
	rawT, err := json.Marshal(t1)
	require.NoError(t, err)
	var tb Target
	require.NoError(t, json.Unmarshal(rawT, &tb))
	assert.Equal(t, t1, tb)
	assert.Contains(t, string(rawT), `"key":"`)
	// A corrupt checkpoint is an error, not a panic.
	var bad Model
	assert.Error(t, json.Unmarshal([]byte(`{"states":{"s1":{"id":"s1","targets":[{"key":"click button \"x"}]}}}`), &bad))
	assert.Error(t, json.Unmarshal([]byte(`{"states":{"s1":{"id":"s1","targets":[7]}}}`), &bad))

	var zero Model
	require.NoError(t, json.Unmarshal([]byte(`{}`), &zero))
	assert.NotEmpty(t, zero.Observe("/", []Element{{Role: "button", Name: "Go"}}), "a decoded empty model works")
}

func TestModelCaps(t *testing.T) {
	m := NewModel(Limits{States: 3, TargetsPerState: 5, Options: 2, ControlsPerState: 3, Edges: 1})
	var ids []StateID
	for i := range 5 {
		ids = append(ids, m.Observe(fmt.Sprintf("/s%d", i), []Element{{Role: "button", Name: "A"}}))
	}
	assert.Empty(t, ids[3])
	assert.Empty(t, ids[4])
	assert.Equal(t, 2, m.Truncated.States)
	assert.Equal(t, ids[0], m.Observe("/s0", []Element{{Role: "button", Name: "A"}}), "a known state is still found when full")

	m2 := NewModel(Limits{TargetsPerState: 5, Options: 2, ControlsPerState: 3})
	id := m2.Observe("/", []Element{
		{Role: "combobox", Name: "Pick", Options: []string{"a", "b", "c", "d"}},
		{Role: "button", Name: "One"}, {Role: "button", Name: "Two"}, {Role: "button", Name: "Three"}, {Role: "button", Name: "Four"},
	})
	st := m2.States[id]
	assert.Len(t, st.Controls, 3)
	assert.Equal(t, 2, m2.Truncated.Controls)
	assert.Len(t, st.Targets, 5)
	assert.Equal(t, 2, m2.Truncated.Options)
	assert.Positive(t, m2.Truncated.Targets)
	assert.Equal(t, m2.Truncated, m2.Stats().Truncated)
	assert.Equal(t, fmt.Sprintf("limits left out 2 controls, %d targets, 2 options", m2.Truncated.Targets), m2.Truncated.String())
	untried := m2.Untried(0)
	assert.Equal(t, m2.Truncated.String(), untried[len(untried)-1])
	assert.Contains(t, m2.Mermaid(), "%% limits left out")
	assert.Empty(t, Truncated{}.String())
	assert.Equal(t, 2+m2.Truncated.Targets+2, m2.Truncated.Total())

	m3 := NewModel(Limits{Edges: 1})
	x := m3.Observe("/x", []Element{{Role: "link", Name: "Y", URL: "/y"}, {Role: "link", Name: "Z", URL: "/z"}})
	y := m3.Observe("/y", nil)
	z := m3.Observe("/z", nil)
	m3.Transition(x, `click link "Y"`, y, 0)
	m3.Transition(x, `click link "Z"`, z, 0)
	assert.Equal(t, 1, m3.Stats().Transitions)
	assert.Equal(t, 1, m3.Truncated.Edges)
	assert.Equal(t, 2, m3.Stats().Tried, "a truncated transition still marks its target")
}

func TestNextPrefersNewAndFruitfulStates(t *testing.T) {
	buttons := func(names ...string) []Element {
		var els []Element
		for _, n := range names {
			els = append(els, Element{Role: "button", Name: n})
		}
		return els
	}
	tests := []struct {
		name string
		// setup tries targets in a and b; the winner's state is returned.
		setup func(m *Model, a, b, c StateID) StateID
	}{
		{"an untouched state before a tried one", func(m *Model, a, b, _ StateID) StateID {
			m.Transition(a, `click button "X"`, a, 0)
			return b
		}},
		{"a state whose action led to a new state", func(m *Model, a, b, c StateID) StateID {
			m.Transition(a, `click button "X"`, c, 0)
			m.Transition(b, `click button "P"`, b, 0)
			return a
		}},
		{"a state whose action found new endpoints", func(m *Model, a, b, _ StateID) StateID {
			m.Transition(a, `click button "X"`, a, 0)
			m.Transition(b, `click button "P"`, b, 3)
			return b
		}},
		{"a state whose action ran new code (Credit), endpoints unchanged", func(m *Model, a, b, _ StateID) StateID {
			m.Transition(a, `click button "X"`, a, 0)
			m.Transition(b, `click button "P"`, b, 0)
			before := m.Endpoints
			m.Credit(b, `click button "P"`, 2)
			m.Credit(b, `click button "nope"`, 5) // no such target
			m.Credit("no-such-state", `click button "P"`, 5)
			assert.Equal(t, before, m.Endpoints)
			return b
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewModel(Limits{})
			hub := m.Observe("/hub", []Element{{Role: "link", Name: "A", URL: "/a"}, {Role: "link", Name: "B", URL: "/b"}})
			a := m.Observe("/a", buttons("X", "Y"))
			b := m.Observe("/b", buttons("P", "Q"))
			c := m.Observe("/c", buttons("Z"))
			m.Transition(hub, `click link "A"`, a, 0)
			m.Transition(hub, `click link "B"`, b, 0)
			tryAll(m, hub)
			want := tc.setup(m, a, b, c)
			tg, path, ok := m.Next(hub, nil)
			require.True(t, ok)
			assert.Equal(t, want, tg.State, "chose %s", tg.Key())
			assert.Len(t, path, 1)
		})
	}
}

func TestLocateAndInput(t *testing.T) {
	els := []Element{
		{Role: "link", Name: "Gamma", Ref: "e1", URL: "/items/3"},
		{Role: "button", Name: "Delete Gamma", Ref: "e2", Flags: []string{"disabled"}},
		{Role: "button", Name: "Delete  Gamma", Ref: "e3"},
		{Role: "textbox", Name: "Price", Ref: "e4"},
		{Role: "combobox", Name: "Sort", Ref: "e5", Options: []string{"Newest", "Oldest"}},
	}
	m := NewModel(Limits{})
	id := m.Observe("/items", els)
	for _, tc := range []struct {
		key ActionKey
		ref string
	}{
		{`click link →"/items/{id}"`, "e1"},
		{`press textbox "Price" ="Enter"`, "e4"},
		{`select combobox "Sort" :option ="Oldest"`, "e5"},
		{`press ="Escape"`, ""},
	} {
		a, err := ParseActionKey(tc.key)
		require.NoError(t, err)
		e, ok := Locate(a, els)
		assert.True(t, ok, string(tc.key))
		assert.Equal(t, tc.ref, e.Ref)
	}
	_, ok := Locate(Action{Kind: ActionClick, Role: "button", Name: "Missing"}, els)
	assert.False(t, ok)

	var fill, sel Target
	for _, tg := range m.States[id].Targets {
		switch tg.Key() {
		case `fill textbox "Price" :negative`:
			fill = tg
		case `select combobox "Sort" :option ="Oldest"`:
			sel = tg
		}
	}
	in, ok := m.Input(fill)
	require.True(t, ok)
	assert.Equal(t, Input{Class: ClassNegative, Value: "-1", Valid: false}, Input{Class: in.Class, Value: in.Value, Valid: in.Valid})
	in, ok = m.Input(sel)
	require.True(t, ok)
	assert.Equal(t, "Oldest", in.Value)
	_, ok = m.Input(Target{State: id, Action: Action{Kind: ActionClick, Role: "link", Href: "/items/{id}"}})
	assert.False(t, ok)
}

func TestReports(t *testing.T) {
	a := newHandApp(t)
	m := a.m
	mm := m.Mermaid()
	assert.True(t, strings.HasPrefix(mm, "flowchart LR\n"))
	assert.Contains(t, mm, `n1["/list 2/5"]`, "template, tried/targets")
	assert.Contains(t, mm, `["/list (2) 0/7"]`, "two states share a template")
	assert.Contains(t, mm, `-->|"click link to /item/{id}"|`)
	assert.NotContains(t, mm, `"Sure?"`)
	assert.Equal(t, 4, strings.Count(mm, "\"]\n"), "one node per state")
	assert.Equal(t, 4, strings.Count(mm, "-->"), "one edge per transition")

	st := m.Stats()
	assert.Equal(t, Stats{States: 4, Actions: st.Actions, Targets: st.Targets, Tried: 4, Transitions: 4, Entries: 1, Endpoints: 3}, st)
	// home: click, Escape; list: 3 clicks, dblclick, Escape; item: click,
	// fill, press, click, dblclick, Escape; dialog: list's 4, click, dblclick, Escape
	assert.Equal(t, 2+5+6+7, st.Actions)

	all := m.Untried(0)
	assert.Len(t, all, st.Targets-st.Tried)
	three := m.Untried(3)
	require.Len(t, three, 4)
	assert.Equal(t, all[:3], three[:3])
	assert.Equal(t, fmt.Sprintf("… and %d more untried targets", len(all)-3), three[3])
	assert.Contains(t, strings.Join(all, "\n"), `/item/{id} [`+string(a.item)+`]: fill textbox "Title" with long_10001`)
}

// benchModel is a model of n states in a chain, each with a form, all
// tried but the last.
func benchModel(n int) (*Model, []StateID, [][]Element) {
	m := NewModel(Limits{})
	ids := make([]StateID, n)
	pages := make([][]Element, n)
	for i := range n {
		pages[i] = []Element{
			{Role: "link", Name: fmt.Sprintf("Section %c%c", 'a'+i%26, 'a'+i/26%26), URL: fmt.Sprintf("/s%d", i+1)},
			{Role: "textbox", Name: "Title"}, {Role: "textbox", Name: "Email"}, {Role: "spinbutton", Name: "Quantity"},
			{Role: "combobox", Name: "Kind", Options: []string{"One", "Two", "Three"}},
			{Role: "checkbox", Name: "Agree"}, {Role: "button", Name: "Save"},
		}
		ids[i] = m.Observe(fmt.Sprintf("/section/%c%c", 'a'+i%26, 'a'+i/26%26), pages[i])
	}
	for i := range n - 1 {
		m.Transition(ids[i], ActionKey(fmt.Sprintf(`click link %q`, pages[i][0].Name)), ids[i+1], 0)
		tryAll(m, ids[i])
	}
	return m, ids, pages
}

func BenchmarkObserveNext(b *testing.B) {
	m, ids, pages := benchModel(500)
	if len(m.States) != 500 {
		b.Fatalf("%d states", len(m.States))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % 500
		id := m.Observe(fmt.Sprintf("/section/%c%c", 'a'+k%26, 'a'+k/26%26), pages[k])
		if id != ids[k] {
			b.Fatal("state changed")
		}
		if _, _, ok := m.Next(id, nil); !ok {
			b.Fatal("nothing next")
		}
	}
}

func TestClone(t *testing.T) {
	a := newHandApp(t)
	pick := func(opts ...string) []Element { return []Element{{Role: "combobox", Name: "Tag", Options: opts}} }
	sel := a.m.Observe("/pick", pick("x"))
	before, err := json.Marshal(a.m)
	require.NoError(t, err)
	c := a.m.Clone()
	assert.Equal(t, a.m, c)
	tryAll(c, a.item)
	c.Observe("/item/2", []Element{{Role: "link", Name: "Back", URL: "/list"}, {Role: "textbox", Name: "Title"},
		{Role: "button", Name: "Save"}, {Role: "combobox", Name: "Tag", Options: []string{"x"}}})
	c.Observe("/list", []Element{{Role: "link", Name: "Home", URL: "/"}, {Role: "link", Name: "One", URL: "/item/1"},
		{Role: "button", Name: "Remove"}, {Role: "dialog", Name: "Sure?"}, {Role: "button", Name: "Yes"}, {Role: "button", Name: "No"}})
	c.Fail(a.list, `click button "Remove"`)
	require.Equal(t, sel, c.Observe("/pick", pick("x", "y")))
	assert.Equal(t, []string{"x", "y"}, c.States[sel].Controls[0].Field.Options)
	after, err := json.Marshal(a.m)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after), "the original did not change")
	assert.NotEqual(t, a.m.Stats(), c.Stats())
}

// A hostile page cannot blow the model up, and Observe leaves the
// caller's elements alone.
func TestObserveHostile(t *testing.T) {
	m := NewModel(Limits{})
	var els []Element
	for i := range 5000 {
		els = append(els, Element{Role: "button", Name: fmt.Sprintf("b%c%c%c", 'a'+i%26, 'a'+i/26%26, 'a'+i/676%26)})
	}
	id := m.Observe("/many", els)
	require.NotEmpty(t, id)
	assert.Len(t, m.States[id].Controls, 200)
	assert.Equal(t, 4800, m.Truncated.Controls)
	assert.LessOrEqual(t, len(m.States[id].Targets), 400)

	long := strings.Repeat("ж", 1<<20)
	opts := make([]string, 100, 200)
	for i := range opts {
		opts[i] = fmt.Sprintf("o%c%c", 'a'+i%26, 'a'+i/26)
	}
	var sel []Element
	for range 100 {
		sel = append(sel, Element{Role: "combobox", Name: "Same", Options: opts})
	}
	sel = append(sel, Element{Role: "textbox", Name: long}, Element{Role: "combobox", Name: "Odd", Options: []string{long, "ok"}})
	id = m.Observe("/sel", sel)
	st := m.States[id]
	assert.Len(t, st.Controls[0].Field.Options, 30)
	assert.LessOrEqual(t, len([]rune(st.Controls[1].Name)), 60)
	assert.LessOrEqual(t, len([]rune(st.Controls[1].Field.Name)), 200)
	assert.Equal(t, []string{"ok"}, st.Controls[2].Field.Options, "an over-long option is left out")
	assert.Len(t, opts, 100, "the caller's options are untouched")

	for _, u := range []string{"", "%%%", "javascript:alert(1)", "http://[::1", "/\x00/\n"} {
		assert.NotPanics(t, func() { m.Observe(u, []Element{{Role: ""}, {Role: "BUTTON?", Name: "x"}, {Role: "link", URL: "%zz"}}) }, u)
	}
	raw, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Less(t, len(raw), 1<<20, "bounded size")
}

func TestNextScreenBeforeChrome(t *testing.T) {
	m := NewModel(Limits{})
	els := []Element{{Role: "link", Name: "Home", URL: "/"}, {Role: "link", Name: "Detail", URL: "/detail", InMain: true}}
	id := m.Observe("/page", els)
	tg, _, ok := m.Next(id, nil)
	require.True(t, ok)
	assert.Equal(t, ActionKey(`click link "Detail"`), tg.Key(), "the screen's own link first")
	// Without a main landmark document order decides.
	els[1].InMain = false
	id = m.Observe("/other", els)
	tg, _, ok = m.Next(id, nil)
	require.True(t, ok)
	assert.Equal(t, ActionKey(`click link "Home"`), tg.Key())
}

func TestScore(t *testing.T) {
	a := newHandApp(t)
	m := a.m
	tg := func(k ActionKey) Target {
		st := m.States[a.item]
		return st.Targets[st.target(k)]
	}
	valid, long := tg(`fill textbox "Title" :valid`), tg(`fill textbox "Title" :long_10001`)
	assert.Greater(t, m.Score(valid), m.Score(long))
	assert.Greater(t, m.Score(tg(`click button "Save"`)), m.Score(tg(`dblclick button "Save"`)))
	assert.Zero(t, m.Score(Target{State: "nowhere"}))
	before := m.Score(valid)
	m.Transition(a.item, `click button "Save"`, a.item, 2) // the form found endpoints
	assert.Greater(t, m.Score(valid), before, "a fruitful state scores higher")
}

func ExampleModel() {
	m := NewModel(Limits{})
	home := m.Observe("http://app.test/", []Element{
		{Role: "link", Name: "About", URL: "/about"},
		{Role: "link", Name: "Orders", URL: "/orders", InMain: true},
	})
	m.Transition("", NavigateKey("/"), home, 0)
	t, path, _ := m.Next(home, nil)
	fmt.Println(t.Action, len(path))

	orders := m.Observe("http://app.test/orders?page=2", []Element{
		{Role: "link", Name: "Order 17", URL: "/orders/17", InMain: true},
		{Role: "link", Name: "Order 18", URL: "/orders/18", InMain: true},
		{Role: "spinbutton", Name: "Quantity", InMain: true},
	})
	m.Transition(home, t.Key(), orders, 1)
	st, _ := m.State(orders)
	fmt.Println(st.Template, len(st.Controls))
	t, _, _ = m.Next(orders, func(t Target) float64 {
		if t.Action.Class == ClassNegative {
			return 5 // this persona likes negative numbers
		}
		return 0
	})
	in, _ := m.Input(t)
	fmt.Printf("%s: %q valid=%v\n", t.Action, in.Value, in.Valid)
	s := m.Stats()
	fmt.Println(s.States, s.Tried, s.Transitions, s.Endpoints, m.Exhausted())
	// Output:
	// click link "Orders" 0
	// /orders?page= 2
	// fill spinbutton "Quantity" with negative: "-1" valid=false
	// 2 1 1 1 false
}

func ExampleCatalogue() {
	f := FieldOf(Element{Role: "spinbutton", Name: "Guests"}, map[string]string{"min": "1", "max": "8", "required": ""})
	for _, in := range Catalogue(f) {
		fmt.Printf("%s %q %v\n", in.Class, in.Value, in.Valid)
	}
	fmt.Println(ValidValue(Field{Kind: FieldText, Name: "Email address"}))
	// Output:
	// valid "4" true
	// empty "" false
	// below_min "0" false
	// min "1" true
	// max "8" true
	// above_max "9" false
	// zero "0" false
	// negative "-1" false
	// huge "99999999999999999999" false
	// decimal "4.5" false
	// qa.tester@example.com
}

// BenchmarkModelJSON measures a checkpoint of the 500-state model.
func BenchmarkModelJSON(b *testing.B) {
	m, _, _ := benchModel(500)
	raw, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		raw, _ = json.Marshal(m)
		var back Model
		if err := json.Unmarshal(raw, &back); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(raw)), "json-bytes")
	b.ReportMetric(float64(m.Stats().Targets), "targets")
}

func TestActionIntents(t *testing.T) {
	el := Element{Role: "checkbox", Name: "Agree", Ref: "e7"}
	checked := Element{Role: "checkbox", Name: "Agree", Ref: "e7", Flags: []string{"checked"}}
	click := browser.Intent{Action: browser.ActClick, Target: "e7"}
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		a    Action
		el   Element
		in   Input
		want []browser.Intent
	}{
		{"click", Action{Kind: ActionClick, Role: "button"}, el, Input{}, []browser.Intent{click}},
		{"dblclick", Action{Kind: ActionDblClick, Role: "button"}, el, Input{}, []browser.Intent{{Action: browser.ActDblclick, Target: "e7"}}},
		{"hover", Action{Kind: ActionHover, Role: "menuitem"}, el, Input{}, []browser.Intent{{Action: browser.ActHover, Target: "e7"}}},
		{"fill", Action{Kind: ActionFill, Role: "textbox", Class: ClassEmpty}, el, Input{Class: ClassEmpty, Value: ""},
			[]browser.Intent{{Action: browser.ActFill, Target: "e7", Value: str("")}}},
		{"select", Action{Kind: ActionSelect, Role: "combobox", Class: ClassOption, Arg: "Blue"}, el, Input{},
			[]browser.Intent{{Action: browser.ActSelectOption, Target: "e7", Value: str("Blue")}}},
		{"check an unchecked box", Action{Kind: ActionCheck, Role: "checkbox"}, el, Input{}, []browser.Intent{click}},
		{"check a checked box", Action{Kind: ActionCheck, Role: "checkbox"}, checked, Input{}, []browser.Intent{click, click}},
		{"uncheck a checked box", Action{Kind: ActionUncheck, Role: "checkbox"}, checked, Input{}, []browser.Intent{click}},
		{"uncheck an unchecked box", Action{Kind: ActionUncheck, Role: "checkbox"}, el, Input{}, []browser.Intent{click, click}},
		{"check a checked radio", Action{Kind: ActionCheck, Role: "radio"}, Element{Role: "radio", Name: "Owner", Ref: "e7", Flags: []string{"checked"}}, Input{}, []browser.Intent{click}},
		{"press in a field", Action{Kind: ActionPress, Role: "textbox", Arg: "Enter"}, el, Input{}, []browser.Intent{{Action: browser.ActPress, Target: "e7", Key: "Enter"}}},
		{"press on the page", Action{Kind: ActionPress, Arg: "Escape"}, Element{}, Input{}, []browser.Intent{{Action: browser.ActPress, Key: "Escape"}}},
		{"navigate", Action{Kind: ActionNavigate, Arg: "/x?y=1"}, Element{}, Input{}, []browser.Intent{{Action: browser.ActNavigate, URL: "/x?y=1"}}},
		{"no ref", Action{Kind: ActionClick, Role: "button"}, Element{}, Input{}, nil},
		{"unknown kind", Action{Kind: "teleport", Role: "button"}, el, Input{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.a.Intents(tc.el, tc.in)
			assert.Equal(t, tc.want, got)
			for _, in := range got {
				_, err := browser.ParseIntent([]byte(in.JSON()))
				assert.NoError(t, err, "the engine accepts %s", in.JSON())
			}
		})
	}
}

// The model reads what ParseElements makes of a real snapshot's text.
func TestObserveParsedSnapshot(t *testing.T) {
	els := ParseElements(browser.Snapshot{Text: sampleSnapshot})
	m := NewModel(Limits{})
	id := m.Observe("http://127.0.0.1:8080/items?page=2", els)
	st, ok := m.State(id)
	require.True(t, ok)
	assert.Equal(t, "/items?page=", st.Template)
	var ctl []string
	for _, c := range st.Controls {
		ctl = append(ctl, c.ident())
	}
	assert.Equal(t, []string{`link "Next page"`, `link "Old style"`, `textbox "Name"`, `textbox "Say \"hi\""`,
		`checkbox "Select all"`, `combobox "Sort"`, `button "Save"`, `button ""`, `button "Delete"`}, ctl, "no heading")
	keys := strings.Join(keysOf(m, id), "\n")
	assert.NotContains(t, keys, `button "Save"`, "disabled")
	assert.Contains(t, keys, `select combobox "Sort" :option ="Name"`)
	assert.Contains(t, keys, `click button "Delete"`)
	assert.Contains(t, keys, `fill textbox "Say \"hi\"" :markup`)
	// The same page with another value typed is the same state.
	assert.Equal(t, id, m.Observe("http://127.0.0.1:8080/items?page=3", ParseElements(browser.Snapshot{Text: strings.Replace(sampleSnapshot, ": def", ": other", 1)})))
}

func TestZeroModel(t *testing.T) {
	var m Model
	assert.NotPanics(t, func() {
		_, _, ok := m.Next("", nil)
		assert.False(t, ok)
		m.Transition("a", "garbage", "b", -3)
		m.Fail("a", "garbage")
		assert.True(t, m.Exhausted())
		assert.Empty(t, m.Untried(5))
		assert.Equal(t, "flowchart LR\n", m.Mermaid())
		assert.Equal(t, Stats{}, m.Stats())
		_, ok = m.Input(Target{})
		assert.False(t, ok)
		assert.Equal(t, &Model{}, m.Clone())
	})
}

// NextFar lets a better target a few steps away beat a poor one here.
func TestNextFarWeighsDistance(t *testing.T) {
	a := newHandApp(t)
	m := a.m
	// The list keeps one untried target; the item (one hop away) keeps all.
	tryAll(m, a.home)
	tryAll(m, a.dlg)
	st := m.States[a.list]
	var here Target
	for i, tg := range st.Targets {
		if tg.Status == TargetUntried && here.Action.Kind == "" {
			here = tg
			continue
		}
		st.Targets[i].Status = TargetTried
	}
	require.NotEmpty(t, here.Action.Kind)
	prefer := func(t Target) float64 {
		if t.State == a.item {
			return 10
		}
		return 0
	}
	tg, path, ok := m.Next(a.list, prefer)
	require.True(t, ok)
	assert.Equal(t, here.Key(), tg.Key(), "Next: the nearest state first")
	assert.Empty(t, path)

	tg, path, ok = m.NextFar(a.list, prefer, 1)
	require.True(t, ok)
	assert.Equal(t, a.item, tg.State, "worth a hop")
	assert.Equal(t, []ActionKey{`click link →"/item/{id}"`}, path)

	tg, _, ok = m.NextFar(a.list, prefer, 30)
	require.True(t, ok)
	assert.Equal(t, here.Key(), tg.Key(), "not worth a hop at 30")
}

// An element with script handlers only (the engine's xN refs) gets the
// actions its handlers listen to.
func TestObserveHandlerOnly(t *testing.T) {
	m := NewModel(Limits{})
	id := m.Observe("/todos", []Element{
		{Role: "clickable", Name: "Buy milk", Ref: "x1", InMain: true, Flags: []string{"handler only: dblclick"}},
		{Role: "clickable", Name: "Star", Ref: "x2", InMain: true, Flags: []string{"handler only: click, keydown"}},
	})
	st, ok := m.State(id)
	require.True(t, ok)
	var keys []string
	for _, tg := range st.Targets {
		keys = append(keys, string(tg.Key()))
	}
	assert.ElementsMatch(t, []string{`dblclick clickable "Buy milk"`, `click clickable "Star"`, `press clickable "Star" ="Enter"`, `press ="Escape"`}, keys)
}

// A combobox of the page's own making (a text input and a listbox, no
// options in the snapshot until opened) gets a click, which opens its
// list, beside its fill targets; the opened list's options are clicked.
func TestObserveCustomCombobox(t *testing.T) {
	m := NewModel(Limits{})
	closed := []Element{{Role: "combobox", Name: "Assign to", InMain: true}}
	id := m.Observe("/tools", closed)
	keys := keysOf(m, id)
	assert.Contains(t, keys, `click combobox "Assign to"`)
	assert.Contains(t, keys, `fill combobox "Assign to" :valid`)
	open := append(closed, Element{Role: "listbox", Name: "Assign to", InMain: true},
		Element{Role: "option", Name: "Dana Fox", InMain: true}, Element{Role: "option", Name: "Emil Sato", InMain: true})
	id2 := m.Observe("/tools", open)
	assert.NotEqual(t, id, id2, "the open list is another state")
	keys = keysOf(m, id2)
	assert.Contains(t, keys, `click option "Emil Sato"`)

	// A native select's options are its select's targets, not clicks.
	id3 := m.Observe("/form", []Element{{Role: "combobox", Name: "Size", Options: []string{"S", "M"}}, {Role: "option", Name: "S"}})
	assert.NotContains(t, keysOf(m, id3), `click combobox "Size"`)
	assert.NotContains(t, keysOf(m, id3), `click option "S"`)
}

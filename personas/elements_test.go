package personas

import (
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sampleSnapshot = `page: "Shop" http://127.0.0.1:8080/items?page=2
- main [ref=e2]:
  - heading "Items" [level=1] [ref=e3]
  - link "Next page" [ref=e26] → /items?page=3
  - link "Old style" [ref=e27]:
    - /url: /old
  - textbox "Name" [ref=e7]: def
  - textbox "Say \"hi\"" [ref=e8]
  - checkbox "Select all" [checked] [ref=e9]
  - combobox "Sort" [ref=e10]:
    - option "Price" [selected]
    - option "Name"
  - button "Save" [disabled] [ref=e11]
  - button [ref=f1e12]
  - text: plain text has no ref
# controls shown only on hover (the engine hovers their row for you):
- button "Delete" [ref=h1] (shown on hover of "Milk")`

func TestParseElements(t *testing.T) {
	els := ParseElements(browser.Snapshot{Text: sampleSnapshot})
	byRef := map[string]Element{}
	for _, e := range els {
		byRef[e.Ref] = e
	}
	require.Contains(t, byRef, "e26")
	assert.Equal(t, Element{Role: "link", Name: "Next page", Ref: "e26", URL: "/items?page=3", InMain: true}, byRef["e26"])
	assert.Equal(t, "/old", byRef["e27"].URL)
	assert.Equal(t, "def", byRef["e7"].Value)
	assert.Equal(t, `Say "hi"`, byRef["e8"].Name)
	assert.True(t, byRef["e9"].Has("checked"))
	assert.Equal(t, []string{"Price", "Name"}, byRef["e10"].Options)
	assert.True(t, byRef["e11"].Has("disabled"))
	assert.False(t, byRef["e11"].Clickable())
	assert.True(t, byRef["f1e12"].Clickable())
	assert.Equal(t, "", byRef["f1e12"].Name)
	assert.Equal(t, []string{"level=1"}, byRef["e3"].Flags)
	require.Contains(t, byRef, "h1")
	assert.Equal(t, "Delete", byRef["h1"].Name)
	assert.True(t, byRef["e7"].Fillable())
	assert.False(t, byRef["h1"].InMain, "after the main landmark")
	assert.Empty(t, ParseElements(browser.Snapshot{Text: "garbage\n- \n[ref=]"}))
}

// The main landmark, quoted URLs and values, as a real page's snapshot
// shows them.
func TestParseElementsLandmarks(t *testing.T) {
	const snap = `page: "Sign in · Acme Projects" http://127.0.0.1:43125/signin
- generic [ref=e1]:
  - link "Skip to content" [ref=e2]:
    - /url: "#main"
  - banner [ref=e3]:
    - navigation "Main" [ref=e5]:
      - link "Sign in" [ref=e8] → /signin
  - main [ref=e11]:
    - heading "Sign in" [level=1] [ref=e12]
    - textbox "Email" [ref=f1e19]: "a: b"
    - textbox "Password" [ref=e21]
    - button "Sign in" [ref=e22]
  - mainframe "not the landmark" [ref=e30]:
    - button "Other" [ref=e31]
  - contentinfo [ref=e40]:
    - link "Help" [ref=e41] → /help
`
	byName := map[string]Element{}
	for _, e := range ParseElements(browser.Snapshot{Text: snap}) {
		byName[e.Role+":"+e.Name] = e
	}
	assert.Equal(t, "#main", byName["link:Skip to content"].URL, "quotes dropped")
	assert.False(t, byName["link:Skip to content"].InMain)
	assert.False(t, byName["link:Sign in"].InMain, "in the banner")
	assert.True(t, byName["textbox:Email"].InMain)
	assert.Equal(t, "a: b", byName["textbox:Email"].Value)
	assert.True(t, byName["button:Sign in"].InMain)
	assert.False(t, byName["button:Other"].InMain, "a role that only starts with main")
	assert.False(t, byName["link:Help"].InMain, "in the footer after main")
}

// A page without a main landmark is all main content: its forms and
// buttons are the tricks' as much as a page's with one.
func TestParseElementsWithoutMain(t *testing.T) {
	const snap = `- navigation [ref=e1]:
  - link "Home" [ref=e2] → /
- heading "Comments" [level=1] [ref=e3]
- textbox "Comment" [ref=e4]
- button "Post" [ref=e5]
`
	els := ParseElements(browser.Snapshot{Text: snap})
	require.Len(t, els, 5)
	for _, e := range els {
		assert.True(t, e.InMain, e.Name)
	}
	b, ok := SubmitButton(els)
	assert.True(t, ok)
	assert.Equal(t, "e5", b.Ref)
	assert.True(t, HasFields(els))
}

func TestStateHash(t *testing.T) {
	a := browser.Snapshot{URL: "http://h/items?page=2", Text: "page: \"x\" http://h/items?page=2\n- button \"Save\" [ref=e4]\n- paragraph [ref=e5]: 12 items"}
	b := browser.Snapshot{URL: "http://h/items?page=2", Text: "page: \"x\" http://h/items?page=2\n- button \"Save\" [ref=e9]\n- paragraph [ref=e10]: 13 items"}
	c := browser.Snapshot{URL: "http://h/items?page=2", Text: "page: \"x\" http://h/items?page=2\n- button \"Delete\" [ref=e4]"}
	d := a
	d.URL = "http://h/items?page=3"
	assert.Equal(t, StateHash(a), StateHash(b), "refs and counts do not make a new state")
	assert.NotEqual(t, StateHash(a), StateHash(c))
	assert.NotEqual(t, StateHash(a), StateHash(d))
	assert.Len(t, StateHash(a), 16)
	assert.Equal(t, "- button \"B#\": # items\n- link \"x\" → /p/#", normalizeSnapshot("page: \"t\" http://h/\n- button \"B12\" [ref=e4]: 3 items\n- link \"x\" [ref=f1e22] → /p/7"))
	assert.Equal(t, "[ref=broken", normalizeSnapshot("[ref=broken"))
}

func TestFindingKey(t *testing.T) {
	a := Finding{Kind: browser.FindServerError, URL: "http://127.0.0.1:4000/cart?id=1", Evidence: "POST http://127.0.0.1:4000/api/x returned 500\nbody"}
	b := Finding{Kind: browser.FindServerError, URL: "http://127.0.0.1:5111/cart?id=1", Evidence: "POST http://127.0.0.1:5111/api/x returned 500\nother body"}
	assert.Equal(t, a.Key(), b.Key())
	b.Kind = browser.FindPageError
	assert.NotEqual(t, a.Key(), b.Key())
}

// TestParseElementsNotes: the engine's notes after a ref (input type, file
// input, shadow root, frame, handler-only) do not hide the control; they
// become its flags, and a value after them is still read.
func TestParseElementsNotes(t *testing.T) {
	snap := browser.Snapshot{Text: `page: "x" http://app/
- main [ref=e1]:
  - textbox "Email" [ref=e19] (type=email)
  - textbox "Name" [ref=e20] (type=text; in shadow root): Ada
  - textbox "Title" [ref=e22] (required; maxlength=80)
  - spinbutton "Copies" [ref=e23] (min=1; max=50): "3"
  - textbox "Story" [ref=e24] (multiline)
  - button "Upload" [ref=e21] (file input) [cursor=pointer]
  - clickable "Star" [ref=x2] (handler only: click; in frame iframe[name="inner"])
  - button "Edit" [ref=h3] (hover "row (1)")`}
	els := ParseElements(snap)
	byName := map[string]Element{}
	for _, e := range els {
		byName[e.Name] = e
	}
	require.Contains(t, byName, "Email")
	assert.True(t, byName["Email"].Has("type=email"))
	assert.True(t, byName["Email"].Fillable())
	assert.Equal(t, "Ada", byName["Name"].Value)
	assert.True(t, byName["Name"].Has("in shadow root"))
	require.Contains(t, byName, "Title", "a constraint note does not hide the field")
	assert.True(t, byName["Title"].Has("required"))
	f := FieldOf(byName["Title"], nil)
	assert.True(t, f.Required)
	assert.Equal(t, 80, f.MaxLength)
	require.Contains(t, byName, "Copies")
	f = FieldOf(byName["Copies"], nil)
	assert.Equal(t, FieldNumber, f.Kind)
	assert.Equal(t, "1", f.Min)
	assert.Equal(t, "50", f.Max)
	assert.Equal(t, "3", byName["Copies"].Value)
	require.Contains(t, byName, "Story")
	assert.Equal(t, FieldTextarea, FieldOf(byName["Story"], nil).Kind, "the engine's multiline note makes a textarea")
	assert.Equal(t, FieldText, FieldOf(byName["Title"], nil).Kind)
	assert.True(t, byName["Upload"].Has("file input"))
	assert.True(t, byName["Upload"].Has("cursor"))
	assert.True(t, byName["Star"].Has(`in frame iframe[name="inner"]`))
	require.Contains(t, byName, "Edit", "a control shown on hover is a control")
	assert.True(t, byName["Edit"].Has(`hover "row (1)"`))
	els = ParseElements(browser.Snapshot{Text: `page: "x" http://app/
- main [ref=e1]:
  - list [ref=e2]
# shown on hover or focus (acting on them hovers the row, or focuses the field, first):
- button "Unpin" [ref=h1] (hover "Spring fair"; in main)
- button "Clear" [ref=h2] (focus "Search" first; in main)
# also actionable (script handlers, contenteditable; not in the tree above):
- clickable "Due 3 May" [ref=x1] (handler only: dblclick; in main)
- textbox "Notes" [ref=x2] (contenteditable)`})
	byName = map[string]Element{}
	for _, e := range els {
		byName[e.Name] = e
	}
	for _, n := range []string{"Unpin", "Clear", "Due 3 May"} {
		require.Contains(t, byName, n)
		assert.True(t, byName[n].InMain, "%s: the engine's note says it is in the main landmark", n)
	}
	require.Contains(t, byName, "Notes", "an editable region is a control")
	assert.True(t, byName["Notes"].Has("contenteditable"))
	assert.False(t, byName["Notes"].InMain)
}

// A native select's options (no ref) are its values; the options of a
// listbox of the page's own making (each with a ref) are elements, which
// the model clicks, and the listbox is no select.
func TestParseCustomListbox(t *testing.T) {
	const snap = `page: "Pick" http://127.0.0.1:8080/pick
- main [ref=e1]:
  - combobox "Plan" [ref=e2]:
    - option "Free" [selected]
    - option "Pro"
  - listbox "Colour" [ref=e3]:
    - option "Red" [ref=e4]
    - option "Blue" [ref=e5]`
	els := ParseElements(browser.Snapshot{Text: snap})
	byRef := map[string]Element{}
	for _, e := range els {
		byRef[e.Ref] = e
	}
	assert.Equal(t, []string{"Free", "Pro"}, byRef["e2"].Options)
	assert.Empty(t, byRef["e3"].Options)
	require.Contains(t, byRef, "e4")
	assert.Equal(t, "option", byRef["e4"].Role)

	m := NewModel(Limits{})
	id := m.Observe("/pick", els)
	var keys []string
	for _, tg := range m.States[id].Targets {
		keys = append(keys, string(tg.Key()))
	}
	assert.Contains(t, keys, `select combobox "Plan" :option ="Pro"`)
	assert.Contains(t, keys, `click option "Red"`)
	assert.Contains(t, keys, `click option "Blue"`)
	for _, k := range keys {
		assert.NotContains(t, k, `listbox "Colour"`, "the listbox's options are the clicks")
	}
}

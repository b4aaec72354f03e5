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
	assert.Equal(t, Element{Role: "link", Name: "Next page", Ref: "e26", URL: "/items?page=3"}, byRef["e26"])
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
	assert.Empty(t, ParseElements(browser.Snapshot{Text: "garbage\n- \n[ref=]"}))
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

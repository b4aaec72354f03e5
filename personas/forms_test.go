package personas

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func el(role, name, ref string, flags ...string) Element {
	return Element{Role: role, Name: name, Ref: ref, InMain: true, Flags: flags}
}

// A button sends a form when a form control comes between it and the
// previous button or link; a form's side buttons (a file chooser, Back,
// Cancel) do not end it, a button that names what it closes does.
func TestSendsForm(t *testing.T) {
	els := []Element{el("textbox", "Filter", "e1"), el("button", "Search", "e2"), el("button", "Archive the month…", "e3"), el("button", "Confirm", "e4")}
	assert.True(t, SendsForm(els, 1), "a search box's button sends it")
	assert.False(t, SendsForm(els, 3), "a dialog's Confirm with nothing to fill")
	assert.False(t, SendsForm(els, 9), "out of range")
	withSide := []Element{els[0], el("button", "Attachment", "e8", "file input"), el("button", "Back", "e9"), els[1]}
	assert.True(t, SendsForm(withSide, 3), "a file chooser and Back between the fields and the button")
	withCancel := []Element{els[0], el("button", "Cancel", "e9"), els[1]}
	assert.True(t, SendsForm(withCancel, 2), "a form's Cancel does not end it")
	dialog := []Element{els[0], el("button", "Close the month…", "e9"), el("button", "Confirm", "e10")}
	assert.False(t, SendsForm(dialog, 2), "the button that opened the dialog ends the form")
}

// Names: a dismiss control's whole name says it closes; a submit's
// says it sends; a destructive or undoing one is never a submit.
func TestControlNames(t *testing.T) {
	for _, name := range []string{"Cancel", "close", " No thanks ", "Not now", "×"} {
		assert.True(t, Dismiss(name), name)
	}
	for _, name := range []string{"Close the period…", "Cancel order", "Confirm", "Next"} {
		assert.False(t, Dismiss(name), name)
	}
	assert.True(t, SignOut("Log out"))
	assert.True(t, SignOut("Sign-off"))
	assert.False(t, SignOut("Signature outline"))
	assert.True(t, SubmitNamed("Create project"))
	assert.False(t, SubmitNamed("Refresh"))
	assert.True(t, NotSubmit("Delete selected"))
	assert.True(t, Backward("Previous step"))
	assert.True(t, NextLink(" Next page "))
	assert.False(t, NextLink("Nextcloud"))
}

// Forms are read from the controls' order: a link ends a form, the
// submit-like buttons bound it, the best-named button after the fields
// submits it.
func TestFormsFromControls(t *testing.T) {
	els := []Element{
		{Role: "link", Name: "Home", Ref: "e1", URL: "/"},
		el("combobox", "Show", "e2"),
		{Role: "link", Name: "Row one", Ref: "e3", URL: "/rows/1", InMain: true},
		el("textbox", "Title", "e4"),
		el("textbox", "Notes", "e5"),
		el("checkbox", "Urgent", "e6"),
		el("button", "Delete", "e7"),
		el("button", "Save", "e8"),
		el("textbox", "Search", "e9"),
		el("button", "Go", "e10"),
	}
	assert.False(t, InForm(els, "e2"), "a link ends the filter's part of the page")
	for _, ref := range []string{"e4", "e5", "e6"} {
		assert.True(t, InForm(els, ref), ref)
	}
	assert.Equal(t, 2, FormFields(els, 3))
	assert.Equal(t, 1, FormFields(els, 8), "the search after the form's Save")
	assert.Equal(t, 0, FormFields(els, -1))
	b, ok := SubmitAfter(els, 4)
	assert.True(t, ok)
	assert.Equal(t, "e8", b.Ref, "Save, not Delete")
	assert.True(t, RecordForm(els))
	assert.False(t, QueryForm(els))
	assert.True(t, QueryForm([]Element{el("searchbox", "Find", "s1")}))
	assert.True(t, QueryForm([]Element{el("textbox", "Filter by name", "s1")}))
	assert.True(t, HasFields(els))
	assert.False(t, HasPassword(els))
	assert.Equal(t, 7, IndexOf(els, "e8"))

	own := PageButtons([]Element{el("button", "Delete", "b1"), el("button", "Refresh", "b2"), el("button", "Refresh", "b3"),
		el("button", "Cancel", "b4"), el("button", "Log out", "b5"), el("button", "Export", "b6")}, 3)
	assert.Equal(t, []string{"b2", "b6"}, []string{own[0].Ref, own[1].Ref}, "one per name; no destroy, dismiss or sign-out")
}

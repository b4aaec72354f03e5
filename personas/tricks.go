package personas

// Trick is one sequence a persona plays on a page offline: a
// [TrickPlayer] plans it, the same in the explorer's offline team
// (examples/explorer, whose members play their persona's tricks in order
// on top of the moves every member makes: sign in when asked, follow
// unexplored links, come back to forms with work left) and in [Run]
// (through [Persona.Strategy]).
type Trick string

// The tricks.
const (
	TrickClickButtons Trick = "click_buttons" // click every non-submit button once (dead controls)
	TrickValidForm    Trick = "valid_form"    // fill forms with plausible values and submit
	TrickSelect       Trick = "select"        // try every option of every select, then apply
	TrickPaginate     Trick = "paginate"      // follow Next links to the last page
	TrickXSS          Trick = "xss"           // type script probes into every text field
	TrickLong         Trick = "long"          // type an over-long value
	TrickExotic       Trick = "exotic_text"   // legal but awkward text (an apostrophe, letters outside Latin-1) in every text field
	TrickDouble       Trick = "double_submit" // click submit twice on a slow network
	TrickCatalogue    Trick = "catalogue"     // the input catalogue on a form, one class per submission in every field that takes it
	TrickDropSession  Trick = "drop_session"  // clear cookies and storage, then come back
	TrickKeyboard     Trick = "keyboard"      // Tab through the page
	TrickBulk         Trick = "bulk"          // select all rows (or several), then the page's action on the selection
)

// Tricks lists every trick, for validation and documentation.
func Tricks() []Trick {
	return []Trick{TrickClickButtons, TrickValidForm, TrickSelect, TrickPaginate, TrickXSS, TrickLong,
		TrickExotic, TrickDouble, TrickCatalogue, TrickDropSession, TrickKeyboard, TrickBulk}
}

// FormTricks are the tricks that need a page with text fields.
func FormTricks() []Trick {
	return []Trick{TrickValidForm, TrickXSS, TrickExotic, TrickLong, TrickDouble, TrickCatalogue}
}

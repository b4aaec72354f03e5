package personas

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// Move is one action of a trick's macro.
type Move struct {
	Intent browser.Intent
	// Why says what the move is for, in the run's log and its tape.
	Why string
	// Watch keeps the page untouched at most this long after the move,
	// until it is calm, so that what a click still does (a late error, a
	// dead control's verdict) belongs to it. Zero: the run's default.
	Watch time.Duration
	// Lead: the move only takes the browser to where the trick's next
	// move is (a page to come back to).
	Lead bool
	// Hold: the app's first answer to the move is held back, as a slow
	// network would (the double submit's two clicks then race).
	Hold bool
}

// TrickPage is the page a trick plans on.
type TrickPage struct {
	URL      string
	Elements []Element
	// Template is the page's path with its ids generalised: a trick that
	// is played once per screen is played once per template.
	Template string
	// Form identifies the page's form for the form tricks (the template
	// and its fields' names), so the steps of a wizard differ and the
	// edit pages of many records do not. Empty: Template.
	Form string
}

// Board is the run a persona's tricks play in: what a trick needs to
// know or tell beyond the page. The explorer's team and [Run] each give
// one; a nil-safe trivial one is fine for a test.
type Board interface {
	// Value is a valid value for field e. A run may make free text
	// unique (two records it makes never read the same).
	Value(e Element) string
	// Tag is a number no other value of the run carried.
	Tag() int
	// Played reports whether the run's app model already clicked e on
	// this screen.
	Played(e Element) bool
	// Cover tells the run's app model which input classes a trick typed
	// into which fields (by ref), so it does not play them again.
	Cover(played map[string][]InputClass)
	// ListPages are the pages likely to list a record made on this one.
	ListPages() []string
	// Session is what the run knows of its session and pages, for the
	// trick that drops the session.
	Session() SessionInfo
	// DropSession is called when a trick drops the session (its macro's
	// first move clears cookies and storage).
	DropSession()
}

// SessionInfo is what [TrickDropSession] plans with.
type SessionInfo struct {
	// SignIn is the sign-in page (path?query), empty while none was met
	// (or the app has none: the session is its cookies and storage).
	SignIn string
	// Pages are the pages (path?query) visited that a user can open by
	// their address (a link's target, an entry page), in visiting order:
	// not a form's answer to a POST, which a GET of its address need not
	// have.
	Pages []string
	// ButtonPages are pages whose main content has buttons of their own
	// (PageButtons), in discovery order.
	ButtonPages []string
	// Dropped: the session was dropped already.
	Dropped bool
	// FormsLeft counts the form tricks the persona has left; Spent is the
	// share of the run's budget used (0..1). The session is dropped once
	// nothing else is left, or half the budget is gone.
	FormsLeft int
	Spent     float64
	// Start is the run's start page (path?query or a URL): reopened last.
	Start string
	// Template generalises a page's address (path?query) to its screen:
	// one page per screen is opened again. Nil: the address itself.
	Template func(string) string
}

// Limits of the drop-session trick.
const (
	// MaxSessionPages bounds the pages opened again once the session is
	// dropped.
	MaxSessionPages = 15
	// MaxStaleButtons bounds the buttons clicked on the page loaded
	// before the session was dropped.
	MaxStaleButtons = 3
	// minSessionPages is how many pages besides the sign-in page are
	// seen before the session is dropped.
	minSessionPages = 3
)

// TrickPlayer plays a persona's tricks: it remembers, for one run, what each
// trick already did (a form's valid submission, a screen's buttons, a
// select's options), so a trick is played once per screen, form or
// control. The zero value is not ready: use NewTrickPlayer.
type TrickPlayer struct {
	tried map[string]bool
}

// NewTrickPlayer returns a player that keeps what it did in memo (nil: a new
// one). A run that saves its progress saves memo, and a resumed run
// passes it back; the player's keys start with a trick's name or one of
// "btn:", "sel:", "next:" and "drop-via", so the caller may keep keys of
// its own in the same map.
func NewTrickPlayer(memo map[string]bool) *TrickPlayer {
	if memo == nil {
		memo = map[string]bool{}
	}
	return &TrickPlayer{tried: memo}
}

// Done reports whether trick t was played on the form with signature form.
func (tp *TrickPlayer) Done(t Trick, form string) bool { return tp.tried[string(t)+":"+form] }

// Plan is the next macro of trick t on the page, or nil when the trick
// has nothing (more) to do there. The catalogue (TrickCatalogue) is the
// app model's input classes, played by the run's model (the explorer's
// coverage sweep, [ModelStrategy] for Run): Plan has none of its own.
func (tp *TrickPlayer) Plan(t Trick, pg TrickPage, b Board) []Move {
	els := pg.Elements
	form := pg.Form
	if form == "" {
		form = pg.Template
	}
	key := string(t) + ":" + form
	switch t {
	case TrickClickButtons:
		return tp.clickButtons(pg, b)
	case TrickValidForm:
		if tp.tried[key] || !HasFields(els) && !HasRole(els, "radio") || HasPassword(els) {
			return nil
		}
		tp.tried[key] = true
		return FormMoves(els, validEmpty(b), false)
	case TrickXSS:
		if tp.tried[key] || !HasFields(els) || HasPassword(els) {
			return nil
		}
		tp.tried[key] = true
		played := map[string][]InputClass{}
		macro := FormMoves(els, func(e Element) (string, bool) {
			if f := FieldOf(e, nil); e.Role == "spinbutton" || f.Kind != FieldText && f.Kind != FieldTextarea && f.Kind != FieldSearch ||
				strings.Contains(strings.ToLower(e.Name), "mail") {
				return b.Value(e), true
			}
			played[e.Ref] = []InputClass{ClassMarkup}
			return collector.XSSPayload, true
		}, false)
		if len(macro) > 0 {
			b.Cover(played)
		}
		if len(macro) > 0 && !QueryForm(els) {
			// Stored payloads show where the app lists what was made (a
			// search's or a filter's query is not stored: it shows, if
			// at all, on the page its submission opens).
			for _, l := range b.ListPages() {
				macro = append(macro, Move{Intent: Navigate(l), Why: "see the payload where the app lists it"})
			}
		}
		return macro
	case TrickExotic:
		// Text a plain-text field must take: a name with an apostrophe
		// and letters outside Latin-1 (the catalogue's quotes and
		// non_latin classes in one value). One submission tries every
		// free-text field of the form; the other fields get valid values.
		if tp.tried[key] || !HasFields(els) || HasPassword(els) {
			return nil
		}
		tp.tried[key] = true
		played := map[string][]InputClass{}
		macro := FormMoves(els, func(e Element) (string, bool) {
			if f := FieldOf(e, nil); e.Role != "spinbutton" && (f.Kind == FieldText || f.Kind == FieldTextarea) && f.Pattern == "" &&
				!strings.Contains(strings.ToLower(e.Name), "mail") {
				// Its apostrophe is one of the quotes class's characters, not
				// all of them: that class keeps its own target.
				played[e.Ref] = []InputClass{ClassNonLatin}
				return ExoticText(f, b.Tag()), true
			}
			return validEmpty(b)(e)
		}, false)
		if len(macro) > 0 {
			b.Cover(played)
		}
		return macro
	case TrickLong:
		if tp.tried[key] || !HasFields(els) || HasPassword(els) {
			return nil
		}
		tp.tried[key] = true
		long := strings.Repeat("Lorem ipsum dolor sit amet ", 6) // 162 characters
		first := true
		return FormMoves(els, func(e Element) (string, bool) {
			if e.Role == "textbox" && first && !strings.Contains(strings.ToLower(e.Name), "mail") {
				first = false
				return long, true
			}
			return validEmpty(b)(e)
		}, false)
	case TrickDouble:
		// A record's form (two fields or more): a search or a filter
		// sent twice changes nothing.
		if tp.tried[key] || !HasFields(els) || HasRole(els, "searchbox") || HasPassword(els) || !RecordForm(els) {
			return nil
		}
		tp.tried[key] = true
		return FormMoves(els, validEmpty(b), true)
	case TrickSelect:
		return tp.selects(pg)
	case TrickPaginate:
		for _, e := range els {
			if e.Role != "link" || !NextLink(e.Name) {
				continue
			}
			k := "next:" + urlx.PathQuery(pg.URL)
			if tp.tried[k] {
				continue
			}
			tp.tried[k] = true
			return []Move{{Intent: Click(e), Why: "next page"}}
		}
	case TrickDropSession:
		return tp.dropSession(pg, b)
	case TrickBulk:
		return tp.bulk(pg)
	case TrickKeyboard:
		if tp.tried[key] {
			return nil
		}
		tp.tried[key] = true
		tab := browser.Intent{Action: browser.ActPress, Key: "Tab"}
		return []Move{{Intent: tab, Why: "keyboard"}, {Intent: tab, Why: "keyboard"}, {Intent: tab, Why: "keyboard"}}
	}
	return nil
}

// validEmpty fills an empty field with the board's valid value and
// leaves a filled one as it is.
func validEmpty(b Board) func(Element) (string, bool) {
	return func(e Element) (string, bool) {
		if e.Value != "" {
			return "", false
		}
		return b.Value(e), true
	}
}

// clickButtons clicks the screen's buttons that send no form, one per
// plan, each once per screen.
func (tp *TrickPlayer) clickButtons(pg TrickPage, b Board) []Move {
	els := pg.Elements
	primary, _ := SubmitAfter(els, 0)
	if !SubmitNamed(primary.Name) || !SendsForm(els, IndexOf(els, primary.Ref)) {
		// Nothing that looks like a submit button, or one with no
		// fields before it (a dialog's "Confirm"): a button to press.
		primary = Element{}
	}
	// A dialog's dismiss button (Cancel, Close) goes after the screen's
	// other buttons: clicked first, it takes the dialog's other buttons
	// away before they were tried.
	var last *Element
	for i, e := range els {
		if e.Role != "button" || !e.InMain || primary.Ref != "" && e.Ref == primary.Ref || tp.tried["btn:"+pg.Template+":"+e.Name] || e.Has("disabled") || b.Played(e) {
			continue
		}
		if strings.Contains(strings.ToLower(e.Name), "delete") || strings.Contains(strings.ToLower(e.Name), "sign out") {
			continue
		}
		if Dismiss(e.Name) {
			if last == nil {
				last = &els[i]
			}
			continue
		}
		last = &els[i]
		break
	}
	if last == nil {
		return nil
	}
	tp.tried["btn:"+pg.Template+":"+last.Name] = true
	return []Move{{Intent: Click(*last), Why: "try control " + last.Name, Watch: 700 * time.Millisecond}}
}

// selects chooses the options of the screen's selects that belong to no
// form with fields (those the run's model sends with their form), the
// last options first, each followed by the page's apply button if any.
func (tp *TrickPlayer) selects(pg TrickPage) []Move {
	els := pg.Elements
	for _, e := range sortFirst(els) {
		if e.Role != "combobox" || !e.InMain {
			continue
		}
		if i := IndexOf(els, e.Ref); InForm(els, e.Ref) && FormFields(els, i) > 0 {
			// A choice of a form with fields to fill: the model sends
			// it with the rest of the form filled.
			continue
		}
		// The options at the end of a list are the least tried.
		for _, o := range slices.Backward(e.Options) {
			k := "sel:" + pg.Template + ":" + e.Name + ":" + o
			if tp.tried[k] {
				continue
			}
			tp.tried[k] = true
			choose := Move{Intent: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, Why: "choose " + e.Name + ": " + o}
			bt, ok := SubmitAfter(els, IndexOf(els, e.Ref)+1)
			if !ok {
				return []Move{choose}
			}
			return []Move{choose, {Intent: Click(bt), Why: "apply"}}
		}
	}
	return nil
}

// bulkWords name a selection's action, the surest first.
var bulkWords = []string{"selected", "bulk", "archive", "mark", "export", "apply", "delete", "remove"}

// bulk selects the rows of a list and applies the page's action on the
// selection, once per screen: a "select all" box when there is one, else
// every row's box (one row is what a careless bulk handler was tested
// with). The screen needs two boxes or more in its main content that
// belong to no form with fields, and a button named for what it does to
// the selection.
func (tp *TrickPlayer) bulk(pg TrickPage) []Move {
	k := "bulk:" + pg.Template
	if tp.tried[k] {
		return nil
	}
	els := pg.Elements
	var boxes []Element
	for i, e := range els {
		if e.Role == "checkbox" && e.InMain && !e.Has("disabled") && !(InForm(els, e.Ref) && FormFields(els, i) > 0) {
			boxes = append(boxes, e)
		}
	}
	if len(boxes) < 2 {
		return nil
	}
	acts := Named(els, func(e Element) bool {
		return e.Role == "button" && e.InMain && !e.Has("disabled") && !Dismiss(e.Name) && !SignOut(e.Name)
	}, bulkWords...)
	if len(acts) == 0 {
		return nil
	}
	tp.tried[k] = true
	var macro []Move
	if all := Named(boxes, nil, "select all", "all"); len(all) > 0 {
		if !all[0].Has("checked") {
			macro = append(macro, Move{Intent: Click(all[0]), Why: "select all: " + all[0].Name})
		}
	} else {
		for _, bx := range boxes {
			if !bx.Has("checked") {
				macro = append(macro, Move{Intent: Click(bx), Why: "select " + bx.Name})
			}
		}
	}
	if len(macro) == 0 {
		return nil
	}
	return append(macro, Move{Intent: Click(acts[0]), Why: "on the selection: " + acts[0].Name, Watch: 700 * time.Millisecond})
}

// dropSession drops the session (cookies and storage) late: once the
// persona's form tricks are done, or half the budget is spent, and at
// least minSessionPages pages besides the sign-in page were seen. Then
// every screen seen so far (one page per template) is opened again
// without a session: each must send the user to sign in (an app without
// a sign-in: work without what it had stored), never fail. On a page
// with buttons of its own (best: the trick goes to one first) those are
// clicked on the page as it was loaded, and must then ask to sign in,
// not fail. The start page comes after the others, the sign-in page,
// when there is one, last.
func (tp *TrickPlayer) dropSession(pg TrickPage, b Board) []Move {
	s := b.Session()
	seen := len(s.Pages)
	if s.SignIn != "" && slices.Contains(s.Pages, s.SignIn) {
		seen-- // the sign-in page is not one the session is needed for
	}
	if s.Dropped || seen < minSessionPages || strings.Contains(pg.URL, collector.Prefix) || s.FormsLeft > 0 && s.Spent < 0.5 {
		return nil
	}
	tmpl := s.Template
	if tmpl == nil {
		tmpl = func(l string) string { return l }
	}
	own := PageButtons(pg.Elements, MaxStaleButtons)
	stale := len(own) > 0
	if here := urlx.PathQuery(pg.URL); !stale && !tp.tried["drop-via"] {
		tp.tried["drop-via"] = true
		if i := slices.IndexFunc(s.ButtonPages, func(p string) bool { return p != here }); i >= 0 {
			return []Move{{Intent: Navigate(s.ButtonPages[i]), Why: "to " + s.ButtonPages[i] + ", whose own buttons are clicked once the session is gone", Lead: true}}
		}
	}
	b.DropSession()
	macro := []Move{{Intent: browser.Intent{Action: browser.ActClearSiteData}, Why: "clear cookies and storage"}}
	if stale {
		// The page stays as it was loaded (a stale page): its buttons'
		// requests go without a session.
		for _, bt := range own {
			macro = append(macro, Move{Intent: Click(bt), Why: "click " + bt.Name + " on the page loaded before the session went", Watch: 700 * time.Millisecond})
		}
	}
	again := map[string]bool{}
	if s.SignIn != "" {
		again[tmpl(s.SignIn)] = true
	}
	// The page at hand (when it is one of Pages), then the others in
	// visiting order (an app's main screens first), the start page last:
	// it is where an app sets up what it stores, and opened first it
	// would set it up again for the others.
	start := urlx.PathQuery(s.Start)
	var order []string
	if here := urlx.PathQuery(pg.URL); slices.Contains(s.Pages, here) && here != start {
		order = append(order, here)
	}
	for _, l := range s.Pages {
		if l != start {
			order = append(order, l)
		}
	}
	if start != "" && slices.Contains(s.Pages, start) {
		order = append(order, start)
	}
	for _, l := range order {
		if t := tmpl(l); !again[t] && !strings.HasPrefix(l, collector.Prefix) && len(macro) <= MaxSessionPages {
			again[t] = true
			macro = append(macro, Move{Intent: Navigate(l), Why: "come back with the session gone"})
		}
	}
	if s.SignIn == "" {
		return macro
	}
	return append(macro, Move{Intent: Navigate(s.SignIn), Why: "sign in again"})
}

// FormMoves fills the main content's fields with fill's values (a field
// fill skips stays as it is), chooses a required select's first real
// option and the first radio, and submits: by the form's button (twice
// at once, the first answer held, when double), else by Enter in the
// last field.
func FormMoves(els []Element, fill func(e Element) (string, bool), double bool) []Move {
	var out []Move
	last := -1
	radio := false
	for i, e := range els {
		if !e.InMain || e.Has("disabled") {
			continue
		}
		switch {
		case e.Fillable():
			val, ok := fill(e)
			if !ok {
				continue
			}
			out = append(out, Move{Intent: Fill(e, val), Why: "fill " + e.Name})
			last = i
		case e.Role == "combobox" && len(e.Options) > 0 && e.Value == "":
			// A required choice left on its placeholder blocks the form
			// in the browser: the form is filled to be sent.
			if f := FieldOf(e, nil); f.Required {
				o := ValidValue(f)
				out = append(out, Move{Intent: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, Why: "choose " + e.Name})
				last = i
			}
		case e.Role == "radio":
			if !radio && !e.Has("checked") {
				out = append(out, Move{Intent: Click(e), Why: "choose " + e.Name})
			}
			radio = true
			last = i
		case e.Role == "checkbox":
			last = i
		}
	}
	if last < 0 {
		return nil
	}
	bt, ok := SubmitAfter(els, last+1)
	if !ok {
		// No button: a filter or search field submits on Enter.
		if f := els[last]; f.Fillable() && !double && len(out) > 0 {
			return append(out, Move{Intent: Press(f, "Enter"), Why: "submit with Enter"})
		}
		return nil
	}
	if double {
		// An impatient double click: two clicks a few milliseconds apart,
		// the first answer held back as a slow network would.
		return append(out, Move{Intent: browser.Intent{Action: browser.ActDblclick, Target: bt.Ref}, Hold: true, Why: "double-click submit on a slow network"})
	}
	return append(out, Move{Intent: Click(bt), Why: "submit " + bt.Name})
}

// ExoticText is legal text that trips careless code: an apostrophe
// (quoting), letters outside Latin-1 (encodings, Latin-1 columns) and the
// number tag (so two records never read the same), within the field's
// maxlength.
func ExoticText(f Field, tag int) string {
	v := fmt.Sprintf("O'Brien \u212Bngstr\u00f6m \u03a9 \u6771\u4eac %d", tag)
	if f.MaxLength > 0 && utf8.RuneCountInString(v) > f.MaxLength {
		v = string([]rune(v)[:f.MaxLength])
	}
	return v
}

// sortFirst puts sort controls first: power users sort before they filter.
func sortFirst(els []Element) []Element {
	out := slices.Clone(els)
	slices.SortStableFunc(out, func(a, b Element) int {
		as, bs := strings.Contains(strings.ToLower(a.Name), "sort"), strings.Contains(strings.ToLower(b.Name), "sort")
		switch {
		case as && !bs:
			return -1
		case bs && !as:
			return 1
		}
		return 0
	})
	return out
}

// NextLink reports whether a link's name says it opens a list's next page.
func NextLink(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	return n == "next" || strings.HasPrefix(n, "next ") || n == "›" || n == "»"
}

// reSignOut names the controls that end the session.
var reSignOut = regexp.MustCompile(`(?i)\b(sign|log)\s*-?\s*(out|off)\b|\blogout\b`)

// SignOut reports whether a control's name says it ends the session.
func SignOut(name string) bool { return reSignOut.MatchString(name) }

// PageButtons are the page's first n buttons of its own, one per name:
// buttons of the main content that act on the page itself (they send no
// form's fields, and neither destroy, dismiss nor sign out).
func PageButtons(els []Element, n int) []Element {
	var out []Element
	for i, e := range els {
		if len(out) == n {
			break
		}
		if e.Role == "button" && e.InMain && !e.Has("disabled") && !NotSubmit(e.Name) && !SignOut(e.Name) &&
			!Dismiss(e.Name) && !SendsForm(els, i) && !slices.ContainsFunc(out, func(o Element) bool { return o.Name == e.Name }) {
			out = append(out, e)
		}
	}
	return out
}

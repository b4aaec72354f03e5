package explore

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// Persona is one member of the offline QA team: who it is and the tricks it
// plays on a page, on top of the common moves every member makes (sign in
// when asked, follow unexplored links, come back to forms it has work left on).
type Persona struct {
	// Name is the node name in the team graph, e.g. "adversarial".
	Name string
	// Role is one sentence for reports and prompts.
	Role string
	// Focus lists what the persona looks for.
	Focus []string
	// Tricks are tried in order on every page.
	Tricks []Trick
}

// Trick is one thing a persona knows how to do on a page.
type Trick string

// The built-in tricks.
const (
	TrickClickButtons Trick = "click_buttons" // click every non-submit button once (dead controls)
	TrickValidForm    Trick = "valid_form"    // fill forms with plausible values and submit
	TrickSelect       Trick = "select"        // try every option of every select, then apply
	TrickPaginate     Trick = "paginate"      // follow Next links
	TrickXSS          Trick = "xss"           // type script probes into every text field
	TrickLong         Trick = "long"          // type an over-long value
	TrickExotic       Trick = "exotic_text"   // legal but awkward text (an apostrophe, letters outside Latin-1) in every text field
	TrickDouble       Trick = "double_submit" // click submit twice on a slow network
	TrickCatalogue    Trick = "catalogue"     // the input catalogue on a form, one class per submission in every field that takes it
	TrickDropSession  Trick = "drop_session"  // clear cookies and storage, then come back
	TrickKeyboard     Trick = "keyboard"      // Tab through the page
)

// catalogueRound is the catalogue's first round: the submissions it
// comes back to a form for in its persona's order of tricks; the rest of
// its classes come after the persona's other form tricks.
const catalogueRound = 3

// maxSessionPages bounds the pages opened again once the session is
// dropped.
const maxSessionPages = 15

// formTricks are the tricks that need a page with text fields.
var formTricks = []Trick{TrickValidForm, TrickXSS, TrickExotic, TrickLong, TrickDouble, TrickCatalogue}

// Team names.
const (
	TeamStandard = "standard"
	TeamAdvanced = "advanced"
)

// offlineTricks are what each personas built-in does offline here.
var offlineTricks = map[string][]Trick{
	personas.NewUser:       {TrickClickButtons, TrickValidForm},
	personas.PowerUser:     {TrickPaginate, TrickSelect},
	personas.Adversarial:   {TrickXSS, TrickDouble, TrickCatalogue, TrickLong, TrickExotic, TrickDropSession},
	personas.Accessibility: {TrickKeyboard, TrickClickButtons},
	personas.DataHeavy:     {TrickPaginate, TrickLong, TrickSelect, TrickExotic},
	personas.Impatient:     {TrickDouble, TrickValidForm},
	personas.ReturningUser: {TrickDropSession, TrickXSS},
	personas.Explorer:      {TrickClickButtons, TrickValidForm},
}

// builtinTeam is a personas built-in team (its members, their names,
// roles and focus: one definition, shared with model prompts and
// personas.Run) with the tricks each plays offline here.
func builtinTeam(team string) []Persona {
	ps, _ := personas.NewRegistry().Team(team) // the built-in teams always exist
	out := make([]Persona, 0, len(ps))
	for _, p := range ps {
		out = append(out, Persona{Name: p.Name, Role: p.Role, Focus: p.Focus, Tricks: slices.Clone(offlineTricks[p.Name])})
	}
	return out
}

// StandardTeam is the default team: new user, power user, adversarial.
func StandardTeam() []Persona { return builtinTeam(personas.TeamStandard) }

// AdvancedTeam is the deeper team: accessibility, data-heavy, impatient,
// returning user and the coverage-guided explorer.
func AdvancedTeam() []Persona { return builtinTeam(personas.TeamAdvanced) }

// Team returns the named built-in team.
func Team(name string) ([]Persona, error) {
	switch name {
	case TeamStandard, "":
		return StandardTeam(), nil
	case TeamAdvanced:
		return AdvancedTeam(), nil
	}
	return nil, fmt.Errorf("explore: unknown team %q (want %s or %s)", name, TeamStandard, TeamAdvanced)
}

var advancedWords = []string{"accessib", "a11y", "keyboard", "screen reader", "data-heavy", "large data", "pagination", "impatient", "slow network", "double", "returning", "session", "cookie", "deep", "thorough", "coverage"}

// RouteTeam picks the team for a mission prompt by keywords: advanced when
// the prompt talks about accessibility, data volume, impatience, sessions or
// deep coverage, standard otherwise.
func RouteTeam(prompt string) string {
	p := strings.ToLower(prompt)
	for _, w := range advancedWords {
		if strings.Contains(p, w) {
			return TeamAdvanced
		}
	}
	return TeamStandard
}

// step is one queued action of a persona, with a hook run just before it.
type step struct {
	in     browser.Intent
	before func()
	why    string
	// chain runs the step right after the previous one, without looking.
	chain bool
	// watch keeps the page untouched this long after the step, so the
	// in-page recorder can tell whether the click changed anything.
	watch time.Duration
	// lead: the step only takes the browser to where the member's next
	// one is (see member.lead).
	lead bool
	// cat: the step is the input catalogue's (coverage.catSteps).
	cat bool
}

// coverage is what the team shares within a mission: the pages seen and
// visited, where sign-in happened, the session generation.
type coverage struct {
	visited map[string]bool // path?query
	// visitedOrder is visited's pages in visiting order.
	visitedOrder []string
	visitedT     map[string]int // visits per page template (see templateOf)
	frontier     []string       // link targets seen, in discovery order
	entries      []string       // pages found outside the links (discoverEntries), after the frontier
	known        map[string]bool
	seenOn       map[string]string // link target -> the page it was first seen on
	forms        []string          // pages with form fields, in discovery order
	formSig      map[string]string // page -> its form signature
	// multiField holds the pages of forms with two fields or more in the
	// main content: the catalogue's forms (formClass).
	multiField map[string]bool
	signin     string          // URL of the sign-in page
	lastRows   map[string]bool // list pages whose last row was opened
	// seenAt is the step of the latest look at each page (path?query);
	// destroyedAt the step of the latest action on a control named to
	// delete (see gone).
	seenAt      map[string]int
	destroyedAt int
	catalogued  map[string]int // form page -> the catalogue's submissions there
	// catSteps counts the mission's steps spent on the catalogue (its
	// submissions and the trips back to its forms); catTrips marks the
	// trips taken for its share (catalogueDue), one per form and count of
	// submissions there. (A form whose catalogue looked done once is not
	// marked so: a form sent back shows a state whose classes may all
	// have been played, while the form's own have not; a trip that finds
	// nothing burns its count's key, and no other trip follows.)
	catSteps int
	catTrips map[string]bool
	// buttonPages are pages with buttons of their own (noteButtons).
	buttonPages []string
	gen         int // bumped when the session is dropped
	dropped     bool
	priority    []string     // high-risk pages from memory
	tags        map[int]bool // numbers the mission's free text carried (tag)
}

func newCoverage() *coverage {
	return &coverage{visited: map[string]bool{}, visitedT: map[string]int{}, known: map[string]bool{}, formSig: map[string]string{},
		multiField: map[string]bool{}, lastRows: map[string]bool{}, seenAt: map[string]int{}, catalogued: map[string]int{}, seenOn: map[string]string{},
		catTrips: map[string]bool{}}
}

// tag is a number for free text that no earlier value of the mission
// carried: drawn by r from 10–999, then from wider ranges once that one
// fills up. A nil coverage only draws.
func (c *coverage) tag(r *rand.Rand) int {
	lo, hi := 10, 1000
	if c == nil {
		return lo + r.IntN(hi-lo)
	}
	if c.tags == nil {
		c.tags = map[int]bool{}
	}
	for {
		for range 32 {
			if n := lo + r.IntN(hi-lo); !c.tags[n] {
				c.tags[n] = true
				return n
			}
		}
		lo, hi = hi, hi*10
	}
}

func (c *coverage) see(link, on string) {
	if link == "" || c.known[link] {
		return
	}
	if on != "" {
		c.seenOn[link] = on
	}
	c.known[link] = true
	c.frontier = append(c.frontier, link)
}

// noteForm remembers a page with form fields, once per form signature.
func (c *coverage) noteForm(v *view) {
	if (!hasFields(v.Els) && !hasRole(v.Els, "radio")) || hasPassword(v.Els) || strings.Contains(v.URL, collector.Prefix) {
		return
	}
	sig := formSig(v)
	if !slices.ContainsFunc(c.forms, func(f string) bool { return c.formSig[f] == sig }) {
		c.forms = append(c.forms, urlx.Path(v.URL))
		c.formSig[urlx.Path(v.URL)] = sig
	}
	for i, e := range v.Els {
		if e.Fillable() && e.InMain && formFields(v.Els, i) >= 2 {
			c.multiField[urlx.Path(v.URL)] = true
			break
		}
	}
}

// maxButtonPages bounds coverage.buttonPages.
const maxButtonPages = 8

// noteButtons remembers a page whose main content has a button of its own
// (pageButton), once per page template.
func (c *coverage) noteButtons(v *view) {
	here := urlx.PathQuery(v.URL)
	if len(c.buttonPages) >= maxButtonPages || strings.HasPrefix(here, collector.Prefix) || hasPassword(v.Els) {
		return
	}
	if _, ok := pageButton(v.Els); !ok {
		return
	}
	t := pageTemplate(here)
	if !slices.ContainsFunc(c.buttonPages, func(p string) bool { return pageTemplate(p) == t }) {
		c.buttonPages = append(c.buttonPages, here)
	}
}

// pageButton is the first button of the main content that acts on the
// page itself: it sends no form's fields, and neither destroys, dismisses
// nor signs out.
func pageButton(els []personas.Element) (personas.Element, bool) {
	for i, e := range els {
		if e.Role == "button" && e.InMain && !e.Has("disabled") && !reNotSubmit.MatchString(e.Name) && !reSignOut.MatchString(e.Name) &&
			!dismiss(e.Name) && !sendsForm(els, i) {
			return e, true
		}
	}
	return personas.Element{}, false
}

// visit counts a visit of the page l (path?query).
func (c *coverage) visit(l string) bool {
	if c.visited[l] {
		return false
	}
	c.visited[l] = true
	c.visitedOrder = append(c.visitedOrder, l)
	c.visitedT[pageTemplate(l)]++
	return true
}

// explored says whether l, or enough pages of its template, were visited:
// two project pages tell as much as twenty.
func (c *coverage) explored(l string) bool {
	return c.visited[l] || c.visitedT[pageTemplate(l)] >= 2
}

// way is how to reach the unvisited page l: the page its link was seen on
// (its link is then followed, as a user would, and a spec replays the
// click, not a typed address), or l itself.
func (c *coverage) way(l, here string) string {
	if from := c.seenOn[l]; from != "" && from != here && !strings.HasPrefix(from, collector.Prefix) {
		return from
	}
	return l
}

// nextUnvisited returns the first priority, frontier or entry page not
// explored yet.
func (c *coverage) nextUnvisited() (string, bool) {
	for _, l := range slices.Concat(c.priority, c.frontier, c.entries) {
		if !c.explored(l) {
			return l, true
		}
	}
	return "", false
}

// member is a persona at work in one mission.
type member struct {
	p     Persona
	q     []step
	tried map[string]bool
	// lead is set when the member's latest step only took the browser
	// to where its next one is (a form it has a trick left for): the
	// turn goes on for that one, or another persona would move the
	// browser away first.
	lead bool
	// leadCat: that step was a trip back for the catalogue; lastCat: it
	// was the catalogue's.
	leadCat, lastCat bool
	creds            Credentials
	hold             func()
	// acct is the account the member acts as (nil: the one session of a
	// run without Config.Users).
	acct *userRun
}

func newMember(p Persona, creds Credentials, hold func()) *member {
	return &member{p: p, tried: map[string]bool{}, creds: creds, hold: hold}
}

// view is what a member sees before its next move.
type view struct {
	URL   string
	Snap  browser.Snapshot
	Els   []personas.Element
	Cov   *coverage
	Rand  *rand.Rand
	Start string
	// Sweep is the mission's app model; nil for none.
	Sweep *sweep
	// Spent is the share of the mission's budget used so far (0..1).
	Spent float64
	// Steps is the mission's steps so far.
	Steps int
}

func (m *member) has(t Trick) bool { return slices.Contains(m.p.Tricks, t) }

// revisitKey marks the member's coming back to form f for trick t: once
// per trick and form, but the catalogue comes back for as long as the
// form has classes left and its share of submissions is not spent (each
// visit plays what it can before the form takes the browser elsewhere).
func (m *member) revisitKey(t Trick, f string, c *coverage) string {
	k := "revisit:" + string(t) + ":" + f
	if t == TrickCatalogue && c != nil {
		k += ":" + strconv.Itoa(c.catalogued[f])
	}
	return k
}

// pendingForms counts the form tricks the member has not played yet.
func (m *member) pendingForms(c *coverage) int { return m.pendingTricks(c, "") }

// pendingOwn counts the form tricks other than the catalogue the member
// has not played yet: what it does before the catalogue's share.
func (m *member) pendingOwn(c *coverage) int { return m.pendingTricks(c, TrickCatalogue) }

// pendingTricks counts the (form, trick) pairs the member has not played
// yet, trick skip aside.
func (m *member) pendingTricks(c *coverage, skip Trick) int {
	n := 0
	for _, f := range c.forms {
		for _, t := range formTricks {
			if t != skip && m.has(t) && c.takes(t, f) && !m.tried[string(t)+":"+c.formSig[f]] && !m.tried[m.revisitKey(t, f, c)] {
				n++
			}
		}
	}
	return n
}

// takes: trick t has something to do on form page f. A one-field form
// (a search, a note) has no catalogue (formClass) and no double submit
// (a search sent twice changes nothing).
func (c *coverage) takes(t Trick, f string) bool {
	switch t {
	case TrickCatalogue:
		return c.multiField[f]
	case TrickDouble:
		return c.multiField[f]
	}
	return true
}

func hasPassword(els []personas.Element) bool {
	for _, e := range els {
		if e.Fillable() && strings.Contains(strings.ToLower(e.Name), "password") {
			return true
		}
	}
	return false
}

// pending estimates how much work the member has left: the supervisor's
// coverage signal.
func (m *member) pending(c *coverage) int {
	n := len(m.q) + 3*m.pendingForms(c)
	if m.has(TrickDropSession) && !c.dropped && len(c.visited) > 3 {
		n += 2
	}
	if _, ok := c.nextUnvisited(); ok {
		n++
	}
	return n
}

var (
	reEmail    = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	rePassword = regexp.MustCompile(`(?is)password\W.{0,60}?: ([^\s"]+)`)
)

// Credentials sign the explorer in when a page asks for a password.
type Credentials struct {
	Email    string
	Password string
}

// guessCredentials reads an account shown on the page (demo apps often do),
// falling back to a throwaway one.
func guessCredentials(text string, c Credentials) Credentials {
	if c.Email == "" {
		if m := reEmail.FindString(text); m != "" {
			c.Email = m
		} else {
			c.Email = "qa@example.com"
		}
	}
	if c.Password == "" {
		if m := rePassword.FindStringSubmatch(text); m != nil {
			c.Password = m[1]
		} else {
			c.Password = "Passw0rd!"
		}
	}
	return c
}

func intent(a browser.Action) browser.Intent { return browser.Intent{Action: a} }

func clickRef(ref string) browser.Intent {
	return browser.Intent{Action: browser.ActClick, Target: ref}
}

func fillRef(ref, v string) browser.Intent {
	return browser.Intent{Action: browser.ActFill, Target: ref, Value: &v}
}

func nav(u string) browser.Intent { return browser.Intent{Action: browser.ActNavigate, URL: u} }

// submitWords rank button names by how surely they submit a form.
var submitWords = []string{"submit", "create", "continue", "next", "sign in", "log in", "login", "search", "apply", "send", "update", "save", "confirm", "ok", "go"}

func submitRank(name string) int {
	n := strings.ToLower(name)
	for i, w := range submitWords {
		if strings.Contains(n, w) {
			return i
		}
	}
	return len(submitWords)
}

// submitButton is the in-main button after the fields that most looks like
// it submits them.
// reNotSubmit names buttons that undo or destroy rather than send: never a
// form's submit, whatever their place after the field.
var reNotSubmit = regexp.MustCompile(`(?i)\b(delete|remove|cancel|close|clear|reset|discard|dismiss|undo)\b`)

// reDismiss is a control whose whole name says it only closes what is
// open (a dialog's Cancel, a banner's ×), not one that names what it
// closes ("Close the account…" opens a confirmation).
var reDismiss = regexp.MustCompile(`(?i)^\s*(cancel|close|dismiss|no|no,? thanks|not now|never ?mind|keep editing|go back|×|✕|✖|x)\s*$`)

// reSideButton names a form's side button that acts on the form itself.
var reSideButton = regexp.MustCompile(`(?i)\b(delete|remove|clear|reset|discard|undo)\b`)

// dismiss: name is a dismiss control's (reDismiss).
func dismiss(name string) bool { return reDismiss.MatchString(name) }

// recordForm: the page's main content holds a form of two fields or more.
func recordForm(els []personas.Element) bool {
	for i, e := range els {
		if e.InMain && e.Fillable() && formFields(els, i) >= 2 {
			return true
		}
	}
	return false
}

// sendsForm: the button els[i] sends fields: a form control comes between
// it and the nearest button or link before it (in its region). A
// "Confirm" with nothing to fill before it is a button like any other.
func sendsForm(els []personas.Element, i int) bool {
	if i < 0 || i >= len(els) {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		e := els[j]
		switch {
		case e.InMain != els[i].InMain:
		case e.Role == "button" && (e.Has("file input") || reSideButton.MatchString(e.Name) || dismiss(e.Name) || reBackward.MatchString(e.Name)):
			// A form's own side buttons (a file chooser, Back, Clear,
			// Cancel) do not end it; a button that names what it closes
			// ("Close the account…", which opens its confirmation) does.
		case e.Role == "button" || e.Role == "link":
			return false
		case formControl(e):
			return true
		}
	}
	return false
}

func submitButton(els []personas.Element, after int) (personas.Element, bool) {
	best, rank := -1, len(submitWords)+1
	for i := after; i < len(els); i++ {
		e := els[i]
		if e.Role != "button" || !e.InMain || e.Has("disabled") || reNotSubmit.MatchString(e.Name) {
			continue
		}
		if r := submitRank(e.Name); r < rank {
			best, rank = i, r
		}
	}
	if best < 0 {
		return personas.Element{}, false
	}
	return els[best], true
}

// validFor is a valid value for the field e, from its kind, label and
// constraints (personas.ValidValue); free text gets a number no other value
// of the mission had (coverage.tag), so two records the explorer creates
// never read the same (a list showing two equal rows is then the app's
// doing).
func validFor(e personas.Element, v *view) string {
	f := personas.FieldOf(e, nil)
	val := personas.ValidValue(f)
	if (f.Kind == personas.FieldText || f.Kind == personas.FieldTextarea) && f.Pattern == "" && strings.ContainsFunc(val, unicode.IsLetter) &&
		!strings.ContainsAny(val, "@/") {
		tail := fmt.Sprintf(" %d", v.Cov.tag(v.Rand))
		if f.MaxLength == 0 || utf8.RuneCountInString(val+tail) <= f.MaxLength {
			val += tail
		}
	}
	return val
}

// exoticText is legal text that trips careless code: an apostrophe
// (quoting), letters outside Latin-1 (encodings, Latin-1 columns) and a
// number no other value of the mission had (so two records never read the
// same), within the field's maxlength.
func exoticText(f personas.Field, vw *view) string {
	v := fmt.Sprintf("O'Brien \u212Bngstr\u00f6m \u03a9 \u6771\u4eac %d", vw.Cov.tag(vw.Rand))
	if f.MaxLength > 0 && utf8.RuneCountInString(v) > f.MaxLength {
		v = string([]rune(v)[:f.MaxLength])
	}
	return v
}

// formPlan fills the page's in-main fields with fill(name) and submits.
func formPlan(v *view, fill func(e personas.Element) (string, bool), double bool, hold func()) []step {
	var out []step
	last := -1
	radios := map[string]bool{}
	for i, e := range v.Els {
		if !e.InMain || e.Has("disabled") {
			continue
		}
		switch {
		case e.Fillable():
			val, ok := fill(e)
			if !ok {
				continue
			}
			out = append(out, step{in: fillRef(e.Ref, val), why: "fill " + e.Name})
			last = i
		case e.Role == "combobox" && len(e.Options) > 0 && e.Value == "":
			// A required choice left on its placeholder blocks the form
			// in the browser: the form is filled to be sent.
			if f := personas.FieldOf(e, nil); f.Required {
				o := personas.ValidValue(f)
				out = append(out, step{in: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, why: "choose " + e.Name})
				last = i
			}
		case e.Role == "radio":
			if !radios["any"] && !e.Has("checked") {
				out = append(out, step{in: clickRef(e.Ref), why: "choose " + e.Name})
			}
			radios["any"] = true
			last = i
		case e.Role == "checkbox":
			last = i
		}
	}
	if last < 0 {
		return nil
	}
	b, ok := submitButton(v.Els, last+1)
	if !ok {
		// No button: a filter or search field submits on Enter.
		if f := v.Els[last]; f.Fillable() && !double && len(out) > 0 {
			return append(out, step{in: browser.Intent{Action: browser.ActPress, Target: f.Ref, Key: "Enter"}, why: "submit with Enter"})
		}
		return nil
	}
	if double {
		// An impatient double click: two clicks a few milliseconds apart,
		// the first answer held back as a slow network would.
		out = append(out, step{in: browser.Intent{Action: browser.ActDblclick, Target: b.Ref}, before: hold, why: "double-click submit on a slow network"})
	} else {
		out = append(out, step{in: clickRef(b.Ref), why: "submit " + b.Name})
	}
	return out
}

// reQuery names a field that queries what the app holds rather than
// adding to it.
var reQuery = regexp.MustCompile(`(?i)\b(search|filter|find|query|look ?up)\b`)

// queryForm: the main content's only text to fill is a search or a
// filter (a search box, or one field named so).
func queryForm(els []personas.Element) bool {
	var fields []personas.Element
	for _, e := range els {
		if e.InMain && e.Fillable() {
			fields = append(fields, e)
		}
	}
	if len(fields) == 0 {
		return false
	}
	if len(fields) == 1 && reQuery.MatchString(fields[0].Name) {
		return true
	}
	for _, e := range fields {
		if personas.FieldOf(e, nil).Kind != personas.FieldSearch && e.Role != "searchbox" {
			return false
		}
	}
	return true
}

func hasFields(els []personas.Element) bool {
	for _, e := range els {
		if e.InMain && e.Fillable() {
			return true
		}
	}
	return false
}

// plan returns the next macro of trick t on the page, or nil.
func (m *member) plan(t Trick, v *view) []step {
	path := templateOf(urlx.Path(v.URL))
	key := string(t) + ":" + formSig(v)
	switch t {
	case TrickClickButtons:
		primary, _ := submitButton(v.Els, 0)
		if submitRank(primary.Name) == len(submitWords) || !sendsForm(v.Els, indexOf(v.Els, primary.Ref)) {
			// Nothing that looks like a submit button, or one with no
			// fields before it (a dialog's "Confirm"): a button to press.
			primary = personas.Element{}
		}
		// A dialog's dismiss button (Cancel, Close) goes after the
		// screen's other buttons: clicked first, it takes the dialog's
		// other buttons away before they were tried.
		var last *personas.Element
		for i, e := range v.Els {
			if e.Role != "button" || !e.InMain || primary.Ref != "" && e.Ref == primary.Ref || m.tried["btn:"+path+":"+e.Name] || e.Has("disabled") || v.Sweep.playedHere(e) {
				continue
			}
			if strings.Contains(strings.ToLower(e.Name), "delete") || strings.Contains(strings.ToLower(e.Name), "sign out") {
				continue
			}
			if dismiss(e.Name) {
				if last == nil {
					last = &v.Els[i]
				}
				continue
			}
			last = &v.Els[i]
			break
		}
		if last != nil {
			m.tried["btn:"+path+":"+last.Name] = true
			return []step{{in: clickRef(last.Ref), why: "try control " + last.Name, watch: 700 * time.Millisecond}}
		}
	case TrickValidForm:
		if m.tried[key] || !hasFields(v.Els) && !hasRole(v.Els, "radio") || hasPassword(v.Els) {
			return nil
		}
		m.tried[key] = true
		return formPlan(v, func(e personas.Element) (string, bool) {
			if e.Value != "" {
				return "", false
			}
			return validFor(e, v), true
		}, false, nil)
	case TrickXSS:
		if m.tried[key] || !hasFields(v.Els) || hasPassword(v.Els) {
			return nil
		}
		m.tried[key] = true
		played := map[string][]personas.InputClass{}
		macro := formPlan(v, func(e personas.Element) (string, bool) {
			if f := personas.FieldOf(e, nil); e.Role == "spinbutton" || f.Kind != personas.FieldText && f.Kind != personas.FieldTextarea && f.Kind != personas.FieldSearch ||
				strings.Contains(strings.ToLower(e.Name), "mail") {
				return validFor(e, v), true
			}
			played[e.Ref] = []personas.InputClass{personas.ClassMarkup}
			return collector.XSSPayload, true
		}, false, nil)
		if len(macro) > 0 {
			v.Sweep.cover(v, played)
		}
		if len(macro) > 0 && !queryForm(v.Els) {
			// Stored payloads show where the app lists what was made (a
			// search's or a filter's query is not stored: it shows, if
			// at all, on the page its submission opens).
			for _, l := range listPages(v) {
				macro = append(macro, step{in: nav(l), why: "see the payload where the app lists it"})
			}
		}
		return macro
	case TrickExotic:
		// Text a plain-text field must take: a name with an apostrophe
		// and letters outside Latin-1 (the catalogue's quotes and
		// non_latin classes in one value). One submission tries every
		// free-text field of the form, where the coverage sweep tries one
		// field per submission; the other fields get valid values.
		if m.tried[key] || !hasFields(v.Els) || hasPassword(v.Els) {
			return nil
		}
		m.tried[key] = true
		played := map[string][]personas.InputClass{}
		macro := formPlan(v, func(e personas.Element) (string, bool) {
			if f := personas.FieldOf(e, nil); e.Role != "spinbutton" && (f.Kind == personas.FieldText || f.Kind == personas.FieldTextarea) && f.Pattern == "" &&
				!strings.Contains(strings.ToLower(e.Name), "mail") {
				// Its apostrophe is one of the quotes class's characters, not
				// all of them: that class keeps its own target.
				played[e.Ref] = []personas.InputClass{personas.ClassNonLatin}
				return exoticText(f, v), true
			}
			if e.Value != "" {
				return "", false
			}
			return validFor(e, v), true
		}, false, nil)
		if len(macro) > 0 {
			v.Sweep.cover(v, played)
		}
		return macro
	case TrickLong:
		if m.tried[key] || !hasFields(v.Els) || hasPassword(v.Els) {
			return nil
		}
		m.tried[key] = true
		long := strings.Repeat("Lorem ipsum dolor sit amet ", 6) // 162 characters
		first := true
		return formPlan(v, func(e personas.Element) (string, bool) {
			if e.Role == "textbox" && first && !strings.Contains(strings.ToLower(e.Name), "mail") {
				first = false
				return long, true
			}
			if e.Value != "" {
				return "", false
			}
			return validFor(e, v), true
		}, false, nil)
	case TrickCatalogue:
		// Class after class of the input catalogue, each in every
		// field of the form that takes it (the app model's targets),
		// until the form has had its share; the sweep does the rest.
		if m.tried[key] || !hasFields(v.Els) || hasPassword(v.Els) {
			return nil
		}
		macro, done := v.Sweep.formClass(m, v, catalogueOrder)
		if done {
			m.tried[key] = true
		}
		return macro
	case TrickDouble:
		// A record's form (two fields or more): a search or a filter
		// sent twice changes nothing.
		if m.tried[key] || !hasFields(v.Els) || hasRole(v.Els, "searchbox") || hasPassword(v.Els) || !recordForm(v.Els) {
			return nil
		}
		m.tried[key] = true
		return formPlan(v, func(e personas.Element) (string, bool) {
			if e.Value != "" {
				return "", false
			}
			return validFor(e, v), true
		}, true, m.hold)
	case TrickSelect:
		for _, e := range sortFirst(v.Els) {
			if e.Role != "combobox" || !e.InMain {
				continue
			}
			if i := indexOf(v.Els, e.Ref); inForm(v.Els, e.Ref) && formFields(v.Els, i) > 0 {
				// A choice of a form with fields to fill: the sweep
				// sends it with the rest of the form filled.
				continue
			}
			// The options at the end of a list are the least tried.
			for _, o := range slices.Backward(e.Options) {
				k := "sel:" + path + ":" + e.Name + ":" + o
				if m.tried[k] {
					continue
				}
				m.tried[k] = true
				b, ok := submitButton(v.Els, indexOf(v.Els, e.Ref)+1)
				if !ok {
					return []step{{in: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, why: "choose " + e.Name + ": " + o}}
				}
				return []step{{in: browser.Intent{Action: browser.ActSelectOption, Target: e.Ref, Value: &o}, why: "choose " + e.Name + ": " + o},
					{in: clickRef(b.Ref), why: "apply"}}
			}
		}
	case TrickPaginate:
		for _, e := range v.Els {
			n := strings.ToLower(e.Name)
			if e.Role != "link" || !(n == "next" || strings.HasPrefix(n, "next ") || n == "›" || n == "»") {
				continue
			}
			k := "next:" + urlx.PathQuery(v.URL)
			if m.tried[k] {
				continue
			}
			m.tried[k] = true
			return []step{{in: clickRef(e.Ref), why: "next page"}}
		}
	case TrickDropSession:
		// Late: the session is dropped once the other tricks are done, or
		// half the budget is spent. Then every screen seen so far (one
		// page per template) is opened again without a session: each
		// must send the user to sign in, never fail.
		if v.Cov.dropped || v.Cov.signin == "" || len(v.Cov.visited) < 4 || strings.Contains(v.URL, collector.Prefix) ||
			m.pendingForms(v.Cov) > 0 && v.Spent < 0.5 {
			return nil
		}
		b, stale := pageButton(v.Els)
		if here := urlx.PathQuery(v.URL); !stale && !m.tried["drop-via"] {
			// A page with buttons of its own is where the session is
			// best dropped: they are clicked on the page as it was
			// loaded, and must then ask to sign in, not fail.
			m.tried["drop-via"] = true
			if i := slices.IndexFunc(v.Cov.buttonPages, func(p string) bool { return p != here }); i >= 0 {
				return []step{{in: nav(v.Cov.buttonPages[i]), why: "to " + v.Cov.buttonPages[i] + ", whose own buttons are clicked once the session is gone", lead: true}}
			}
		}
		v.Cov.dropped = true
		macro := []step{{in: browser.Intent{Action: browser.ActClearSiteData}, why: "clear cookies and storage", before: func() { v.Cov.gen++ }}}
		if stale {
			// The page stays as it was loaded (a stale page): its
			// button's request goes without a session.
			macro = append(macro, step{in: clickRef(b.Ref), why: "click " + b.Name + " on the page loaded before the session went", watch: 700 * time.Millisecond})
		}
		seen := map[string]bool{pageTemplate(v.Cov.signin): true}
		for _, l := range append([]string{urlx.PathQuery(v.URL)}, v.Cov.visitedOrder...) {
			if t := pageTemplate(l); !seen[t] && !strings.HasPrefix(l, collector.Prefix) && len(macro) <= maxSessionPages {
				seen[t] = true
				macro = append(macro, step{in: nav(l), why: "come back with the session gone"})
			}
		}
		return append(macro, step{in: nav(v.Cov.signin), why: "sign in again"})
	case TrickKeyboard:
		if m.tried[key] {
			return nil
		}
		m.tried[key] = true
		tab := browser.Intent{Action: browser.ActPress, Key: "Tab"}
		return []step{{in: tab, why: "keyboard"}, {in: tab, why: "keyboard"}, {in: tab, why: "keyboard"}}
	}
	return nil
}

func hasRole(els []personas.Element, role string) bool {
	for _, e := range els {
		if e.Role == role && e.InMain {
			return true
		}
	}
	return false
}

func indexOf(els []personas.Element, ref string) int {
	for i, e := range els {
		if e.Ref == ref {
			return i
		}
	}
	return 0
}

// sortFirst puts sort controls first: power users sort before they filter.
func sortFirst(els []personas.Element) []personas.Element {
	out := slices.Clone(els)
	slices.SortStableFunc(out, func(a, b personas.Element) int {
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

// next picks the member's next step, or false when it has nothing to do.
func (m *member) next(v *view) (step, bool) {
	st, ok := m.decide(v)
	if ok {
		var n int
		if st, n = m.batch(st); n > 0 {
			v.Sweep.merged(n)
		}
	}
	m.lead = ok && st.lead
	m.leadCat = m.lead && st.cat
	m.lastCat = ok && st.cat
	return st, ok
}

// batch merges a macro's fills and choices on one screen (st and the
// steps queued after it) into one fill_form intent, as a person fills a
// form before sending it: one step of the budget and one look at the page,
// not one per field. It returns how many queued steps it took in.
func (m *member) batch(st step) (step, int) {
	f, ok := formField(st)
	if !ok {
		return st, 0
	}
	fields, whys := []browser.FormField{f}, []string{st.why}
	n := 0
	for ; n < len(m.q) && len(fields) < browser.MaxFormFields; n++ {
		g, ok := formField(m.q[n])
		if !ok {
			break
		}
		fields, whys = append(fields, g), append(whys, m.q[n].why)
		st.cat = st.cat || m.q[n].cat
	}
	if n == 0 {
		return st, 0
	}
	m.q = m.q[n:]
	st.in = browser.Intent{Action: browser.ActFillForm, Fields: fields}
	st.why = strings.Join(whys, "; ")
	return st, n
}

// formField is a step as a field of fill_form: a fill, a choice of an
// option or a tick that goes on its own (no hold before it, no watch
// after it, not chained to the previous step).
func formField(st step) (browser.FormField, bool) {
	if st.before != nil || st.chain || st.watch > 0 || st.lead {
		return browser.FormField{}, false
	}
	switch st.in.Action {
	case browser.ActFill:
		return browser.FormField{Target: st.in.Target, Value: st.in.ValueOrEmpty()}, true
	case browser.ActSelectOption:
		return browser.FormField{Target: st.in.Target, Value: st.in.ValueOrEmpty(), Kind: browser.FieldSelect}, true
	case browser.ActCheck:
		return browser.FormField{Target: st.in.Target, Kind: browser.FieldCheck}, true
	}
	return browser.FormField{}, false
}

// decide is next's choice.
func (m *member) decide(v *view) (step, bool) {
	if len(m.q) > 0 && m.q[0].in.Action == browser.ActNavigate && v.Sweep.stepPending(v) {
		// A macro's submission answered with a flow's next step: the
		// flow is walked to its end before the macro's visits (the pages
		// that list what it sent show it only once the last step stored
		// it).
		if macro := v.Sweep.nextStep(m, v); len(macro) > 0 {
			m.q = append(macro[1:], m.q...)
			return macro[0], true
		}
	}
	if len(m.q) > 0 {
		s := m.q[0]
		m.q = m.q[1:]
		return s, true
	}
	// Sign in when the page asks for a password.
	if i := passwordField(v.Els); i >= 0 {
		k := fmt.Sprintf("signin:%d:%s", v.Cov.gen, urlx.Path(v.URL))
		if !m.tried[k] {
			m.tried[k] = true
			if v.Cov.signin == "" {
				v.Cov.signin = urlx.PathQuery(v.URL)
			}
			macro := signInMacro(v.Els, i, guessCredentials(v.Snap.Text, m.creds))
			m.q = macro[1:]
			return macro[0], true
		}
	}
	// A form that answered with its next step (a wizard) is walked to
	// its end with valid values: what the first step sent is stored, or
	// breaks, only at the last.
	if v.Sweep.stepPending(v) {
		// A step is a screen too: its own controls first (a "Save
		// draft" beside the "Next"), then on.
		if st, ok := v.Sweep.here(m, v); ok {
			return st, true
		}
		if macro := v.Sweep.nextStep(m, v); len(macro) > 0 {
			m.q = macro[1:]
			return macro[0], true
		}
	}
	// A record just made comes first: its own page's buttons, then the
	// pages that list it (a stored script, a duplicate row show there).
	if st, ok := v.Sweep.followUp(v); ok {
		return st, true
	}
	// A control the screen repeats on its rows (a row's button, shown
	// on hover) on its other rows, before the list's last row takes the
	// browser elsewhere.
	if st, ok := v.Sweep.again(v); ok {
		return st, true
	}
	// The list's last row (one step per list page) before the
	// catalogue's share takes the browser back to a form: a list met
	// only while the share is owed would never have it opened.
	if st, ok := lastRow(v); ok {
		return st, true
	}
	if st, ok := m.catalogueDue(v); ok {
		return st, true
	}
	if st, ok := v.Sweep.here(m, v); ok {
		return st, true
	}
	for _, t := range m.p.Tricks {
		if macro := m.plan(t, v); len(macro) > 0 {
			m.q = macro[1:]
			return macro[0], true
		}
	}
	// Follow an unexplored link on this page, main content first.
	for _, inMain := range []bool{true, false} {
		for _, e := range v.Els {
			if e.Role != "link" || e.InMain != inMain || e.URL == "" {
				continue
			}
			l, ok := resolveLink(v.URL, e.URL)
			if !ok || v.Cov.explored(l) || m.tried["link:"+l] {
				continue
			}
			m.tried["link:"+l] = true
			return step{in: clickRef(e.Ref), why: "explore " + e.Name}, true
		}
	}
	// Come back to a form this member still has work on: each trick on
	// every form before the next trick, in the persona's own order of its
	// tricks (the catalogue's order puts the likeliest and most severe
	// first), not every trick on one form first.
	// The catalogue goes to the form it played least on so far (in
	// discovery order among equals): a class on every form before any
	// form's next class, so the forms found late (an edit form behind a
	// record) are not left with what the first ones did not spend. In the
	// persona's order it plays a first round (catalogueRound submissions
	// per form); the rest of its classes come after every other trick,
	// so that neither it nor the tricks after it starve the others.
	for _, catalogueRest := range []bool{false, true} {
		for _, t := range m.p.Tricks {
			if !slices.Contains(formTricks, t) || catalogueRest && t != TrickCatalogue {
				continue
			}
			forms := v.Cov.forms
			if t == TrickCatalogue {
				forms = slices.Clone(forms)
				slices.SortStableFunc(forms, func(a, b string) int { return v.Cov.catalogued[a] - v.Cov.catalogued[b] })
			}
			for _, f := range forms {
				if !v.Cov.takes(t, f) || t == TrickCatalogue && !catalogueRest && v.Cov.catalogued[f] >= catalogueRound {
					continue // no way back to a form the trick has nothing for
				}
				if m.has(t) && !m.tried[string(t)+":"+v.Cov.formSig[f]] && !m.tried[m.revisitKey(t, f, v.Cov)] && f != urlx.Path(v.URL) {
					m.tried[m.revisitKey(t, f, v.Cov)] = true
					return step{in: nav(f), why: "back to " + f + " for " + string(t), lead: true, cat: t == TrickCatalogue}, true
				}
			}
		}
	}
	if l, ok := v.Cov.nextUnvisited(); ok && !m.tried["nav:"+l] {
		m.tried["nav:"+l] = true
		if w := v.Cov.way(l, urlx.PathQuery(v.URL)); w != l {
			return step{in: nav(w), why: "to " + w + ", which links to " + l}, true
		}
		return step{in: nav(l), why: "visit " + l}, true
	}
	// The app model's best untried target, as this persona prefers.
	if v.Sweep != nil {
		return v.Sweep.next(m, v)
	}
	return step{}, false
}

// reDestroy names a control that deletes what it stands for.
var reDestroy = regexp.MustCompile(`(?i)\b(delete|remove|destroy|archive|discard|erase|trash)\b`)

// gone reports whether page (path?query) answered when the team looked at
// it and a control named to delete was used since: a 404 there now is
// what the mission did (the record it deleted), not a broken link.
func (c *coverage) gone(page string) bool {
	at, ok := c.seenAt[page]
	return ok && c.destroyedAt > at
}

// minRows is how many links of one URL template make a list.
const minRows = 3

// lastRow opens the last row of a list at its end: on a page with no next
// page, the last of the in-main links that share a URL template (the rows
// of a list), when no page of it was opened yet. The first rows are what
// the team meets anyway; the oldest record, at the list's end, is the
// other boundary (the data the app was seeded with, made by another
// version of it). Once per page.
func lastRow(v *view) (step, bool) {
	if v.Cov == nil || v.Cov.lastRows[urlx.PathQuery(v.URL)] || hasNextLink(v.Els) {
		return step{}, false
	}
	rows := map[string][]personas.Element{}
	var order []string
	for _, e := range v.Els {
		if e.Role != "link" || !e.InMain || e.URL == "" {
			continue
		}
		l, ok := resolveLink(v.URL, e.URL)
		if !ok {
			continue
		}
		t := templateOf(urlx.Path(l))
		if !strings.Contains(t, "{n}") {
			continue
		}
		if len(rows[t]) == 0 {
			order = append(order, t)
		}
		rows[t] = append(rows[t], e)
	}
	v.Cov.lastRows[urlx.PathQuery(v.URL)] = true
	for _, t := range order {
		rs := rows[t]
		if len(rs) < minRows {
			continue
		}
		last := rs[len(rs)-1]
		if l, _ := resolveLink(v.URL, last.URL); !v.Cov.visited[l] {
			return step{in: clickRef(last.Ref), why: "the list's last row: " + last.Name}, true
		}
	}
	return step{}, false
}

// hasNextLink: the page links to a next page of its list.
func hasNextLink(els []personas.Element) bool {
	for _, e := range els {
		n := strings.ToLower(strings.TrimSpace(e.Name))
		if e.Role == "link" && (n == "next" || strings.HasPrefix(n, "next ") || n == "›" || n == "»") {
			return true
		}
	}
	return false
}

// resolveLink turns a link's href into a same-origin path?query, or false
// for other origins, fragments and non-http schemes.
func resolveLink(base, href string) (string, bool) {
	b, err := url.Parse(base)
	if err != nil {
		return "", false
	}
	h, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	u := b.ResolveReference(h)
	if u.Host != b.Host || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	if u.Path == b.Path && u.RawQuery == b.RawQuery {
		return "", false
	}
	if strings.HasPrefix(u.Path, collector.Prefix) {
		return "", false
	}
	return urlx.PathQuery(u.String()), true
}

var reIDSeg = regexp.MustCompile(`/[0-9]+(/|$)`)

// templateOf names a page's template: numeric path segments become {n}, so
// /projects/7/edit and /projects/8/edit count as one page for the tricks.
func templateOf(path string) string {
	for reIDSeg.MatchString(path) {
		path = reIDSeg.ReplaceAllString(path, "/{n}$1")
	}
	return path
}

// pageTemplate is templateOf the path plus the query's keys: /projects and
// /projects?status=x are different screens, /projects?status=x and
// /projects?status=y are the same one.
func pageTemplate(l string) string {
	u, err := url.Parse(l)
	if err != nil {
		return l
	}
	keys := make([]string, 0, len(u.Query()))
	for k := range u.Query() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return templateOf(u.Path) + "?" + strings.Join(keys, "&")
}

// formSig identifies a form page for the form tricks: its template and the
// names of its fields, so the steps of a wizard differ and the edit pages
// of many records do not.
func formSig(v *view) string {
	var b strings.Builder
	b.WriteString(templateOf(urlx.Path(v.URL)))
	for _, e := range v.Els {
		if e.InMain && (e.Fillable() || e.Role == "radio" || e.Role == "combobox") {
			b.WriteString("|" + e.Role + ":" + reNum.ReplaceAllString(e.Name, "#"))
		}
	}
	return b.String()
}

// The input catalogue's share of a mission (catalogueDue). Server faults
// hide behind one input class in one field of a record's form (a zero, a
// quote, a value past a column's width), and each class costs a whole
// submission of the form: left to the order of the tricks and the sweep's
// cheaper one-step targets, the catalogue got a handful of submissions
// per mission. From catalogueFrom of the budget on (discovery first), the
// team keeps at least catalogueShare of its steps on it while record
// forms have classes left.
const (
	catalogueShare = 0.3
	catalogueFrom  = 0.15
	// catalogueSlack is the share's allowance for going on with the next
	// class on a form the last submission was sent back to.
	catalogueSlack = 0.1
)

// catalogueDue is the catalogue's next step when its share is owed: any
// member plays it (the catalogue is a coverage target of the app model,
// whoever takes it), once it has played its own form tricks. On a record
// form with classes left it submits the next class there; elsewhere it
// goes back to the record form the catalogue played least on.
func (m *member) catalogueDue(v *view) (step, bool) {
	c := v.Cov
	here := urlx.Path(v.URL)
	share := catalogueShare
	if m.lastCat && c != nil && c.takes(TrickCatalogue, here) {
		// Its submission was sent back to the form, which is loaded and
		// filled: the next class here costs least now.
		share += catalogueSlack
	}
	if v.Sweep == nil || c == nil || v.Spent < catalogueFrom || float64(c.catSteps) >= share*float64(v.Steps) || m.pendingOwn(c) > 0 ||
		m.lead && !m.leadCat {
		// (A member that just came back to a form for another trick
		// plays that trick there first.)
		return step{}, false
	}
	if c.takes(TrickCatalogue, here) && !hasPassword(v.Els) {
		if macro, _ := v.Sweep.formClass(m, v, catalogueOrder); len(macro) > 0 {
			for i := range macro {
				macro[i].cat = true
			}
			m.q = macro[1:]
			return macro[0], true
		}
	}
	forms := slices.Clone(c.forms)
	slices.SortStableFunc(forms, func(a, b string) int { return c.catalogued[a] - c.catalogued[b] })
	for _, f := range forms {
		k := f + ":" + strconv.Itoa(c.catalogued[f])
		if f == here || !c.takes(TrickCatalogue, f) || c.catTrips[k] {
			continue
		}
		c.catTrips[k] = true
		return step{in: nav(f), why: "back to " + f + " for the catalogue's share", lead: true, cat: true}, true
	}
	return step{}, false
}

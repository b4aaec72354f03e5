package explore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// Persona is one member of the QA team: a personas.Persona, the one
// definition of who it is (name, role, focus, for reports and prompts)
// and how it acts offline (its lean over the app model, Prefer, and the
// tricks it plays on a page, in order, on top of the common moves every
// member makes: sign in when asked, follow unexplored links, come back to
// forms it has work left on). The team reads nothing else of it.
type Persona = personas.Persona

// Trick is one thing a persona does on a page: personas.Trick, where each
// built-in persona lists its own (personas.Persona.Tricks).
type Trick = personas.Trick

// The tricks (personas' own).
const (
	TrickClickButtons = personas.TrickClickButtons
	TrickValidForm    = personas.TrickValidForm
	TrickSelect       = personas.TrickSelect
	TrickPaginate     = personas.TrickPaginate
	TrickXSS          = personas.TrickXSS
	TrickLong         = personas.TrickLong
	TrickExotic       = personas.TrickExotic
	TrickDouble       = personas.TrickDouble
	TrickCatalogue    = personas.TrickCatalogue
	TrickDropSession  = personas.TrickDropSession
	TrickKeyboard     = personas.TrickKeyboard
)

// catalogueRound is the catalogue's first round: the submissions it
// comes back to a form for in its persona's order of tricks; the rest of
// its classes come after the persona's other form tricks.
const catalogueRound = 3

// formTricks are the tricks that need a page with text fields.
var formTricks = personas.FormTricks()

// step is one queued action of a persona, with a hook run just before it.
type step struct {
	in     browser.Intent
	before func()
	why    string
	// chain runs the step right after the previous one, without looking.
	chain bool
	// watch keeps the page untouched at most this long after the step,
	// until the page is calm (nothing in flight, no timer of its own due
	// within the watch), so that what the click still does (a late
	// error, a dead control's verdict) belongs to it.
	watch time.Duration
	// lead: the step only takes the browser to where the member's next
	// one is (see member.lead).
	lead bool
	// cat: the step is the input catalogue's (coverage.catSteps).
	cat bool
}

// member is a persona at work in one mission.
type member struct {
	p     Persona
	q     []step
	tried map[string]bool
	// tricks plays the persona's tricks; what they did is kept in tried.
	tricks *personas.TrickPlayer
	// lead is set when the member's latest step only took the browser
	// to where its next one is (a form it has a trick left for): the
	// turn goes on for that one, or another persona would move the
	// browser away first.
	lead bool
	// leadCat: that step was a trip back for the catalogue; lastCat: it
	// was the catalogue's.
	leadCat, lastCat bool
	creds            session.Credentials
	hold             func()
	// acct is the account the member acts as (nil: the one session of a
	// run without Config.Users).
	acct *userRun
}

func newMember(p Persona, creds session.Credentials, hold func()) *member {
	tried := map[string]bool{}
	return &member{p: p, tried: tried, tricks: personas.NewTrickPlayer(tried), creds: creds, hold: hold}
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

// playTricks is the first step of the first of the persona's tricks
// that has something to do on this page; the rest of its macro is queued.
func (m *member) playTricks(v *view) (step, bool) {
	for _, t := range m.p.Tricks {
		if macro := m.plan(t, v); len(macro) > 0 {
			m.q = macro[1:]
			return macro[0], true
		}
	}
	return step{}, false
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
			macro := signInMacro(v.Els, i, session.GuessCredentials(v.Snap.Text, m.creds))
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
	// A member that just came back to a form for one of its tricks
	// plays the trick before anything else here: the screen's own
	// controls (an "Export" button that leaves the page) would spend
	// the trip.
	if m.lead && !m.leadCat {
		if st, ok := m.playTricks(v); ok {
			return st, true
		}
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
	if st, ok := m.playTricks(v); ok {
		return st, true
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
			return step{in: browser.Click(e.Ref), why: "explore " + e.Name}, true
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
					return step{in: browser.Navigate(f), why: "back to " + f + " for " + string(t), lead: true, cat: t == TrickCatalogue}, true
				}
			}
		}
	}
	if l, ok := v.Cov.nextUnvisited(); ok && !m.tried["nav:"+l] {
		if w := v.Cov.way(l, urlx.PathQuery(v.URL)); w != l && !m.tried["way:"+l] {
			// Through the page that links to it, as a user gets there;
			// when the link is not there to follow on arrival (a click
			// had revealed it), by its address next time.
			m.tried["way:"+l] = true
			return step{in: browser.Navigate(w), why: "to " + w + ", which links to " + l}, true
		}
		m.tried["nav:"+l] = true
		return step{in: browser.Navigate(l), why: "visit " + l}, true
	}
	// The app model's best untried target, as this persona prefers.
	if v.Sweep != nil {
		return v.Sweep.next(m, v)
	}
	return step{}, false
}

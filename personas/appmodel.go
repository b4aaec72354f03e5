package personas

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/browser"
)

// StateID names an abstract state of the app: a hash of its URL template
// and the structure of its interactive content.
type StateID string

// ActionKind is what an action does to its control.
type ActionKind string

// The action kinds.
const (
	ActionClick    ActionKind = "click"
	ActionDblClick ActionKind = "dblclick"
	ActionHover    ActionKind = "hover"
	ActionFill     ActionKind = "fill"
	ActionSelect   ActionKind = "select"
	ActionCheck    ActionKind = "check"
	ActionUncheck  ActionKind = "uncheck"
	ActionPress    ActionKind = "press"
	ActionNavigate ActionKind = "navigate"
)

// Action is one concrete thing to do in a state: a kind, the control it
// acts on (none for the page) and the input class or argument.
type Action struct {
	Kind ActionKind `json:"kind"`
	// Role is the control's role; "" for the page.
	Role string `json:"role,omitempty"`
	// Name is the control's normalised name (see Control).
	Name string `json:"name,omitempty"`
	// Href is set instead of Name for a link standing for repeated links
	// of one URL template (the rows of a list).
	Href  string     `json:"href,omitempty"`
	Class InputClass `json:"class,omitempty"`
	// Arg is the option (select), the key (press) or the URL (navigate).
	Arg string `json:"arg,omitempty"`
}

// ActionKey is an action's canonical text, e.g.
// `fill textbox "Email" :long_256` or `select combobox "Sort" :option ="Newest"`.
// ParseActionKey reads it back.
type ActionKey string

// Key is the action's canonical text.
func (a Action) Key() ActionKey {
	var b strings.Builder
	b.WriteString(string(a.Kind))
	if a.Role != "" {
		b.WriteString(" " + a.Role)
		if a.Href != "" {
			b.WriteString(" →" + strconv.Quote(a.Href))
		} else {
			b.WriteString(" " + strconv.Quote(a.Name))
		}
	}
	if a.Class != "" {
		b.WriteString(" :" + string(a.Class))
	}
	if a.Arg != "" {
		b.WriteString(" =" + strconv.Quote(a.Arg))
	}
	return ActionKey(b.String())
}

// NavigateKey is the action of opening url directly.
func NavigateKey(url string) ActionKey {
	return Action{Kind: ActionNavigate, Arg: url}.Key()
}

// ParseActionKey reads an ActionKey back into its Action.
func ParseActionKey(k ActionKey) (Action, error) {
	s := string(k)
	bad := func(why string) (Action, error) { return Action{}, fmt.Errorf("action key %q: %s", clip(s, 80), why) }
	var a Action
	word := func() string {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			i = len(s)
		}
		w := s[:i]
		s = strings.TrimPrefix(s[i:], " ")
		return w
	}
	quoted := func() (string, bool) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", false
		}
		v, err := strconv.Unquote(q)
		s = strings.TrimPrefix(s[len(q):], " ")
		return v, err == nil
	}
	if a.Kind = ActionKind(word()); a.Kind == "" {
		return bad("no kind")
	}
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		a.Role = word()
		var ok bool
		if rest, isHref := strings.CutPrefix(s, "→"); isHref {
			s = rest
			a.Href, ok = quoted()
		} else {
			a.Name, ok = quoted()
		}
		if !ok {
			return bad("bad control name")
		}
	}
	if rest, ok := strings.CutPrefix(s, ":"); ok {
		s = rest
		a.Class = InputClass(word())
	}
	if rest, ok := strings.CutPrefix(s, "="); ok {
		s = rest
		v, ok := quoted()
		if !ok {
			return bad("bad argument")
		}
		a.Arg = v
	}
	if s != "" {
		return bad("trailing text")
	}
	return a, nil
}

// String says the action in words, for reports.
func (a Action) String() string {
	ctl := a.Role + " " + strconv.Quote(a.Name)
	if a.Href != "" {
		ctl = a.Role + " to " + a.Href
	}
	switch {
	case a.Kind == ActionNavigate:
		return "open " + a.Arg
	case a.Kind == ActionPress && a.Role == "":
		return "press " + a.Arg
	case a.Kind == ActionPress:
		return "press " + a.Arg + " in " + ctl
	case a.Kind == ActionSelect:
		return "select " + strconv.Quote(a.Arg) + " in " + ctl
	case a.Kind == ActionFill:
		return "fill " + ctl + " with " + string(a.Class)
	}
	return string(a.Kind) + " " + ctl
}

// Control is one distinct control of a state. Repeated controls (the
// rows of a list) are one control: the same role and normalised name, or
// for links into records, the same URL template.
type Control struct {
	Role string `json:"role"`
	// Name is the accessible name with digit runs as '#', spaces collapsed.
	Name string `json:"name,omitempty"`
	Href string `json:"href,omitempty"`
	// Field is set for form controls.
	Field  *Field `json:"field,omitempty"`
	InMain bool   `json:"main,omitempty"`
	// Enabled: seen enabled at least once (a disabled control has no
	// targets until then).
	Enabled bool `json:"enabled,omitempty"`
}

func (c Control) ident() string {
	if c.Href != "" {
		return c.Role + " →" + c.Href
	}
	return c.Role + " " + strconv.Quote(c.Name)
}

func (a Action) ident() string {
	return Control{Role: a.Role, Name: a.Name, Href: a.Href}.ident()
}

// TargetStatus says whether a target was tried.
type TargetStatus string

// The target statuses; untried is "".
const (
	TargetUntried TargetStatus = ""
	TargetTried   TargetStatus = "tried"
	// TargetFailed: the action could not be done (its control was gone,
	// the browser refused it); it counts as unreachable.
	TargetFailed TargetStatus = "failed"
)

// Target is a coverage target: an action with its input class, in a state.
type Target struct {
	State  StateID      `json:"state"`
	Action Action       `json:"action"`
	Status TargetStatus `json:"status,omitempty"`
	Runs   int          `json:"runs,omitempty"`
	// Yield counts the new states and new endpoints the action led to.
	Yield int `json:"yield,omitempty"`
}

// Key is the target's action key.
func (t Target) Key() ActionKey { return t.Action.Key() }

// targetJSON is a target as JSON: the action as its key keeps checkpoints
// small (a model holds tens of thousands of targets).
type targetJSON struct {
	State  StateID      `json:"state,omitempty"`
	Key    ActionKey    `json:"key"`
	Status TargetStatus `json:"status,omitempty"`
	Runs   int          `json:"runs,omitempty"`
	Yield  int          `json:"yield,omitempty"`
}

func (t Target) toJSON() targetJSON {
	return targetJSON{State: t.State, Key: t.Key(), Status: t.Status, Runs: t.Runs, Yield: t.Yield}
}

func (j targetJSON) target() (Target, error) {
	a, err := ParseActionKey(j.Key)
	if err != nil {
		return Target{}, err
	}
	return Target{State: j.State, Action: a, Status: j.Status, Runs: j.Runs, Yield: j.Yield}, nil
}

// MarshalJSON writes the target with its action as an ActionKey.
func (t Target) MarshalJSON() ([]byte, error) { return json.Marshal(t.toJSON()) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (t *Target) UnmarshalJSON(b []byte) error {
	var j targetJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	v, err := j.target()
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Edge is a transition seen: the action, in its state, led to To.
type Edge struct {
	Action ActionKey `json:"action"`
	To     StateID   `json:"to"`
	Count  int       `json:"n"`
}

// State is one abstract state of the app.
type State struct {
	ID       StateID `json:"id"`
	Template string  `json:"template"`
	// URL is the first URL the state was seen at (without scheme and host).
	URL      string    `json:"url"`
	Controls []Control `json:"controls,omitempty"`
	Targets  []Target  `json:"targets,omitempty"`
	Out      []Edge    `json:"out,omitempty"`
	Visits   int       `json:"visits"`
	// Reached: a transition from another state led here.
	Reached bool `json:"reached,omitempty"`
	// Yield counts the new states and endpoints its actions led to.
	Yield int `json:"yield,omitempty"`
}

// stateJSON is a state as JSON; its targets leave out the state's id.
type stateJSON struct {
	*plainState
	Targets []targetJSON `json:"targets,omitempty"`
}

type plainState State

// MarshalJSON writes the state; its targets do not repeat its id.
func (st State) MarshalJSON() ([]byte, error) {
	p := plainState(st)
	p.Targets = nil
	j := stateJSON{plainState: &p, Targets: make([]targetJSON, len(st.Targets))}
	for i, t := range st.Targets {
		j.Targets[i] = t.toJSON()
		j.Targets[i].State = ""
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (st *State) UnmarshalJSON(b []byte) error {
	j := stateJSON{plainState: &plainState{}}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*st = State(*j.plainState)
	st.Targets = make([]Target, 0, len(j.Targets))
	for _, tj := range j.Targets {
		t, err := tj.target()
		if err != nil {
			return fmt.Errorf("state %s: %w", st.ID, err)
		}
		t.State = st.ID
		st.Targets = append(st.Targets, t)
	}
	if len(st.Targets) == 0 {
		st.Targets = nil
	}
	return nil
}

// Entry says that opening URL directly lands in State.
type Entry struct {
	URL   string  `json:"url"`
	State StateID `json:"state"`
}

// Limits cap the model so a hostile app cannot blow it up. Zero fields
// take the defaults.
type Limits struct {
	States           int `json:"states,omitempty"`   // default 1000
	ControlsPerState int `json:"controls,omitempty"` // default 200
	TargetsPerState  int `json:"state_targets,omitempty"`
	Targets          int `json:"targets,omitempty"` // default 60000
	Options          int `json:"options,omitempty"` // per select, default 30
	Edges            int `json:"edges,omitempty"`   // default 20000
	Entries          int `json:"entries,omitempty"` // default 1000
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.States, 1000)
	def(&l.ControlsPerState, 200)
	def(&l.TargetsPerState, 400)
	def(&l.Targets, 60000)
	def(&l.Options, 30)
	def(&l.Edges, 20000)
	def(&l.Entries, 1000)
	return l
}

// Truncated counts what the limits left out.
type Truncated struct {
	States   int `json:"states,omitempty"`   // observations of new states beyond the cap
	Controls int `json:"controls,omitempty"` // distinct controls beyond a state's cap
	Targets  int `json:"targets,omitempty"`
	Options  int `json:"options,omitempty"` // options beyond a select's cap (at least), or over-long
	Edges    int `json:"edges,omitempty"`
	Entries  int `json:"entries,omitempty"`
}

// String says what the limits left out, e.g. "limits left out 3 states,
// 40 targets"; "" when nothing.
func (t Truncated) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{t.States, "states"}, {t.Controls, "controls"}, {t.Targets, "targets"}, {t.Options, "options"}, {t.Edges, "transitions"}, {t.Entries, "entries"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "limits left out " + strings.Join(parts, ", ")
}

// Total is the sum of the counts.
func (t Truncated) Total() int {
	return t.States + t.Controls + t.Targets + t.Options + t.Edges + t.Entries
}

// Model is the explorer's model of the app: abstract states, their
// controls and coverage targets, the transitions seen and the entries
// (URLs that open a state directly). Its fields are exported so it
// round-trips through encoding/json (graph state, checkpoints). A Model
// is not safe for concurrent use. The zero Model is ready to use.
type Model struct {
	Limits  Limits             `json:"limits"`
	States  map[StateID]*State `json:"states,omitempty"`
	Order   []StateID          `json:"order,omitempty"` // discovery order
	Root    StateID            `json:"root,omitempty"`  // the first state
	Entries []Entry            `json:"entries,omitempty"`
	// Endpoints is the number of new endpoints the transitions reported.
	Endpoints int       `json:"endpoints,omitempty"`
	Truncated Truncated `json:"truncated"`
	// NTargets and NEdges count the targets and transitions of all
	// states, for the limits.
	NTargets int `json:"n_targets,omitempty"`
	NEdges   int `json:"n_edges,omitempty"`
}

// NewModel returns an empty model with the limits (zero fields take the
// defaults).
func NewModel(l Limits) *Model { return &Model{Limits: l.withDefaults()} }

// Clone returns a deep copy: a graph node can change the copy while the
// state it was given stays as it was.
func (m *Model) Clone() *Model {
	c := *m
	c.Order = slices.Clone(m.Order)
	c.Entries = slices.Clone(m.Entries)
	if m.States != nil {
		c.States = make(map[StateID]*State, len(m.States))
		for id, st := range m.States {
			s := *st
			s.Controls = slices.Clone(st.Controls)
			for i, ctl := range s.Controls {
				if ctl.Field != nil {
					f := *ctl.Field
					f.Options = slices.Clone(f.Options)
					s.Controls[i].Field = &f
				}
			}
			s.Targets = slices.Clone(st.Targets)
			s.Out = slices.Clone(st.Out)
			c.States[id] = &s
		}
	}
	return &c
}

// interactive roles become controls with actions; structural roles only
// shape the state's identity (an open dialog is another state).
var (
	interactiveRoles = []string{"button", "link", "textbox", "searchbox", "spinbutton", "slider", "checkbox", "switch",
		"radio", "combobox", "listbox", "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem",
		"clickable"} // clickable: an element with script handlers only (the engine's xN refs)
	structuralRoles = []string{"dialog", "alertdialog"}
)

// Observe adds the state the page is in (or finds it) and returns its id.
// els are the snapshot's elements. It returns "" when the state is new
// and the model is full (counted in Truncated.States).
func (m *Model) Observe(url string, els []Element) StateID {
	return m.ObserveAttrs(url, els, nil)
}

// ObserveAttrs is Observe with the DOM attributes of the elements when the
// snapshot gives them: attrs[i] belongs to els[i] (see FieldOf); attrs may
// be shorter than els or nil.
func (m *Model) ObserveAttrs(rawURL string, els []Element, attrs []map[string]string) StateID {
	lim := m.Limits.withDefaults()
	tpl := URLTemplate(rawURL)
	idents := make([]string, 0, len(els))
	type seen struct {
		c  Control
		el Element
	}
	var ctrls []seen
	at := map[string]int{}
	known := map[string]bool{}
	var optionNames map[string]bool
	data := dataLabels(els)
	for i, e := range els {
		role := cleanRole(e.Role)
		inter, structural := slices.Contains(interactiveRoles, role), slices.Contains(structuralRoles, role)
		if !inter && !structural {
			continue
		}
		if role == "option" && optionNames[e.Name] {
			continue // an option of a select listed before: its select covers it
		}
		if (role == "combobox" || role == "listbox") && len(e.Options) > 0 {
			if optionNames == nil {
				optionNames = map[string]bool{}
			}
			for _, o := range e.Options {
				optionNames[o] = true
			}
		}
		c := Control{Role: role, Name: normName(data.Replace(e.Name)), InMain: e.InMain, Enabled: inter && !e.Has("disabled")}
		if role == "link" && e.URL != "" {
			if h := URLTemplate(e.URL); strings.Contains(h, "{id}") {
				c.Href, c.Name = h, ""
			}
		}
		id := c.ident()
		if j, ok := at[id]; ok {
			if c.Enabled && !ctrls[j].c.Enabled {
				ctrls[j].c.Enabled, ctrls[j].el = true, e
			}
			ctrls[j].el.Options = unionOptions(ctrls[j].el.Options, e.Options, lim.Options+1)
			continue
		}
		if !known[id] {
			known[id] = true
			idents = append(idents, id)
		}
		if len(ctrls) >= lim.ControlsPerState {
			continue
		}
		if inter && isFormRole(role) {
			var a map[string]string
			if i < len(attrs) {
				a = attrs[i]
			}
			f := FieldOf(e, a)
			f.Name, f.Pattern = clip(f.Name, 200), clip(f.Pattern, 500)
			f.Options = nil // kept on the element until the actions are made
			c.Field = &f
		}
		at[id] = len(ctrls)
		e.Options = slices.Clip(e.Options) // appends copy, never write into the caller's array
		ctrls = append(ctrls, seen{c, e})
	}
	slices.Sort(idents)
	sum := sha256.Sum256([]byte(tpl + "\x00" + strings.Join(idents, "\n")))
	id := StateID("s" + hex.EncodeToString(sum[:])[:12])

	if m.States == nil {
		m.States = map[StateID]*State{}
	}
	st, ok := m.States[id]
	if !ok {
		if len(m.States) >= lim.States {
			m.Truncated.States++
			return ""
		}
		m.Truncated.Controls += max(0, len(idents)-len(ctrls))
		st = &State{ID: id, Template: tpl, URL: clip(localURL(rawURL), 2000)}
		m.States[id] = st
		m.Order = append(m.Order, id)
		if m.Root == "" {
			m.Root = id
		}
		for _, s := range ctrls {
			st.Controls = append(st.Controls, s.c)
			if s.c.Enabled {
				m.addTargets(st, len(st.Controls)-1, s.el, lim)
			}
		}
		m.addTarget(st, Action{Kind: ActionPress, Arg: "Escape"}, lim)
	} else {
		idx := make(map[string]int, len(st.Controls))
		for j, c := range st.Controls {
			idx[c.ident()] = j
		}
		for _, s := range ctrls {
			j, ok := idx[s.c.ident()]
			switch {
			case !ok:
			case s.c.Enabled && !st.Controls[j].Enabled:
				st.Controls[j].Enabled = true
				m.addTargets(st, j, s.el, lim)
			case s.c.Enabled && s.c.Field != nil && st.Controls[j].Field != nil && st.Controls[j].Field.Kind == FieldSelect:
				m.addOptions(st, j, s.el.Options, lim)
			}
		}
	}
	st.Visits++
	return id
}

// dataLabels replaces the names of links into records (their URL template
// has an {id}) with "{}" wherever they occur in a control's name: they are
// data ("Delete Alpha" next to the link "Alpha" is "Delete {}").
func dataLabels(els []Element) *strings.Replacer {
	var labels []string
	for _, e := range els {
		n := strings.TrimSpace(e.Name)
		if e.Role != "link" || e.URL == "" || utf8.RuneCountInString(n) < 3 || len(n) > 400 || len(labels) >= 200 || slices.Contains(labels, n) {
			continue
		}
		if strings.Contains(URLTemplate(e.URL), "{id}") {
			labels = append(labels, n)
		}
	}
	// longest first, so a label inside another does not cut it
	slices.SortStableFunc(labels, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(labels))
	for _, l := range labels {
		pairs = append(pairs, l, "{}")
	}
	return strings.NewReplacer(pairs...)
}

func isFormRole(role string) bool {
	switch role {
	case "textbox", "searchbox", "spinbutton", "slider", "checkbox", "switch", "radio", "combobox", "listbox",
		"menuitemcheckbox", "menuitemradio":
		return true
	}
	return false
}

// addTargets makes the actions of control j from the element it was seen as.
func (m *Model) addTargets(st *State, j int, e Element, lim Limits) {
	c := st.Controls[j]
	base := Action{Role: c.Role, Name: c.Name, Href: c.Href}
	with := func(k ActionKind, cl InputClass, arg string) Action {
		a := base
		a.Kind, a.Class, a.Arg = k, cl, arg
		return a
	}
	if e.Has("expanded") || e.Has("haspopup") || c.Role == "menuitem" {
		m.addTarget(st, with(ActionHover, "", ""), lim)
	}
	switch {
	case c.Field != nil && c.Field.Kind == FieldSelect:
		m.addOptions(st, j, e.Options, lim)
	case c.Field != nil && c.Field.Kind == FieldCheckbox:
		m.addTarget(st, with(ActionCheck, ClassToggleOn, ""), lim)
		m.addTarget(st, with(ActionUncheck, ClassToggleOff, ""), lim)
	case c.Field != nil && c.Field.Kind == FieldRadio:
		m.addTarget(st, with(ActionCheck, ClassOption, ""), lim)
	case c.Role == "slider":
		for _, k := range []string{"Home", "End", "ArrowRight", "ArrowLeft"} {
			m.addTarget(st, with(ActionPress, "", k), lim)
		}
	case c.Field != nil:
		for _, in := range Catalogue(*c.Field) {
			m.addTarget(st, with(ActionFill, in.Class, ""), lim)
		}
		if c.Field.Kind != FieldTextarea && c.Field.Kind != FieldContentEditable {
			m.addTarget(st, with(ActionPress, "", "Enter"), lim)
		}
	case c.Role == "button":
		m.addTarget(st, with(ActionClick, "", ""), lim)
		m.addTarget(st, with(ActionDblClick, "", ""), lim)
	case c.Role == "clickable":
		// What its handlers listen to: a double click to edit, keys.
		hs := handlers(e)
		if len(hs) == 0 || slices.ContainsFunc(hs, func(h string) bool { return h != "dblclick" && !strings.HasPrefix(h, "key") }) {
			m.addTarget(st, with(ActionClick, "", ""), lim)
		}
		if slices.Contains(hs, "dblclick") {
			m.addTarget(st, with(ActionDblClick, "", ""), lim)
		}
		if slices.ContainsFunc(hs, func(h string) bool { return strings.HasPrefix(h, "key") }) {
			m.addTarget(st, with(ActionPress, "", "Enter"), lim)
		}
	case c.Role == "dialog" || c.Role == "alertdialog":
	default:
		m.addTarget(st, with(ActionClick, "", ""), lim)
	}
}

// handlers are the event types of an element's "handler only: …" note.
func handlers(e Element) []string {
	for _, f := range e.Flags {
		if rest, ok := strings.CutPrefix(f, "handler only: "); ok {
			return strings.Split(rest, ", ")
		}
	}
	return nil
}

// addOptions adds a select target per option not yet known, up to the
// options limit.
func (m *Model) addOptions(st *State, j int, opts []string, lim Limits) {
	c := st.Controls[j]
	f := c.Field
	for _, o := range opts {
		if slices.Contains(f.Options, o) {
			continue
		}
		if len(f.Options) >= lim.Options || utf8.RuneCountInString(o) > 500 {
			m.Truncated.Options++
			continue
		}
		f.Options = append(f.Options, o)
		m.addTarget(st, Action{Kind: ActionSelect, Role: c.Role, Name: c.Name, Href: c.Href, Class: ClassOption, Arg: o}, lim)
	}
}

func (m *Model) addTarget(st *State, a Action, lim Limits) {
	if len(st.Targets) >= lim.TargetsPerState || m.NTargets >= lim.Targets {
		m.Truncated.Targets++
		return
	}
	st.Targets = append(st.Targets, Target{State: st.ID, Action: a})
	m.NTargets++
}

// unionOptions adds b's options missing from a, while a is shorter than limit.
func unionOptions(a, b []string, limit int) []string {
	for _, o := range b {
		if len(a) >= limit {
			break
		}
		if !slices.Contains(a, o) {
			a = append(a, o)
		}
	}
	return a
}

// Transition records that action, done in state from, led to state to
// and revealed newEndpoints endpoints (requests to method+path templates
// not seen before). It marks the action's target tried. A navigate
// action (NavigateKey) records an entry instead: its URL opens to.
// Unknown states are ignored.
func (m *Model) Transition(from StateID, action ActionKey, to StateID, newEndpoints int) {
	lim := m.Limits.withDefaults()
	newEndpoints = max(0, newEndpoints)
	m.Endpoints += newEndpoints
	a, err := ParseActionKey(action)
	ts := m.States[to]
	if err == nil && a.Kind == ActionNavigate {
		if ts != nil && a.Arg != "" {
			m.addEntry(a.Arg, to, lim)
		}
		return
	}
	fs := m.States[from]
	if fs == nil {
		return
	}
	gain := newEndpoints
	if ts != nil && to != from && !ts.Reached && to != m.Root {
		gain++
	}
	if i := fs.target(action); i >= 0 {
		t := &fs.Targets[i]
		if t.Status == TargetUntried {
			t.Status = TargetTried
		}
		t.Runs++
		t.Yield += gain
	}
	fs.Yield += gain
	if ts == nil || to == from {
		return
	}
	ts.Reached = true
	if i := slices.IndexFunc(fs.Out, func(e Edge) bool { return e.Action == action && e.To == to }); i >= 0 {
		fs.Out[i].Count++
		return
	}
	if m.NEdges >= lim.Edges {
		m.Truncated.Edges++
		return
	}
	fs.Out = append(fs.Out, Edge{Action: action, To: to, Count: 1})
	m.NEdges++
}

// Credit adds n to the yield of action's target in state from (and to
// the state's): what the action found besides a new state or endpoint
// (code that had not run before, say), so the targets that find things
// are preferred. Unknown states and targets are ignored.
func (m *Model) Credit(from StateID, action ActionKey, n int) {
	fs := m.States[from]
	if fs == nil || n <= 0 {
		return
	}
	if i := fs.target(action); i >= 0 {
		fs.Targets[i].Yield += n
		fs.Yield += n
	}
}

func (m *Model) addEntry(u string, to StateID, lim Limits) {
	u = clip(localURL(u), 2000)
	for i, e := range m.Entries {
		if e.URL == u {
			m.Entries[i].State = to
			return
		}
	}
	if len(m.Entries) >= lim.Entries {
		m.Truncated.Entries++
		return
	}
	m.Entries = append(m.Entries, Entry{URL: u, State: to})
}

// Fail records that action could not be done in state: its target counts
// as unreachable, and a transition by it is forgotten (a path that used
// it needs another way).
func (m *Model) Fail(state StateID, action ActionKey) {
	st := m.States[state]
	if st == nil {
		return
	}
	if i := st.target(action); i >= 0 {
		st.Targets[i].Status = TargetFailed
		st.Targets[i].Runs++
	}
	n := len(st.Out)
	st.Out = slices.DeleteFunc(st.Out, func(e Edge) bool { return e.Action == action })
	m.NEdges -= n - len(st.Out)
}

func (st *State) target(k ActionKey) int {
	return slices.IndexFunc(st.Targets, func(t Target) bool { return t.Action.Key() == k })
}

// Input is the concrete input of a fill, select or check target, from
// its control's field; false for other targets.
func (m *Model) Input(t Target) (Input, bool) {
	st := m.States[t.State]
	if st == nil || t.Action.Class == "" {
		return Input{}, false
	}
	for _, c := range st.Controls {
		if c.Field != nil && c.Role == t.Action.Role && c.Name == t.Action.Name && c.Href == t.Action.Href {
			return InputFor(*c.Field, t.Action.Class, t.Action.Arg)
		}
	}
	return Input{}, false
}

// Locate finds the element an action acts on in a snapshot of its state:
// the first enabled element of the control (a link of the template, or
// the role and normalised name). A page action needs none: it returns
// the zero Element and true.
func Locate(a Action, els []Element) (Element, bool) {
	if a.Role == "" {
		return Element{}, true
	}
	for _, e := range els {
		if cleanRole(e.Role) != a.Role || e.Has("disabled") {
			continue
		}
		if a.Href != "" && e.URL != "" && URLTemplate(e.URL) == a.Href || a.Href == "" && normName(e.Name) == a.Name {
			return e, true
		}
	}
	return Element{}, false
}

// Intents are the browser intents that perform the action on el (found
// by Locate) with the input in (from Model.Input; ignored by actions
// that take none). A dblclick is one dblclick intent; check and uncheck click when
// the box is not already so, and otherwise toggle it away and back. It
// returns nil for an unknown kind or a fill/select without a ref.
func (a Action) Intents(el Element, in Input) []browser.Intent {
	click := browser.Intent{Action: browser.ActClick, Target: el.Ref}
	needsRef := a.Kind != ActionNavigate && !(a.Kind == ActionPress && a.Role == "")
	if needsRef && el.Ref == "" {
		return nil
	}
	switch a.Kind {
	case ActionClick:
		return []browser.Intent{click}
	case ActionDblClick:
		return []browser.Intent{{Action: browser.ActDblclick, Target: el.Ref}}
	case ActionHover:
		return []browser.Intent{{Action: browser.ActHover, Target: el.Ref}}
	case ActionFill:
		v := in.Value
		return []browser.Intent{{Action: browser.ActFill, Target: el.Ref, Value: &v}}
	case ActionSelect:
		v := a.Arg
		return []browser.Intent{{Action: browser.ActSelectOption, Target: el.Ref, Value: &v}}
	case ActionCheck, ActionUncheck:
		if el.Has("checked") == (a.Kind == ActionCheck) && el.Role != "radio" {
			// A box already in that state: off and on again, so the
			// change the target stands for happens. (A radio cannot be
			// clicked off: one click re-chooses it.)
			return []browser.Intent{click, click}
		}
		return []browser.Intent{click}
	case ActionPress:
		return []browser.Intent{{Action: browser.ActPress, Target: el.Ref, Key: a.Arg}}
	case ActionNavigate:
		return []browser.Intent{{Action: browser.ActNavigate, URL: a.Arg}}
	}
	return nil
}

// State returns a copy of a state's record; its slices are shared with
// the model, do not modify them.
func (m *Model) State(id StateID) (State, bool) {
	st := m.States[id]
	if st == nil {
		return State{}, false
	}
	return *st, true
}

// Next picks the best untried target reachable from state from: in from
// itself first, else in the nearest states by known transitions, or by
// opening an entry URL (a NavigateKey step). path is the actions to get
// to the target's state (nil when it is from). Among targets at the same
// distance the highest score wins: untried targets of states little
// tried, states and controls whose actions led to new states or
// endpoints, valid inputs and clicks before hostile ones, plus prefer's
// bonus (nil for none; NaN counts as 0, −Inf skips the target). ok is
// false when nothing untried is reachable.
func (m *Model) Next(from StateID, prefer func(Target) float64) (Target, []ActionKey, bool) {
	return m.NextFar(from, prefer, math.Inf(1))
}

// NextFar is Next weighing distance instead of taking the nearest state
// with untried targets: every reachable state's best target competes,
// its score lowered by hopCost per step of the way there (an entry URL
// counts as one step). hopCost +Inf is Next.
func (m *Model) NextFar(from StateID, prefer func(Target) float64, hopCost float64) (Target, []ActionKey, bool) {
	type hop struct {
		prev StateID
		key  ActionKey
	}
	visited := map[StateID]hop{}
	var level []StateID
	entriesAdded := false
	addEntries := func(next []StateID) []StateID {
		entriesAdded = true
		for _, e := range m.entries() {
			if _, ok := visited[e.State]; !ok && m.States[e.State] != nil {
				visited[e.State] = hop{key: NavigateKey(e.URL)}
				next = append(next, e.State)
			}
		}
		return next
	}
	if m.States[from] != nil {
		visited[from] = hop{}
		level = []StateID{from}
	} else {
		level = addEntries(nil)
	}
	best, bestScore, found := Target{}, math.Inf(-1), false
	for dist := 0; len(level) > 0; dist++ {
		if found && math.IsInf(hopCost, 1) {
			break
		}
		for _, id := range level {
			if t, s, ok := m.best(m.States[id], prefer); ok {
				if !math.IsInf(hopCost, 1) {
					s -= hopCost * float64(dist)
				}
				if !found || s > bestScore {
					best, bestScore, found = t, s, true
				}
			}
		}
		var next []StateID
		for _, id := range level {
			for _, e := range m.States[id].Out {
				if _, ok := visited[e.To]; !ok && m.States[e.To] != nil {
					visited[e.To] = hop{prev: id, key: e.Action}
					next = append(next, e.To)
				}
			}
		}
		if !entriesAdded {
			next = addEntries(next)
		}
		level = next
	}
	if !found {
		return Target{}, nil, false
	}
	var path []ActionKey
	for s := best.State; ; {
		h := visited[s]
		if h.key == "" {
			break
		}
		path = append(path, h.key)
		if h.prev == "" {
			break
		}
		s = h.prev
	}
	slices.Reverse(path)
	return best, path, true
}

// entries are the recorded entries, and the root's URL when no entry
// leads to the root.
func (m *Model) entries() []Entry {
	out := m.Entries
	if r := m.States[m.Root]; r != nil && !slices.ContainsFunc(out, func(e Entry) bool { return e.State == m.Root }) {
		out = append(slices.Clone(out), Entry{URL: r.URL, State: m.Root})
	}
	return out
}

// best is the state's highest-scoring untried target.
func (m *Model) best(st *State, prefer func(Target) float64) (Target, float64, bool) {
	if !slices.ContainsFunc(st.Targets, func(t Target) bool { return t.Status == TargetUntried }) {
		return Target{}, 0, false
	}
	sc := newScorer(st)
	var best Target
	bestScore, found := math.Inf(-1), false
	for _, t := range st.Targets {
		if t.Status != TargetUntried {
			continue
		}
		s := sc.score(t)
		if prefer != nil {
			p := prefer(t)
			switch {
			case math.IsInf(p, -1):
				continue
			case math.IsNaN(p), math.IsInf(p, 1):
				p = 0
			}
			s += p
		}
		if !found || s > bestScore {
			best, bestScore, found = t, s, true
		}
	}
	return best, bestScore, found
}

// Score is the model's own score of a target (Next adds the persona's
// preference): higher is tried sooner. It is 0 for an unknown state.
func (m *Model) Score(t Target) float64 {
	st := m.States[t.State]
	if st == nil {
		return 0
	}
	return newScorer(st).score(t)
}

// scorer holds what a state's targets are scored by.
type scorer struct {
	stateBonus float64
	ctlYield   map[string]int  // per control: new states and endpoints its actions led to
	chrome     map[string]bool // controls outside the main landmark
}

func newScorer(st *State) scorer {
	sc := scorer{ctlYield: map[string]int{}}
	tried := 0
	for _, t := range st.Targets {
		if t.Status != TargetUntried {
			tried++
			if t.Yield > 0 {
				sc.ctlYield[t.Action.ident()] += t.Yield
			}
		}
	}
	if tried == 0 {
		sc.stateBonus = 2 // a state nothing was tried in yet
	}
	sc.stateBonus += float64(min(st.Yield, 3))
	// Controls outside the main landmark (banner, navigation) recur on
	// every screen: they come after the screen's own.
	if slices.ContainsFunc(st.Controls, func(c Control) bool { return c.InMain }) {
		sc.chrome = map[string]bool{}
		for _, c := range st.Controls {
			if !c.InMain {
				sc.chrome[c.ident()] = true
			}
		}
	}
	return sc
}

func (sc scorer) score(t Target) float64 {
	id := t.Action.ident()
	s := sc.stateBonus + classWeight(t.Action) + float64(min(sc.ctlYield[id], 3))
	if sc.chrome[id] {
		s--
	}
	return s
}

// classWeight orders the kinds of targets: what moves through the app
// and valid inputs first, boundaries and injection next, bulk and
// keyboard last.
func classWeight(a Action) float64 {
	switch a.Kind {
	case ActionClick, ActionSelect, ActionCheck:
		return 3
	case ActionUncheck:
		return 2
	case ActionDblClick:
		if a.Role == "clickable" {
			// An element that listens for a double click and nothing a
			// control would: that is how it is used (double-click to edit).
			return 3
		}
	case ActionFill:
		switch a.Class {
		case ClassValid:
			return 3
		case ClassLong256, ClassLong1001, ClassLong10001, ClassNonLatin, ClassEmoji, ClassRTL, ClassPadded, ClassWhitespace:
			return 1.5
		}
		return 2
	}
	return 1
}

// Exhausted reports whether every target of every state reachable from
// an entry (or the first state) is tried or failed. States no recorded
// transition or entry leads to are unreachable and do not count.
func (m *Model) Exhausted() bool {
	for _, id := range m.reachable() {
		for _, t := range m.States[id].Targets {
			if t.Status == TargetUntried {
				return false
			}
		}
	}
	return true
}

// reachable lists the states reachable from the entries, in BFS order.
func (m *Model) reachable() []StateID {
	seen := map[StateID]bool{}
	var q []StateID
	for _, e := range m.entries() {
		if !seen[e.State] && m.States[e.State] != nil {
			seen[e.State] = true
			q = append(q, e.State)
		}
	}
	for i := 0; i < len(q); i++ {
		for _, e := range m.States[q[i]].Out {
			if !seen[e.To] && m.States[e.To] != nil {
				seen[e.To] = true
				q = append(q, e.To)
			}
		}
	}
	return q
}

// Stats counts the model.
type Stats struct {
	States int `json:"states"`
	// Actions are the distinct (state, control, kind) pairs.
	Actions     int       `json:"actions"`
	Targets     int       `json:"targets"`
	Tried       int       `json:"tried"`
	Failed      int       `json:"failed"`
	Transitions int       `json:"transitions"`
	Entries     int       `json:"entries"`
	Endpoints   int       `json:"endpoints"`
	Truncated   Truncated `json:"truncated"`
}

// Stats counts states, actions, targets (tried, failed), transitions,
// entries, endpoints and what the limits left out.
func (m *Model) Stats() Stats {
	s := Stats{States: len(m.States), Entries: len(m.Entries), Endpoints: m.Endpoints, Truncated: m.Truncated}
	for _, id := range m.Order {
		st := m.States[id]
		if st == nil {
			continue
		}
		kinds := map[string]bool{}
		for _, t := range st.Targets {
			kinds[string(t.Action.Kind)+" "+t.Action.ident()] = true
			s.Targets++
			switch t.Status {
			case TargetTried:
				s.Tried++
			case TargetFailed:
				s.Failed++
			}
		}
		s.Actions += len(kinds)
		s.Transitions += len(st.Out)
	}
	return s
}

// Untried lists up to limit untried targets in words (limit ≤ 0: all),
// reachable states first, each as "template [state]: action"; last lines
// say how many more there are and what the model's limits left out.
func (m *Model) Untried(limit int) []string {
	reach := m.reachable()
	inReach := map[StateID]bool{}
	for _, id := range reach {
		inReach[id] = true
	}
	order := slices.Clone(reach)
	for _, id := range m.Order {
		if !inReach[id] && m.States[id] != nil {
			order = append(order, id)
		}
	}
	var out []string
	more := 0
	for _, id := range order {
		st := m.States[id]
		for _, t := range st.Targets {
			if t.Status != TargetUntried {
				continue
			}
			if limit > 0 && len(out) >= limit {
				more++
				continue
			}
			line := fmt.Sprintf("%s [%s]: %s", st.Template, id, t.Action)
			if !inReach[id] {
				line += " (no known way there)"
			}
			out = append(out, line)
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("… and %d more untried targets", more))
	}
	if tr := m.Truncated.String(); tr != "" {
		out = append(out, tr)
	}
	return out
}

// Mermaid renders the state graph as a Mermaid flowchart: a node per
// state (its URL template, with a number when several states share it)
// and an edge per transition, up to 150 states and 300 edges.
func (m *Model) Mermaid() string {
	const maxNodes, maxEdges = 150, 300
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	node := map[StateID]string{}
	perTpl := map[string]int{}
	for i, id := range m.Order {
		st := m.States[id]
		if st == nil {
			continue
		}
		if i >= maxNodes {
			fmt.Fprintf(&b, "  %%%% %d more states\n", len(m.Order)-maxNodes)
			break
		}
		node[id] = fmt.Sprintf("n%d", i)
		perTpl[st.Template]++
		label := st.Template
		if n := perTpl[st.Template]; n > 1 {
			label += fmt.Sprintf(" (%d)", n)
		}
		tried, all := 0, len(st.Targets)
		for _, t := range st.Targets {
			if t.Status != TargetUntried {
				tried++
			}
		}
		label += fmt.Sprintf(" %d/%d", tried, all)
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", node[id], mermaidText(label))
	}
	edges, skipped := 0, 0
	for _, id := range m.Order {
		st := m.States[id]
		if st == nil || node[id] == "" {
			continue
		}
		for _, e := range st.Out {
			to := node[e.To]
			if to == "" || edges >= maxEdges {
				skipped++
				continue
			}
			a, err := ParseActionKey(e.Action)
			text := string(e.Action)
			if err == nil {
				text = a.String()
			}
			fmt.Fprintf(&b, "  %s -->|\"%s\"| %s\n", node[id], mermaidText(clip(text, 60)), to)
			edges++
		}
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "  %%%% %d more transitions\n", skipped)
	}
	if tr := m.Truncated.String(); tr != "" {
		fmt.Fprintf(&b, "  %%%% %s\n", tr)
	}
	return b.String()
}

func mermaidText(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "\n", " ", "|", "#124;", "<", "#lt;", ">", "#gt;")
	return r.Replace(s)
}

// URLTemplate generalises a URL to the screen it shows: ids in the path
// (numbers, UUIDs, hex ids, long tokens, slugs ending in a number) become
// {id}, query values are dropped (keys kept, sorted), a hash route
// (#/…, #!/…) is kept and templated the same way, a plain anchor is
// dropped, and so are the scheme and host:
// "/orders/42/edit?tab=x" → "/orders/{id}/edit?tab=".
func URLTemplate(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return clip(raw, 300)
	}
	p := templatePath(u.EscapedPath())
	if p == "" && (u.Host != "" || u.Scheme != "") {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + templateQuery(u.RawQuery)
	}
	if f := u.Fragment; strings.HasPrefix(f, "/") || strings.HasPrefix(f, "!/") {
		bang := strings.HasPrefix(f, "!")
		fu, err := url.Parse(strings.TrimPrefix(f, "!"))
		if err == nil {
			f = templatePath(fu.EscapedPath())
			if fu.RawQuery != "" {
				f += "?" + templateQuery(fu.RawQuery)
			}
			if bang {
				f = "!" + f
			}
			p += "#" + f
		}
	}
	return clip(p, 300)
}

func templatePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if isIDSegment(s) {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}

func templateQuery(q string) string {
	var keys []string
	for _, kv := range strings.Split(q, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if k, err := url.QueryUnescape(k); err == nil && k != "" && !slices.Contains(keys, k) && len(keys) < 20 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = url.QueryEscape(k) + "="
	}
	return strings.Join(keys, "&")
}

// isIDSegment: a path segment that names a record rather than a screen.
func isIDSegment(s string) bool {
	if s == "" {
		return false
	}
	digits, letters, hexOnly, other := 0, 0, true, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F':
			letters++
		case r >= 'g' && r <= 'z' || r >= 'G' && r <= 'Z':
			letters++
			hexOnly = false
		default:
			hexOnly = false
			other++
		}
	}
	switch {
	case digits == len(s):
		return true
	case isUUID(s):
		return true
	case hexOnly && len(s) >= 8 && digits > 0:
		return true
	case len(s) >= 16 && digits > 0 && letters > 0:
		return true
	}
	// a slug ending in a number: "blue-shirt-42"
	if i := strings.LastIndexByte(s, '-'); i > 0 && i < len(s)-1 {
		tail := s[i+1:]
		return strings.Trim(tail, "0123456789") == "" && letters > 0
	}
	return false
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if r != '-' {
				return false
			}
		} else if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}

// localURL drops scheme and host, keeping path, query and fragment.
func localURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	u.Scheme, u.Host, u.User, u.Opaque = "", "", nil, ""
	s := u.String()
	if s == "" || s[0] == '?' || s[0] == '#' {
		s = "/" + s
	}
	return s
}

// normName is a control's name for its identity: spaces collapsed, digit
// runs as '#', at most 60 characters.
func normName(s string) string {
	var b strings.Builder
	space, digit := false, false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r >= '0' && r <= '9':
			if !digit {
				b.WriteByte('#')
			}
			digit, space = true, false
			continue
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if !space {
				b.WriteByte(' ')
			}
			space, digit = true, false
			continue
		}
		space, digit = false, false
		b.WriteRune(r)
	}
	return clip(b.String(), 60)
}

// cleanRole keeps a role's lower-case letters.
func cleanRole(r string) string {
	r = strings.ToLower(r)
	if strings.Trim(r, "abcdefghijklmnopqrstuvwxyz") == "" {
		return r
	}
	var b strings.Builder
	for _, c := range r {
		if c >= 'a' && c <= 'z' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

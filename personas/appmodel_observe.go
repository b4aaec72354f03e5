package personas

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf8"
)

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
		if inter && isFormRole(role) && (role != "listbox" || len(e.Options) > 0) {
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
		if c.Role == "combobox" {
			// A combobox of the page's own making (an input and a
			// listbox): a click opens its list, whose options are
			// then the screen's controls.
			m.addTarget(st, with(ActionClick, "", ""), lim)
		}
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
	case c.Role == "listbox":
		// A listbox of the page's own making: its options, elements of
		// their own, are the clicks.
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

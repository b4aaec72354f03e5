package personas

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

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

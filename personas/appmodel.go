package personas

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// StateID names an abstract state of the app: a hash of its URL template
// and the structure of its interactive content.
type StateID string

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

// State returns a copy of a state's record; its slices are shared with
// the model, do not modify them.
func (m *Model) State(id StateID) (State, bool) {
	st := m.States[id]
	if st == nil {
		return State{}, false
	}
	return *st, true
}

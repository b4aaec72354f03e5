package personas

import (
	"slices"
)

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

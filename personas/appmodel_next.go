package personas

import (
	"math"
	"slices"
)

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

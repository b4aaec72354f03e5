package personas

import (
	"fmt"
	"slices"
	"strings"
)

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

package explore

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/personas"
	"github.com/agentgraph/agentgraph/state"
)

// Finish is the supervisor's choice that ends a mission.
const Finish = "FINISH"

// Node names besides the personas.
const (
	NodeSupervisor = "supervisor"
	NodeSummarizer = "summarizer"
)

// KeepMessages is how many of the latest messages the summarizer keeps
// (besides the first, the mission).
const KeepMessages = 20

// TapeWindow bounds the tape kept in the graph state.
const TapeWindow = 50

// State is the team graph's state.
type State struct {
	// Messages: the mission (first, human), routing briefs and turn
	// summaries. Reducer: add-messages (append; same id replaces).
	Messages []state.Message
	// Next is the supervisor's choice: a persona or FINISH.
	Next string
	// Tape is the latest actions (bounded window of TapeWindow).
	Tape []browser.Entry
	// Steps counts the mission's browser steps.
	Steps int
	// Bugs found (append).
	Bugs []findings.Bug
	// Explored paths, in visiting order (append).
	Explored []string
	// Turns counts persona turns.
	Turns int
	// AppModel is a copy of the app model as the latest persona turn
	// left it, so a resumed mission continues its coverage. No reducer:
	// one persona acts per step, and the latest copy wins.
	AppModel *personas.Model `json:",omitempty"`
	// Progress is the rest of the team's progress as the latest persona
	// turn left it (the pages and links, the tricks each persona tried,
	// the sweep's counters), for the same reason.
	Progress *Progress `json:",omitempty"`
}

func newTeamGraph(mr *missionRun) (*graph.StateGraph[State], error) {
	g := graph.New[State](
		graph.Reducer(func(s *State) *[]state.Message { return &s.Messages }, state.AddMessages),
		graph.Reducer(func(s *State) *[]browser.Entry { return &s.Tape }, state.Window[browser.Entry](TapeWindow)),
		graph.Reducer(func(s *State) *[]findings.Bug { return &s.Bugs }, state.Append[findings.Bug]),
		graph.Reducer(func(s *State) *[]string { return &s.Explored }, state.Append[string]),
	)
	g.AddNode(NodeSupervisor, mr.supervise)
	names := []string{graph.End}
	for _, m := range mr.team {
		g.AddNode(m.p.Name, mr.personaNode(m))
		g.AddEdge(m.p.Name, NodeSummarizer)
		names = append(names, m.p.Name)
	}
	g.AddNode(NodeSummarizer, summarize)
	g.AddEdge(graph.Start, NodeSupervisor)
	g.AddEdge(NodeSummarizer, NodeSupervisor)
	g.AddConditionalEdges(NodeSupervisor, graph.Branch(func(_ context.Context, s State) (string, error) {
		if s.Next == Finish || s.Next == "" {
			return graph.End, nil
		}
		return s.Next, nil
	}), names...)
	return g, nil
}

// supervise is the offline supervisor: a rule policy driven by coverage
// (the work each persona still sees) and page risk from memory.
func (mr *missionRun) supervise(ctx context.Context, s State) (State, error) {
	if err := ctx.Err(); err != nil {
		return State{}, err
	}
	mr.restore(s)
	brief := func(next, why string) State {
		if next == Finish {
			mr.stopWhy = why
		}
		msg := fmt.Sprintf("route → %s (%s). Mission: %s. Progress: %d/%d steps, %d bugs, %d pages explored.",
			next, why, mr.m.Prompt, s.Steps, mr.budget, len(s.Bugs), len(s.Explored))
		if len(mr.cov.priority) > 0 {
			msg += " High-risk pages: " + strings.Join(mr.cov.priority, ", ") + "."
		}
		return State{Next: next, Turns: s.Turns + 1, Messages: []state.Message{{ID: state.NewID(), Role: state.RoleAI, Name: NodeSupervisor, Content: msg}}}
	}
	if s.Steps >= mr.budget {
		mr.trace.Info("route", "next", Finish, "why", "step budget spent")
		return brief(Finish, "step budget spent"), nil
	}
	if mr.cfg.Models.supervisor() != nil {
		if mr.allIdle(2) {
			mr.trace.Info("route", "next", Finish, "why", "every persona came back idle twice")
			return brief(Finish, "every persona came back idle twice"), nil
		}
		if next, ok := mr.superviseModel(ctx, s); ok {
			return next, nil
		}
	}
	// Round robin over the personas that still see work (coverage), so
	// each gets its turn; the riskiest pages from memory come first in
	// every persona's frontier.
	best, bestScore := -1, 0
	for i := range mr.team {
		j := (s.Turns + i) % len(mr.team)
		m := mr.team[j]
		if mr.idle[m.p.Name] >= 2 {
			continue
		}
		if sc := m.pending(mr.cov) + mr.sw.work() + len(mr.probesFor(m)); sc > 0 {
			best, bestScore = j, sc
			break
		}
	}
	if best < 0 {
		// Nobody sees work: give each persona one more look unless all
		// came back idle.
		for i := range mr.team {
			j := (s.Turns + i) % len(mr.team)
			if mr.idle[mr.team[j].p.Name] == 0 {
				best = j
				break
			}
		}
	}
	if best < 0 {
		mr.trace.Info("route", "next", Finish, "why", "every target tried")
		return brief(Finish, "every target tried: no persona sees anything left to try"), nil
	}
	mr.trace.Info("route", "next", mr.team[best].p.Name, "pending", bestScore, "steps", s.Steps)
	return brief(mr.team[best].p.Name, fmt.Sprintf("most work left: %d", bestScore)), nil
}

// summarize keeps the first message (the mission) and the latest
// KeepMessages, replacing the middle with one summary message.
func summarize(_ context.Context, s State) (State, error) {
	if len(s.Messages) <= KeepMessages+1 {
		return State{}, nil
	}
	middle := s.Messages[1 : len(s.Messages)-KeepMessages]
	var b strings.Builder
	fmt.Fprintf(&b, "Summary of %d earlier messages:", len(middle))
	for _, m := range middle {
		line := m.Content
		if i := strings.IndexByte(line, '.'); i > 0 && i < 160 {
			line = line[:i]
		}
		b.WriteString("\n- " + clip.String(line, 160))
	}
	out := []state.Message{{ID: middle[0].ID, Role: state.RoleSystem, Name: NodeSummarizer, Content: clip.String(b.String(), 4000)}}
	for _, m := range middle[1:] {
		out = append(out, state.RemoveMessage(m.ID))
	}
	return State{Messages: out}, nil
}

// restore rebuilds the Go-side coverage from the state after a resume.
func (mr *missionRun) restore(s State) {
	for _, p := range s.Explored {
		mr.cov.visit(p)
	}
	for _, b := range s.Bugs {
		mr.bugSeen[b.Fingerprint] = true
	}
	if mr.steps < s.Steps {
		mr.steps = s.Steps
	}
	mr.sw.restore(s.AppModel)
}

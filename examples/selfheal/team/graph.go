package team

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentgraph/agentgraph/graph"
)

// Graph builds and compiles the team's state graph:
//
//	START → architect → developer → sandbox ─┬─ pass ───────────────→ reviewer → END
//	                                  ↑       ├─ fail, budget left → debugger ─┐
//	                                  └───────┼────────────────────────────────┘
//	                                          └─ budget spent ──────→ reviewer (warns)
//
// opts are passed to Compile (a checkpointer, an observer, a logger…).
// New compiles it once with Config.GraphOptions for Run and Resume.
func (t *Team) Graph(opts ...graph.CompileOption) (*graph.CompiledGraph[State], error) {
	g := graph.New[State](
		graph.Reducer(func(s *State) *[]TestResult { return &s.TestRuns }, appendAll[TestResult]),
		graph.Reducer(func(s *State) *[]DebugRecord { return &s.DebugHistory }, appendAll[DebugRecord]),
		graph.Reducer(func(s *State) *[]StepRecord { return &s.Steps }, appendAll[StepRecord]),
	)
	g.AddNode(NodeArchitect, t.Architect)
	g.AddNode(NodeDeveloper, t.Developer)
	g.AddNode(NodeSandbox, t.RunSandbox)
	g.AddNode(NodeDebugger, t.Debugger)
	g.AddNode(NodeReviewer, t.Reviewer)
	g.AddEdge(graph.Start, NodeArchitect)
	g.AddEdge(NodeArchitect, NodeDeveloper)
	g.AddEdge(NodeDeveloper, NodeSandbox)
	g.AddConditionalEdges(NodeSandbox, graph.Branch(AfterSandbox), NodeReviewer, NodeDebugger)
	g.AddEdge(NodeDebugger, NodeSandbox)
	g.AddEdge(NodeReviewer, graph.End)
	cg, err := g.Compile(append([]graph.CompileOption{graph.WithName("selfheal")}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("team: %w", err)
	}
	return cg, nil
}

// Input is the initial state of a run of request.
func (t *Team) Input(request string) State {
	return State{Request: request, MaxIterations: t.cfg.MaxIterations}
}

// Run runs the team on request to the end. onStep, when not nil, is called
// with each node's update as its step commits (for terminal output). opts
// go to the graph run: with Config.GraphOptions holding a checkpointer, pass
// graph.Thread so a failed run can be resumed with Resume.
func (t *Team) Run(ctx context.Context, request string, onStep func(node string, update State), opts ...graph.RunOption) (State, error) {
	if request == "" {
		return State{}, errors.New("team: empty request")
	}
	return t.stream(ctx, t.Input(request), onStep, opts)
}

// Resume continues a thread whose run stopped (a model or sandbox error, a
// cancellation) from its last checkpoint: finished nodes do not run again.
// It needs a checkpointer in Config.GraphOptions.
func (t *Team) Resume(ctx context.Context, thread string, onStep func(node string, update State)) (State, error) {
	return t.stream(ctx, State{}, onStep, []graph.RunOption{graph.Thread(thread), graph.Continue()})
}

func (t *Team) stream(ctx context.Context, in State, onStep func(string, State), opts []graph.RunOption) (State, error) {
	opts = append([]graph.RunOption{graph.Modes(graph.Updates, graph.Values)}, opts...)
	var final State
	for ev, err := range t.graph.Stream(ctx, in, opts...) {
		if err != nil {
			return final, fmt.Errorf("team: run: %w", err)
		}
		switch ev.Mode {
		case graph.Updates:
			if onStep != nil {
				onStep(ev.Node, ev.State)
			}
		case graph.Values:
			final = ev.State
		}
	}
	return final, nil
}

package bench

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/compose"
)

// The eino implementations build each shape as a compose.Graph of lambda
// nodes, the way eino's documentation builds graphs: data flows along edges
// (each node receives its predecessor's output), a fan-in merges map-typed
// outputs, and a loop is a branch that routes back to its own node.

// EinoChain compiles the chain shape: ChainLen lambda nodes in a row, each
// passing the state on with its update applied.
func EinoChain(ctx context.Context) (compose.Runnable[State, State], error) {
	g := compose.NewGraph[State, State]()
	prev := compose.START
	for _, n := range ChainNodes {
		if err := g.AddLambdaNode(n, compose.InvokableLambda(stepNode(n))); err != nil {
			return nil, fmt.Errorf("eino chain: add node %s: %w", n, err)
		}
		if err := g.AddEdge(prev, n); err != nil {
			return nil, fmt.Errorf("eino chain: edge %s->%s: %w", prev, n, err)
		}
		prev = n
	}
	if err := g.AddEdge(prev, compose.END); err != nil {
		return nil, fmt.Errorf("eino chain: edge to end: %w", err)
	}
	r, err := g.Compile(ctx)
	if err != nil {
		return nil, fmt.Errorf("eino chain: compile: %w", err)
	}
	return r, nil
}

// EinoFanOut compiles the fan-out shape. The fan node applies its update and
// hands the state on keyed by its name; the FanWidth workers each return their
// partial update keyed by their own name; the join node has the fan node and
// every worker as predecessors (eino's AllPredecessor trigger mode, which its
// docs prescribe for joins), receives their outputs merged into one map, and
// applies the workers' updates in name order before its own.
func EinoFanOut(ctx context.Context) (compose.Runnable[State, State], error) {
	g := compose.NewGraph[State, State]()
	fan := func(_ context.Context, s State) (map[string]State, error) {
		return map[string]State{FanNode: Apply(s, Step(FanNode))}, nil
	}
	join := func(_ context.Context, in map[string]State) (State, error) {
		s, ok := in[FanNode]
		if !ok {
			return State{}, fmt.Errorf("join: missing %s output", FanNode)
		}
		for _, w := range FanWorkers {
			u, ok := in[w]
			if !ok {
				return State{}, fmt.Errorf("join: missing %s output", w)
			}
			s = Apply(s, u)
		}
		return Apply(s, Step(JoinNode)), nil
	}
	if err := g.AddLambdaNode(FanNode, compose.InvokableLambda(fan)); err != nil {
		return nil, fmt.Errorf("eino fan-out: add node %s: %w", FanNode, err)
	}
	if err := g.AddLambdaNode(JoinNode, compose.InvokableLambda(join)); err != nil {
		return nil, fmt.Errorf("eino fan-out: add node %s: %w", JoinNode, err)
	}
	edges := [][2]string{{compose.START, FanNode}, {FanNode, JoinNode}, {JoinNode, compose.END}}
	for _, w := range FanWorkers {
		worker := func(_ context.Context, _ map[string]State) (map[string]State, error) {
			return map[string]State{w: Step(w)}, nil
		}
		if err := g.AddLambdaNode(w, compose.InvokableLambda(worker)); err != nil {
			return nil, fmt.Errorf("eino fan-out: add node %s: %w", w, err)
		}
		edges = append(edges, [2]string{FanNode, w}, [2]string{w, JoinNode})
	}
	for _, e := range edges {
		if err := g.AddEdge(e[0], e[1]); err != nil {
			return nil, fmt.Errorf("eino fan-out: edge %s->%s: %w", e[0], e[1], err)
		}
	}
	r, err := g.Compile(ctx, compose.WithNodeTriggerMode(compose.AllPredecessor))
	if err != nil {
		return nil, fmt.Errorf("eino fan-out: compile: %w", err)
	}
	return r, nil
}

// EinoLoop compiles the loop shape: one lambda node and a branch after it
// that routes back to the node until the count reaches LoopIters.
func EinoLoop(ctx context.Context) (compose.Runnable[State, State], error) {
	g := compose.NewGraph[State, State]()
	if err := g.AddLambdaNode(LoopNode, compose.InvokableLambda(stepNode(LoopNode))); err != nil {
		return nil, fmt.Errorf("eino loop: add node: %w", err)
	}
	if err := g.AddEdge(compose.START, LoopNode); err != nil {
		return nil, fmt.Errorf("eino loop: edge from start: %w", err)
	}
	again := func(_ context.Context, s State) (string, error) {
		if s.Count < LoopIters {
			return LoopNode, nil
		}
		return compose.END, nil
	}
	branch := compose.NewGraphBranch(again, map[string]bool{LoopNode: true, compose.END: true})
	if err := g.AddBranch(LoopNode, branch); err != nil {
		return nil, fmt.Errorf("eino loop: branch: %w", err)
	}
	// eino's default step limit is the node count plus 10; a loop needs one
	// step per iteration.
	r, err := g.Compile(ctx, compose.WithMaxRunSteps(LoopIters+10))
	if err != nil {
		return nil, fmt.Errorf("eino loop: compile: %w", err)
	}
	return r, nil
}

// stepNode is the eino body of a sequential node: apply the node's update to
// its input and pass the result on.
func stepNode(name string) func(context.Context, State) (State, error) {
	return func(_ context.Context, s State) (State, error) {
		return Apply(s, Step(name)), nil
	}
}

// Eino runs the eino compose graphs.
var Eino = Impl{
	Name: "eino",
	Build: func(ctx context.Context, s Shape) (Run, error) {
		builders := map[Shape]func(context.Context) (compose.Runnable[State, State], error){
			Chain:  EinoChain,
			FanOut: EinoFanOut,
			Loop:   EinoLoop,
		}
		build, ok := builders[s]
		if !ok {
			return nil, fmt.Errorf("eino: unknown shape %q", s)
		}
		r, err := build(ctx)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, in State) (State, error) {
			return r.Invoke(ctx, in)
		}, nil
	},
}

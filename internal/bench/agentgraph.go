package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/state"
)

// The agentgraph implementations build each shape with graph.New: nodes return
// partial updates (Step), and the state's reducers merge them at each
// super-step's barrier (Count: state.Sum, Log: state.Append).

// newAgentgraph returns a builder over State with its two reducers.
func newAgentgraph() *graph.StateGraph[State] {
	return graph.New[State](
		graph.Reducer(func(s *State) *int { return &s.Count }, state.Sum[int]),
		graph.Reducer(func(s *State) *[]string { return &s.Log }, state.Append[string]),
	)
}

// AgentgraphChain compiles the chain shape: ChainLen nodes in a row.
func AgentgraphChain(opts ...graph.CompileOption) (*graph.CompiledGraph[State], error) {
	g := newAgentgraph()
	prev := graph.Start
	for _, n := range ChainNodes {
		g.AddNode(n, agentgraphStep(n)).AddEdge(prev, n)
		prev = n
	}
	g.AddEdge(prev, graph.End)
	c, err := g.Compile(opts...)
	if err != nil {
		return nil, fmt.Errorf("agentgraph chain: %w", err)
	}
	return c, nil
}

// AgentgraphFanOut compiles the fan-out shape: the fan node, FanWidth workers
// that run in one super-step, and a join that waits for all of them.
func AgentgraphFanOut(opts ...graph.CompileOption) (*graph.CompiledGraph[State], error) {
	g := newAgentgraph()
	g.AddNode(FanNode, agentgraphStep(FanNode)).AddEdge(graph.Start, FanNode)
	for _, w := range FanWorkers {
		g.AddNode(w, agentgraphStep(w)).AddEdge(FanNode, w)
	}
	g.AddNode(JoinNode, agentgraphStep(JoinNode)).
		AddJoin(FanWorkers, JoinNode).
		AddEdge(JoinNode, graph.End)
	c, err := g.Compile(opts...)
	if err != nil {
		return nil, fmt.Errorf("agentgraph fan-out: %w", err)
	}
	return c, nil
}

// AgentgraphLoop compiles the loop shape: one node and a conditional edge
// back to it until the count reaches LoopIters.
func AgentgraphLoop(opts ...graph.CompileOption) (*graph.CompiledGraph[State], error) {
	again := func(_ context.Context, s State) (string, error) {
		if s.Count < LoopIters {
			return LoopNode, nil
		}
		return graph.End, nil
	}
	g := newAgentgraph()
	g.AddNode(LoopNode, agentgraphStep(LoopNode)).
		AddEdge(graph.Start, LoopNode).
		AddConditionalEdges(LoopNode, graph.Branch(again), LoopNode, graph.End)
	c, err := g.Compile(opts...)
	if err != nil {
		return nil, fmt.Errorf("agentgraph loop: %w", err)
	}
	return c, nil
}

// agentgraphStep is the agentgraph body of every node: return the node's
// partial update.
func agentgraphStep(name string) graph.NodeFunc[State] {
	return func(context.Context, State) (State, error) {
		return Step(name), nil
	}
}

func agentgraphBuild(s Shape, opts ...graph.CompileOption) (*graph.CompiledGraph[State], error) {
	switch s {
	case Chain:
		return AgentgraphChain(opts...)
	case FanOut:
		return AgentgraphFanOut(opts...)
	case Loop:
		return AgentgraphLoop(opts...)
	}
	return nil, fmt.Errorf("agentgraph: unknown shape %q", s)
}

// Agentgraph runs the agentgraph graphs without a checkpointer.
var Agentgraph = Impl{
	Name: "agentgraph",
	Build: func(_ context.Context, s Shape) (Run, error) {
		c, err := agentgraphBuild(s)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, in State) (State, error) {
			return c.Invoke(ctx, in)
		}, nil
	},
}

// AgentgraphMemory runs the agentgraph graphs with the in-memory checkpointer
// (checkpoint.NewMemory with its defaults: one checkpoint per super-step, all
// kept). Each invoke runs on a thread that is deleted right after, inside the
// timed call, so that every run starts from its input as the others do and
// memory does not grow over a long benchmark.
var AgentgraphMemory = Impl{
	Name: "agentgraph-memckpt",
	Build: func(_ context.Context, s Shape) (Run, error) {
		cp := checkpoint.NewMemory()
		c, err := agentgraphBuild(s, graph.WithCheckpointer(cp))
		if err != nil {
			return nil, err
		}
		var thread atomic.Int64
		return func(ctx context.Context, in State) (State, error) {
			id := strconv.FormatInt(thread.Add(1), 10)
			out, err := c.Invoke(ctx, in, graph.Thread(id))
			if err != nil {
				return out, err
			}
			if err := cp.DeleteThread(ctx, id); err != nil {
				return out, fmt.Errorf("agentgraph: delete thread: %w", err)
			}
			return out, nil
		}, nil
	},
}

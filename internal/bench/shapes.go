package bench

import "fmt"

// State is the state every implementation carries through a run: a counter
// that each node execution adds one to, and a log each node execution appends
// its name to. It is deliberately small, so the benchmarks measure the
// engines' per-node and per-step overhead rather than the node bodies.
type State struct {
	Count int
	Log   []string
}

// Shape sizes shared by every implementation.
const (
	// ChainLen is the number of nodes of the chain shape.
	ChainLen = 10
	// FanWidth is the number of parallel workers of the fan-out shape.
	FanWidth = 8
	// LoopIters is the number of times the loop shape's node runs.
	LoopIters = 100
)

// Node names of the fan-out and loop shapes.
const (
	FanNode  = "fan"
	JoinNode = "join"
	LoopNode = "inc"
)

// ChainNodes are the names of the chain's nodes, in order.
var ChainNodes = names("n", ChainLen)

// FanWorkers are the names of the fan-out's parallel workers, in the order
// their writes are applied at the join (sorted by name).
var FanWorkers = names("w", FanWidth)

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", prefix, i)
	}
	return out
}

// Step is the node body every implementation runs: the update one node
// execution named name makes. It returns a partial update (one count, one log
// entry); each engine merges it into the state its own way.
func Step(name string) State {
	return State{Count: 1, Log: []string{name}}
}

// Apply merges a partial update into s: counts add, logs append. It is the
// reducer pair the agentgraph implementation declares and the merge the eino
// join performs.
func Apply(s, u State) State {
	s.Count += u.Count
	s.Log = append(s.Log, u.Log...)
	return s
}

// Package bench compares agentgraph's graph engine with other Go graph
// engines on the same three shapes: a chain of ChainLen nodes, a fan-out of
// FanWidth parallel workers joined by one node, and a loop of one node that
// routes back to itself LoopIters times.
//
// It is a separate module, so that the agentgraph library never depends on
// the engines it is compared with. Every implementation runs the same node
// body (Step: add one to State.Count, append the node's name to State.Log),
// compiles its graph once outside the timed loop, and must reach the same
// final state as the plain-Go reference (see TestSameFinalState).
//
// Run the comparison from this directory with
//
//	go test -run '^$' -bench . -benchmem -count 6 | tee bench.txt
//	benchstat -col /impl bench.txt
package bench

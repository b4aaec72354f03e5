package bench

// The reference implementations run each shape with plain function calls and
// no engine. They define the final state every engine must reach, and give the
// benchmarks a floor.

// RefChain runs the chain shape directly.
func RefChain(in State) State {
	s := clone(in)
	for _, n := range ChainNodes {
		s = Apply(s, Step(n))
	}
	return s
}

// RefFanOut runs the fan-out shape directly: the fan node, then every worker
// against the same state with their updates applied in name order, then the
// join node.
func RefFanOut(in State) State {
	s := Apply(clone(in), Step(FanNode))
	updates := make([]State, len(FanWorkers))
	for i, w := range FanWorkers {
		updates[i] = Step(w)
	}
	for _, u := range updates {
		s = Apply(s, u)
	}
	return Apply(s, Step(JoinNode))
}

// RefLoop runs the loop shape directly.
func RefLoop(in State) State {
	s := clone(in)
	for s.Count < LoopIters {
		s = Apply(s, Step(LoopNode))
	}
	return s
}

// clone copies s so that appending to its log never writes into the caller's
// backing array.
func clone(s State) State {
	s.Log = append([]string(nil), s.Log...)
	return s
}

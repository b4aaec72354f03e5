package bench

import (
	"context"
	"fmt"
)

// Run invokes one compiled graph once.
type Run func(ctx context.Context, in State) (State, error)

// Shape names one of the three benchmarked graph shapes.
type Shape string

// The benchmarked shapes.
const (
	Chain  Shape = "chain"
	FanOut Shape = "fanout"
	Loop   Shape = "loop"
)

// Shapes lists the shapes in the order the benchmarks run them.
var Shapes = []Shape{Chain, FanOut, Loop}

// Impl is one implementation of every shape: Build compiles a shape once,
// outside any timed loop, and returns the function that invokes it.
type Impl struct {
	Name  string
	Build func(ctx context.Context, s Shape) (Run, error)
}

// Reference is the final state each shape must produce from input in.
func Reference(s Shape, in State) (State, error) {
	switch s {
	case Chain:
		return RefChain(in), nil
	case FanOut:
		return RefFanOut(in), nil
	case Loop:
		return RefLoop(in), nil
	}
	return State{}, fmt.Errorf("unknown shape %q", s)
}

// Plain runs the reference implementations: no engine, the floor.
var Plain = Impl{
	Name: "plain",
	Build: func(_ context.Context, s Shape) (Run, error) {
		if _, err := Reference(s, State{}); err != nil {
			return nil, err
		}
		return func(_ context.Context, in State) (State, error) {
			return Reference(s, in)
		}, nil
	},
}

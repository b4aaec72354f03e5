package graph

import "github.com/agentgraph/agentgraph/internal/panicerr"

// PanicError is a panic in code the engine calls — a node, a router, a
// reducer, an observer or the serializer — turned into an error, so that
// no panic escapes Invoke, Stream, GetState or UpdateState. A node's or a
// router's panic comes wrapped in a *NodeError; use errors.As to reach it.
//
// Its fields: Where is "node", "router", "reducer", "overwrite" (a Set
// accessor), "observer" or "serializer"; Node is the node whose code or
// write it was ("" when none); Field is the field, for reducers and
// overwrites; Value is what was passed to panic; Stack is the panicking
// goroutine's stack. Unwrap returns Value when it is an error.
//
// It is the same type as tools.PanicError (a panic in a tool's Call, with
// Where "tool" and the tool's name in Tool): one definition, shared through
// an internal package because tools does not import graph.
type PanicError = panicerr.Error

func newPanic(where, node, field string, v any) *PanicError {
	return panicerr.New(where, node, field, v)
}

// safeSerializer turns a panic of the wrapped serializer into an error.
type safeSerializer struct {
	s      Serializer
	format string
}

func (s safeSerializer) Format() string { return s.format }

func (s safeSerializer) Marshal(v any) (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, newPanic("serializer", "", "", p)
		}
	}()
	return s.s.Marshal(v)
}

func (s safeSerializer) Unmarshal(data []byte, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = newPanic("serializer", "", "", p)
		}
	}()
	return s.s.Unmarshal(data, v)
}

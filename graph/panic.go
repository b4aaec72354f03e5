package graph

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic in code the engine calls — a node, a router, a
// reducer, an observer or the serializer — turned into an error, so that
// no panic escapes Invoke, Stream, GetState or UpdateState. A node's or a
// router's panic comes wrapped in a *NodeError; use errors.As to reach it.
type PanicError struct {
	// Where is "node", "router", "reducer", "overwrite" (a Set accessor),
	// "observer" or "serializer".
	Where string
	Node  string // the node whose code or write it was ("" when none)
	Field string // the field, for reducers and overwrites
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack
}

func (e *PanicError) Error() string {
	s := "graph: panic in " + e.Where
	switch {
	case e.Where == "node":
		s += fmt.Sprintf(" %q", e.Node)
	case e.Field != "":
		s += fmt.Sprintf(" of field %q", e.Field)
		if e.Node != "" {
			s += fmt.Sprintf(" (write of node %q)", e.Node)
		}
	case e.Node != "":
		s += fmt.Sprintf(" of node %q", e.Node)
	}
	return fmt.Sprintf("%s: %v", s, e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

func newPanic(where, node, field string, v any) *PanicError {
	return &PanicError{Where: where, Node: node, Field: field, Value: v, Stack: debug.Stack()}
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

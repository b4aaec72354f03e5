// Package panicerr holds the one error type for a recovered panic. The
// graph engine (a node, router, reducer, observer or serializer that
// panicked) and the tools registry (a tool whose Call panicked) both
// return it; each re-exports it under its own name, graph.PanicError and
// tools.PanicError, because tools may not import graph. It imports the
// standard library only.
package panicerr

import (
	"fmt"
	"runtime/debug"
)

// WhereTool is the Where of a panic in a tool's Call.
const WhereTool = "tool"

// Error is a recovered panic turned into an error.
type Error struct {
	// Where names the code that panicked: "node", "router", "reducer",
	// "overwrite" (a Set accessor), "observer" or "serializer" in the graph
	// engine; "tool" (WhereTool) in the tools registry.
	Where string
	Node  string // the graph node whose code or write it was ("" when none)
	Field string // the state field, for reducers and overwrites
	Tool  string // the tool, when Where is "tool"
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack
}

// New returns the Error for the panic value v, with the current stack; call
// it from the deferred function that recovered v.
func New(where, node, field string, v any) *Error {
	return &Error{Where: where, Node: node, Field: field, Value: v, Stack: debug.Stack()}
}

// NewTool returns the Error for a panic with value v in the Call of tool.
func NewTool(tool string, v any) *Error {
	return &Error{Where: WhereTool, Tool: tool, Value: v, Stack: debug.Stack()}
}

func (e *Error) Error() string {
	if e.Where == WhereTool {
		return fmt.Sprintf("tool %q crashed (panic: %v); this is a bug in the tool, not in your arguments", e.Tool, e.Value)
	}
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
func (e *Error) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

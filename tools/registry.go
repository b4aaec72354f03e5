package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentgraph/agentgraph/internal/panicerr"
)

// UnknownToolError is returned when a call names a tool the registry lacks.
type UnknownToolError struct {
	Name  string
	Known []string
}

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("unknown tool %q; available tools: %s", e.Name, strings.Join(e.Known, ", "))
}

// ToolError wraps an error returned by a tool's Call (other than an
// *ArgumentError).
type ToolError struct {
	Tool string
	Err  error
}

func (e *ToolError) Error() string { return fmt.Sprintf("tool %q failed: %v", e.Tool, e.Err) }
func (e *ToolError) Unwrap() error { return e.Err }

// PanicError reports a tool that panicked; the registry recovers it. Its
// Where is "tool", Tool names the tool, Value is what was passed to panic
// and Stack the panicking goroutine's stack; Unwrap returns Value when it
// is an error. It is the same type as graph.PanicError (one definition,
// shared through an internal package, since tools does not import graph).
type PanicError = panicerr.Error

// Registry holds tools by name and dispatches calls. It is safe for
// concurrent use. The zero value is ready.
type Registry struct {
	mu    sync.RWMutex
	order []string
	byKey map[string]Tool
}

// NewRegistry returns a registry holding ts (see Register).
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{}
	if err := r.Register(ts...); err != nil {
		return nil, err
	}
	return r, nil
}

// Register adds tools. A nil tool, an empty name or a name already
// registered is an error and nothing is added.
func (r *Registry) Register(ts ...Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, t := range ts {
		if t == nil {
			return errors.New("tools: register: nil tool")
		}
		n := t.Name()
		if n == "" {
			return errors.New("tools: register: tool with empty name")
		}
		if _, dup := r.byKey[n]; dup || seen[n] {
			return fmt.Errorf("tools: register: duplicate tool name %q", n)
		}
		seen[n] = true
	}
	if r.byKey == nil {
		r.byKey = map[string]Tool{}
	}
	for _, t := range ts {
		r.byKey[t.Name()] = t
		r.order = append(r.order, t.Name())
	}
	return nil
}

// Get returns the named tool.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.byKey[name]
	return t, ok
}

// List returns the tools in registration order.
func (r *Registry) List() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byKey[n])
	}
	return out
}

// Names returns the tool names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// Call runs the named tool. Errors are typed: *UnknownToolError,
// *ArgumentError (bad JSON or arguments), *PanicError, *ToolError, or the
// context's error when ctx is done before the call starts.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (result string, err error) {
	t, ok := r.Get(name)
	if !ok {
		return "", &UnknownToolError{Name: name, Known: r.Names()}
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("tool %q not run: %w", name, err)
	}
	if len(args) > 0 && !json.Valid(args) {
		return "", &ArgumentError{Tool: name, Msg: "arguments are not valid JSON: " + truncate(string(args), 200)}
	}
	defer func() {
		if v := recover(); v != nil {
			result, err = "", panicerr.NewTool(name, v)
		}
	}()
	out, err := t.Call(ctx, args)
	if err != nil {
		var ae *ArgumentError
		if errors.As(err, &ae) {
			return "", err
		}
		return "", &ToolError{Tool: name, Err: err}
	}
	return out, nil
}

// Dispatch runs the named tool and always returns text for the model: the
// result, or a readable description of what went wrong with isErr set.
func (r *Registry) Dispatch(ctx context.Context, name string, args json.RawMessage) (result string, isErr bool) {
	out, err := r.Call(ctx, name, args)
	if err != nil {
		return "error: " + err.Error(), true
	}
	return out, false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

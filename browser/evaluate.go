package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrPageGone is wrapped by EvaluateJSON's (and Evaluate's) error when the page's document went
// away while the expression ran (a navigation destroyed its execution
// context, or the page closed): run it again in the new document if needed.
var ErrPageGone = errors.New("browser: the page's document went away")

// EvaluateJSON runs a JavaScript expression, or a function called with
// arg, in the user's page (Playwright's Page.Evaluate) and returns its
// result as JSON; a returned Promise is awaited. arg is the function's
// argument as JSON (nil or null: none, the function gets undefined). An
// undefined or null result is "null", and so are numbers JSON cannot hold
// (NaN, Infinity), as JSON.stringify has them. Evaluate and EvaluateWith
// wrap it with typed arguments and results.
//
// It is a harness hook for code that drives the page itself (an init
// script's API, a monkey tester), not an agent action: it is not recorded
// on the tape, collects no health findings (they stay pending for the next
// Do) and does not wait for an action in progress. Cancelling ctx returns
// at once; the evaluation itself ends when it settles or its document goes
// away (then the error wraps ErrPageGone).
func (s *Session) EvaluateJSON(ctx context.Context, expression string, arg json.RawMessage) (json.RawMessage, error) {
	var a any
	if arg != nil {
		if err := json.Unmarshal(arg, &a); err != nil {
			return nil, fmt.Errorf("browser: evaluate: argument: %w", err)
		}
	}
	v, err := s.evaluate(ctx, expression, a)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(jsonValue(v))
	if err != nil {
		return nil, fmt.Errorf("browser: evaluate: result %T is not JSON: %w", v, err)
	}
	return out, nil
}

// Evaluate runs expression in s's page (see Session.EvaluateJSON) and
// decodes its result into a T; a null or undefined result is T's zero
// value.
func Evaluate[T any](ctx context.Context, s *Session, expression string) (T, error) {
	return decodeResult[T](s.EvaluateJSON(ctx, expression, nil))
}

// EvaluateWith runs the function expression with the argument arg (encoded
// as JSON) in s's page (see Session.EvaluateJSON) and decodes its result
// into a T; a null or undefined result is T's zero value.
func EvaluateWith[T, A any](ctx context.Context, s *Session, expression string, arg A) (T, error) {
	b, err := json.Marshal(arg)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("browser: evaluate: argument %T is not JSON: %w", arg, err)
	}
	return decodeResult[T](s.EvaluateJSON(ctx, expression, b))
}

func decodeResult[T any](raw json.RawMessage, err error) (T, error) {
	var out T
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("browser: evaluate: result %s is not a %T: %w", clipRaw(raw), out, err)
	}
	return out, nil
}

// clipRaw is raw for an error message, at most 120 bytes of it.
func clipRaw(raw json.RawMessage) string {
	if len(raw) > 120 {
		return string(raw[:120]) + "…"
	}
	return string(raw)
}

// jsonValue is v (as Playwright decoded it) with the numbers JSON cannot
// hold (NaN, ±Infinity) replaced by null, as JSON.stringify does.
func jsonValue(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	}
	return v
}

// evaluate runs expression (with arg when it is not nil) and returns the
// result as Playwright decoded it (numbers are float64 or int, objects
// map[string]any).
func (s *Session) evaluate(ctx context.Context, expression string, arg any) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("browser: evaluate: %w", err)
	}
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	p := s.currentPage()
	go func() {
		var v any
		var err error
		if arg == nil {
			v, err = p.Evaluate(expression)
		} else {
			v, err = p.Evaluate(expression, arg)
		}
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			if gone(r.err) {
				return nil, fmt.Errorf("%w: %s", ErrPageGone, oneLine(r.err))
			}
			return nil, fmt.Errorf("browser: evaluate: %s", oneLine(r.err))
		}
		return r.v, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("browser: evaluate: %w", ctx.Err())
	}
}

// gone reports whether a Playwright error says that the evaluation's
// document or page no longer exists.
func gone(err error) bool {
	msg := err.Error()
	for _, m := range []string{"Execution context was destroyed", "Target page, context or browser has been closed", "Target closed", "frame was detached", "Frame was detached"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

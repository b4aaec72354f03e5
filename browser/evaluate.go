package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrPageGone is wrapped by Evaluate's error when the page's document went
// away while the expression ran (a navigation destroyed its execution
// context, or the page closed): run it again in the new document if needed.
var ErrPageGone = errors.New("browser: the page's document went away")

// Evaluate runs a JavaScript expression, or a function called with arg, in
// the user's page (Playwright's Page.Evaluate) and returns its result,
// decoded from JSON (numbers are float64 or int, objects map[string]any);
// a returned Promise is awaited. It is a harness hook for code that drives
// the page itself (an init script's API, a monkey tester), not an agent
// action: it is not recorded on the tape, collects no health findings (they
// stay pending for the next Do) and does not wait for an action in
// progress. Cancelling ctx returns at once; the evaluation itself ends when
// it settles or its document goes away.
func (s *Session) Evaluate(ctx context.Context, expression string, arg any) (any, error) {
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

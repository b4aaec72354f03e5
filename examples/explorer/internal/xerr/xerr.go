// Package xerr holds the explorer's error kinds that decide its exit
// status, shared by its packages. Package explore re-exports them
// (explore.ErrUsage, explore.SetupError): callers branch on those.
package xerr

import "errors"

// ErrUsage marks configuration mistakes (exit code 2).
var ErrUsage = errors.New("explore: usage")

// SetupError is a missing local piece (Chromium, Node.js, the Playwright
// driver, a tool a step needs) or a target the run cannot use (not
// http(s), unreachable, answering nothing): the run could not start. Exit
// code 2.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return "explore: set-up: " + e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

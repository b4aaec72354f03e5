package team

import (
	"fmt"
	"strings"
)

// System prompts of the roles. Each names the exact reply format its parser
// reads.
const (
	architectSystem = `You are the architect of a small Go engineering team.
Given a task, write a precise specification of a single Go library package and a
complete test file for it. The tests must be deterministic, use only the standard
library, and exercise concurrency where the task calls for it (they run under
go test -race). Put the tests in the same package as the code (package x, not
x_test); the code and the tests are the only two files of the module.

Reply in exactly this format:

SPECIFICATIONS:
<the package name, the exported API with signatures, and the behaviour, in prose>

TESTS:
` + "```go" + `
<one complete _test.go file: package clause, imports, func TestXxx(t *testing.T)...>
` + "```"

	developerSystem = `You are the developer of a small Go engineering team.
Implement the specification so that the given tests pass under go test -race.
Use only the standard library. Do not write tests.

Reply with the complete Go file in one block:

CODE:
` + "```go" + `
<the complete implementation file, starting with its package clause>
` + "```"

	debuggerSystem = `You are the debugger of a small Go engineering team.
The tests failed in the sandbox. Find the root cause from the failure report and
fix the implementation (never the tests).

Reply in exactly this format:

DIAGNOSIS:
<what is wrong, where, and why the fix works, in a few sentences>

PATCHED_CODE:
` + "```go" + `
<the complete corrected implementation file>
` + "```"

	reviewerSystem = `You are the reviewer of a small Go engineering team.
Summarise the outcome for the user in a short review: what was built, how the
tests went across the iterations, what the debugging fixed, and any remaining
risk. Plain prose, at most 10 lines.`
)

func architectPrompt(s State) string {
	return "TASK:\n" + strings.TrimSpace(s.Request) + "\n"
}

func developerPrompt(s State) string {
	return fmt.Sprintf("SPECIFICATIONS:\n%s\n\nTESTS (package %s):\n```go\n%s```\n", s.Spec, s.Package, s.Tests)
}

func debuggerPrompt(s State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SPECIFICATIONS:\n%s\n\nTESTS:\n```go\n%s```\n\nCURRENT CODE:\n```go\n%s```\n\n", s.Spec, s.Tests, s.Code)
	r := s.Results
	fmt.Fprintf(&b, "SANDBOX RESULT (go test -race): %d passed, %d failed, failure kind %q, exit code %d\n",
		r.PassCount, r.FailCount, r.Failure, r.ExitCode)
	fmt.Fprintf(&b, "ERROR SUMMARY:\n%s\n\nFAILURE OUTPUT:\n%s\n", r.ErrorSummary, r.Failures)
	if len(s.DebugHistory) > 0 {
		b.WriteString("\nEARLIER DIAGNOSES (these patches did not make the tests pass):\n")
		for _, d := range s.DebugHistory {
			fmt.Fprintf(&b, "- round %d (%s): %s\n", d.Iteration, d.Failure, oneLine(d.Diagnosis, 300))
		}
	}
	fmt.Fprintf(&b, "\nThis is debug round %d of %d.\n", s.Iteration+1, s.MaxIterations)
	return b.String()
}

func reviewerPrompt(s State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "TASK:\n%s\n\nSPECIFICATIONS:\n%s\n\nFINAL CODE:\n```go\n%s```\n\n", s.Request, s.Spec, s.Code)
	fmt.Fprintf(&b, "TEST RUNS: %d\n", len(s.TestRuns))
	for i, r := range s.TestRuns {
		fmt.Fprintf(&b, "- run %d: %d passed, %d failed%s\n", i+1, r.PassCount, r.FailCount, failureNote(r))
	}
	for _, d := range s.DebugHistory {
		fmt.Fprintf(&b, "DEBUG ROUND %d: %s\n", d.Iteration, oneLine(d.Diagnosis, 400))
	}
	if !s.Results.Passed {
		fmt.Fprintf(&b, "\nWARNING: the debug budget (%d rounds) is spent and the tests still fail: %s\n",
			s.MaxIterations, oneLine(s.Results.ErrorSummary, 400))
	}
	return b.String()
}

func failureNote(r TestResult) string {
	if r.Passed {
		return ""
	}
	return fmt.Sprintf(" (%s)", r.Failure)
}

// oneLine squeezes s onto one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

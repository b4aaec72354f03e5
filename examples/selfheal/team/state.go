package team

import (
	"slices"
	"time"

	"github.com/agentgraph/agentgraph/llm"
)

// Status is where a run stands.
type Status string

const (
	StatusDesigning    Status = "designing"    // the architect is writing the spec and tests
	StatusImplementing Status = "implementing" // the developer is writing code
	StatusTesting      Status = "testing"      // the sandbox ran the tests
	StatusDebugging    Status = "debugging"    // the debugger patched the code
	StatusPassed       Status = "passed"       // the reviewer signed off on passing code
	StatusBudgetSpent  Status = "budget-spent" // the debug budget ran out with tests failing
)

// State is the graph state of one self-healing run. Fields without a
// reducer keep the last value written; DebugHistory, TestRuns and Steps
// append.
type State struct {
	// Request is the user's task, in prose.
	Request string
	// Spec and Tests are the architect's specification and Go test file.
	Spec  string
	Tests string
	// Package is the package name the tests use (code must use it too).
	Package string
	// Code is the current implementation.
	Code string
	// Results is the latest sandbox run.
	Results TestResult
	// TestRuns is every sandbox run, in order.
	TestRuns []TestResult
	// Iteration counts the debug rounds done so far; MaxIterations is the
	// budget of debug rounds.
	Iteration     int
	MaxIterations int
	// DebugHistory is the debugger's diagnoses, in order.
	DebugHistory []DebugRecord
	// Review is the reviewer's summary; Warning is set when the run ends
	// with failing tests.
	Review  string
	Warning string
	Status  Status
	// Steps records each node run, for the terminal and the metrics.
	Steps []StepRecord
}

// DebugRecord is one debug round.
type DebugRecord struct {
	Iteration int
	Failure   Failure // what the sandbox reported before the patch
	Summary   string  // the sandbox's error summary the debugger saw
	Diagnosis string
}

// StepRecord is one node run: who ran, what it did, how long it took and
// what it cost.
type StepRecord struct {
	Node     string
	Role     Role // "" for the sandbox
	Did      string
	Duration time.Duration
	// Calls counts model calls (repairs of unusable replies included).
	Calls int
	Usage llm.Usage
}

// appendAll is the reducer of the list fields: it never aliases cur.
func appendAll[T any](cur, upd []T) []T { return slices.Concat(cur, upd) }

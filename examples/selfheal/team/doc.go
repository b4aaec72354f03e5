// Package team is a self-healing engineering team built on the agentgraph
// graph engine: it shows that graph serves any agent team, not only the QA
// explorer.
//
// Five nodes share one typed State:
//
//	START → architect → developer → sandbox ─┬─ pass ──────────────→ reviewer → END
//	                                  ↑       ├─ fail, budget left → debugger
//	                                  └───────┤   (debugger → sandbox)
//	                                          └─ budget spent ─────→ reviewer (with a warning)
//
// The roles:
//
//   - The architect writes SPECIFICATIONS and a TESTS file (ParseArchitect).
//   - The developer writes the code (ParseCode).
//   - The Sandbox runs go test -race -json on code and tests in a fresh
//     temporary module, in a subprocess with a clean environment
//     (GOPROXY=off, GOTOOLCHAIN=local, no caller variables), its own network
//     namespace when unshare -rn works, a test timeout that cuts off
//     infinite loops, and a cap on output. It is deterministic and costs no
//     tokens; the TestResult has pass/fail counts, a Failure kind (build,
//     tests, race, timeout, panic, output-limit…), an ErrorSummary and the
//     failure section.
//   - The debugger answers DIAGNOSIS and PATCHED_CODE (ParseDebugger).
//   - The reviewer summarises; with the budget spent it gets the failing
//     code and the run ends with Status StatusBudgetSpent and a Warning.
//
// Every role has its own model (Models). ModelsFromFactory takes them from
// an llm.Factory, so each role's model name and reasoning effort come from
// role tiers (YAML) and AGENTGRAPH_<ROLE>_* variables. A reply the parsers
// cannot use is sent back to its model with the parse error (Config.MaxRepairs)
// and never panics.
//
// Offline, RateLimiterTask().ScriptedModels() plays every role for a
// built-in task: a sliding-window rate limiter whose first draft has a data
// race in an unlocked fast path. The real sandbox catches it under -race,
// the debugger patches it, and the second run passes.
package team

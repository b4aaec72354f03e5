// Package explore is the autonomous exploratory QA explorer behind
// examples/explorer: a supervised team of personas explores a web app in a
// real Chromium, reports bugs with evidence and writes Playwright specs that
// reproduce them. Run is the whole job; Check wraps it for go test
// harnesses.
//
// # The team as a graph
//
// Each mission is a graph.StateGraph over State: supervisor → persona →
// summarizer → supervisor … → FINISH. State holds the messages (add-messages
// reducer: the mission first, then routing briefs and turn summaries), the
// supervisor's Next choice, a bounded tape window of the latest TapeWindow
// actions, the step count, the bugs (append) and the explored paths
// (append). A checkpoint is written per step (bbolt with Config.DB), so
// Config.Resume continues a killed mission on its thread.
//
// Offline (the only mode of this build) the supervisor is a rule policy:
// round robin over the personas that still see work (unexplored links,
// forms they have not played their tricks on, a session not yet dropped),
// with the riskiest pages from memory first in every frontier; FINISH when
// the step budget is spent or nobody sees anything left. A persona turn has
// a step limit (Config.TurnSteps; soft while it keeps reaching new pages,
// hard at twice the limit), after which the next turn starts from the start
// URL to pick a different area. A loop detector sends a persona elsewhere
// when it repeats the same action on the same page state. The summarizer
// keeps the first message and the last KeepMessages, replacing the middle
// with one summary.
//
// Teams: StandardTeam (new_user, power_user, adversarial) and AdvancedTeam
// (accessibility, data_heavy, impatient, returning_user, explorer), picked
// per mission by RouteTeam's keywords or forced with Config.Team.
//
// # Oracles
//
// The browser engine reports page errors, console errors, HTTP ≥ 500,
// same-origin 404 navigations, error banners and stack traces. A collector
// (a reverse proxy in front of the app, which the browser is pointed at)
// adds what needs no model either: 5xx bodies and X-… response headers as
// evidence, responses slower than Config.SlowThreshold, one form accepted
// twice as two records, and, through a small script injected into every
// page, executed XSS probes (XSSPayload), controls without an accessible
// name or label, clicks that change nothing, and identical table rows. It
// also serves ClearSiteDataPath, which drops the session the way an expired
// browser session does.
//
// # Outputs
//
// Per mission, in <ReportDir>/<thread_id>/: traces.log (every step, route
// and bug), action_tape.jsonl (browser.Entry lines), test_report.md,
// report.html (findings with screenshots, a timeline of the personas'
// actions), reproduction_<bug>.spec.ts per bug (browser.Translate of its
// minimised reproduction, the bug asserted under test.fail()),
// screenshots/ and summary.json, which, when the target is the demo app,
// carries demo: {seeded, found}, found being the seeded ids named by the
// findings' evidence (demoapp.FindIDs) and nothing else. Per batch: <ReportDir>/junit.xml and <ReportDir>/summary.json.
//
// Specs record the collector's origin; run them against any deployment
// with AGENTGRAPH_BASE_URL set, e.g.
// AGENTGRAPH_BASE_URL=http://127.0.0.1:8080 npx playwright test.
//
// # Minimised reproductions
//
// Before the specs are written, each bug's reproduction is shortened by
// replaying parts of the tape up to it (its replayable entries) and keeping
// the shortest part that still shows the finding. Every replay starts from
// nothing: a fresh browser context (new browser.Engine and user), behind a
// fresh collector (the same oracles, no shared state), in front of a fresh
// app when Config.ReplayTarget gives one — Run does so for the demo app, so
// a shortened spec cannot lean on records the mission made. Snapshot refs
// are rebuilt from the Playwright locators the engine recorded. A replay
// "shows the finding" when a finding of the same kind, page path and
// evidence appears, numbers (record ids, ports, timings) aside; a replay
// that fails a step or lands on another page than the recording did shows
// nothing.
//
// The search, per mission, in three phases. First the suffix heuristics
// (the last entry alone, the entries from the last navigation on, then
// from the 2nd, 4th, 8th… last navigation, each also behind the tape's
// latest sign-in), shortest first and breadth first: every bug's cheapest
// candidate before any bug's second one, the longest tapes first. Bugs
// found at one step share their candidates, and a replay answers for every
// bug whose finding it shows. A sequence that does not open a page first,
// or starts the way a failed replay did, is never replayed. Second, while
// time is left, Zeller's ddmin over each bug's shortest reproducing
// sequence (then over the full tape of bugs the heuristics missed). Last,
// one more replay of each result: a sequence that does not reproduce again
// falls back to the full tape. Config.MinimizeReplays bounds the replays
// per bug (DefaultMinimizeReplays; negative turns minimisation off) and
// Config.MinimizeTime the whole minimisation of a mission, confirmations
// included (DefaultMinimizeTime): the search stops early enough for them.
// When a budget runs out, a bug keeps the shortest sequence found so far
// if it reproduced again, else its full tape. A bug's ReproSteps is the
// length of its spec, ReproFullSteps that of the tape up to it,
// ReproReplays the replays it cost. Without Config.ReplayTarget, replays
// run against the live target, whose state the mission and earlier
// replays changed: a shortened spec may then need that state.
//
// # Memory
//
// Bugs go to memory.QA (one catalog per app origin; the demo app's is
// "http://demoapp.local" whatever its port), deduplicated by fingerprint with
// a seen count; a bug already in the catalog is not New, which is what
// FailOnNew counts. Config.Regression turns the open bugs into one mission
// per page (memory.QA.RegressionMissions).
//
// # Work-arounds
//
// The engine's network-idle wait stays stuck after a fetch that followed a
// redirect (every later action waits the whole settle timeout); the
// explorer then moves cookies and storage into a fresh browser context
// (rotateSession). In-page reports travel as console messages, so that no
// request of the explorer's own outlives a page.
package explore

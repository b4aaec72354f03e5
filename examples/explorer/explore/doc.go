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
// actions), reproduction_<bug>.spec.ts per bug (browser.Translate, the bug
// asserted under test.fail()), screenshots/ and summary.json, which, when
// the target is the demo app, carries demo: {seeded, found}, found being the
// seeded ids named by the findings' evidence (demoapp.FindIDs) and nothing
// else. Per batch: <ReportDir>/junit.xml and <ReportDir>/summary.json.
//
// Each reproduction asserts what fails once THAT bug is fixed
// (reproduction, in repro.go), narrowed to the bug's evidence so that other
// noise on the way does not keep it passing: a page error or console error
// containing the stable start of its message (up to the first number, as
// ids and counts vary between runs); a 5xx or a 404 on the finding's URL
// path; an error banner containing its text, a stack trace containing its
// first line; the XSS probe's marker (__agxss) never called; no serious or
// critical axe-core violation of the reported rule on the reported element
// (its test id, id or name); the slow path answering within the threshold;
// a dead control, clicked by the spec itself after the steps before the
// recorded click, changing the page; no identical table rows; the same
// form post not accepted twice (both replayed with POST answers held, as
// the collector's slow network did). Kinds without a check of their own
// keep browser.DefaultChecks. The collector's ClearSiteDataPath replays as
// clearing cookies and storage.
//
// Specs record the collector's origin; run them against any deployment
// with AGENTGRAPH_BASE_URL set, e.g.
// AGENTGRAPH_BASE_URL=http://127.0.0.1:8080 npx playwright test.
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

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
// Config.Resume continues a killed mission on its thread (see Retries and
// resume).
//
// Offline (the default: Config.Models nil) the supervisor is a rule policy:
// round robin over the personas that still see work (unexplored links,
// forms they have not played their tricks on, a session not yet dropped,
// untried targets of the app model), with the riskiest pages from memory
// first in every frontier; FINISH when the step budget is spent or every
// discovered target was tried (the reason goes to MissionResult.Coverage).
// A persona turn has a step limit (Config.TurnSteps; soft while it keeps
// reaching new pages, hard at twice the limit). A loop detector sends a
// persona elsewhere when it repeats the same action on the same page state.
// The summarizer keeps the first message and the last KeepMessages,
// replacing the middle with one summary.
//
// # The app model and coverage
//
// sweep.go keeps the mission's personas.Model: every look adds the page's
// abstract state and its coverage targets (state × action × input class),
// every finished macro its transition. When a persona's tricks and the
// unexplored links run out, it takes Model.NextFar's best target (its
// persona's preference, personas.Persona.Preference, added to the model's
// score, minus a cost per step of the way) and plays it as a macro: the
// form's other empty fields valid, the target's field with its class's
// value, the form's submit (button,
// else Enter); a submit button's click and double click fill the form
// validly first. A fill target's class also goes into every other field of
// its form whose value of that class the app must take (widen: one
// submission per class, not per field); values the app may refuse go one
// field at a time, and a class whose widened submission came back, or
// that the server failed on (its first bad column is all it reports),
// goes one field at a time on that form (settleAlso). A button click the
// browser could not do (a dialog left open over it) is clicked once more
// on the page's next screen (sweep.retry, again). The adversarial persona's
// catalogue trick (formClass) plays a form's classes in catalogueOrder the
// same way before the sweep gets there, and from 15% of the budget on any
// member that has played its own form tricks keeps it at 30% of the
// mission's steps (catalogueDue; the list pages a payload class is looked
// for on afterwards count in it), after a list page's last row (lastRow).
// A macro's fills, choices and ticks on one screen go as one fill_form
// intent (member.batch): a submission is two steps of the budget, the
// fields and then the submit. A choice inside a form (a select's
// option, a box) is submitted with the form, with an untried option of each
// of the form's other selects (widenOptions; an option chosen on another
// state of the same page, the list under a filter's query, was tried);
// sweep.here, each visit's own
// controls (sweep_here.go), plays choices outside forms and in forms of
// choices only (a list's filter and sort, with its submit), buttons that
// send no fields and links to views of the page (hash routes), each
// control once before a select's other options. A link to a page the team
// has not explored (one a click revealed) is preferred to links already
// followed (sweep.linkNew). A value the browser's own
// validation stops is settled without a submission (blocked); a persona's
// own clicks and choices count as tried (credit). A form that answers with
// another form is walked to its end with valid values (flowStep,
// nextStep), a field-less review screen under the same address included,
// before a macro's queued visits. A failed step fails the target. A
// member that went back to a form for one of its tricks plays its tricks
// there before the screen's own controls (a button beside the form that
// leaves the page would spend the trip).
// Controls outside the main content count once per app and actions once
// per page template; a button every row repeats is played on a few more
// rows (again), and a list's last row at its end (lastRow; a list with a
// pager has its last page opened first, lastPage). Script-handled
// elements that show a text the mission typed are the mission's own
// records, one control (typedValues.ownRecords). A form
// that made a record is followed by visits to the pages that list it. The
// model rides in State.AppModel, is written to app_model.json, and its
// figures, untried targets and Mermaid state graph go to the reports.
//
// jscov.go collects the app's JavaScript coverage (each session's
// browser.Session.StartJSCoverage, taken after every action): an action
// after which new code ran credits its target (personas.Model.Credit), and
// Coverage.JS says how much of the app's script bytes ran (a page
// template's inline scripts counted once). Config.JSCoverage turns it
// on.
//
// # With a model
//
// Config.Models (ModelsFromFactory builds it from an llm.Factory: one
// provider, role tiers, a shared llm.Meter) drives three roles; a nil role
// stays offline.
//
//   - Supervisor: llm.Choose over the team's persona names and FINISH, i.e.
//     a forced "choose" function call, given a compact routing brief: the
//     mission, progress (steps of the budget, turns, bugs, pages), each
//     persona's role and idle streak, the bugs so far, the explored paths,
//     links seen but not explored, high-risk pages and the memory context
//     (memory.QA.SupervisorContext), and the latest turn summaries. The
//     budget still forces FINISH, and so does every persona coming back idle
//     twice. When the model fails (an answer outside the options twice, bad
//     arguments, a provider error), the rule policy routes that turn and
//     traces.log says why.
//   - Persona: each turn is an llm.Agent with the persona's system prompt
//     (personas.Persona.SystemPrompt: role, mission, focus, browser rules,
//     and the learned supplement from memory), the browser tools of
//     browser.Tools (execute_browser_command, get_dom_snapshot,
//     capture_screenshot) and memory's recall_past_findings and
//     record_observation, plus the tools of Config.MCPConfig's servers
//     ("<server>_<tool>", connected once per run) and, with Config.Skills,
//     skill_list, skill_show, skill_scripts and skill_run (extratools.go;
//     these are no browser steps, and their results are redacted like
//     the browser's). The browser tools keep browser.Tools' names and
//     schemas but run through the same act path as the offline personas, so
//     every action of the model is on the mission tape and its page-health
//     and collector findings become bugs; an action's result carries the
//     new page's snapshot and the bugs it recorded. Each browser tool call
//     is one step; at Config.TurnSteps the agent is stopped and its next
//     turn starts from the start URL, told to pick a different area. The
//     third identical action on the same page state is not run: the model
//     gets a "loop detected" message naming an unexplored page instead.
//     Tool errors (bad JSON, unknown actions or tools, another browser
//     user) go back to the model as text; a provider error fails the
//     mission (it is checkpointed, so --resume continues it).
//   - Reporter: test_report.md gets the model's analysis (given the
//     findings, their evidence and reproduction steps) above the factual
//     tables; when the model fails, the template report alone.
//
// Models' usage and cost (llm.Meter, priced by llm.DefaultPrices) are in
// each mission's summary.json and the batch's, per role. The
// internal/fakes/llmfake server speaks the OpenAI chat-completions wire format for
// tests of all of this with langchaingo's real client.
//
// Teams: StandardTeam (new_user, power_user, adversarial) and AdvancedTeam
// (accessibility, data_heavy, impatient, returning_user, explorer), picked
// per mission by RouteTeam's keywords or forced with Config.Team. A member
// is a personas.Persona (Persona is an alias): its name, role and focus
// make its prompt, its Prefer and Tricks its offline play. The tricks are
// personas' (personas.TrickPlayer, the same that personas.Run plays): a
// member plans them on a board over the team's coverage and the sweep
// (persona_tricks.go, teamBoard); the catalogue trick is the sweep's
// (formClass).
//
// # Oracles
//
// The browser engine reports page errors, console errors, HTTP ≥ 500,
// same-origin 404 navigations, error banners and stack traces. A collector
// (a reverse proxy in front of the app, which the browser is pointed at)
// adds what needs no model either: 5xx bodies and X-… response headers as
// evidence, responses slower than Config.SlowThreshold, one form accepted
// twice as two records, and, through axe-core and a small script injected
// into every page, executed XSS probes (XSSPayload), axe-core's serious and
// critical violations (each element once, the rule id in the message; the
// XSS probe's own rendered image is left to the XSS finding), clicks that
// change nothing, and identical table rows. axe-core is found the way
// collector.FindAxe finds it (`make setup` installs it; scripts/env.sh
// exports AGENTGRAPH_AXE_PATH); without it Run fails at set-up. It also
// serves ClearSiteDataPath for tapes of earlier versions; the team drops
// the session with browser.ActClearSiteData, a tape entry of its own that
// a spec replays as context.clearCookies() and cleared storage. Snapshots
// are read with personas.ParseElements.
//
// # Several users
//
// Config.Users (users.go) are accounts to explore as, each with a
// password or a Playwright storage-state file (ValidateUsers: unique
// names, credentials or a readable JSON state; ErrUsage otherwise). Before
// the missions, the set-up mission (signin.go) signs each user with a
// password and no state in once, in a context of its own: the start
// page's password field, else the one behind a link or button named like
// a sign-in, filled as the personas fill sign-in forms (signInMacro), and
// checked by the password field being gone; a user whose sign-in fails is
// a *SetupError naming it (a failed browser step, such as a click past its
// timeout, is first tried once more in a fresh context). Its storage state goes to
// <ReportDir>/.auth/<name>.json (0600) and seeds that user's contexts.
//
// With two or more users a mission opens one browser context per user (an
// engine each, seeded from the user's state) and assigns the team's
// members to the users round robin in team order; missionRun.use switches
// to a member's context before it acts, and browser.Entry.Account records
// the user on the tape. The cross-user oracle (crossuser.go) keeps the
// values each user typed (markers: free text ending in the number the
// explorer drew for it; no credential, markup or email), reads the page's text after every action, and reports
// FindCrossUser (critical) when a user's page shows a marker only another
// user typed; one cause per page template and pair of users. Pages that
// showed a user its own data are opened by the others at the start of
// their turns (probes, at most maxProbes each); their 404s are no broken
// links. Config.UsersShareData turns the oracle off. A leak's spec
// (crossUserRepro, browser.Reproduction.Actors) replays the owner's form
// steps in one browser context and the viewer's visit in another, asserting
// browser.NoText of the marker; the other bugs' specs replay their user's
// steps after its sign-in (bugEntries), or start from its configured
// storage state (AGENTGRAPH_STORAGE_STATE_<NAME>). The users' passwords and
// emails are secrets (${SECRET_n}); a spec's header names the variables.
//
// # Hostile targets and set-up errors
//
// Before anything starts, Run checks that the target is an http(s) origin
// that answers HTTP within Config.TargetTimeout; otherwise it returns a
// *SetupError (exit 2) naming the cause. During the run every browser call
// is bounded: a page whose scripts never yield is a "Page unresponsive" bug
// and is replaced by a fresh page (not visited again); redirects, meta
// refreshes, popups, frames and images that leave the app are refused by
// the browser's origin guard (failed steps, the other origin never
// reached); the collector rewrites the app's redirects to its own absolute
// URLs into paths. Cancelling ctx (SIGINT/SIGTERM in the program) stops the
// run within seconds: the missions' reports hold what was found, and
// ExitCode says ExitInterrupted (130).
//
// # Minimised reproductions
//
// Before the specs are written, each bug's reproduction is shortened by
// replaying parts of the tape up to it (its replayable entries) and keeping
// the shortest part that still shows the finding. Every replay starts from
// nothing: a fresh browser context (new browser.Engine and user), behind a
// fresh collector (the same oracles, no shared state), in front of a fresh
// app when Config.ReplayTarget gives one (the command gives one for the demo
// app), so a shortened spec cannot lean on records the mission made. Snapshot refs
// are rebuilt from the Playwright locators the engine recorded. A replay
// "shows the finding" when a finding of the same kind, page path and
// evidence appears, numbers (record ids, ports, timings) aside; a replay
// that fails a step or lands on another page than the recording did shows
// nothing (after a click or key press it first waits up to 3 s for a form
// submitted by script to leave the page). Failed steps are not replayed,
// but for the bug's own (a click that timed out on a slow page). Replays
// carry axe-core only when an accessibility finding is being looked for; a
// replay without it never answers for one.
//
// The search is package minimize's (its doc says how it picks and
// shortens candidates): replay.go gives it a replay function over the
// mission's browser and collector and turns its results into specs.
// Config.MinimizeWorkers replays run at once
// (DefaultMinimizeWorkers) in every phase; a candidate is picked when a
// worker is free, knowing what the replays before it learnt (a sign-in
// wall). Config.MinimizeReplays bounds the replays per bug
// (DefaultMinimizeReplays; negative turns minimisation off) and
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
// Bugs go to memory.QA (one catalog per app origin, Config.MemoryOrigin or
// the target's; the command files the demo app under one name whatever its
// port), deduplicated by fingerprint with
// a seen count; a bug already in the catalog is not New, which is what
// FailOnNew counts. Config.Regression turns the open bugs into one mission
// per page (memory.QA.RegressionMissions).
//
// # Scale-out
//
// Config.DB may be a postgres:// URL (checkpoint/postgres and memory/postgres
// on one pool, so shards share bug memory), Config.Shard runs one shard's
// missions (mission.ShardOf: FNV-1a of the thread id mod n), and
// Config.BrowserWS drives a browser a Playwright browser server launched
// (browser.LaunchOptions.Endpoint; the collector stays on this machine's
// loopback, which the connection exposes to that browser).
// report.MergeReports joins the shards' report directories, one bug per
// fingerprint.
//
// # Retries and resume
//
// A mission whose graph run fails on a transient model error
// (llm.TransientError: a *llm.CallError marked transient, i.e. 429, 5xx,
// "overloaded" or a timeout after the call's own retries) is continued from
// its last checkpoint on the same graph thread (graph.Continue) after a
// backoff (Config.RetryBackoff, doubled with jitter), up to
// Config.MissionRetries times (--mission-retries, default 2); any other
// error fails it at once. MissionResult.Retries counts the continuations.
// Before continuing, the Go-side mission state is set back to the
// checkpoint's (steps, bug numbering); the steps the failed attempt took
// after that checkpoint stay on the tape, whose numbering goes on, and bugs
// it gave to memory are not recorded twice: they are put back into the
// graph state (reconcile, graph.UpdateState) before the mission goes on.
//
// Config.Resume (--resume THREAD) continues a killed mission: the graph
// thread is read from <ReportDir>/<thread>/.graph_thread, the tape goes on
// after its last entry, and the browser gets back the cookies and storage
// saved after every step (.browser_state.json, with Config.DB), so a
// signed-in mission stays signed in when the app kept its sessions. The
// app model (State.AppModel) and the team's progress (State.Progress: the
// frontier, pages visited, forms, tried tricks) come back from the
// checkpoint, with the marks that tell a record the team deleted from a
// broken link (a 404 on a page seen before the team's delete is the
// team's doing); the bugs found after it come back from the mission's bug
// journal (.bug_journal.jsonl), with the ids and "new" marks they were
// found with; what the killed run typed comes back from the tape
// (resume.go).
//
// # Work-arounds
//
// In-page reports travel as console messages, so that no request of the
// explorer's own outlives a page.
//
// # Observers and goal templates
//
// Config.Observer (package examples/explorer/observe) receives the run's
// events: goal start and completion, every step (the progress line on
// Config.Progress is an observe.Console rendering them), a model persona's
// step starts, tool calls and results, turn summaries and turn step limits,
// and every bug found. Goal templates (package mission) build missions
// from parameters.
//
// Model personas also get browser.VisionTools: capture_bug_screenshot
// (saved under the mission's screenshots/bugs) and analyze_visual_state,
// answered by Models.Vision, else the persona model.
//
// # Embedding
//
// A Go program or test harness runs missions with Run and a Config of
// typed fields, and injects what it owns: Config.Browser (a shared
// Chromium, left open), Config.Checkpointer and Config.Store (instead of
// Config.DB's, left open; with a Checkpointer a mission keeps its browser
// state for Resume), Config.Models, Config.Observer. It brings its own team
// and tools without touching this package (embed.go): Config.Personas, when
// set, is every mission's team instead of a built-in one (teamOf; the
// reports name it "custom: " and its members), each member played like
// the built-ins, by its Prefer and Tricks offline and by its prompt with
// a model; a persona that fails personas.Persona.Validate, has a graph
// node's name (supervisor, summarizer) or another member's is an ErrUsage
// error naming it. Config.Tools join the model personas' extra tools
// after the skills' and before the MCP servers' (a clash either way, a
// built-in's name or one no provider accepts is ErrUsage), bounded by
// Config.ToolTimeout, redacted and observed like them (tool_call and
// tool_result events, "tool" lines in traces.log), and named in the
// persona's task. A tool gets no handle on the page: it answers the
// model with text, and the model acts through execute_browser_command,
// so every browser action stays on the tape, under the oracles and in
// the specs. examples/embed runs both from outside.
package explore

// Package personas is the QA team: who tests the app, what each member
// looks for, how their prompts read, and how each acts offline, without a
// model, through the browser engine.
//
// # Personas
//
// A [Persona] has a name, a role, a focus list, routing keywords and an
// offline [Strategy]. [Persona.SystemPrompt] builds the system prompt for a
// model-driven agent: role, application context, mission, focus, browser
// rules and the learned supplement (take it from memory.QA.Supplement and
// pass it in [PromptInput]; this package does not import memory).
//
// The eight built-ins ([Builtins]):
//
//   - new_user: discovery, defaults, onboarding (clicks the obvious next step)
//   - power_user: keyboard, select-all and bulk actions, filters, sorting
//   - adversarial: XSS probes that log [XSSMarker] when they run, SQL and
//     template injection, over-long, unicode, negative and boundary values,
//     empty submits, rapid clicks
//   - accessibility: keyboard-only paths (Tab, Shift+Tab, Enter, Escape),
//     axe-core on every page and a focus-visibility check on every focus
//     move (both through a [Probe])
//   - data_heavy: pagination to the end, large inputs, many records
//   - impatient: double submits, reload and back right after a submit
//   - returning_user: browses, clears cookies and storage (through a
//     [Probe]'s [ClearSiteDataPath]), reopens remembered pages directly,
//     reloads, walks back through history
//   - explorer: coverage-guided; it hashes every snapshot ([StateHash]) and
//     prefers actions that lead to unseen states, then the shortest known
//     path to a state that still has some
//
// A [Strategy] sees a [Step]: the snapshot, its parsed [Element]s, the recent
// tape and a seeded *rand.Rand, and returns the next browser.Intent. The
// same seed against the same app gives the same run.
//
// # Running a persona
//
// [Run] drives a strategy against a browser user (a *browser.Session) for
// a number of steps. After each action it takes a snapshot and applies the
// [Oracle]s; it returns a [Report] with the findings and the run's tape.
// The explorer program composes it into its graph; it is usable on its own.
//
// The built-in oracles ([DefaultOracles]) need no model: the browser's
// health findings (page errors, console errors, HTTP ≥ 500, same-origin
// 404s, error banners, stack traces, failed requests, stuck spinners), an
// executed XSS probe, axe-core serious and critical violations, slow
// responses and controls that do nothing. Each [Finding] carries a kind, the
// page, evidence, the tape index and engine sequence number of the action,
// and a screenshot path; its fields map onto memory.BugReport.
//
// # The probe
//
// The browser engine runs only validated intents, so page instrumentation
// sits in the network path instead: [Probe] is a reverse proxy in front of
// the app. Point the engine's allowed origin at the probe. It injects
// axe-core (4.x, from npm, found at [AxeRelPath] above the working
// directory or via $AGENTGRAPH_AXE_PATH; `make setup` installs it) and a
// recorder that runs axe after each load and DOM change and reports keyboard
// focus landing on invisible elements ([FocusInvisibleRule]); it times every
// request and serves [ClearSiteDataPath]:
//
//	probe, err := personas.NewProbe("http://127.0.0.1:8080", personas.ProbeOptions{})
//	front := httptest.NewServer(probe) // or http.ListenAndServe(":9090", probe)
//	eng, err := b.NewEngine(browser.Config{Origins: []string{front.URL}})
//	user, err := eng.User(ctx, "a11y")
//	p, err := personas.NewRegistry().Get(personas.Accessibility)
//	rep, err := personas.Run(ctx, user, p, personas.RunOptions{
//		Start: front.URL + "/", Steps: 20, Seed: 1, Probe: probe,
//		Window: eng.Window(), ScreenshotDir: "artifacts"})
//
// Without a probe everything else works; the accessibility oracle has
// nothing to report, slow responses are judged by action durations instead
// of request timings, a dead control is judged by the page alone, and the
// returning user cannot clear site data.
//
// # Teams
//
// A [Registry] holds the built-ins and custom personas, the standard team
// (new_user, power_user, adversarial) and the advanced team
// (accessibility, data_heavy, impatient, returning_user, explorer).
// [Registry.Route] picks a team for a mission prompt by the members'
// keywords; an override (a team, or persona names) wins.
package personas

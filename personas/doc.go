// Package personas is the QA team: who tests the app, what each member
// looks for, how their prompts read, and how each acts offline, without a
// model, through the browser engine.
//
// # Personas
//
// A [Persona] has a name, a role, a focus list, routing keywords and its
// offline behaviour: its lean over the app model's targets
// ([Persona.Prefer]; [Persona.Preference] adds the catalogue's order of
// input classes, [ClassBias]) and its [Trick]s, the sequences it plays on
// a page (click every button, a valid form, XSS probes, a double submit,
// a dropped session…). A custom persona may add a [Strategy] of its own
// (NewStrategy). [Persona.SystemPrompt] builds the system prompt for a
// model-driven agent: role, application context, mission, focus, browser
// rules and the learned supplement (take it from memory.QA.Supplement and
// pass it in [PromptInput]; this package does not import memory).
//
// # One persona model
//
// A persona is played the same way wherever it runs offline. Its tricks
// are implemented once, here: a [TrickPlayer] plans a trick's macro
// ([TrickPlayer.Plan], a list of [Move]s) from the page and a [Board],
// the run's side of it (valid values, the pages seen, the sign-in page,
// what the run's app model already played). The explorer's team
// (examples/explorer) plays each member's tricks with a board over its
// shared model and coverage; [Run] plays them with a board of its own,
// through [Persona.Strategy]: the persona's own strategy if it has one,
// then its tricks in order, then the app model ([ModelStrategy]) by its
// preference. The input catalogue ([TrickCatalogue]) is the app model's
// classes: the explorer's coverage sweep plays it, and in Run the model
// strategy's fill targets are the catalogue. The form helpers the tricks
// read a page with ([SubmitAfter], [SendsForm], [FormFields], [InForm],
// [RecordForm], [QueryForm], [PageButtons]…) are the explorer's too.
//
// The eight built-ins ([Builtins]), each a lean and a list of tricks:
//
//   - new_user: every button once (dead controls), valid forms; leans to clicks
//   - power_user: pagination, every option of a select, select all and the
//     bulk action; leans to selects, checkboxes and keys
//   - adversarial: XSS probes (collector.XSSMarker logs when one runs), a
//     double submit, the input catalogue, over-long and awkward text, a
//     dropped session; leans to the catalogue's invalid classes
//   - accessibility: Tab through every page, every button; axe-core on
//     every page and a focus-visibility check on every focus move (both
//     need the page-health collector, [RunOptions].Collector)
//   - data_heavy: pagination to the end, long and awkward text, selects
//   - impatient: double submits on a slow network ([Step].Hold), valid
//     forms; leans to double clicks
//   - returning_user: drops the session (cookies and storage,
//     browser.ActClearSiteData) once it has seen a few pages, clicks a
//     stale page's buttons, reopens the pages it saw (the start page last),
//     signs in again; XSS probes
//   - explorer: coverage-guided; the app model alone: untried targets of
//     new and fruitful states first, by the known way to a state that
//     still has some, clicks before typing
//
// A [Strategy] sees a [Step]: the snapshot, its parsed [Element]s, the recent
// tape and a seeded *rand.Rand, and returns the next browser.Intent; one
// that has nothing of its own on a page returns [ErrPass] and the
// persona's tricks and the model go on. The same seed against the same
// app gives the same run.
//
// [ModelStrategy] is the strategy over the app model (below) that any
// persona can play: it observes every page into a [Model] of its own,
// records where each target led, and goes for the best untried target by
// the persona's preference, typing one field's input class with the
// other empty fields valid and submitting by the page's own button (or
// Enter). A custom persona needs neither a strategy nor tricks of its own:
//
//	reg.Register(personas.Persona{Name: "filters", Role: "a user who lives in the filters",
//		Prefer: func(t personas.Target) float64 {
//			if t.Action.Kind == personas.ActionSelect { return 2 }
//			return 0
//		}})
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
// # The collector
//
// The browser engine runs only validated intents, so page instrumentation
// sits in the network path instead: the page-health collector
// (browser/collector) is a reverse proxy in front of the app, the same one
// the explorer and its gremlins comparison browse through. Point the
// engine's allowed origin at the collector and pass it as
// [RunOptions].Collector. It injects axe-core (4.x, from npm, found at
// collector.AxeRelPath above the working directory or via
// $AGENTGRAPH_AXE_PATH; `make setup` installs it) and a recorder into
// every page. After each action the driver asks the page, at most
// [RunOptions].AuditTimeout, to finish its accessibility scan and takes
// the violations it found (collector.Collector.Violations: axe-core's
// serious and critical ones, and keyboard focus landing on an invisible
// element, collector.FocusInvisibleRule), and takes the requests the
// collector relayed meanwhile (Mark and RequestsSince). The recorder's
// report of a payload that ran is the xss oracle's. The collector also
// serves collector.ClearSiteDataPath:
//
//	col, err := collector.New("http://127.0.0.1:8080", 0, slog.Default())
//	front := httptest.NewServer(col) // or http.ListenAndServe(":9090", col)
//	eng, err := b.NewEngine(browser.Config{Origins: []string{front.URL}})
//	user, err := eng.User(ctx, "a11y")
//	p, err := personas.NewRegistry().Get(personas.Accessibility)
//	rep, err := personas.Run(ctx, user, p, personas.RunOptions{
//		Start: front.URL + "/", Steps: 20, Seed: 1, Collector: col,
//		Window: eng.Window(), ScreenshotDir: "artifacts"})
//
// [Collector] is the small interface Run needs; *collector.Collector is
// one. The accessibility violations are read from the page, so the page
// given to Run must also have an Evaluate method (*browser.Session has).
// Without a collector everything else works; the accessibility oracle has
// nothing to report, slow responses are judged by action durations instead
// of request timings, and a dead control is judged by the page alone.
//
// # The app model and the input catalogue
//
// The coverage-guided explorer keeps a [Model] of the app: abstract
// states, the actions of each state with their input classes as coverage
// targets, the transitions seen between states and the entry URLs. It is
// plain data with exported fields, so it lives in a graph's state and in
// checkpoints, and --resume carries it on.
//
// A state is a URL template ([URLTemplate]: ids in the path become {id},
// query values are dropped, hash routes are kept) plus the structure of
// the interactive content: the roles and normalised names of the controls
// (digits as '#'), not their values, flags or counts. Repeated controls are
// one control, links into records stand for their URL template, and the
// names of those links count as data inside other names ("Delete Alpha"
// next to the link "Alpha" is "Delete {}"), so the same screen with other
// data is one state while an open dialog or a revealed panel, which bring
// other controls, is another. Data in names that no record link shows
// still makes states; the limits bound that.
//
//	m := personas.NewModel(personas.Limits{})
//	els := personas.ParseElements(snap)
//	here := m.Observe(snap.URL, els)
//	t, path, ok := m.Next(here, prefer) // path: the steps to t.State; a NavigateKey step opens a URL
//	// … walk path (ParseActionKey, Locate, Action.Intents), then:
//	in, _ := m.Input(t)                  // the value of a fill, select or check
//	el, _ := personas.Locate(t.Action, els)
//	intents := t.Action.Intents(el, in)  // the other fields of its form get ValidValue
//	// … run them, snapshot, then
//	m.Transition(here, t.Key(), m.Observe(after.URL, afterEls), newEndpoints)
//	// or m.Fail(here, t.Key()) when the action could not be done
//
// [Model.Observe] derives each control's actions from its role and flags:
// click (and dblclick for buttons), hover for menus and expandable
// controls, fill per input class and Enter for text fields, select per
// option of a native select, check and uncheck for checkboxes, check for
// a radio, Home/End and arrows for sliders, and Escape on every page. A
// widget of the page's own making is clicked: a combobox with no options
// in the snapshot (the click opens its list), and each option that has a
// ref of its own (a role=listbox list; [ParseElements] folds only a
// native select's ref-less options into their select). Each action with its
// class is a [Target]. [Model.Next] picks the best untried target in the
// current state, else at the nearest state by known transitions or entry
// URLs; its score favours states nothing was tried in yet, states and
// controls whose actions led to new states or new endpoints, and moving
// and valid inputs before hostile and bulky ones; a persona adds its own
// preference through the prefer hook (−Inf skips a target);
// [Model.Score] is the model's part of it. [Model.Fail] marks a target that could not be done and forgets the
// transition. [Model.Exhausted] is true when every target of every state
// reachable from an entry is tried or failed. [Model.Stats],
// [Model.Untried] and [Model.Mermaid] report the coverage. [Limits] cap
// states, controls, targets, options, transitions and entries; what they
// leave out is counted in [Truncated].
//
// The input catalogue ([Catalogue]) gives, for a [Field] (derived from an
// [Element] and, when the snapshot has them, its DOM attributes by
// [FieldOf]), the classes that apply with concrete values: valid, empty,
// whitespace only, padded, malformed, boundaries (min−1, min, max, max+1
// of values or lengths, zero, −1, huge, a decimal in an integer field, an
// impossible date), quotes and SQL metacharacters, an XSS probe in the
// collector.XSSMarker convention with a token per field, 256, 1001 and
// 10001 characters, text outside Latin-1, emoji, right-to-left text, every
// option of a select, a radio, a checkbox on and off. Every [Input] says
// whether the app should accept it (Valid) or may do either (Lenient), so
// an oracle can tell a right refusal from a bug. [ValidValue] is the
// plausible value for the other fields of a form while one field gets a
// hostile class; it follows the kind, the label's general words (email,
// phone, name, quantity, price, date…), min/max/step, lengths and the
// pattern.
//
// # Teams
//
// A [Registry] holds the built-ins and custom personas, the standard team
// (new_user, power_user, adversarial) and the advanced team
// (accessibility, data_heavy, impatient, returning_user, explorer).
// [Registry.Route] picks a team for a mission prompt by the members'
// keywords; an override (a team, or persona names) wins.
package personas

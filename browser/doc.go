// Package browser gives agents hands in a real Chromium without touching
// Playwright: they emit JSON intents that are validated, executed, recorded
// on an append-only action tape and translated into Playwright Test specs.
//
// # Pieces
//
//   - Launch starts Chromium (Debian's /usr/bin/chromium, or
//     AGENTGRAPH_CHROMIUM) through github.com/mxschmitt/playwright-go. The
//     Playwright driver is found via PLAYWRIGHT_CLI_PATH /
//     PLAYWRIGHT_NODEJS_PATH or, when unset, by walking up from the working
//     directory to .tools/node/node_modules/playwright-core/cli.js (what
//     `make setup` installs). A missing piece is an error wrapping ErrSetup
//     that names the fix.
//   - Browser.NewEngine scopes the browser to an app: the allowed origins,
//     viewport, storage state, dialog policy, timeouts, snapshot budget and
//     tape. Engine.User returns one isolated browser context per user;
//     switching users is a map lookup. Each context's requests all pass an
//     origin guard (guard.go: a loopback proxy of the context), so no
//     redirect, meta refresh, popup, frame or image reaches another origin
//     (Config.SubresourceOrigins allow-lists sub-resources); a refused
//     document fails the action, a refused frame or sub-resource is a
//     finding.
//   - No call hangs (bounded.go): every Playwright call, page script and
//     navigation has a deadline and honours the caller's context; a page
//     whose scripts stop yielding is a FindUnresponsive finding and is
//     replaced by a fresh page in the same context (ErrUnresponsive).
//     Dialog and popup storms are capped.
//   - Secrets (secret.go): values typed into password fields or
//     Config.SecretFields are recorded as ${SECRET_n} everywhere (tape,
//     results, specs, which read process.env); Session.fillValue is the
//     one place an action that types into a field gets the value to type
//     and the value to record.
//   - ParseIntent validates an Intent (action and parameters) before it
//     runs; ParseTarget applies the selector policy (refs, test ids, role and
//     name, labels, text, plain ids; no XPath or positional CSS). Besides
//     navigation, click, fill, select_option, hover, waits and reads, the
//     actions cover dblclick, focus, check/uncheck, press on an element
//     (key names checked), drag (target → to), set_input_files (a small
//     generated file from file_name, file_content and mime_type; never a
//     file of the host) and fill_form (up to 50 fields in one action, in
//     order, each a fill, a select or a check; it stops at the first field
//     that fails, names it, and leaves the fields before it done; the
//     Result and the Entry list each done field's locator in Locators,
//     and a spec replays one line per field).
//   - Session.Do/Run executes an intent, waits for the page to settle
//     (bounded), collects page-health Findings (page errors, console errors,
//     failed requests, HTTP ≥ 500, same-origin 404 navigations, visible error
//     banners and stack traces, spinners that never settle, dialogs) and
//     appends an Entry to the Tape and the in-memory Window. What a page
//     does as seen from outside it (the network, axe-core, an in-page
//     recorder) is the page-health collector's, package browser/collector.
//     Session.AwaitCalm waits (bounded) for what a click may still do:
//     until the page has no fetch or XMLHttpRequest in flight and no timer
//     callback of its own due within the wait.
//   - A snapshot is Playwright's AI-mode aria snapshot ([ref=eN] on every
//     interactable element, f1eN inside iframes; open shadow roots
//     included), compacted and capped, plus controls shown only on hover or
//     focus ([ref=hN]: the engine hovers their row, or focuses the field a
//     :focus-within rule depends on, first), elements actionable by script
//     alone ([ref=xN]: listeners noted by an init script, on… handlers,
//     contenteditable; in the page, open shadow roots and same-origin
//     iframes; see actionable.go for why an init script rather than CDP)
//     and a DOM-walk fallback ([ref=dN]). Each line says the element's kind
//     and state; fields also say their input type (type=email, file input)
//     and controls in a shadow root say so. Refs are recorded on the tape as the locator Playwright
//     itself generates (getByTestId, getByRole…, contentFrame() for frames).
//   - A tape is data: ParseLocator reads a recorded locator into a
//     LocatorExpr (only the forms the engine writes) and Translate renders
//     it again with escaped arguments, never pasting tape text into code.
//     ReadTape validates each entry (Entry.Validate) and reports a bad one
//     with its line number (TapeReport.Invalid, *EntryError); Translate
//     refuses one too.
//   - Translate turns entries into a .spec.ts for @playwright/test; a bug
//     reproduction asserts the correct behaviour under test.fail(), so it
//     passes while the bug is there and fails once it is fixed. What it
//     asserts is Reproduction.Checks, typed values rendered after the
//     replay: NoPageError and NoConsoleError (optionally only messages
//     containing a text), NoServerError and NoNotFound (optionally one URL
//     path; 404s only for same-origin navigations), NoErrorBanner and
//     NoStackTrace (optionally containing a text), NoServerError may also
//     name the method, NoScriptRun (an init
//     script defines the marker an XSS probe calls; it must never run, or
//     with Within never from inside an element matching a selector),
//     NoA11yViolation (axe-core, from AGENTGRAPH_AXE_PATH or
//     require.resolve('axe-core'), finds no serious or critical violation
//     of a rule on an element matching a CSS selector), FastResponse
//     (requests for a path finish within a duration; with Fetch the spec
//     also GETs the path itself), ClickChanges (the
//     spec clicks the control and expects the URL, text, elements or an
//     open dialog to change, or a request to go out), NoDuplicateRows (no
//     two identical body rows in a table) and NoDuplicatePost (two accepted
//     POSTs of the same form, tokens aside, answer the same redirect).
//     Without Checks a bug asserts DefaultChecks: no page error, no 5xx, no
//     error banner. Reproduction.SlowPosts holds POST answers (page.route)
//     to replay a double submit; SpecOptions.ClearSiteData turns a
//     recorder's clear-site-data navigation into clearing cookies and
//     storage. Recorded navigations replay through a visit() helper: a
//     navigation that becomes a download is done, one cut short by the
//     page's own navigation is retried; a click or key press after which
//     the recording was on another page waits until the replay has left
//     the page too (leaving()). Every string from a page reaches
//     the TypeScript as an escaped string literal.
//   - Tools exposes it all as tools.Tool values: execute_browser_command,
//     get_dom_snapshot, capture_screenshot, generate_reproduction_spec.
//   - VisionTools adds capture_bug_screenshot (a named PNG and its JSON
//     record in <ArtifactDir>/bugs, SaveBugShot) and, given a VisionFunc
//     (llm.VisionFunc(model)), analyze_visual_state: a screenshot of the
//     viewport, the whole page or one element (Session.CaptureImage) and a
//     question go to a vision model (Session.AnalyzeVisual). Neither is an
//     action on the tape.
//   - Harness hooks, not agent actions: Config.InitScripts run in every
//     document of every user context before the page's own scripts
//     (instrumentation, or a monkey tester such as gremlins.js), and
//     Session.Evaluate runs JavaScript in the page and returns its result,
//     with ErrPageGone when a navigation destroyed the document. Neither is
//     recorded on the tape; findings stay pending for the next Do.
//   - JavaScript coverage (jscoverage.go, Chromium only):
//     Session.StartJSCoverage opens a CDP session on the page and starts
//     V8's block coverage; TakeJSCoverage reports, per script URL (a
//     document's inline scripts as its URL + "#inline"), the source size
//     and how much of it ran, accumulated over takes, so a document the
//     page left counts as of the last merge before it left (Do merges
//     before every action that may leave the page); scripts without an http(s) URL (the
//     engine's own evaluations) and JSCoverageOptions.ExcludePaths are left
//     out. StopJSCoverage ends it.
package browser

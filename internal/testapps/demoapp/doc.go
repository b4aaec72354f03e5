// Package demoapp is a small, realistic web app with seeded bugs: the
// default target of the QA explorer and a fixture for tests.
//
// "Acme Projects" is served by net/http with server-rendered HTML and a
// little vanilla JavaScript, all embedded (no external assets). It has a
// sign-in page (the demo account, [DemoEmail] / [DemoPassword], is shown on
// it), a dashboard, a projects list with filter, sort and pagination,
// create and edit forms, a delete confirmation modal (<dialog>), search,
// settings, a slow reports page and a three-step checkout wizard
// ("Upgrade plan"). Interactive elements have accessible names and
// data-testid attributes, except where a seeded accessibility bug removes
// the name.
//
// An [App] is an [http.Handler] with its own state (deterministic fixtures,
// sequential ids, no globals), so parallel tests can each run one under
// net/http/httptest:
//
//	app, err := demoapp.New(demoapp.Options{})
//	srv := httptest.NewServer(app)
//
// # Seeded bugs
//
// Every bug is on by default. Options.Disabled turns bugs off one by one;
// [OptionsFromEnv] reads DEMOAPP_FIXED (a comma-separated list of ids, or
// "all"), DEMOAPP_SLOW_DELAY and DEMOAPP_SESSION_TTL. [Bugs] returns the
// catalogue with, for each bug, its class, page, trigger and where its id
// shows.
//
// Each id appears in the bug's evidence, so a finding can be matched to a
// seeded bug from the evidence alone: in the JS error or console message, in
// the 5xx body, in the 404 path, in the banner text. Server-side firings
// also set the response header X-Demoapp-Bug ([BugHeader]) and log a Warn
// record with attribute "bug" to Options.Logger; [App.Triggered] lists them.
// Bugs whose evidence is an absence carry the id in a data-bug attribute
// ([BugAttr]) on the offending element. With a bug off, its id appears
// nowhere.
//
//	| id                      | class           | how to reach it                                          | where the id shows                                             |
//	|-------------------------|-----------------|----------------------------------------------------------|----------------------------------------------------------------|
//	| BUG-PAGEERR-WIZARD      | page-error      | sign in → Upgrade plan → plan → billing → step 3 loads   | uncaught Error "BUG-PAGEERR-WIZARD: order summary is …"        |
//	| BUG-CONSOLE-SETTINGS    | console-error   | sign in → Settings                                       | console.error "BUG-CONSOLE-SETTINGS: failed to load …"          |
//	| BUG-CONSOLE-LIST-PAGE2  | console-error   | sign in → Projects → Next (page 2 or later)              | console.error "BUG-CONSOLE-LIST-PAGE2: cannot hydrate row …"    |
//	| BUG-5XX-SORT            | http-5xx        | sign in → Projects → Sort: Budget → Apply                | 500 body; header X-Demoapp-Bug                                 |
//	| BUG-404-RELEASE-NOTES   | broken-link     | sign in → Dashboard → "What's new"                       | 404 path /release-notes/BUG-404-RELEASE-NOTES; header          |
//	| BUG-BANNER-EXPORT       | error-banner    | sign in → Projects → Export CSV                          | role=alert banner text with a stack trace; header              |
//	| BUG-XSS-SEARCH          | xss             | sign in → Search → query with markup                     | payload runs in <p data-bug="BUG-XSS-SEARCH">; header          |
//	| BUG-XSS-PROJECT-NAME    | xss             | sign in → New project named with markup → open it        | payload runs in <h1 data-bug="BUG-XSS-PROJECT-NAME">; header   |
//	| BUG-LONG-NAME           | long-input      | sign in → New project (or Edit) → name > 100 chars       | 500 page "BUG-LONG-NAME: value too long for column name"; header |
//	| BUG-A11Y-ICON-BUTTON    | a11y            | sign in → Projects (axe button-name, critical)           | data-bug on <button data-testid="refresh-list">                |
//	| BUG-A11Y-SETTINGS-LABEL | a11y            | sign in → Settings (axe label, critical)                 | data-bug on <input data-testid="settings-timezone">            |
//	| BUG-DOUBLE-SUBMIT       | double-submit   | sign in → New project → click Create twice quickly       | duplicate row in /projects has data-bug; header; server log    |
//	| BUG-SESSION-EXPIRED     | expired-session | sign in → clear cookies (or wait SessionTTL) → reload    | raw 500 text/plain body; header                                |
//	| BUG-SLOW-REPORTS        | slow-page       | sign in → Reports (3.5 s by default)                     | header; data-bug on <table data-testid="report-table">         |
//	| BUG-DEAD-SAVE-DRAFT     | dead-control    | sign in → Upgrade plan → plan → step 2 → Save draft      | data-bug on <button data-testid="save-draft">                  |
//
// With a bug off, the app behaves as fixed: the list sorts by budget, the
// link goes to /release-notes, export downloads a CSV, input is escaped, an
// over-long name gets a validation message (and the field a maxlength), the
// icon button and field have names, the create form submits once (client
// guard plus a server-side form token), a missing session redirects to
// /signin?next=…, reports answer at once and Save draft saves.
//
// # Serving and matching
//
// [Listen] serves an App on loopback for a browser or the explorer (an
// empty address picks a free port) and [Server.Close] stops it; the command
// in cmd/demoapp does the same from the shell. [FindIDs] extracts the
// seeded ids from any evidence text (error message, console line, body,
// header, URL, HTML), which is how an explorer's findings are matched to
// the seeded bugs.
//
// # Tests
//
// The package tests drive every bug with only that bug on (it must fire)
// and only that bug off (it must not) over net/http/httptest; crawl the
// fixed app (no 4xx/5xx link, no bug id anywhere); fuzz the list's query
// string and every route's query and form body (no unseeded 5xx). A
// Chromium check (playwright-go, with the set-up of scripts/env.sh) proves
// the browser-side evidence of all fifteen bugs and that the fixed app has
// no JS error, no console error and no serious or critical axe-core
// violation; without that set-up it is skipped with the reason.
//
// The app never panics on bad input: unknown filter, sort or page values get
// a 400 page, and a recovered handler panic becomes a plain 500 (the fuzz
// tests check that no input reaches it).
package demoapp

// Package bugfarm generates small web apps the QA explorer has never seen,
// with bugs injected at known places, so that the explorer can be scored
// on apps nobody fitted it to (the idea of LAVA and Magma for fuzzers).
//
//	app := bugfarm.Generate(7, bugfarm.Options{})          // every bug on
//	fixed := bugfarm.Generate(7, bugfarm.Options{Fixed: true}) // the correct app
//	srv := httptest.NewServer(app)
//
// # What the apps look like
//
// Each seed draws, from a PCG seeded with it (math/rand/v2), a domain
// theme (books, stock items, clinic appointments, events, recipes, tickets,
// vehicles, courses, plants, trips: the theme rotates with the seed), the
// product's name, the collection's path, a palette colour, 4 to 6 record
// fields (text, textarea, email, number with bounds, date, url, tel,
// select or radio, checkbox, and a file on some seeds), and its idioms
// ([App.Idioms]): top navigation or a sidebar, cards on the home page, a
// "More" dropdown, links that only appear after "Show more", pagination, a
// settings page of controls outside any form (a select that switches a
// view, toggles, a radio group, type=button buttons that fetch(), some
// with an input or an icon only), div/span role=button and a href="#"
// handlers, an ARIA combobox with a custom listbox, a <dialog>, actions
// revealed on hover or focus, a web component with an open shadow root, a
// same-origin iframe, double-click-to-edit, Enter/Escape-only inputs, a
// history.pushState view switcher, "#/" hash views, a three-step creation
// wizard, a create form posted through fetch(), and a sign-in with a
// session cookie. Every app has a home page,
// a list (filter, export), a create form, a record page and an edit form;
// optional pages are search, settings, reports, help, a workspace, a board
// and a planner: 8 to 15 pages in all ([App.Pages]).
//
// The DOM ids of the fixed controls (submit and wizard buttons, export,
// history, field prefix, filter, search, sign-in) are drawn per seed too,
// so apps share no selector vocabulary; triggers use the app's own.
//
// Records live in memory (sequential ids, a mutex) so input typed on one
// page shows on the others; each App has its own. Pages are rendered with
// html/template and everything is embedded: no request leaves the origin.
// The same seed and options give the same bytes (no time, no map order in
// the output). Client-side validation is the browser's (required, min,
// max, maxlength, type); the server validates every field again and
// re-renders the form with messages such as "Quantity must be between 1
// and 500." (status 200, no bug id); the browser's own messages are shown
// under the fields too. The sign-in page says nothing about
// credentials: [App.SignIn] holds them for the harness.
//
// # Bugs
//
// An app has 10 to 20 bugs, ids "bf<seed>-<nn>" ([FindIDs] extracts
// them). Every class that has a place in the app is placed first, the
// rest are drawn; server_error bugs take distinct input classes. Over
// seeds 1 to 20 every class occurs in several apps and server_error covers
// every input class (see TestBugCatalogue for the figures).
//
//	| class               | where it goes                                   | where the id shows                                   |
//	|---------------------|-------------------------------------------------|------------------------------------------------------|
//	| page_error          | a select option, toggle, radio, button, combobox | uncaught error message ("TypeError: … [bf7-03]")    |
//	|                     | option, Enter key, shadow/iframe button, route   |                                                      |
//	| console_error       | the same widgets, or a page load                 | console.error text                                   |
//	| unhandled_rejection | a toggle, select, fetch button, route, page load | the rejection's message (a pageerror in Chromium)    |
//	| server_error        | a create/edit field, a fetch button's input, the | 500 text/plain body; header X-Bugfarm-Bug            |
//	|                     | search (quote); Bug.Input names the input class  |                                                      |
//	| stored_xss          | a text field shown raw on the record page, the   | data-bug on the payload's parent element             |
//	|                     | list or the home page                            |                                                      |
//	| reflected_xss       | the list filter or the search echo               | data-bug on the echo paragraph                       |
//	| broken_link         | a "Related" link                                 | the 404's path (<page>/archive/<id>); header         |
//	| slow_response       | a page (the record page: record 1 only) or a     | header X-Bugfarm-Bug; data-bug on <main> for pages   |
//	|                     | fetch button's request (Options.SlowDelay)       |                                                      |
//	| dead_control        | a fetch button, role=button, dialog confirm,     | data-bug on the control                              |
//	|                     | hover-revealed action                            |                                                      |
//	| double_submit       | the fetch()-posted create form (dblclick on its  | data-bug on the duplicate row, or a 500 body; header |
//	|                     | submit sends two requests with one form token)   |                                                      |
//	| session_loss        | a page of a sign-in app, once cookies are gone,  | 500 body; header (page), or the thrown error's       |
//	|                     | or a fetch button clicked then                   | message (button)                                     |
//	| error_banner        | the list's export, or a fetch button             | role=alert banner text with a stack trace; header    |
//	| a11y                | a select, toggle, input or icon button without a | data-bug on the element (axe select-name, label,     |
//	|                     | name, the logo link, the home illustration       | button-name, link-name, image-alt)                   |
//	| deep_error          | "Show history" of a record created in the app,   | uncaught error message                               |
//	|                     | or the wizard's review step (Depth >= 3)         |                                                      |
//
// Messages read like real failures ("pq: syntax error at or near …",
// "ZeroDivisionError: …", "java.lang.IllegalStateException … at …"), with
// the id at the end in brackets.
//
// # Triggers and expectations
//
// Every [Bug] carries a Trigger, Steps a driver plays in a fresh browser
// context (goto first; sign-in steps first when the app has a sign-in;
// Playwright selectors, which pierce open shadow roots; Frame names the
// iframe), and an [Expect]: the Signal in which the id must show (page
// error, console, a response with Status, a slow response, the XSS hook
// window.__bfxss called inside an element holding the id, an axe-core
// Rule on an element holding the id, an element matching Selector holding
// the id, or a Selector whose click changes nothing). XSS payloads are
// <img src=x onerror="__bfxss(this)">. A trigger waits 500 ms between a
// click and a following goto (so the goto cannot cancel a sign-in or a
// create) and after a create that ends on the new record's page.
// Triggers are the same in every build, so [App.All]'s triggers can be
// played on the fixed build, where nothing fires.
//
// # The fixed build
//
// Options.Fixed turns every bug off and Options.Disabled single ones. An
// off bug's id appears nowhere and the same page behaves correctly: output
// is escaped, input is validated with a message, the create form sends
// once (a client guard and a server-side form token), pages answer at
// once, links go to existing pages, controls work and have names, a lost
// session redirects to /signin?next=…. The fixed build has no JS error,
// no console error, no 4xx/5xx link and no serious or critical axe-core
// violation.
//
// # Serving one
//
// [Listen] serves an App on a loopback port ([Server.Close] stops it); the
// command does the same from the shell:
//
//	go run ./internal/testapps/bugfarm/cmd/bugfarm serve -seed 3            # prints the URL
//	go run ./internal/testapps/bugfarm/cmd/bugfarm serve -seed 3 -fixed
//	go run ./internal/testapps/bugfarm/cmd/bugfarm list -seed 3             # bugs, idioms, pages as JSON
package bugfarm

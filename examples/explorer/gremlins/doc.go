// Package gremlins puts the explorer side by side with gremlins.js, a
// monkey tester, on the same app with the same budget and the same
// oracles: Compare on the demo app (the command gremlins/cmd/gremlins),
// Run for the gremlins' side alone on any origin (the bugfarm benchmark's
// -gremlins).
//
// gremlins.Compare (package examples/explorer/gremlins; its command is gremlins/cmd/gremlins) measures what
// the explorer's direction is worth against a monkey tester with the same
// budget and the same oracles. It runs the explorer offline on the demo
// app with a step budget of N, then serves a fresh demo app with the same
// seeded bugs behind the same collector and opens it in a browser context
// whose init scripts (browser.Config.InitScripts) are gremlins.js@2.2.0's
// gremlins.min.js (GremlinsScriptRelPath, installed by scripts/setup.sh)
// and a small driver. On every page the harness unleashes a horde of
// gremlins.js's default species and mogwais (distribution strategy, 10ms
// apart, randomizer new gremlins.Chance(seed)); the species' logger counts
// each real action in sessionStorage and stops the horde at N in all, and
// a followed link or submitted form stops it so that the next horde starts
// on the new page. Before the first horde, and whenever a page asks for a
// password, the harness signs in with the account shown on the page, as
// the explorer does; those steps are counted apart (Side.SignIns,
// HarnessSteps). Both sides' findings become bugs by the same rules and are
// matched to the seeded ids with demoapp.FindIDs, as the explorer's summary
// does; Side.OwnOracles is what gremlins' own oracles (JS errors)
// would have seen. The result, a table of bug, class, explorer and
// gremlins, goes to <ReportDir>/gremlins.json and gremlins.md. Gremlins'
// actions are not drawn on the page, so the in-page recorder sees the app's
// own DOM. With one seed, the pages the gremlins reach repeat; the split of
// actions by species can vary by a few when a touch gesture logs late or
// the app navigates from script.
//
// Run runs the gremlins' side alone on any origin (Config.Target, with
// Credentials for its sign-in form) and scores it with the caller's seeded
// ids and matcher (Seeded, FindIDs); the bugfarm benchmark
// (examples/explorer/bench -gremlins) uses it.
package gremlins

// Command bench measures the QA explorer on never-seen generated web apps
// (internal/testapps/bugfarm): for each seed it serves the app with its 10-20
// injected bugs on loopback, explores it offline with a step budget, and
// explores the same app with every bug off (the fixed build).
//
//	go run ./examples/explorer/bench -seeds 1-20 -budget 200 [-gremlins] [-parallel N] [-out reports/bench]
//
// The explorer is told the app's origin, the budget, the seed and the
// sign-in account when the app has one, nothing else; minimisation is off.
// A seeded bug counts as found only when its id (bugfarm.FindIDs) shows in
// the evidence, title or URL of a bug the explorer reported on the buggy
// build; every bug reported on the fixed build is a false positive. With
// -gremlins, gremlins.js runs on each buggy app with the same budget,
// behind the same collector and oracles (gremlins.Run), and is
// scored the same way.
//
// It prints a line per app run and writes bench.json and bench.md to -out:
// per seed and in total, seeded, found, recall, fixed-build reports,
// reports per found bug, unattributed reports, steps and wall time; found
// by class (weakest first); the missed bugs and the false positives.
// Exit status: 0 done, 1 the benchmark could not finish, 2 bad flags or no
// browser.
package main

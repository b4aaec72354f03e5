// Command realapps measures the QA explorer on real open-source web apps
// with hand-written bugs (mutations), beside the bugfarm benchmark whose
// apps come from the same hands as the explorer.
//
//	go run ./examples/explorer/realapps [-apps dokuwiki,jingo] [-budget 200] [-out reports/realapps] [-verify-only] [-jscov]
//
// For each app, one at a time: set-up (its setup.sh installs it from a
// registry this machine reaches into the cache directory, outside the
// repository, and makes a pristine copy), the proofs (every mutation's
// trigger is played in Chromium on an instance with all the app's
// mutations patched in, where it must show, and on a clean instance, where
// it must not), then the explorer's clean run and mutated run, each on a
// fresh instance (a fresh copy, fresh data, the seeded admin account the
// explorer signs in with). A mutation counts as found when a report of the
// mutated run names it (kit.Mutation.Matches: its id in the evidence, or
// its patterns for classes that leave no id on the page). Every report of
// the clean run is judged by the app's Judgements, or listed as unjudged.
//
// It prints a line per app and writes bench.json and bench.md to -out.
// Exit status: 0 done and every mutation proved, 1 the benchmark could not
// finish or a trigger did not prove its mutation, 2 bad flags or no
// browser. See README.md beside this file for the apps and how to add one.
package main

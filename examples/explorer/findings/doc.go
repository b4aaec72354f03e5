// Package findings is what the explorer reports: a Bug (one per root
// cause in a mission, with its symptoms, sightings and reproduction), how a
// browser finding becomes one (FindingBug: the same filters, title and
// evidence everywhere), the root-cause key bugs are deduplicated by, and
// the check each bug's reproduction spec asserts.
//
// cause.go keys each finding by its root cause (see README "Findings"):
// one bug per cause across pages and personas; within one action, banners,
// stack traces and console echoes of a server or uncaught error are its
// symptoms; load echoes, validation messages and repeated rows of the
// explorer's own values are not bugs. An uncaught error's cause includes
// the frame that threw (topFrame). Each bug has a severity. A turn's
// State.Bugs holds only its own bugs (the reducer appends), so what a later
// turn sees of an earlier turn's bug (earlierBug, pairedEarlier) goes to the
// mission's copy (missionRun.recorded, the journal) and laterCopies puts it
// in the result.
//
// # Reproductions
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
// keep browser.DefaultChecks. A clear_site_data entry (and a navigation to
// the collector's ClearSiteDataPath on an older tape) replays as clearing
// cookies and storage.
package findings

// Package minimize shortens the reproduction of the explorer's bugs: from
// the tape of browser actions up to a bug, it finds a short sequence that
// still shows the bug's finding when replayed from nothing.
//
// The caller gives a ReplayFunc (replay a sequence in a fresh browser
// context behind a fresh collector, and say which findings it showed, by
// FindingSig, or where it could not follow the recording) and one Job per
// bug; Minimizer.Run fills each Job's Best, Found and Confirmed.
// FindingSig names a finding across replays: its kind, page path and
// evidence, numbers (record ids, ports, timings) aside. ReplayIntents
// turns a recorded entry back into the intents that replay it, its
// snapshot ref rebuilt from the Playwright locator the engine recorded.
//
// The search, per mission, in three phases. First the suffix heuristics
// (the last entry alone, the entries from the last navigation on, then
// from the 2nd, 4th, 8th… last navigation, jumps straight to the URL of a
// page the tape reached by clicks, each also behind the tape's latest
// sign-in, and, for a candidate that opens a record the tape created, the
// same behind the form steps that created it and the records of its
// collection created before it), shortest first and breadth first: every
// bug's cheapest candidate before any bug's second one, the longest tapes
// first, groups of three or more bugs twice as often. Bugs found at one
// step share their candidates, and a replay answers for every bug whose
// finding it shows. A sequence that does not open a page first, or starts
// the way a failed replay did, is never replayed. Second, while time is
// left, Zeller's ddmin over each bug's shortest reproducing sequence (then
// over the full tape of bugs the heuristics missed). Last, one more replay
// of each result: a sequence that does not reproduce again falls back to
// the full tape.
//
// Options bounds a search: Replays per bug (cache hits are free), Time for
// the whole search, confirmations included (the search stops early enough
// for them), and Workers replays at once (DefaultWorkers). A candidate is
// picked when a worker is free, knowing what the replays before it learnt
// (a sign-in wall). When a budget runs out, a job keeps the shortest
// sequence found so far if it reproduced again, else its full tape.
//
// DDMin is the generic delta-debugging search of the second phase.
package minimize

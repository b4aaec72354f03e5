// Package collector is the page-health collector: one pipeline that
// watches the app under test from outside its pages and names what went
// wrong. The explorer's missions, the replays that minimise and check a
// bug's reproduction, the gremlins.js comparison and the personas' runs
// (personas.RunOptions.Collector) all see the app through it.
//
// A Collector is a reverse proxy on a loopback port of its own, in front of
// the app (New). The browser talks to the app only through it, so it sees
// every request and answer:
//
//   - server errors (5xx, with their bodies), slow answers (FindSlow, over
//     the threshold given to New) and a form post the app accepted twice
//     (FindDuplicate); HoldNextPost delays the next post's answer so that a
//     second click lands while the first is in flight;
//   - every request it relayed, with its status and the app's time, in a
//     log of the latest MaxRequests: Mark before an action and
//     RequestsSince after it give the requests the action set off;
//   - redirects and Refresh headers on the app's own origin are kept on the
//     collector, so the browser never leaves it for the bare app;
//   - every HTML page gets axe-core (FindAxe finds it: $AGENTGRAPH_AXE_PATH,
//     or AxeRelPath above the working directory, which `make setup`
//     installs) and a small in-page recorder. The recorder reports, as
//     marked console messages, an injected script that ran (FindXSS;
//     XSSPayload is the explorer's probe, and the catalogue's payloads log
//     XSSMarker), axe-core's serious and critical violations (FindA11y),
//     clicks that changed nothing (FindDeadControl) and identical table
//     rows (FindDuplicateRow). PageFindings turns a page's console messages
//     back into findings.
//
// The recorder also keeps the accessibility violations in the page in
// structured form, with those of its own focus check (keyboard focus on an
// element the user cannot see, FocusInvisibleRule). Violations waits for
// the page's scan to finish and hands them over, each rule, page and
// element once: the form the personas' accessibility oracle judges. The
// console reports the explorer reads are the same with or without it.
//
// Take hands over the findings the collector saw since the last call. The
// collector's own paths live under Prefix; ClearSiteDataPath drops the
// origin's session the way an expired or cleared browser does.
//
// Every address an artifact keeps must be the app's own: an Addresser maps
// the collector's origin (and its bare host:port) back to the target's in
// text, findings, tape entries and log output.
package collector

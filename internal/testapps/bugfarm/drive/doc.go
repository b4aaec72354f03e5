// Package drive plays a bugfarm bug's scripted trigger in real Chromium and
// checks that its signal fires: the proof that every injected bug of a
// generated app is real on the buggy build and gone on the fixed one.
//
// Reproduce opens a fresh browser context on the shared Chromium, plays
// Bug.Trigger step by step (each step bounded by Options.StepTimeout), then
// checks Bug.Expect:
//
//	page_error  an uncaught error (or unhandled rejection) whose message holds the id
//	console     a console error whose text holds the id
//	response    a response with Expect.Status whose URL or body holds the id
//	slow        a response slower than 3 s whose URL or headers hold the id,
//	            or an Expect.Selector element holding the id
//	script      window.__bfxss(el) was called (the driver defines it in every
//	            document) with an element whose parent's outerHTML holds the id
//	axe         axe-core reports Expect.Rule on a node whose html holds the id
//	dom         an element matching Expect.Selector holds the id (text or attributes)
//	dead        clicking Expect.Selector changes nothing: no DOM mutation, no
//	            navigation, no request, no dialog within Options.DeadWait
//
// The Observation also lists every page error, console error and 5xx the
// trigger caused, so a fixed build can be checked to be clean.
//
// Verify runs every bug of a set of seeds on a fresh instance of the buggy
// build (the signal must fire) and of the fixed build (it must not, and the
// page must stay clean), each app served on loopback for one reproduction;
// VerifyApps does the same for any handlers. ParseSeeds reads the seed lists
// the commands take ("1-20", "1,3,5", "101-120").
//
// The command internal/testapps/bugfarm/drive/cmd/verify runs Verify:
//
//	go run ./internal/testapps/bugfarm/drive/cmd/verify -seeds 1-20 -parallel 3
package drive

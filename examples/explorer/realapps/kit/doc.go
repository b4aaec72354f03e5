// Package kit is the realapps benchmark's toolkit: what an app of the
// benchmark is (App, Mutation), how it is set up, patched and started
// (Setup, Start), and how a mutation's scripted trigger drives it in
// Chromium and checks what it shows (Session).
//
// An app lives in a folder of its own under realapps/apps: a setup.sh that
// installs it from a registry this machine reaches and makes a pristine
// copy in the cache directory, a start.sh that serves one instance on a
// loopback port with a throwaway database and a seeded admin account,
// patches/<id>.patch (one hand-written mutation each, applied with
// patch -p1 to a copy of the pristine tree, never to the installed system
// copy), and a Go file with the mutations' triggers. Its files are
// embedded in the binary and written to the cache directory before use,
// so the benchmark runs from anywhere.
package kit

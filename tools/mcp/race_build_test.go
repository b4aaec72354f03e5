//go:build race

package mcp

// raceFlags are the build flags of a program a test builds: the test
// binary's own race setting, so the build reuses the packages the suite
// already compiled (and the program runs under the race detector too).
var raceFlags = []string{"-race"}

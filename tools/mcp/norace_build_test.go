//go:build !race

package mcp

// raceFlags are the build flags of a program a test builds (see
// race_build_test.go).
var raceFlags []string

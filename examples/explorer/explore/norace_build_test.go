//go:build !race

package explore

// raceFlags are the build flags of a program a test builds (see
// race_build_test.go).
var raceFlags []string

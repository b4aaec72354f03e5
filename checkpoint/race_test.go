//go:build race

package checkpoint_test

// raceEnabled shortens the engine-driven growth test under the race
// detector, which makes the engine's per-step JSON encoding very slow.
const raceEnabled = true

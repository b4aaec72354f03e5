package bugfarm

import "testing"

// TestGenerateManySeeds: seeds beyond the ones looked at while building
// generate an app without panicking, each with 10-20 bugs.
func TestGenerateManySeeds(t *testing.T) {
	for seed := int64(1); seed <= 400; seed++ {
		app := Generate(seed, Options{})
		if n := len(app.Bugs); n < 10 || n > 20 {
			t.Errorf("seed %d: %d bugs", seed, n)
		}
	}
}

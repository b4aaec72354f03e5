package eval

import (
	"context"
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
)

// testHarness is the one Chromium of this test binary.
var testHarness *Harness

func TestMain(m *testing.M) {
	browsertest.Main(m, func(ctx context.Context) (*Harness, error) { return Launch(ctx, browser.LaunchOptions{}) }, &testHarness)
}

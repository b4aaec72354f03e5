package eval

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
)

// testHarness is the one Chromium of this test binary.
var testHarness *Harness

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	h, err := Launch(ctx, browser.LaunchOptions{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval tests need Chromium and the Playwright driver:", err)
		os.Exit(1)
	}
	testHarness = h
	code := m.Run()
	_ = h.Close()
	os.Exit(code)
}

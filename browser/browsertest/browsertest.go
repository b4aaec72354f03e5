// Package browsertest gives a test binary one shared Chromium.
//
// Browser tests never skip: when Chromium or the Playwright driver is
// missing, the binary exits 1 with the browser package's set-up message.
//
//	var testBrowser *browser.Browser
//
//	func TestMain(m *testing.M) { browsertest.Main(m, browsertest.Launch, &testBrowser) }
package browsertest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
)

// LaunchTimeout bounds starting the driver and Chromium.
const LaunchTimeout = 60 * time.Second

// Launch starts a headless Chromium with default options.
func Launch(ctx context.Context) (*browser.Browser, error) {
	return browser.Launch(ctx, browser.LaunchOptions{})
}

// Main starts a browser-like value T with launch, stores it in *dst, runs
// the tests, closes it, runs after (say, removing what tests shared) and
// exits with the tests' code.
func Main[T interface{ Close() error }](m *testing.M, launch func(context.Context) (T, error), dst *T, after ...func()) {
	code := run(m, launch, dst)
	for _, f := range after {
		f()
	}
	os.Exit(code)
}

func run[T interface{ Close() error }](m *testing.M, launch func(context.Context) (T, error), dst *T) int {
	ctx, cancel := context.WithTimeout(context.Background(), LaunchTimeout)
	v, err := launch(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "these tests need Chromium and the Playwright driver:", err)
		return 1
	}
	defer func() { _ = v.Close() }()
	*dst = v
	return m.Run()
}

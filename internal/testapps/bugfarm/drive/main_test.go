package drive

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
)

// testBrowser is the one Chromium shared by every test of this binary.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	b, err := browser.Launch(ctx, browser.LaunchOptions{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "drive tests need Chromium and the Playwright driver:", err)
		os.Exit(1)
	}
	testBrowser = b
	code := m.Run()
	_ = b.Close()
	os.Exit(code)
}

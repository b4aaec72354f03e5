package collector

import (
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
)

// testBrowser is the one Chromium shared by the recorder's tests.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	browsertest.Main(m, browsertest.Launch, &testBrowser)
}

var _ Evaluator = (*browser.Session)(nil)

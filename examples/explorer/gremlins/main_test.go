package gremlins

import (
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
)

// testBrowser is the one Chromium of this test binary.
var testBrowser *browser.Browser

func TestMain(m *testing.M) { browsertest.Main(m, browsertest.Launch, &testBrowser) }

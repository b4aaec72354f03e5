package embed

import (
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
)

// testBrowser is the one Chromium of this test binary, shared by the runs
// through explore.Config.Browser.
var testBrowser *browser.Browser

func TestMain(m *testing.M) { browsertest.Main(m, browsertest.Launch, &testBrowser) }

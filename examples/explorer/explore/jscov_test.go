package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
)

// The mission's tally: a page template's inline scripts are one entry
// (every record's page runs the same code), a script file is its path;
// per entry the most any take saw; the figures add up.
func TestJSTally(t *testing.T) {
	assert.Equal(t, jsKey("http://127.0.0.1:4100/things/8#inline"), jsKey("http://127.0.0.1:4100/things/9#inline"))
	assert.NotEqual(t, jsKey("http://127.0.0.1:4100/things/8#inline"), jsKey("http://127.0.0.1:4100/things#inline"))
	assert.Equal(t, "/static/app.js?v=3", jsKey("http://127.0.0.1:4100/static/app.js?v=3"))

	mr := &missionRun{js: jsTally{on: true}}
	assert.True(t, mr.js.merge(browser.JSCoverage{Scripts: []browser.ScriptCoverage{
		{URL: "http://a/things/8#inline", Bytes: 100, Executed: 40},
		{URL: "http://a/app.js", Bytes: 300, Executed: 30},
	}}))
	assert.True(t, mr.js.merge(browser.JSCoverage{Scripts: []browser.ScriptCoverage{{URL: "http://a/things/9#inline", Bytes: 100, Executed: 70}}}),
		"the template's inline code ran further")
	assert.False(t, mr.js.merge(browser.JSCoverage{Scripts: []browser.ScriptCoverage{{URL: "http://a/app.js", Bytes: 300, Executed: 10}}}),
		"nothing new ran")
	r := mr.jsReport()
	assert.Equal(t, &report.JSCoverage{Scripts: 2, Bytes: 400, Executed: 100, Percent: 25}, r)
	assert.Equal(t, "25.0% of 400 bytes in 2 scripts", r.String())
	assert.Equal(t, "not collected", (*report.JSCoverage)(nil).String())
	assert.Nil(t, (&missionRun{}).jsReport(), "off: no figure")
	assert.False(t, (&missionRun{}).takeJS(t.Context()), "off: nothing taken")
}

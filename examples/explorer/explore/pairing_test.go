package explore

import (
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/stretchr/testify/assert"
)

// TestDuplicatePairing: a submission accepted twice and a list row shown
// twice are one cause when the row links to a record the two answers
// made, whichever was reported first and whoever typed the value; a row
// of another record stays a bug of its own.
func TestDuplicatePairing(t *testing.T) {
	submit := "/api/widgets → 303 Location /widgets/8?new=1 | /api/widgets → 303 Location /widgets/7?new=1"
	row := func(id string) string {
		return `<tr data-id="` + id + `"><td><a href="/widgets/` + id + `">Gear 12</a></td><td>blue</td></tr>`
	}
	mr := &missionRun{sw: newSweep()}
	dupSubmit := browser.Finding{Kind: collector.FindDuplicate, URL: "http://app/widgets/new", Evidence: submit}
	dupRow := func(id string) browser.Finding {
		return browser.Finding{Kind: collector.FindDuplicateRow, URL: "http://app/catalogue", Evidence: "two identical rows in a table — " + row(id)}
	}
	submitBug := findings.Bug{Kind: string(collector.FindDuplicate), URL: "http://app/widgets/new", Evidence: submit}
	rowBug := func(id string) findings.Bug {
		return findings.Bug{Kind: string(collector.FindDuplicateRow), URL: "http://app/catalogue", Evidence: dupRow(id).Evidence}
	}
	e := browser.Entry{URL: "http://app/catalogue"}

	assert.True(t, mr.pairedWith(dupRow("7"), e, submitBug), "the row of a record the submission made, after it")
	assert.True(t, mr.pairedWith(dupSubmit, e, rowBug("8")), "the submission, after the row of its record")
	assert.False(t, mr.pairedWith(dupRow("9"), e, submitBug), "another record's row")
	assert.False(t, mr.pairedWith(dupSubmit, e, rowBug("9")))
	assert.False(t, mr.pairedWith(dupRow("7"), e, rowBug("7")), "two rows are not a submission")

	assert.True(t, rowOfRecords(`<a href="http://app/widgets/7/">x</a>`, submit), "an absolute link, a trailing slash")
	assert.False(t, rowOfRecords(`<a href="/">home</a>`, "a → 303 Location / | a → 303 Location /"), "the root is no record")
	assert.False(t, rowOfRecords(row("7"), "no answers named"))
}

package findings

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/memory"
)

func TestRootCause(t *testing.T) {
	logo := `Links must have discernible text (rule link-name)`
	a := browser.Finding{Kind: collector.FindA11y, Message: logo, Evidence: `<a class="brand" href="/" id="logo"><svg aria-hidden="true"></svg></a>`}
	assert.Equal(t, RootCause(a, "http://x/a"), RootCause(a, "http://x/b/7"), "one element's violation on every page is one cause")
	b := a
	b.Evidence = `<a class="nav" href="/help"></a>`
	assert.NotEqual(t, RootCause(a, "/"), RootCause(b, "/"))

	s1 := browser.Finding{Kind: browser.FindServerError, Message: "server error 500 on GET /events/3", Evidence: "GET /events/3 → 500; body: AttributeError: 'NoneType' object has no attribute 'seats' (row 17)"}
	s2 := browser.Finding{Kind: browser.FindServerError, Message: "server error 500 on GET /events/export", Evidence: "GET /events/export → 500; body: AttributeError: 'NoneType' object has no attribute 'seats' (row 3)"}
	assert.Equal(t, RootCause(s1, ""), RootCause(s2, ""), "the same error, numbers aside")
	s2.Evidence = "GET /x → 500; body: ZeroDivisionError: division by zero"
	assert.NotEqual(t, RootCause(s1, ""), RootCause(s2, ""))

	// An error page inside the app's chrome: the chrome shows data (the
	// signed-in user's name) that differs between sightings; the part
	// that reads like an error is the cause.
	chrome := func(user, msg string) browser.Finding {
		return browser.Finding{Kind: browser.FindServerError, Message: "server error 500 on POST /things/4",
			Evidence: "POST /things/4 → 500; body: Internal Server Error · Shop Skip to content Shop Home Orders " + user + " Sign out 500 Internal Server Error " + msg + " Back to the start page Shop · Help"}
	}
	long := "value too long for column title (character varying(100)): got 256 characters"
	assert.Equal(t, RootCause(chrome("Demo User", long), ""), RootCause(chrome("Lorem ipsum dolor sit amet consectetur", long), ""),
		"one cause whoever is signed in")
	assert.NotEqual(t, RootCause(chrome("Demo User", long), ""), RootCause(chrome("Demo User", "division by zero in total"), ""))
	assert.Contains(t, RootCause(chrome("Demo User", long), ""), "value too long for column title")
	assert.Equal(t, "Oops, try later", errorPart("Oops, try later"), "no part reads like an error: the text whole")
	assert.Equal(t, "BUG-9: value too long for column name", errorPart(`Internal Server Error · Acme Skip to content Settings &lt;img src=x onerror=&#34;__agxss(this)&#34;&gt; Sign out 500 Internal Server Error BUG-9: value too long for column name`),
		"a payload's onerror in the chrome (a name the mission typed) is not the error")
	assert.Equal(t, `File "app/views/list.py", line 41, in render AttributeError: 'NoneType' object has no attribute 'owner'`,
		errorPart(`Traceback (most recent call last): File "app/views/list.py", line 41, in render AttributeError: 'NoneType' object has no attribute 'owner'`)[len("Traceback (most recent call last): "):],
		"a trace is one part")

	// A field's value is data: one element, whatever it holds.
	l1 := browser.Finding{Kind: collector.FindA11y, Message: "Form elements must have labels (rule label)", Evidence: `<input id="tz" name="timezone" type="text" value="UTC">`}
	l2 := l1
	l2.Evidence = `<input id="tz" name="timezone" type="text" value="Lorem ipsum dolor si...">`
	assert.Equal(t, RootCause(l1, "/settings"), RootCause(l2, "/settings"))
	// A field named by its title alone fails two rules: one defect.
	l3 := l1
	l3.Message = "Form elements should have a visible label (rule label-title-only)"
	assert.Equal(t, RootCause(l1, "/settings"), RootCause(l3, "/settings"))
	l4 := l1
	l4.Message = "Elements must meet minimum color contrast ratio thresholds (rule color-contrast)"
	assert.NotEqual(t, RootCause(l1, "/settings"), RootCause(l4, "/settings"), "another defect of the element")

	p1 := browser.Finding{Kind: browser.FindPageError, Message: "TypeError: Cannot read properties of null (reading 'x')\n    at http://127.0.0.1:4000/a:12:5"}
	p2 := browser.Finding{Kind: browser.FindPageError, Message: "TypeError: Cannot read properties of null (reading 'x')\n    at http://127.0.0.1:5111/b:99:1"}
	assert.Equal(t, RootCause(p1, ""), RootCause(p2, ""))

	// Two handlers failing with one message are two causes, and two bugs
	// in memory too: the quoted script names tell them apart.
	v1 := browser.Finding{Kind: browser.FindServerError, URL: "http://x/things/3", Evidence: `GET /things/3 → 500; body: AttributeError: 'NoneType' object has no attribute 'owner' File "app/views/view.py", line 41, in render`}
	v2 := v1
	v2.URL, v2.Evidence = "http://x/things", `GET /things → 500; body: AttributeError: 'NoneType' object has no attribute 'owner' File "app/views/list.py", line 41, in render`
	b1, ok1 := FindingBug(v1, "")
	b2, ok2 := FindingBug(v2, "")
	require.True(t, ok1 && ok2)
	assert.NotEqual(t, b1.Cause, b2.Cause)
	assert.NotEqual(t, b1.Fingerprint, b2.Fingerprint, "one fingerprint for two causes merges them")
	assert.Equal(t, memory.CauseFingerprint(b1.Kind, b1.Cause), b1.Fingerprint, "the explorer keys a bug as memory.RecordBug does")
	v3 := v1
	v3.URL, v3.Evidence = "http://x/things/9", strings.Replace(v1.Evidence, "/things/3", "/things/9", 1)
	b3, _ := FindingBug(v3, "")
	assert.Equal(t, b1.Fingerprint, b3.Fingerprint, "one handler on another record is one bug")

	// A page's inline script has the address the document was loaded
	// at: reached by a client-side route, the page's own address differs.
	routed := browser.Finding{Kind: browser.FindPageError, Message: "Error: Request failed with status code 502",
		Evidence: "Error: Request failed with status code 502\n    at render (http://x/board:67:9)"}
	direct := routed
	direct.Evidence = strings.Replace(routed.Evidence, "/board:", "/board/team:", 1)
	assert.Equal(t, RootCause(routed, "http://x/board/team"), RootCause(direct, "http://x/board/team"), "one inline handler, however the page was reached")
	script := routed
	script.Evidence = strings.Replace(routed.Evidence, "/board:", "/static/board.js:", 1)
	assert.Contains(t, RootCause(script, "http://x/board/team"), "render@/static/board.js:67", "a script file of its own")

	n1 := browser.Finding{Kind: browser.FindNotFound, URL: "http://x/archive/7"}
	n2 := browser.Finding{Kind: browser.FindNotFound, URL: "http://x/archive/9"}
	assert.Equal(t, RootCause(n1, ""), RootCause(n2, ""))
}

func TestEchoAndValidation(t *testing.T) {
	assert.True(t, echoOfLoad(browser.Finding{Kind: browser.FindConsoleError, Message: "Failed to load resource: the server responded with a status of 500 (Internal Server Error)"}))
	assert.False(t, echoOfLoad(browser.Finding{Kind: browser.FindConsoleError, Message: "Error: could not render the chart"}))
	assert.True(t, echoOfLoad(browser.Finding{Kind: browser.FindConsoleError, Message: "Failed to load resource: net::ERR_CONTENT_LENGTH_MISMATCH"}), "the echo of a network failure: the request oracle reports the failure itself")
	_, ok := FindingBug(browser.Finding{Kind: browser.FindConsoleError, Message: "Failed to load resource: the server responded with a status of 404 (Not Found)"}, "http://x/")
	assert.False(t, ok, "a load echo is never a bug of its own")

	for _, v := range []string{"Name and a whole-number quantity are required.", "Please enter a valid email address.", "Quantity must be between 1 and 500.",
		"Wrong email or password.", "Incorrect username or password", "That email and password do not match."} {
		assert.True(t, ValidationMessage(v), v)
	}
	for _, e := range []string{"Export failed: Traceback (most recent call last): File \"/srv/app/views.py\"", "Error 500: internal error",
		"System.NullReferenceException: Object reference not set", "Unexpected error, please try again", "pq: syntax error at or near \"'\"",
		"Invalid password hash: internal error", "Sign-in failed: wrong password store"} {
		assert.False(t, ValidationMessage(e), e)
	}
}

func TestSeverity(t *testing.T) {
	assert.Equal(t, SeverityCritical, SeverityOf(string(browser.FindServerError)))
	assert.Equal(t, SeverityCritical, SeverityOf(string(collector.FindXSS)))
	assert.Equal(t, SeverityMajor, SeverityOf(string(browser.FindPageError)))
	assert.Equal(t, SeverityMajor, SeverityOf(string(collector.FindDeadControl)))
	assert.Equal(t, SeverityMinor, SeverityOf(string(collector.FindA11y)))
	assert.Equal(t, SeverityMinor, SeverityOf(string(browser.FindConsoleError)))
}

// The catalogue's markup payload logs the XSS marker when it runs: an XSS
// finding, not a console error.
func TestMarkupPayloadIsXSS(t *testing.T) {
	fs := collector.PageFindings([]browser.Finding{{Kind: browser.FindConsoleError, Message: "agentgraph-xss:in46d080e8", URL: "http://x/books"}})
	require.Len(t, fs, 1)
	assert.Equal(t, collector.FindXSS, fs[0].Kind)
	b, ok := FindingBug(fs[0], "http://x/books")
	require.True(t, ok)
	assert.Equal(t, SeverityCritical, b.Severity)
	_, ok = FindingBug(browser.Finding{Kind: browser.FindServerError, Evidence: "GET /x → 502; body: " + collector.FailurePrefix + "connection reset"}, "http://x/")
	assert.False(t, ok, "the collector's own 502 is no app bug")
}

// An XSS is one cause per sink: a reflected payload's page and parameter,
// whichever payload and whichever detector saw it run; a stored one, the
// element it ran in.
func TestXSSCauseIsTheSink(t *testing.T) {
	hooked := browser.Finding{Kind: collector.FindXSS, URL: "http://x/search?q=%3Cimg+src%3Dx+onerror%3D%22__agxss%28this%29%22%3E",
		Evidence: `an injected script executed in p — <p id="search-echo">Results for “<img src="x" onerror="__agxss(this)">”: 1</p>`}
	marked := browser.Finding{Kind: collector.FindXSS, URL: "http://x/search?q=%3Cimg+src+onerror%3D%22console.error%28%27agentgraph-xss%3Ain3b68cdc0%27%29%22%3E",
		Evidence: "an injected script executed (the markup payload typed into a field) — agentgraph-xss:in3b68cdc0"}
	marked2 := marked
	marked2.URL = "http://x/search?q=%3Csvg+onload%3D%22console.error%28%27agentgraph-xss%3Ain5790638b%27%29%22%3E&page=2"
	marked2.Evidence = "an injected script executed — agentgraph-xss:in5790638b"
	assert.Equal(t, RootCause(hooked, ""), RootCause(marked, ""))
	assert.Equal(t, RootCause(marked, ""), RootCause(marked2, ""), "another payload, another marker: the same sink")

	other := marked
	other.URL = "http://x/cookbook?q=%3Cimg%3E"
	assert.NotEqual(t, RootCause(marked, ""), RootCause(other, ""), "another page is another sink")

	stored := browser.Finding{Kind: collector.FindXSS, URL: "http://x/cookbook", Evidence: `an injected script executed in a — <a href="/cookbook/4"><img src="x" onerror="__agxss(this)"></a>`}
	stored2 := stored
	stored2.Evidence = `an injected script executed in a — <a href="/cookbook/9" style="outline: red"><img src="x" onerror="__agxss(this)"></a>`
	assert.Equal(t, RootCause(stored, ""), RootCause(stored2, ""), "a stored payload: its element, whatever record and inline style")
	// The recorder names the element a marker payload ran in: the same
	// sink as the probe's, though the element's markup holds the marker.
	storedMarked := stored
	storedMarked.URL = "http://x/cookbook/8"
	storedMarked.Evidence = `<a href="/cookbook/8"><img src="" onerror="console.error('agentgraph-xss:in100dc924')"></a>`
	assert.Equal(t, RootCause(stored, ""), RootCause(storedMarked, ""), "one element, two payloads")
}

// A dead control is its element, whatever its inline style.
func TestDeadControlCauseIgnoresStyle(t *testing.T) {
	a := browser.Finding{Kind: collector.FindDeadControl, Evidence: `clicking "Scale" changed nothing — <button type="button" id="scale-6">Scale</button>`}
	b := browser.Finding{Kind: collector.FindDeadControl, Evidence: `clicking "Scale" changed nothing — <button type="button" id="scale-6" style="">Scale</button>`}
	assert.Equal(t, RootCause(a, ""), RootCause(b, ""))
}

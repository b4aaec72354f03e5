package team

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const parseTests = `package calc

import "testing"

func TestSum(t *testing.T) {
	tests := []struct{ in, want int }{{1, 1}}
	for _, tc := range tests {
		if Sum(tc.in) != tc.want {
			t.Fatal("sum")
		}
	}
}
`

func TestParseArchitect(t *testing.T) {
	cases := []struct {
		name      string
		reply     string
		wantSpec  string
		wantErr   string
		testsHave string
	}{
		{
			name:     "plain headings with fence",
			reply:    "SPECIFICATIONS:\nSum adds numbers.\n\nTESTS:\n```go\n" + parseTests + "```\n",
			wantSpec: "Sum adds numbers.",
		},
		{
			name:     "markdown headings, text on heading line",
			reply:    "Here is the plan.\n\n## Specifications\nSum adds numbers.\n\n## Tests\n```golang\n" + parseTests + "```\nThat is all.",
			wantSpec: "Sum adds numbers.",
		},
		{
			name:     "bold headings, spec on the heading line",
			reply:    "**SPECIFICATIONS:** Sum adds numbers.\n**TESTS:**\n```go\n" + parseTests + "```",
			wantSpec: "Sum adds numbers.",
		},
		{
			name:     "no fences",
			reply:    "SPECIFICATIONS\nSum adds numbers.\nTESTS\n" + parseTests,
			wantSpec: "Sum adds numbers.",
		},
		{
			name:     "unclosed fence (reply cut short)",
			reply:    "SPECIFICATIONS: Sum adds numbers.\nTESTS:\n```go\n" + parseTests,
			wantSpec: "Sum adds numbers.",
		},
		{
			name:      "heading-like lines inside code are not headings",
			reply:     "SPECIFICATIONS:\nSum adds numbers.\nTESTS:\n```go\n" + strings.Replace(parseTests, "import \"testing\"", "import \"testing\"\n\n// TESTS: below\nvar _ = 0", 1) + "```",
			wantSpec:  "Sum adds numbers.",
			testsHave: "// TESTS: below",
		},
		{
			name:     "no headings: prose then code",
			reply:    "Sum adds numbers.\n\n```go\n" + parseTests + "```",
			wantSpec: "Sum adds numbers.",
		},
		{name: "empty", reply: "  \n", wantErr: "reply is empty"},
		{name: "no spec", reply: "TESTS:\n```go\n" + parseTests + "```", wantErr: "no SPECIFICATIONS section"},
		{name: "no tests", reply: "SPECIFICATIONS: x\nTESTS:\nI will write them later.", wantErr: "no Go test file"},
		{name: "tests do not parse", reply: "SPECIFICATIONS: x\nTESTS:\n```go\npackage calc\nfunc TestX(t *testing.T) {\n", wantErr: "does not parse"},
		{name: "no test functions", reply: "SPECIFICATIONS: x\nTESTS:\n```go\npackage calc\n\nfunc helper() {}\n```", wantErr: "no func TestXxx"},
		{name: "garbage", reply: "\x00\x01 {{{ ``` ~~~", wantErr: "no Go test file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := ParseArchitect(c.reply)
			if c.wantErr != "" {
				require.ErrorIs(t, err, ErrFormat)
				var fe *FormatError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, RoleArchitect, fe.Role)
				assert.Contains(t, err.Error(), c.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.wantSpec, out.Spec)
			assert.True(t, strings.HasPrefix(out.Tests, "package calc\n"), out.Tests)
			assert.Contains(t, out.Tests, "func TestSum")
			assert.NotContains(t, out.Tests, "```")
			if c.testsHave != "" {
				assert.Contains(t, out.Tests, c.testsHave)
			}
		})
	}
}

const parseCode = "package calc\n\n// Sum returns x.\nfunc Sum(x int) int { return x }\n"

func TestParseCode(t *testing.T) {
	cases := []struct {
		name, reply, pkg, wantErr string
	}{
		{name: "fenced", reply: "Here you go:\n```go\n" + parseCode + "```\nDone.", pkg: "calc"},
		{name: "code section", reply: "CODE:\n```\n" + parseCode + "```", pkg: "calc"},
		{name: "bare file", reply: parseCode, pkg: "calc"},
		{name: "skips non-go blocks", reply: "```bash\ngo test ./...\n```\n```go\n" + parseCode + "```", pkg: "calc"},
		{name: "wrong package", reply: "```go\npackage other\n```", pkg: "calc", wantErr: "package other but the tests are package calc"},
		{name: "test file instead", reply: "```go\npackage calc\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n```", pkg: "calc", wantErr: "test file"},
		{name: "syntax error", reply: "```go\npackage calc\nfunc Sum( {\n```", pkg: "calc", wantErr: "does not parse"},
		{name: "no code", reply: "I could not do it.", pkg: "calc", wantErr: "no Go file found"},
		{name: "empty", reply: "", pkg: "calc", wantErr: "reply is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, err := ParseCode(RoleDeveloper, c.reply, c.pkg)
			if c.wantErr != "" {
				require.ErrorIs(t, err, ErrFormat)
				assert.Contains(t, err.Error(), c.wantErr)
				assert.Contains(t, err.Error(), "developer reply")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, parseCode, code)
		})
	}
}

func TestParseDebugger(t *testing.T) {
	cases := []struct {
		name, reply, wantDiag, wantErr string
	}{
		{
			name:     "canonical",
			reply:    "DIAGNOSIS:\nThe map is written without the lock.\n\nPATCHED_CODE:\n```go\n" + parseCode + "```",
			wantDiag: "The map is written without the lock.",
		},
		{
			name:     "markdown, spaces in heading, diagnosis on heading line",
			reply:    "### Diagnosis: the map is written without the lock.\n### Patched code\n```go\n" + parseCode + "```",
			wantDiag: "the map is written without the lock.",
		},
		{
			name:     "bold, no patched heading",
			reply:    "**DIAGNOSIS**: missing lock.\n\nHere is the fix:\n```go\n" + parseCode + "```",
			wantDiag: "missing lock.\n\nHere is the fix:",
		},
		{
			name:     "diagnosis quotes code",
			reply:    "DIAGNOSIS: the line\n```go\nn++\n```\nraces.\nPATCHED_CODE:\n```go\n" + parseCode + "```",
			wantDiag: "the line\nraces.",
		},
		{name: "no diagnosis", reply: "PATCHED_CODE:\n```go\n" + parseCode + "```", wantErr: "no DIAGNOSIS"},
		{name: "no code", reply: "DIAGNOSIS: it is broken.\nPATCHED_CODE:\n(none)", wantErr: "no PATCHED_CODE"},
		{name: "wrong package", reply: "DIAGNOSIS: x\nPATCHED_CODE:\n```go\npackage main\n```", wantErr: "package main but the tests are package calc"},
		{name: "empty", reply: "", wantErr: "reply is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := ParseDebugger(c.reply, "calc")
			if c.wantErr != "" {
				require.ErrorIs(t, err, ErrFormat)
				assert.Contains(t, err.Error(), c.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.wantDiag, out.Diagnosis)
			assert.Equal(t, parseCode, out.Code)
		})
	}
}

func TestHeading(t *testing.T) {
	cases := []struct {
		line, name, rest string
		ok               bool
	}{
		{"TESTS:", secTests, "", true},
		{"Tests", secTests, "", true},
		{"## Test suite (Go)", secTests, "(Go)", true},
		{"PATCHED-CODE:", secPatched, "", true},
		{"Diagnosis: a race", secDiagnosis, "a race", true},
		{"tests := []int{}", "", "", false},
		{"\ttests: []case{},", "", "", false},
		{"Tests are below", "", "", false},
		{"func TestX(t *testing.T) {", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			name, rest, ok := heading(c.line)
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.name, name)
			assert.Equal(t, c.rest, rest)
		})
	}
}

func FuzzParsers(f *testing.F) {
	f.Add("SPECIFICATIONS: x\nTESTS:\n```go\n" + parseTests + "```")
	f.Add("DIAGNOSIS: d\nPATCHED_CODE:\n```go\n" + parseCode + "```")
	f.Add("```\n```go\n~~~")
	f.Fuzz(func(t *testing.T, s string) {
		// Must never panic; errors must be FormatErrors.
		if _, err := ParseArchitect(s); err != nil {
			assert.ErrorIs(t, err, ErrFormat)
		}
		if _, err := ParseDebugger(s, "calc"); err != nil {
			assert.ErrorIs(t, err, ErrFormat)
		}
		if _, err := ParseCode(RoleDeveloper, s, ""); err != nil {
			assert.ErrorIs(t, err, ErrFormat)
		}
	})
}

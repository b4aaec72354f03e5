package team

import (
	"errors"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"regexp"
	"strings"
)

// ErrFormat matches (with errors.Is) every *FormatError.
var ErrFormat = errors.New("unusable model output")

// FormatError says why a model's reply could not be used. Its message is
// written to be sent back to the model so it can answer again.
type FormatError struct {
	Role    Role
	Problem string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s reply: %s", e.Role, e.Problem)
}

// Is makes errors.Is(err, ErrFormat) true.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func formatErr(role Role, format string, args ...any) error {
	return &FormatError{Role: role, Problem: fmt.Sprintf(format, args...)}
}

// ArchitectOutput is the architect's parsed reply.
type ArchitectOutput struct {
	Spec  string // the SPECIFICATIONS section
	Tests string // the Go test file from the TESTS section
}

// DebuggerOutput is the debugger's parsed reply.
type DebuggerOutput struct {
	Diagnosis string // the DIAGNOSIS section
	Code      string // the Go file from the PATCHED_CODE section
}

// Section names, after normalisation (upper case, single spaces).
const (
	secSpec      = "SPECIFICATIONS"
	secTests     = "TESTS"
	secCode      = "CODE"
	secDiagnosis = "DIAGNOSIS"
	secPatched   = "PATCHED CODE"
	secReview    = "REVIEW"
)

// sectionAliases maps accepted heading spellings to a section name.
var sectionAliases = map[string]string{
	"SPECIFICATIONS": secSpec, "SPECIFICATION": secSpec, "SPECS": secSpec, "SPEC": secSpec,
	"TESTS": secTests, "TEST": secTests, "TEST SUITE": secTests, "TEST CODE": secTests, "TEST FILE": secTests,
	"CODE": secCode, "IMPLEMENTATION": secCode, "SOLUTION": secCode,
	"DIAGNOSIS": secDiagnosis, "ROOT CAUSE": secDiagnosis, "ANALYSIS": secDiagnosis,
	"PATCHED CODE": secPatched, "PATCH": secPatched, "FIXED CODE": secPatched, "PATCHED": secPatched,
	"REVIEW": secReview, "SUMMARY": secReview,
}

// reHeading matches a candidate heading line: optional markdown heading
// marks and bold, a name, an optional colon, and the rest of the line.
var reHeading = regexp.MustCompile(`^(\s*#{1,6}\s*)?(\*\*|__)?\s*([A-Za-z][A-Za-z _-]*[A-Za-z])\s*(\*\*|__)?\s*(:)?\s*(\*\*|__)?\s*(.*)$`)

var reSpaces = regexp.MustCompile(`[\s_-]+`)

// headingWords holds the first word of every alias, upper case.
var headingWords = func() map[string]bool {
	m := map[string]bool{}
	for alias := range sectionAliases {
		m[strings.Fields(alias)[0]] = true
	}
	return m
}()

// firstWord returns the leading letters of line after heading marks, in
// upper case ("## Patched_code:" → "PATCHED").
func firstWord(line string) string {
	line = strings.TrimLeft(line, " \t#*_")
	end := 0
	for end < len(line) && end < 20 && (line[end]|0x20 >= 'a' && line[end]|0x20 <= 'z') {
		end++
	}
	return strings.ToUpper(line[:end])
}

// heading reports whether line (outside a code fence) starts a section, the
// section's name and the text after the heading on the same line.
func heading(line string) (name, rest string, ok bool) {
	if !headingWords[firstWord(line)] {
		return "", "", false // cheap test before the regexp
	}
	m := reHeading.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	name, ok = sectionAliases[strings.ToUpper(reSpaces.ReplaceAllString(m[3], " "))]
	if !ok {
		return "", "", false
	}
	marked := m[1] != "" || m[2] != "" || m[4] != "" || m[6] != ""
	colon := m[5] != ""
	rest = strings.TrimSpace(m[7])
	if !marked {
		// A plain line must be a heading at column 0, "NAME" or "NAME: text";
		// never Go code such as "tests := ..." or an indented "tests: x,".
		if line != strings.TrimLeft(line, " \t") {
			return "", "", false
		}
		if rest != "" && (!colon || strings.HasPrefix(rest, "=")) {
			return "", "", false
		}
	}
	return name, rest, true
}

// isFence reports whether line opens or closes a fenced code block.
func isFence(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}

// splitSections splits a reply into named sections. Headings inside code
// fences are ignored. Text before the first heading is returned as preamble.
// When a name repeats, the first occurrence wins.
func splitSections(text string) (sections map[string]string, preamble string) {
	sections = map[string]string{}
	var (
		cur   string
		buf   strings.Builder
		fence bool
		pre   strings.Builder
	)
	flush := func() {
		if cur == "" {
			return
		}
		if _, seen := sections[cur]; !seen {
			sections[cur] = strings.TrimSpace(buf.String())
		}
		buf.Reset()
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if !fence {
			if name, rest, ok := heading(line); ok {
				flush()
				cur = name
				if rest != "" {
					buf.WriteString(rest)
					buf.WriteByte('\n')
				}
				continue
			}
		}
		if isFence(line) {
			fence = !fence
		}
		if cur == "" {
			pre.WriteString(line)
			pre.WriteByte('\n')
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
	}
	flush()
	return sections, strings.TrimSpace(pre.String())
}

// codeBlock is one fenced block.
type codeBlock struct {
	lang, body string
}

// codeBlocks returns the fenced blocks of text in order. A block whose
// closing fence is missing (a reply cut short) runs to the end of the text.
func codeBlocks(text string) []codeBlock {
	var (
		out   []codeBlock
		cur   *codeBlock
		body  strings.Builder
		close string
	)
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if cur == nil {
			if isFence(t) {
				close = t[:3]
				cur = &codeBlock{lang: strings.ToLower(strings.TrimSpace(strings.Trim(t, "`~")))}
				body.Reset()
			}
			continue
		}
		if strings.HasPrefix(t, close) && strings.Trim(t, close[:1]) == "" {
			cur.body = body.String()
			out = append(out, *cur)
			cur = nil
			continue
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	if cur != nil {
		cur.body = body.String()
		out = append(out, *cur)
	}
	return out
}

var rePackage = regexp.MustCompile(`(?m)^package\s+[A-Za-z_]\w*`)

// extractGo finds one Go file in text: the first fenced block that has a
// package clause, else the text itself when it has one. It returns "" when
// there is none.
func extractGo(text string) string {
	for _, b := range codeBlocks(text) {
		if b.lang != "" && b.lang != "go" && b.lang != "golang" {
			continue
		}
		if rePackage.MatchString(b.body) {
			return strings.TrimSpace(b.body) + "\n"
		}
	}
	if loc := rePackage.FindStringIndex(text); loc != nil && !strings.Contains(text, "```") {
		return strings.TrimSpace(text[loc[0]:]) + "\n"
	}
	return ""
}

// checkGo parses src as one Go file and returns its package name, or a
// FormatError naming the first syntax errors.
func checkGo(role Role, what, src string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), what, src, parser.AllErrors|parser.SkipObjectResolution)
	if err != nil {
		var list scanner.ErrorList
		msg := err.Error()
		if errors.As(err, &list) && len(list) > 3 {
			msg = fmt.Sprintf("%v (and %d more)", list[:3], len(list)-3)
		}
		return "", formatErr(role, "the Go code in your reply does not parse: %s", msg)
	}
	return f.Name.Name, nil
}

// ParseArchitect reads the architect's reply: a SPECIFICATIONS section in
// prose and a TESTS section holding one Go test file, fenced or not.
func ParseArchitect(text string) (ArchitectOutput, error) {
	if strings.TrimSpace(text) == "" {
		return ArchitectOutput{}, formatErr(RoleArchitect, "the reply is empty; answer with a SPECIFICATIONS section and a TESTS section")
	}
	secs, pre := splitSections(text)
	spec := secs[secSpec]
	testsText, hasTests := secs[secTests]
	if !hasTests {
		// No TESTS heading: take a Go block that holds tests from anywhere.
		for _, b := range codeBlocks(text) {
			if strings.Contains(b.body, "func Test") && rePackage.MatchString(b.body) {
				testsText = "```go\n" + b.body + "```"
				break
			}
		}
	}
	if spec == "" && !hasTests {
		// No headings at all: the prose before the first code block is the spec.
		if i := strings.Index(pre, "```"); i > 0 {
			spec = strings.TrimSpace(pre[:i])
		}
	}
	if strings.TrimSpace(spec) == "" {
		return ArchitectOutput{}, formatErr(RoleArchitect, "no SPECIFICATIONS section found; start a line with \"SPECIFICATIONS:\" and describe the API and its behaviour")
	}
	tests := extractGo(testsText)
	if tests == "" {
		return ArchitectOutput{}, formatErr(RoleArchitect, "no Go test file found in the TESTS section; put one complete _test.go file (package clause, imports, func TestXxx) in a ```go block after \"TESTS:\"")
	}
	if _, err := checkGo(RoleArchitect, "tests_test.go", tests); err != nil {
		return ArchitectOutput{}, err
	}
	if !strings.Contains(tests, "func Test") {
		return ArchitectOutput{}, formatErr(RoleArchitect, "the TESTS file has no func TestXxx(t *testing.T)")
	}
	return ArchitectOutput{Spec: spec, Tests: tests}, nil
}

// ParseCode reads a developer's reply: one Go file, in a CODE section or
// anywhere in a ```go block. pkg, when not empty, is the package the file
// must declare (the tests' package, without a _test suffix).
func ParseCode(role Role, text, pkg string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", formatErr(role, "the reply is empty; answer with the complete Go file in a ```go block")
	}
	secs, _ := splitSections(text)
	src := ""
	for _, name := range []string{secCode, secPatched} {
		if s, ok := secs[name]; ok {
			if src = extractGo(s); src != "" {
				break
			}
		}
	}
	if src == "" {
		src = extractGo(text)
	}
	return checkCode(role, src, pkg)
}

func checkCode(role Role, src, pkg string) (string, error) {
	if src == "" {
		return "", formatErr(role, "no Go file found; put the complete file, starting with its package clause, in a ```go block")
	}
	got, err := checkGo(role, "code.go", src)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(got, "_test") || strings.Contains(src, "\nfunc Test") {
		return "", formatErr(role, "the file is a test file (package %s or func TestXxx); send the implementation, not tests", got)
	}
	if pkg != "" && got != pkg {
		return "", formatErr(role, "the file is package %s but the tests are package %s; use package %s", got, pkg, pkg)
	}
	return src, nil
}

// ParseDebugger reads the debugger's reply: a DIAGNOSIS section and a
// PATCHED_CODE section with the complete corrected Go file. pkg is as for
// ParseCode.
func ParseDebugger(text, pkg string) (DebuggerOutput, error) {
	if strings.TrimSpace(text) == "" {
		return DebuggerOutput{}, formatErr(RoleDebugger, "the reply is empty; answer with DIAGNOSIS: and PATCHED_CODE: sections")
	}
	secs, _ := splitSections(text)
	diag := secs[secDiagnosis]
	if diag == "" {
		return DebuggerOutput{}, formatErr(RoleDebugger, "no DIAGNOSIS section found; start a line with \"DIAGNOSIS:\" and say what is wrong and why")
	}
	src := extractGo(secs[secPatched])
	if src == "" {
		src = extractGo(secs[secCode])
	}
	if src == "" {
		// The whole reply: a block after the diagnosis, with no heading.
		src = extractGo(text)
	}
	if src == "" {
		return DebuggerOutput{}, formatErr(RoleDebugger, "no PATCHED_CODE section with a Go file found; after \"PATCHED_CODE:\" put the complete corrected file in a ```go block")
	}
	code, err := checkCode(RoleDebugger, src, pkg)
	if err != nil {
		return DebuggerOutput{}, err
	}
	return DebuggerOutput{Diagnosis: stripFences(diag), Code: code}, nil
}

// stripFences removes fenced blocks from prose (a diagnosis quoting code).
func stripFences(s string) string {
	var out []string
	fence := false
	for _, l := range strings.Split(s, "\n") {
		if isFence(l) {
			fence = !fence
			continue
		}
		if !fence {
			out = append(out, l)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// testPackage returns the package the code must use for the given test
// file: its package name without a _test suffix.
func testPackage(tests string) string {
	name, err := checkGo(RoleArchitect, "tests_test.go", tests)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(name, "_test")
}

package findings

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/personas"
)

// One report per root cause. A finding's cause is what makes two findings
// one bug, wherever and however often they show:
//
//   - a server error: the error its body names (numbers and ids
//     normalised), else the method, route template and status;
//   - an uncaught error or a console error: its message, normalised, and,
//     when it carries a stack, the frame that threw (its function, and
//     its script and line: the script's URL template, or only the line
//     for a script inline in the page, whose address is the page's). A
//     generic message ("Request failed with status code 500") thrown by
//     two handlers is two bugs; one handler throwing it on every record
//     is one;
//   - an accessibility violation: the axe rule and the element (its tag
//     and attributes, normalised), not the page (a logo without a name
//     on every page is one bug);
//   - a broken link: its path template; a slow response: its method and
//     path template;
//   - a dead control, an executed script: the element;
//   - an error banner and a stack trace: the text shown.
//
// Within one action, the banner, the stack trace and the console's
// "Failed to load resource" echo of a failing request are symptoms of the
// request's bug (or of an uncaught error), listed on it, not bugs of
// their own. A console echo of a failed load is never a bug by itself:
// the response oracles see the response. A banner that reads like a
// validation message ("Name is required.") and shows no error signature
// (an exception, a stack, SQL, a status code) is the app answering bad
// input as it should: an observation in traces.log, not a bug.

var (
	reURL        = regexp.MustCompile(`https?://[^\s"'<>)]+`)
	reLineCol    = regexp.MustCompile(`:\d+(:\d+)?\b`)
	reDigits     = regexp.MustCompile(`\d+`)
	reSpace      = regexp.MustCompile(`\s+`)
	reStartTagEv = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	reStyleAttr  = regexp.MustCompile(`\s+style=("[^"]*"|'[^']*')`)
	// reValueAttr is a field's value in a start tag: data (typed, or the
	// record's), not what tells one element from another.
	reValueAttr = regexp.MustCompile(`\s+value=("[^"]*"|'[^']*'|[^\s>]*)`)
	reLoadEcho  = regexp.MustCompile(`(?i)^failed to load resource: (the server responded with a status of \d+|net::err_)`)
	// reErrorSign marks text that reports a failure, not a validation.
	reErrorSign = regexp.MustCompile(`(?i)exception|traceback|stack|\bat [\w.$<>]+ ?\(|\bsql|sqlstate|syntax error|unexpected|undefined|null\b|nil\b|panic|fatal|internal|(?:status|error|http|code)\W{0,3}5\d\d\b|\b5\d\d (?:internal|server|bad gateway|service)|errno|failed|failure|crash`)
	// reValidation marks the wording of a validation message.
	reValidation = regexp.MustCompile(`(?i)\b(required|must|invalid|please|enter|between|at least|at most|too (long|short)|format|whole[- ]number|allowed|cannot be (empty|blank)|can't be (empty|blank)|not valid|should|choose|select|pick|provide|fill in)\b`)
)

// norm flattens text for comparison: URLs, line:column and numbers go,
// space collapses, case folds; at most n runes.
func norm(s string, n int) string {
	s = reURL.ReplaceAllString(s, "<url>")
	s = reLineCol.ReplaceAllString(s, "")
	s = reDigits.ReplaceAllString(s, "#")
	s = strings.ToLower(strings.TrimSpace(reSpace.ReplaceAllString(s, " ")))
	return clip.String(s, n)
}

// elementSig is the first start tag of an evidence's HTML, normalised;
// its inline style (which a page, or the explorer's outline, changes) left
// out.
func ElementSig(evidence string) string {
	if t := reStartTagEv.FindString(evidence); t != "" {
		return norm(reValueAttr.ReplaceAllString(reStyleAttr.ReplaceAllString(t, ""), ""), 200)
	}
	return norm(evidence, 120)
}

// echoOfLoad reports a console error that only echoes a failed response.
func echoOfLoad(f browser.Finding) bool {
	return f.Kind == browser.FindConsoleError && reLoadEcho.MatchString(strings.TrimSpace(f.Message))
}

// validationMessage reports banner text that reads like a validation
// message and carries no error signature.
func ValidationMessage(text string) bool {
	return (reValidation.MatchString(text) || reCredentialsRefused.MatchString(text)) && !reErrorSign.MatchString(text)
}

// reCredentialsRefused is a sign-in form's answer to credentials it does
// not take ("Wrong email or password", "Incorrect username or
// password"): the app doing its job.
var reCredentialsRefused = regexp.MustCompile(`(?i)\b(wrong|incorrect|invalid|unknown|bad)\b.{0,30}\b(e-?mail|user ?name|login|password|credentials)\b|\b(e-?mail|user ?name|password|credentials)\b.{0,40}\b(wrong|incorrect|not recogni[sz]ed|(do(es)?n't|did not|do not) match)\b`)

// reCrossUser reads the users of a FindCrossUser finding's message
// ("<viewer> sees <owner>'s data: …"; user names have no spaces).
var reCrossUser = regexp.MustCompile(`^([A-Za-z0-9_-]+) sees ([A-Za-z0-9_-]+)'s data`)

// axeSameDefect maps an axe-core rule that reports the same defect of
// an element as another rule does to that rule: a field named by its
// title alone fails "label" and the best-practice "label-title-only"
// together, and is one cause.
var axeSameDefect = map[string]string{"label-title-only": "label"}

// rootCause is the cause key of a finding on page.
func RootCause(f browser.Finding, page string) string {
	ev := BugEvidence(f)
	switch f.Kind {
	case browser.FindServerError:
		if _, body, ok := strings.Cut(f.Evidence, "body:"); ok && strings.TrimSpace(body) != "" {
			return "5xx|" + norm(errorPart(WithoutRequest(body, FirstNonEmpty(f.URL, page))), 160)
		}
		return "5xx|" + norm(f.Message, 160)
	case browser.FindPageError, browser.FindConsoleError:
		msg := f.Message
		if msg == "" {
			msg = ev
		}
		if i := strings.Index(msg, "\n"); i > 0 {
			msg = msg[:i]
		}
		key := "js|" + norm(msg, 200)
		if fr, ok := topFrame(f.Evidence); ok {
			key += "|" + fr.where(FirstNonEmpty(f.URL, page))
		}
		return key
	case collector.FindA11y:
		rule := ""
		if m := ReRule.FindStringSubmatch(ev); m != nil {
			rule = m[1]
		}
		if r, ok := axeSameDefect[rule]; ok {
			rule = r
		}
		return "a11y|" + rule + "|" + ElementSig(f.Evidence)
	case browser.FindNotFound:
		return "404|" + personas.URLTemplate(urlx.Path(FirstNonEmpty(f.URL, page)))
	case collector.FindSlow:
		return "slow|" + norm(strings.SplitN(f.Message, " ", 3)[0], 10) + " " + personas.URLTemplate(urlx.Path(FirstNonEmpty(f.URL, page)))
	case collector.FindXSS:
		// The sink: a reflected payload is its page and the parameters
		// that carried it, whichever payload and detector; a stored one
		// is the element it ran in (or its page, when only the typed
		// payload's marker told).
		u := FirstNonEmpty(f.URL, page)
		tpl := personas.URLTemplate(urlx.Path(u))
		if ps := payloadParams(u); ps != "" {
			return "xss|" + tpl + "?" + ps
		}
		if strings.Contains(ev, collector.XSSMarker) && reStartTagEv.FindString(f.Evidence) == "" {
			// Only the marker's console line told: no element to name.
			return "xss|" + tpl
		}
		return "xss|" + ElementSig(f.Evidence)
	case collector.FindDeadControl:
		return string(f.Kind) + "|" + ElementSig(f.Evidence)
	case collector.FindDuplicateRow:
		// The same list showing a record twice, whichever record.
		return string(f.Kind) + "|" + personas.URLTemplate(urlx.Path(FirstNonEmpty(f.URL, page)))
	case browser.FindErrorBanner, browser.FindStackTrace:
		return "text|" + norm(FirstNonEmpty(f.Evidence, f.Message), 160)
	case FindCrossUser:
		// The page template and the two users, either way round.
		if m := reCrossUser.FindStringSubmatch(f.Message); m != nil {
			return crossUserCause(f, CrossLeak{Viewer: m[1], Owner: m[2]}, page)
		}
	}
	return string(f.Kind) + "|" + personas.URLTemplate(urlx.Path(page)) + "|" + norm(f.Message, 160)
}

// reFrame reads a stack frame: V8's "at fn (url:line:col)" or
// "at url:line:col", and Firefox's and Safari's "fn@url:line:col".
var (
	reFrameV8 = regexp.MustCompile(`^\s*at (?:(.+?) \()?((?:https?|file|blob):[^\s()]*?):(\d+):\d+\)?\s*$`)
	reFrameFF = regexp.MustCompile(`^\s*([^@\s]*)@((?:https?|file|blob):[^\s]*?):(\d+):\d+\s*$`)
)

// frame is a stack frame: the function, the script's URL and the line.
type frame struct{ fn, file, line string }

// topFrame is the first frame of a stack (the one that threw).
func topFrame(stack string) (frame, bool) {
	for _, l := range strings.Split(stack, "\n") {
		for _, re := range []*regexp.Regexp{reFrameV8, reFrameFF} {
			if m := re.FindStringSubmatch(l); m != nil {
				return frame{fn: m[1], file: m[2], line: m[3]}, true
			}
		}
	}
	return frame{}, false
}

// where is the frame as part of a cause: its function and line, and the
// script's URL template when the script is a file of its own. A script
// inline in the page has the page's address, which names the record the
// page shows; its line is what tells one handler from another. The
// address is the one the document was loaded at, which a client-side
// route (pushState) may have changed since: a frame whose address is not
// the page's and has no file extension (a document's, not a script's)
// is inline too, so one handler is one cause however its page was
// reached.
func (fr frame) where(page string) string {
	fn := norm(fr.fn, 80)
	if p := urlx.Path(fr.file); p != "" && p != urlx.Path(page) && strings.Contains(path.Base(p), ".") {
		return fn + "@" + personas.URLTemplate(p) + ":" + fr.line
	}
	return fn + "@inline:" + fr.line
}

// payloadParams are the query parameters of rawURL whose values carry
// markup (a reflected payload), sorted and comma-joined.
func payloadParams(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	var names []string
	for k, vs := range u.Query() {
		for _, v := range vs {
			if strings.ContainsAny(v, "<>\"") || strings.Contains(strings.ToLower(v), "javascript:") {
				names = append(names, k)
				break
			}
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// errorPart is the part of an error page's text that says what failed:
// the first of its parts (split where the page repeats its status, and at
// separators and sentence ends) that reads like an error. The rest is the
// page's chrome, which shows data (the signed-in user's name, a count)
// that differs from one sighting of the cause to the next. A text with no
// such part is kept whole.
func errorPart(text string) string {
	parts := reSegment.Split(ReStatusPhrase.ReplaceAllString(text, "\n"), -1)
	for _, p := range parts {
		// Markup shown as text (a name the mission typed, such as the
		// markup probe's "onerror") says nothing of what failed.
		if reErrorWords.MatchString(reShownMarkup.ReplaceAllString(p, " ")) {
			return strings.TrimSpace(p)
		}
	}
	return text
}

// reShownMarkup is a tag in a page's text, raw or escaped.
var reShownMarkup = regexp.MustCompile(`(?i)&lt;.*?&gt;|<[^<>]*>`)

var (
	// reStatusPhrase is an error page's status line: its code and reason.
	ReStatusPhrase = regexp.MustCompile(`(?i)\b(?:http\s*)?5\d\d\b|\b(?:internal\s+)?server\s+error\b|\bbad\s+gateway\b|\bservice\s+(?:temporarily\s+)?unavailable\b|\bgateway\s+time-?out\b|\bsomething\s+went\s+wrong\b`)
	reSegment      = regexp.MustCompile(`\n|\s[·|•—–]\s|\.\s`)
	reErrorWords   = regexp.MustCompile(`(?i)error|exception|traceback|panic|fatal|fault|violat|constraint|too long|overflow|undefined|\bnull\b|\bnil\b|invalid|failed|cannot|can't|unable|division|refused|denied|out of range|not found`)
)

// withoutRequest takes the failing request's own path (as sent, and as
// its route template) out of an error text: an error that quotes the
// request ("no session for GET /reports") is one cause on every route.
func WithoutRequest(text, rawURL string) string {
	if p := urlx.Path(rawURL); p != "" && p != "/" {
		for _, s := range []string{p, personas.URLTemplate(p)} {
			text = replacePath(text, s)
			text = replacePath(text, strings.ToLower(s))
		}
	}
	return WithoutQueryValues(text, rawURL)
}

// withoutQueryValues replaces in text the values of rawURL's query where
// each stands as a word of its own: an error that echoes the parameter it
// failed on (`sort key "-budget"`, `sort key "budget"`) is one cause
// whatever the value. Digits go anyway (norm); a one-letter value is
// left, as it would match too much.
func WithoutQueryValues(text, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.RawQuery == "" {
		return text
	}
	var vals []string
	for _, vs := range u.Query() {
		for _, v := range vs {
			if v = strings.TrimSpace(v); len(v) >= 2 && len(v) <= 200 && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
	}
	// longest first, so a value inside another does not cut it
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	for _, v := range vals {
		text = replaceWord(text, v, "<value>")
	}
	return text
}

// replaceWord replaces w in text where no letter, digit or underscore
// continues it on either side.
func replaceWord(text, w, with string) string {
	return replaceStanding(text, w, with, func(text string, i int, _ bool) bool {
		if i < 0 || i >= len(text) {
			return false
		}
		c := text[i]
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
	})
}

// replacePath replaces the path p in text where it stands as a path of
// its own ("GET /a: no session"), not where it is part of a longer name
// (a Go package path in a stack trace, a longer path).
func replacePath(text, p string) string {
	return replaceStanding(text, p, "<path>", pathRune)
}

// replaceStanding replaces w in text by with wherever the byte before
// it and the byte after it do not continue it (continues(text, i, after)).
func replaceStanding(text, w, with string, continues func(text string, i int, after bool) bool) string {
	var b strings.Builder
	for {
		i := strings.Index(text, w)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := i + len(w)
		if continues(text, i-1, false) || continues(text, end, true) {
			b.WriteString(text[:end])
		} else {
			b.WriteString(text[:i])
			b.WriteString(with)
		}
		text = text[end:]
	}
}

// pathRune: the byte of text at i continues a path or a name (a letter,
// a digit, _ - / ~, or after the path a dot or a colon that something
// other than space follows).
func pathRune(text string, i int, after bool) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '/', c == '~':
		return true
	case c == '.' || c == ':':
		if !after {
			return c == '.'
		}
		return i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\n'
	}
	return false
}

func FirstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// symptomKinds are the kinds that, in the same action as a server error
// or an uncaught error, are that error's symptoms.
var SymptomKinds = []browser.FindingKind{browser.FindErrorBanner, browser.FindStackTrace, browser.FindConsoleError}

// causeRank orders one action's findings: the most specific symptom of a
// cause first, so it names the bug and the others join it.
func causeRank(k browser.FindingKind) int {
	switch k {
	case browser.FindServerError:
		return 0
	case browser.FindPageError:
		return 1
	case browser.FindStackTrace:
		return 3
	case browser.FindErrorBanner:
		return 4
	case browser.FindConsoleError:
		return 5
	case collector.FindDuplicateRow:
		return 6 // after a double submission of the same action (known)
	}
	return 2
}

// sortByCause orders fs by causeRank (stable).
func SortByCause(fs []browser.Finding) {
	slices.SortStableFunc(fs, func(a, b browser.Finding) int { return causeRank(a.Kind) - causeRank(b.Kind) })
}

// Severity of a bug.
const (
	SeverityCritical = "critical" // data loss, a server error, an executed script
	SeverityMajor    = "major"    // an uncaught error, a dead control, a double submission, a broken link, an error shown
	SeverityMinor    = "minor"    // console noise, a slow page, an accessibility violation
)

// severityOf is a bug kind's severity.
func SeverityOf(kind string) string {
	switch browser.FindingKind(kind) {
	case browser.FindServerError, collector.FindXSS, FindCrossUser:
		return SeverityCritical
	case browser.FindPageError, collector.FindDeadControl, collector.FindDuplicate, collector.FindDuplicateRow, browser.FindNotFound,
		browser.FindErrorBanner, browser.FindStackTrace:
		return SeverityMajor
	}
	return SeverityMinor
}

// memorySeverity maps a severity onto memory's scale.
func MemorySeverity(s string) string {
	switch s {
	case SeverityCritical:
		return "critical"
	case SeverityMajor:
		return "high"
	}
	return "low"
}

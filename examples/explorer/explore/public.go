package explore

import (
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

// The browser talks to the app through the collector, a proxy on a
// loopback port of its own that lives as long as the run. Every address an
// artifact keeps (bugs, the tape, traces.log, the reports, memory) is the
// app's own: an addresser rewrites the collector's origin, and its bare
// host:port, into the target's.
type addresser struct {
	full *regexp.Regexp // the front's origin (scheme and host), not followed by more port digits
	host *regexp.Regexp // its host:port alone
	to   string         // the target, without a trailing slash
	toH  string         // the target's host:port
}

// newAddresser maps front (http://host:port) onto target; nil (a no-op)
// when either is empty or they are the same.
func newAddresser(front, target string) *addresser {
	front, target = strings.TrimRight(front, "/"), strings.TrimRight(target, "/")
	fu, err1 := url.Parse(front)
	tu, err2 := url.Parse(target)
	if front == "" || target == "" || front == target || err1 != nil || err2 != nil || fu.Host == "" {
		return nil
	}
	return &addresser{
		full: regexp.MustCompile(regexp.QuoteMeta(fu.Scheme+"://"+fu.Host) + `\b`),
		host: regexp.MustCompile(`\b` + regexp.QuoteMeta(fu.Host) + `\b`),
		to:   target, toH: tu.Host,
	}
}

// text rewrites the front's addresses in s and takes out the script tags
// the collector injected into a page (a body quoted as evidence).
func (a *addresser) text(s string) string {
	if s == "" {
		return s
	}
	if strings.Contains(s, collectorPrefix) {
		s = strings.ReplaceAll(s, injectTag, "")
		s = strings.ReplaceAll(s, injectTagNoAxe, "")
	}
	if a == nil {
		return s
	}
	s = a.full.ReplaceAllLiteralString(s, a.to)
	return a.host.ReplaceAllLiteralString(s, a.toH)
}

func (a *addresser) finding(f browser.Finding) browser.Finding {
	f.URL, f.Message, f.Evidence = a.text(f.URL), a.text(f.Message), a.text(f.Evidence)
	return f
}

func (a *addresser) findings(fs []browser.Finding) []browser.Finding {
	if len(fs) == 0 {
		return fs
	}
	out := make([]browser.Finding, len(fs))
	for i, f := range fs {
		out[i] = a.finding(f)
	}
	return out
}

// entry is e with the target's addresses (e itself is left as it is).
func (a *addresser) entry(e browser.Entry) browser.Entry {
	e.URL, e.Params.URL = a.text(e.URL), a.text(e.Params.URL)
	e.Result, e.Error = a.text(e.Result), a.text(e.Error)
	// A title too: a page still loading is titled by its address. A
	// locator or a typed value may quote what the page showed (its own
	// address), which replays as the target's.
	e.Title, e.Params.Target, e.Params.To, e.Params.Text = a.text(e.Title), a.text(e.Params.Target), a.text(e.Params.To), a.text(e.Params.Text)
	e.Locator, e.HoverLocator, e.FocusLocator, e.DropLocator = a.text(e.Locator), a.text(e.HoverLocator), a.text(e.FocusLocator), a.text(e.DropLocator)
	if e.Params.Value != nil {
		v := a.text(*e.Params.Value)
		e.Params.Value = &v
	}
	e.Findings = a.findings(e.Findings)
	return e
}

// writer rewrites every write to w (a log handler writes one record per
// call, so an address is never split across writes).
func (a *addresser) writer(w io.Writer) io.Writer {
	if a == nil {
		return w
	}
	return addressWriter{a: a, w: w}
}

type addressWriter struct {
	a *addresser
	w io.Writer
}

func (aw addressWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(aw.w, aw.a.text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

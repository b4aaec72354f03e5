package collector

import (
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

// The browser talks to the app through the collector, a proxy on a
// loopback port of its own that lives as long as the run. Every address an
// artifact keeps (bugs, the tape, traces.log, the reports, memory) is the
// app's own: an Addresser rewrites the collector's origin, and its bare
// host:port, into the target's.
type Addresser struct {
	full *regexp.Regexp // the front's origin (scheme and host), not followed by more port digits
	host *regexp.Regexp // its host:port alone
	to   string         // the target, without a trailing slash
	toH  string         // the target's host:port
}

// NewAddresser maps front (http://host:port) onto target; nil (a no-op)
// when either is empty or they are the same.
func NewAddresser(front, target string) *Addresser {
	front, target = strings.TrimRight(front, "/"), strings.TrimRight(target, "/")
	fu, err1 := url.Parse(front)
	tu, err2 := url.Parse(target)
	if front == "" || target == "" || front == target || err1 != nil || err2 != nil || fu.Host == "" {
		return nil
	}
	return &Addresser{
		full: regexp.MustCompile(regexp.QuoteMeta(fu.Scheme+"://"+fu.Host) + `\b`),
		host: regexp.MustCompile(`\b` + regexp.QuoteMeta(fu.Host) + `\b`),
		to:   target, toH: tu.Host,
	}
}

// Text rewrites the front's addresses in s and takes out the script tags
// the collector injected into a page (a body quoted as evidence).
func (a *Addresser) Text(s string) string {
	if s == "" {
		return s
	}
	if strings.Contains(s, Prefix) {
		s = strings.ReplaceAll(s, injectTag, "")
		s = strings.ReplaceAll(s, injectTagNoAxe, "")
	}
	if a == nil {
		return s
	}
	s = a.full.ReplaceAllLiteralString(s, a.to)
	return a.host.ReplaceAllLiteralString(s, a.toH)
}

func (a *Addresser) Finding(f browser.Finding) browser.Finding {
	f.URL, f.Message, f.Evidence = a.Text(f.URL), a.Text(f.Message), a.Text(f.Evidence)
	return f
}

func (a *Addresser) Findings(fs []browser.Finding) []browser.Finding {
	if len(fs) == 0 {
		return fs
	}
	out := make([]browser.Finding, len(fs))
	for i, f := range fs {
		out[i] = a.Finding(f)
	}
	return out
}

// Entry is e with the target's addresses (e itself is left as it is).
func (a *Addresser) Entry(e browser.Entry) browser.Entry {
	e.URL, e.Params.URL = a.Text(e.URL), a.Text(e.Params.URL)
	e.Result, e.Error = a.Text(e.Result), a.Text(e.Error)
	// A title too: a page still loading is titled by its address. A
	// locator or a typed value may quote what the page showed (its own
	// address), which replays as the target's.
	e.Title, e.Params.Target, e.Params.To, e.Params.Text = a.Text(e.Title), a.Text(e.Params.Target), a.Text(e.Params.To), a.Text(e.Params.Text)
	e.Locator, e.HoverLocator, e.FocusLocator, e.DropLocator = a.Text(e.Locator), a.Text(e.HoverLocator), a.Text(e.FocusLocator), a.Text(e.DropLocator)
	if e.Params.Value != nil {
		v := a.Text(*e.Params.Value)
		e.Params.Value = &v
	}
	if len(e.Locators) > 0 {
		e.Locators = slices.Clone(e.Locators)
		for i, l := range e.Locators {
			e.Locators[i] = a.Text(l)
		}
	}
	if len(e.Params.Fields) > 0 {
		e.Params.Fields = slices.Clone(e.Params.Fields)
		for i, f := range e.Params.Fields {
			e.Params.Fields[i].Target, e.Params.Fields[i].Value = a.Text(f.Target), a.Text(f.Value)
		}
	}
	e.Findings = a.Findings(e.Findings)
	return e
}

// Writer rewrites every write to w (a log handler writes one record per
// call, so an address is never split across writes).
func (a *Addresser) Writer(w io.Writer) io.Writer {
	if a == nil {
		return w
	}
	return addressWriter{a: a, w: w}
}

type addressWriter struct {
	a *Addresser
	w io.Writer
}

func (aw addressWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(aw.w, aw.a.Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

package browser

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/internal/safefile"
)

// Entry is one action on the tape: what was asked, what it touched, what
// happened. Entries are immutable once written.
type Entry struct {
	Seq  int64     `json:"seq"`
	Time time.Time `json:"ts"`
	User string    `json:"user"`
	// Account is the app account the action was taken as, when a run
	// signs in as several users ("" for one).
	Account string `json:"account,omitempty"`
	Action  Action `json:"action"`
	Params  Intent `json:"params"`
	// Locator is the Playwright Test locator the target resolved to, e.g.
	// getByTestId('save') ("" for actions without a target).
	Locator string `json:"locator,omitempty"`
	// HoverLocator is the row that had to be hovered first to reveal a
	// hover-only control.
	HoverLocator string `json:"hover_locator,omitempty"`
	// FocusLocator is the field that had to be focused first to reveal a
	// control shown only while it has focus.
	FocusLocator string `json:"focus_locator,omitempty"`
	// DropLocator is where a drag dropped the element.
	DropLocator string `json:"drop_locator,omitempty"`
	// Locators are the locators of the fields a fill_form did, in the
	// order of Params.Fields (fewer when a field failed).
	Locators   []string  `json:"locators,omitempty"`
	OK         bool      `json:"ok"`
	DurationMS int64     `json:"duration_ms"`
	Result     string    `json:"result,omitempty"`
	Error      string    `json:"error,omitempty"`
	URL        string    `json:"url,omitempty"`
	Title      string    `json:"title,omitempty"`
	Findings   []Finding `json:"findings,omitempty"`
}

// Filled is one field an entry typed into or chose an option of.
type Filled struct {
	Kind    string // FieldFill, FieldSelect or FieldCheck
	Target  string // as the intent named it
	Locator string // the Playwright Test locator it resolved to ("" when not recorded)
	Value   string // the text typed or the option chosen ("" for a tick)
}

// Filled lists the fields e acted on: a fill's or a select_option's
// target (when it succeeded), or each field of a fill_form that was done
// (all of them when it succeeded, those with a recorded locator when it
// stopped part-way). Nil for any other entry.
func (e Entry) Filled() []Filled {
	switch e.Action {
	case ActFill, ActSelectOption:
		if !e.OK {
			return nil
		}
		k := FieldFill
		if e.Action == ActSelectOption {
			k = FieldSelect
		}
		return []Filled{{Kind: k, Target: e.Params.Target, Locator: e.Locator, Value: e.Params.ValueOrEmpty()}}
	case ActFillForm:
		n := len(e.Params.Fields)
		if !e.OK {
			n = min(n, len(e.Locators))
		}
		out := make([]Filled, 0, n)
		for i, f := range e.Params.Fields[:n] {
			fl := Filled{Kind: f.kind(), Target: f.Target, Value: f.Value}
			if i < len(e.Locators) {
				fl.Locator = e.Locators[i]
			}
			out = append(out, fl)
		}
		return out
	}
	return nil
}

// Tape is an append-only JSONL file of entries. Each Append writes one line
// and fsyncs it, so a crash loses at most the line being written. Safe for
// concurrent use.
type Tape struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// OpenTape opens (or creates) a tape file for appending. A torn last line
// left by a crash is terminated so the next entry starts on its own line.
// A symlink (or anything but a regular file) at path is refused: the tape
// is never written through a link.
func OpenTape(path string) (*Tape, error) {
	f, err := safefile.OpenAppend(path, 0o600, false)
	if err != nil {
		return nil, fmt.Errorf("browser: open tape: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte("\n")); err != nil {
				f.Close()
				return nil, fmt.Errorf("browser: open tape: %w", err)
			}
		}
	}
	return &Tape{f: f, path: path}, nil
}

// Path is the tape's file.
func (t *Tape) Path() string { return t.path }

// Append writes e as one line and syncs it to disk.
func (t *Tape) Append(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("browser: tape: encode: %w", err)
	}
	b = append(b, '\n')
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return errors.New("browser: tape closed")
	}
	if _, err := t.f.Write(b); err != nil {
		return fmt.Errorf("browser: tape: write: %w", err)
	}
	if err := t.f.Sync(); err != nil {
		return fmt.Errorf("browser: tape: sync: %w", err)
	}
	return nil
}

// Close closes the file.
func (t *Tape) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}

// TapeReport says what ReadTape skipped.
type TapeReport struct {
	Lines   int
	Skipped int  // undecodable lines (not JSON)
	Torn    bool // the last line was incomplete (crash mid-write)
	// SkippedLines are the line numbers of the first MaxTapeErrors
	// undecodable lines.
	SkippedLines []int
	// Invalid lists the first MaxTapeErrors lines that decoded but were not
	// trusted (Entry.Validate failed, a navigation off the tape's origin, a
	// forged sequence number); their entries are left out. InvalidCount
	// counts them all.
	Invalid      []*EntryError
	InvalidCount int
}

// MaxTapeErrors bounds the lines a TapeReport (and the reader's error)
// lists; the counts go on.
const MaxTapeErrors = 20

// Problems says, in one line, what the reader left out and why ("" for a
// clean tape): the lines that are not JSON (the last one torn by a crash, or
// a damaged file) and the entries not trusted, the first few of each by
// line.
func (rep TapeReport) Problems() string {
	var parts []string
	if rep.Skipped > 0 {
		p := fmt.Sprintf("%d lines are not JSON (lines %s", rep.Skipped, joinInts(rep.SkippedLines))
		if rep.Skipped > len(rep.SkippedLines) {
			p += ", …"
		}
		p += ")"
		if rep.Torn {
			p += "; the last one was cut short by a crash"
		}
		parts = append(parts, p)
	}
	if rep.InvalidCount > 0 {
		parts = append(parts, rep.invalidErr().Error())
	}
	return strings.Join(parts, "; ")
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// TapeOptions say what the tape reader expects of a tape beyond
// Entry.Validate.
type TapeOptions struct {
	// Origin (scheme://host[:port]) is where the tape's successful
	// navigations must stay: a navigation to an absolute URL (or a
	// scheme-relative //host one) of another origin is not trusted. ""
	// takes the origin of the tape's first successful navigation to an
	// absolute URL; paths are always fine.
	Origin string
	// Sequential says the tape was written by one recorder numbering its
	// entries 1, 2, 3… one line each (the explorer's mission tape): an
	// entry whose seq is not above the previous entry's, or is above its own
	// line number (a jump no recorder makes), is not trusted.
	Sequential bool
}

// EntryError is a tape line whose entry failed validation.
type EntryError struct {
	Line int   // 1-based line number in the tape
	Seq  int64 // the entry's sequence number
	Err  error
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("tape line %d (seq %d): %v", e.Line, e.Seq, e.Err)
}

func (e *EntryError) Unwrap() error { return e.Err }

// ReadTape reads every entry of a tape. A torn or corrupt line (a crash
// mid-write) is skipped and counted, never fatal. An entry that decodes but
// fails Entry.Validate is not trusted: it is left out, listed in
// TapeReport.Invalid with its line number, and the error joins those
// *EntryError values; the valid entries are still returned.
//
// ReadTape is ReadTapeWith with the zero TapeOptions: the tape's
// navigations stay on the origin of its first absolute one.
func ReadTape(r io.Reader) ([]Entry, TapeReport, error) {
	return ReadTapeWith(r, TapeOptions{})
}

// ReadTapeWith is ReadTape with the origin and numbering the tape must keep
// (TapeOptions). At most MaxTapeErrors invalid lines are listed, in the
// report and the error, with the count of them all.
func ReadTapeWith(r io.Reader, opts TapeOptions) ([]Entry, TapeReport, error) {
	var (
		out     []Entry
		rep     TapeReport
		lastSeq int64
	)
	origin := ""
	if opts.Origin != "" {
		u, err := url.Parse(opts.Origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, rep, fmt.Errorf("browser: read tape: origin %q is not an http(s) origin", opts.Origin)
		}
		origin = originOf(u, "")
	}
	invalid := func(lineNo int, e Entry, err error) {
		rep.InvalidCount++
		if len(rep.Invalid) < MaxTapeErrors {
			rep.Invalid = append(rep.Invalid, &EntryError{Line: lineNo, Seq: e.Seq, Err: err})
		}
	}
	br := bufio.NewReaderSize(r, 64*1024)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			complete := line[len(line)-1] == '\n'
			line = bytes.TrimSpace(line)
			if len(line) > 0 {
				rep.Lines++
				var e Entry
				if jerr := json.Unmarshal(line, &e); jerr != nil {
					if !complete {
						rep.Torn = true
					}
					rep.Skipped++
					if len(rep.SkippedLines) < MaxTapeErrors {
						rep.SkippedLines = append(rep.SkippedLines, lineNo)
					}
				} else if verr := e.Validate(); verr != nil {
					invalid(lineNo, e, verr)
				} else if oerr := checkOrigin(e, &origin); oerr != nil {
					invalid(lineNo, e, oerr)
				} else if opts.Sequential && (e.Seq <= lastSeq || e.Seq > int64(lineNo)) {
					if e.Seq <= lastSeq {
						invalid(lineNo, e, fmt.Errorf("seq %d is not above the previous entry's %d", e.Seq, lastSeq))
					} else {
						invalid(lineNo, e, fmt.Errorf("seq %d jumps past its line %d (a recorder numbers one entry a line from 1)", e.Seq, lineNo))
					}
				} else {
					lastSeq = e.Seq
					out = append(out, e)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return out, rep, rep.invalidErr()
		}
		if err != nil {
			return out, rep, fmt.Errorf("browser: read tape: %w", err)
		}
	}
}

func (rep TapeReport) invalidErr() error {
	if rep.InvalidCount == 0 {
		return nil
	}
	errs := make([]error, len(rep.Invalid))
	for i, e := range rep.Invalid {
		errs[i] = e
	}
	if rep.InvalidCount > len(rep.Invalid) {
		return fmt.Errorf("browser: read tape: %d invalid entries, the first %d: %w", rep.InvalidCount, len(rep.Invalid), errors.Join(errs...))
	}
	return fmt.Errorf("browser: read tape: %d invalid entries: %w", rep.InvalidCount, errors.Join(errs...))
}

// navigateURL is what a successful navigate entry replays: its params.url,
// else the URL it landed on ("" for any other entry).
func navigateURL(e Entry) string {
	if !e.OK || e.Action != ActNavigate {
		return ""
	}
	if e.Params.URL != "" {
		return e.Params.URL
	}
	return e.URL
}

// checkOrigin refuses a successful navigation off *origin; "" takes the
// navigation's own origin when it names one. A browser reads a backslash
// in a URL as a slash (/\evil.example is //evil.example), so it
// is read that way here too.
func checkOrigin(e Entry, origin *string) error {
	raw := navigateURL(e)
	if raw == "" {
		return nil
	}
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = strings.ReplaceAll(raw[:i], `\`, "/") + raw[i:]
	} else {
		raw = strings.ReplaceAll(raw, `\`, "/")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return fmt.Errorf("navigate url does not parse: %w", err)
	}
	if u.Host == "" && u.Scheme == "" {
		return nil // a path: on whatever origin the spec runs against
	}
	scheme := ""
	if *origin != "" {
		scheme = (*origin)[:strings.Index(*origin, "://")]
	}
	o := originOf(u, scheme)
	if *origin == "" {
		*origin = o
		return nil
	}
	if o != *origin {
		return fmt.Errorf("navigate to %s leaves the tape's origin %s", clip(o, 100), *origin)
	}
	return nil
}

// originOf is u's scheme://host[:port], lower-cased, without a default
// port; a scheme-relative URL takes scheme.
func originOf(u *url.URL, scheme string) string {
	if u.Scheme != "" {
		scheme = strings.ToLower(u.Scheme)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// Validate checks what a spec is built from, so a tampered entry is refused
// rather than trusted: the action is known (or empty on a refused intent),
// the parameters' action agrees, locators parse with ParseLocator, URLs
// parse, and the parameters respect the intent rules (enums, bounds and,
// on a successful entry, the selector policy for the target).
func (e Entry) Validate() error {
	if _, known := actionSpecs[e.Action]; !known && (e.Action != "" || e.OK) {
		return fmt.Errorf("unknown action %q", clip(string(e.Action), 60))
	}
	if e.Params.Action != "" && e.Params.Action != e.Action {
		return fmt.Errorf("params action %q differs from the entry's %q", clip(string(e.Params.Action), 60), e.Action)
	}
	for _, l := range []struct{ name, v string }{{"locator", e.Locator}, {"hover_locator", e.HoverLocator}, {"focus_locator", e.FocusLocator}, {"drop_locator", e.DropLocator}} {
		if l.v == "" {
			continue
		}
		if _, err := ParseLocator(l.v); err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
	}
	for i, l := range e.Locators {
		if _, err := ParseLocator(l); err != nil {
			return fmt.Errorf("locators[%d]: %w", i, err)
		}
	}
	if len(e.Locators) > 0 && e.Action != ActFillForm {
		return fmt.Errorf("locators on a %s entry (only fill_form has them)", clip(string(e.Action), 60))
	}
	if len(e.Locators) > len(e.Params.Fields) {
		return fmt.Errorf("%d locators for %d fields", len(e.Locators), len(e.Params.Fields))
	}
	if err := validFields(e.Params.Fields, len(e.Locators), e.OK); err != nil {
		return err
	}
	for _, u := range []struct{ name, v string }{{"url", e.URL}, {"params.url", e.Params.URL}} {
		if _, err := url.Parse(u.v); err != nil {
			return fmt.Errorf("%s does not parse: %w", u.name, err)
		}
	}
	if raw := navigateURL(e); raw != "" {
		// A replayed navigation goes to a page of the app: a path or an
		// http(s) URL, never javascript:, data:, file: or the like.
		if u, _ := url.Parse(raw); u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("navigate to a %s: URL: only paths and http(s) URLs replay", clip(u.Scheme, 20))
		}
	}
	p := e.Params
	if p.State != "" && !slices.Contains([]string{"visible", "hidden", "attached", "detached"}, p.State) {
		return fmt.Errorf("params.state %q is not visible, hidden, attached or detached", clip(p.State, 60))
	}
	if p.Direction != "" && !slices.Contains([]string{"down", "up", "top", "bottom"}, p.Direction) {
		return fmt.Errorf("params.direction %q is not down, up, top or bottom", clip(p.Direction, 60))
	}
	if p.Pixels < 0 || p.Pixels > 10000 {
		return fmt.Errorf("params.pixels %d is not 0..10000", p.Pixels)
	}
	if p.TimeoutMS < 0 || p.TimeoutMS > 30000 {
		return fmt.Errorf("params.timeout_ms %d is not 0..30000", p.TimeoutMS)
	}
	if msg := checkFile(p); msg != "" {
		return fmt.Errorf("params: %s", msg)
	}
	for _, tg := range []struct{ name, v string }{{"target", p.Target}, {"to", p.To}} {
		if e.OK && tg.v != "" {
			if _, err := ParseTarget(tg.v); err != nil {
				return fmt.Errorf("params.%s: %w", tg.name, err)
			}
		}
	}
	return nil
}

// validFields checks a recorded fill_form's fields: the kinds of the
// fields done (the first `done`, which a spec replays) and, on a
// successful entry, every field's kind and target (selector policy) and
// their number. A refused intent is recorded as it was asked.
func validFields(fields []FormField, done int, ok bool) error {
	if ok && len(fields) > MaxFormFields {
		return fmt.Errorf("params.fields: %d fields, at most %d", len(fields), MaxFormFields)
	}
	for i, f := range fields {
		if (ok || i < done) && !slices.Contains([]string{FieldFill, FieldSelect, FieldCheck}, f.kind()) {
			return fmt.Errorf("params.fields[%d].kind %q is not fill, select or check", i, clip(f.Kind, 60))
		}
		if ok {
			if _, err := ParseTarget(f.Target); err != nil {
				return fmt.Errorf("params.fields[%d].target: %w", i, err)
			}
		}
	}
	return nil
}

// ReadTapeFile is ReadTape on a file.
func ReadTapeFile(path string) ([]Entry, TapeReport, error) {
	return ReadTapeFileWith(path, TapeOptions{})
}

// ReadTapeFileWith is ReadTapeWith on a file.
func ReadTapeFileWith(path string, opts TapeOptions) ([]Entry, TapeReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, TapeReport{}, fmt.Errorf("browser: read tape: %w", err)
	}
	defer f.Close()
	return ReadTapeWith(f, opts)
}

// Window is a bounded in-memory window of the latest entries. Safe for
// concurrent use.
type Window struct {
	mu   sync.Mutex
	max  int
	ents []Entry
}

// NewWindow keeps the last n entries (n < 1 means 1).
func NewWindow(n int) *Window { return &Window{max: max(n, 1)} }

// Add appends e, dropping the oldest entry beyond the bound.
func (w *Window) Add(e Entry) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ents = append(w.ents, e)
	if len(w.ents) > w.max {
		w.ents = slices.Delete(w.ents, 0, len(w.ents)-w.max)
	}
}

// Entries returns a copy of the window, oldest first.
func (w *Window) Entries() []Entry {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.ents)
}

package minimize

import (
	"regexp"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// candidates are the suffix heuristics, shortest first: most bugs show a
// few steps after a navigation. plain: the last entry alone, the entries
// from the last navigation on, and the suffixes from the 2nd, 4th, 8th…
// last navigation. signed: when the tape signed in before such a suffix,
// that sign-in (from the navigation before the password was typed to the
// submit) in front of it.
func candidates(full []browser.Entry) (plain, signed [][]browser.Entry) {
	n := len(full)
	if n < 2 {
		return nil, nil
	}
	var navs []int // navigation indexes, latest first
	for i := n - 1; i >= 0; i-- {
		if full[i].Action == browser.ActNavigate {
			navs = append(navs, i)
		}
	}
	seen := map[string]bool{}
	add := func(to *[][]browser.Entry, c []browser.Entry) {
		if k := SeqKey(c); len(c) > 0 && len(c) < n && !seen[k] {
			seen[k] = true
			*to = append(*to, c)
		}
	}
	add(&plain, full[n-1:])
	for k := 1; k <= len(navs); k *= 2 {
		from := navs[k-1]
		add(&plain, full[from:])
		if in := signIn(full[:from]); in != nil {
			add(&signed, append(in, full[from:]...))
		}
	}
	// A flow: the pages under the bug page's first path segment
	// (/checkout/1, /checkout/2 …) are often the steps of one flow whose
	// state the app keeps between them, and the tape may have left the
	// flow and come back (an earlier persona chose the plan the later one
	// submitted). From the 1st, 2nd, 4th… latest navigation into that
	// area: the tape from there, and only its actions in the area (taken
	// there and staying there, or navigations into it).
	if area := pathArea(full[n-1].URL); area != "" {
		var into []int
		for _, i := range navs {
			if pathArea(full[i].URL) == area {
				into = append(into, i)
			}
		}
		for k := 1; k <= len(into); k *= 2 {
			from := into[k-1]
			sub := []browser.Entry{full[from]}
			for i := from + 1; i < n; i++ {
				stays := pathArea(full[i].URL) == area && (full[i].Action == browser.ActNavigate || pathArea(full[i-1].URL) == area)
				if stays || i == n-1 {
					sub = append(sub, full[i])
				}
			}
			for _, c := range [][]browser.Entry{full[from:], sub} {
				add(&plain, c)
				if in := signIn(full[:from]); in != nil {
					add(&signed, append(slices.Clone(in), c...))
				}
			}
		}
	}
	// Jumps: most pages can be opened by their URL, so a page reached by
	// clicks need not be reached the same way. For the latest pages the
	// tape arrived on by a click (1st, 2nd, 4th… latest), a navigation to
	// the page's recorded URL, then the actions taken there and after.
	arrivals := pageArrivals(full)
	for k := 1; k <= len(arrivals); k *= 2 {
		from := arrivals[k-1]
		c := append([]browser.Entry{jumpTo(full[from-1], full[from])}, full[from:]...)
		add(&plain, c)
		if in := signIn(full[:from]); in != nil {
			add(&signed, append(in, c...))
		}
	}
	// Records: a candidate that opens a record the mission created (an
	// edit page of a project it added) cannot replay on a fresh app, so
	// it also gets a variant that first creates the records it names, the
	// way the tape did.
	if makers := recordMakers(full); len(makers) > 0 {
		for _, c := range slices.Clone(plain) {
			pre := makersFor(makers, full, c)
			if len(pre) == 0 {
				continue
			}
			with := append(slices.Clone(pre), c...)
			add(&plain, with)
			if in := signIn(full[:firstIndex(full, pre[0])]); in != nil {
				add(&signed, append(in, with...))
			}
		}
	}
	byLen := func(a, b []browser.Entry) int { return len(a) - len(b) }
	slices.SortStableFunc(plain, byLen)
	slices.SortStableFunc(signed, byLen)
	return plain, signed
}

// pathArea is the first segment of u's path ("" for the root or a bad URL).
func pathArea(u string) string {
	if u == "" {
		return ""
	}
	seg, _, _ := strings.Cut(strings.TrimPrefix(urlx.Path(u), "/"), "/")
	return seg
}

// reRecord matches a record in a URL path: a collection and a number
// (/projects/28).
var reRecord = regexp.MustCompile(`/[A-Za-z][A-Za-z0-9_-]*/[0-9]+`)

func recordsOf(u string) []string { return reRecord.FindAllString(urlx.Path(u), -1) }

// maker is a record the tape created: rec first showed in the URL a form
// submit (tape index at) led to, and steps fill and submit that form from
// a navigation to its page on.
type maker struct {
	rec   string
	at    int
	steps []browser.Entry
}

// recordMakers are the records the tape created, in tape order. A record
// that first shows after a click with no form filled before it on that
// page (a link to a record the app had) is not one.
func recordMakers(full []browser.Entry) []maker {
	seen := map[string]bool{}
	var out []maker
	for i, e := range full {
		for _, u := range []string{e.Params.URL, e.URL} {
			for _, r := range recordsOf(u) {
				if seen[r] {
					continue
				}
				seen[r] = true
				if u != e.URL || i == 0 || (e.Action != browser.ActClick && e.Action != browser.ActPress) {
					continue
				}
				if steps := FormSteps(full, i); steps != nil {
					out = append(out, maker{rec: r, at: i, steps: steps})
				}
			}
		}
	}
	return out
}

// FormSteps are the steps that submitted a form at tape index i: a
// navigation to the page it was on (the recorded one, or a jump when the
// tape came by a click), then what the tape did there up to i; nil when it
// filled nothing there.
func FormSteps(full []browser.Entry, i int) []browser.Entry {
	page := urlx.Path(full[i-1].URL)
	k := i - 1 // full[k] arrived on the page
	for k > 0 && urlx.Path(full[k-1].URL) == page {
		k--
	}
	if !slices.ContainsFunc(full[k+1:i], typedSomething) {
		return nil
	}
	if full[k].Action == browser.ActNavigate {
		return slices.Clone(full[k : i+1])
	}
	return append([]browser.Entry{jumpTo(full[k], full[k+1])}, full[k+1:i+1]...)
}

// typedSomething: e typed text into a field (a fill, or a fill_form's).
func typedSomething(e browser.Entry) bool {
	return slices.ContainsFunc(e.Filled(), func(f browser.Filled) bool { return f.Kind == browser.FieldFill })
}

// makersFor are the steps that create, in tape order, the records c names
// that the tape created before c and c does not create itself, and every
// record of the same collection created before them (a fresh app hands
// out the same numbers only when they are created in the same order).
func makersFor(makers []maker, full []browser.Entry, c []browser.Entry) []browser.Entry {
	in := map[int64]bool{}
	named := map[string]bool{}
	for _, e := range c {
		in[e.Seq] = true
		for _, u := range []string{e.Params.URL, e.URL} {
			for _, r := range recordsOf(u) {
				named[r] = true
			}
		}
	}
	start := firstIndex(full, c[0])
	collection := func(rec string) string { return rec[:strings.LastIndexByte(rec, '/')+1] }
	upTo := map[string]int{} // collection → index of its latest maker needed
	for _, m := range makers {
		if named[m.rec] && m.at < start && !in[full[m.at].Seq] {
			upTo[collection(m.rec)] = m.at
		}
	}
	var out []browser.Entry
	for _, m := range makers {
		if at, ok := upTo[collection(m.rec)]; ok && m.at <= at {
			out = append(out, m.steps...)
		}
	}
	return out
}

// firstIndex is the tape index of e (by seq; a jump stands for the entry
// it precedes), or len(full).
func firstIndex(full []browser.Entry, e browser.Entry) int {
	seq := e.Seq
	if seq < 0 {
		seq = -seq
	}
	for i, f := range full {
		if f.Seq == seq {
			return i
		}
	}
	return len(full)
}

// pageArrivals are the indexes k, latest first, of the first action the
// tape took on a page it reached by a click or key press (not by a
// navigation): full[k-1] left the previous page for full[k-1].URL.
func pageArrivals(full []browser.Entry) []int {
	var out []int
	for k := len(full) - 1; k >= 1; k-- {
		prev := full[k-1]
		if full[k].Action == browser.ActNavigate || prev.Action == browser.ActNavigate || prev.URL == "" {
			continue
		}
		if k >= 2 && full[k-2].URL != "" && urlx.PathQuery(full[k-2].URL) == urlx.PathQuery(prev.URL) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// jumpTo is a navigation straight to the page entry prev ended on, made to
// stand in for the steps that led there; it takes the negated seq of next
// (the entry it precedes), so that replays and caches can tell it apart.
func jumpTo(prev, next browser.Entry) browser.Entry {
	u := urlx.PathQuery(prev.URL)
	return browser.Entry{Seq: -next.Seq, Action: browser.ActNavigate, OK: true,
		Params: browser.Intent{Action: browser.ActNavigate, URL: u}, URL: prev.URL, Time: prev.Time}
}

var rePasswordField = regexp.MustCompile(`(?i)passw|passphrase|pwd`)

// signIn is the latest sign-in in tape: from the navigation before a
// password field was filled to the first click or key press after it.
func signIn(tape []browser.Entry) []browser.Entry {
	for i := len(tape) - 1; i >= 0; i-- {
		e := tape[i]
		if !slices.ContainsFunc(e.Filled(), func(f browser.Filled) bool {
			return f.Kind == browser.FieldFill && rePasswordField.MatchString(f.Locator+" "+f.Target)
		}) {
			continue
		}
		end := -1
		for j := i + 1; j < len(tape); j++ {
			if a := tape[j].Action; a == browser.ActClick || a == browser.ActPress {
				end = j
				break
			}
		}
		if end < 0 {
			continue
		}
		from := 0
		for j := i; j >= 0; j-- {
			if tape[j].Action == browser.ActNavigate {
				from = j
				break
			}
		}
		return slices.Clone(tape[from : end+1])
	}
	return nil
}

package explore

import (
	"context"
	"html"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// report turns findings into bugs of member m's action e, appends the new
// ones to out.Bugs and returns them. Findings that the bugs' screenshots
// drained from the session (mr.late) are reported too.
func (mr *missionRun) report(ctx context.Context, m *member, e browser.Entry, fs []browser.Finding, out *State) []findings.Bug {
	var bugs []findings.Bug
	primary := -1       // the action's server or uncaught error, or shown error, in out.Bugs
	primaryErr := false // primary is a server or uncaught error (a console echo is its symptom)
	earlier := ""       // the action's server or uncaught error when an earlier turn reported it (its key in mr.recorded)
	earlierPage := ""   // the path of earlier's request when it is a server error
	touched := map[int]bool{}
	defer func() {
		// The journal keeps what this action added to the bugs (symptoms,
		// sightings) for a resume.
		for _, i := range slices.Sorted(maps.Keys(touched)) {
			if b := out.Bugs[i]; mr.recorded[b.Fingerprint].ID == b.ID && b.ID != "" {
				mr.recorded[b.Fingerprint] = b
				mr.journalBug(b)
			}
		}
	}()
	for len(fs) > 0 || len(mr.late) > 0 {
		fs = append(fs, collector.PageFindings(mr.late)...)
		mr.late = nil
		findings.SortByCause(fs)
		f := mr.addr().Finding(fs[0])
		fs = fs[1:]
		if primary >= 0 && slices.Contains(findings.SymptomKinds, f.Kind) && (f.Kind != browser.FindConsoleError || primaryErr) {
			// A symptom of the action's error: listed on it.
			addSymptom(&out.Bugs[primary], f)
			touched[primary] = true
			continue
		}
		if primary >= 0 && primaryErr && errorPageFinding(f, out.Bugs[primary].Kind, out.Bugs[primary].URL) {
			// The page is the server's error answer: what axe-core says
			// of it is that error's symptom, not a bug of its own.
			addSymptom(&out.Bugs[primary], f)
			touched[primary] = true
			continue
		}
		if primary < 0 && earlier != "" && (slices.Contains(findings.SymptomKinds, f.Kind) || errorPageFinding(f, string(browser.FindServerError), earlierPage)) {
			// A symptom of an error an earlier turn reported (this
			// turn's out does not hold that bug: memory's copy takes it).
			mr.updateEarlier(earlier, func(b *findings.Bug) { addSymptom(b, f) })
			continue
		}
		if primary < 0 && earlier == "" && f.Kind == collector.FindA11y && findings.ReStatusPhrase.MatchString(f.Evidence) {
			// The bare page of a server error the collector reported
			// before (it reports one 500 once; the page's violations come
			// with every load): the error's symptom.
			if i := slices.IndexFunc(out.Bugs, func(b findings.Bug) bool { return errorPageFinding(f, b.Kind, b.URL) }); i >= 0 {
				addSymptom(&out.Bugs[i], f)
				touched[i] = true
				continue
			}
			if key := mr.serverErrorOn(f); key != "" {
				mr.updateEarlier(key, func(b *findings.Bug) { addSymptom(b, f) })
				continue
			}
		}
		if i, symptom := mr.known(out, f, e); i >= 0 {
			// A cause this mission reported already: one more sighting
			// (or a symptom of it), and the action's primary error when
			// it is one, so its banner and console echo join it.
			b := &out.Bugs[i]
			touched[i] = true
			if symptom {
				addSymptom(b, f)
			} else {
				sighted(b, m.p.Name, mr.steps, e, findings.FirstNonEmpty(f.URL, mr.public(e.URL)))
			}
			if primary < 0 && (f.Kind == browser.FindServerError || f.Kind == browser.FindPageError) {
				primary, primaryErr = i, true
			}
			continue
		}
		if key, ok := mr.earlierBug(out, f, e); ok {
			// A cause an earlier turn reported: one more sighting.
			mr.updateEarlier(key, func(b *findings.Bug) {
				sighted(b, m.p.Name, mr.steps, e, findings.FirstNonEmpty(f.URL, mr.public(e.URL)))
			})
			if earlier == "" && (f.Kind == browser.FindServerError || f.Kind == browser.FindPageError) {
				earlier = key
				if f.Kind == browser.FindServerError {
					earlierPage = findings.FirstNonEmpty(f.URL, mr.public(e.URL))
				}
			}
			continue
		}
		if key, ok := mr.pairedEarlier(f, e); ok {
			// The other half of a bug an earlier turn reported.
			mr.updateEarlier(key, func(b *findings.Bug) { addSymptom(b, f) })
			continue
		}
		if b, ok := mr.bug(ctx, m, f, e); ok {
			out.Bugs = append(out.Bugs, b)
			touched[len(out.Bugs)-1] = true
			bugs = append(bugs, b)
			switch f.Kind {
			case browser.FindServerError, browser.FindPageError:
				primary, primaryErr = len(out.Bugs)-1, true
			case browser.FindStackTrace, browser.FindErrorBanner:
				if primary < 0 {
					primary = len(out.Bugs) - 1 // the stack trace and the banner showing it are one
				}
			}
		}
	}
	return bugs
}

// serverErrorOn is the key in mr.recorded of an earlier turn's server
// error whose failing page is f's, or "".
func (mr *missionRun) serverErrorOn(f browser.Finding) string {
	for _, k := range slices.Sorted(maps.Keys(mr.recorded)) {
		if b := mr.recorded[k]; b.ID != "" && errorPageFinding(f, b.Kind, b.URL) {
			return k
		}
	}
	return ""
}

// errorPageFinding reports whether f is an accessibility finding on the
// page a server error answered: the error's kind is a server error and its
// request's path is the page's (a document that failed, not a fetch of
// the page's).
func errorPageFinding(f browser.Finding, errKind, errURL string) bool {
	return f.Kind == collector.FindA11y && errKind == string(browser.FindServerError) && errURL != "" && f.URL != "" &&
		urlx.Path(errURL) == urlx.Path(f.URL)
}

// sameCollection reports whether a form's post URL and a list page are of
// one collection: the same path, or one within the other (/things/new
// posts, /things lists).
func sameCollection(a, b string) bool {
	pa, pb := strings.TrimSuffix(urlx.Path(a), "/"), strings.TrimSuffix(urlx.Path(b), "/")
	if pa == "" || pb == "" {
		return false
	}
	return pa == pb || strings.HasPrefix(pa, pb+"/") || strings.HasPrefix(pb, pa+"/")
}

// addSymptom lists f on b as one of its symptoms (at most 8): its
// message, and its evidence when that says more (the response headers of
// a request, the row shown twice).
func addSymptom(b *findings.Bug, f browser.Finding) {
	sym := string(f.Kind) + ": " + clip.String(findings.FirstNonEmpty(f.Message, f.Evidence), 200)
	if f.Message != "" && f.Evidence != "" && !strings.Contains(f.Message, f.Evidence) && !strings.Contains(f.Evidence, f.Message) {
		sym += " — " + clip.String(f.Evidence, 300)
	}
	if len(b.Symptoms) < 8 && !slices.Contains(b.Symptoms, sym) {
		b.Symptoms = append(b.Symptoms, sym)
	}
}

// sighted counts action e as one more in which b's cause showed.
func sighted(b *findings.Bug, persona string, step int, e browser.Entry, url string) {
	if e.Seq == b.TapeSeq || len(b.Sightings) > 0 && b.Sightings[len(b.Sightings)-1].TapeSeq == e.Seq {
		return // the same action
	}
	b.Seen = max(b.Seen, 1) + 1
	if len(b.Sightings) < findings.MaxSightings {
		b.Sightings = append(b.Sightings, findings.Sighting{Step: step, TapeSeq: e.Seq, Persona: persona, URL: url})
	}
}

// known finds the bug of this mission (its index in out.Bugs) that f is
// one more sighting of (the same cause), or a symptom of: a list showing
// a record twice whose cells hold a value the explorer typed once, and a
// form submission accepted twice, are one cause (the app stored that one
// submission twice), whichever the mission reported first. -1 when f is
// no known bug's.
func (mr *missionRun) known(out *State, f browser.Finding, e browser.Entry) (int, bool) {
	for i := range out.Bugs {
		if mr.pairedWith(f, e, out.Bugs[i]) {
			return i, true
		}
	}
	b, ok := findings.FindingBug(f, e.URL)
	if !ok || !mr.bugSeen[b.Fingerprint] {
		return -1, false
	}
	for i := range out.Bugs {
		if out.Bugs[i].Kind == b.Kind && out.Bugs[i].Cause == b.Cause {
			return i, false
		}
	}
	return -1, false
}

// A turn's out.Bugs holds only the bugs the turn reported (the state's
// reducer appends); what a later turn sees of an earlier turn's bug (one
// more sighting, a symptom) goes to the mission's copy in mr.recorded and
// the journal, and laterCopies puts it in the mission's result.

// earlierBug is the key in mr.recorded of the bug an earlier turn reported
// for f's cause (not one of this turn's: known finds those).
func (mr *missionRun) earlierBug(out *State, f browser.Finding, e browser.Entry) (string, bool) {
	b, ok := findings.FindingBug(f, e.URL)
	if !ok || !mr.bugSeen[b.Fingerprint] || slices.ContainsFunc(out.Bugs, func(o findings.Bug) bool { return o.Kind == b.Kind && o.Cause == b.Cause }) {
		return "", false
	}
	if r, ok := mr.recorded[b.Fingerprint]; ok && r.ID != "" {
		return b.Fingerprint, true
	}
	for k, r := range mr.recorded {
		if r.Kind == b.Kind && r.Cause == b.Cause && r.ID != "" {
			return k, true
		}
	}
	return "", false
}

// updateEarlier changes the mission's copy of an earlier turn's bug and
// journals it.
func (mr *missionRun) updateEarlier(key string, change func(*findings.Bug)) {
	b, ok := mr.recorded[key]
	if !ok || b.ID == "" {
		return
	}
	symptoms, sightings := len(b.Symptoms), len(b.Sightings)
	change(&b)
	mr.recorded[key] = b
	if len(b.Symptoms) != symptoms || len(b.Sightings) != sightings {
		mr.journalBug(b) // (a count alone waits for the next change)
	}
}

// laterCopies gives each bug of bugs what later turns added to it (its
// copy in mr.recorded: symptoms, sightings).
func (mr *missionRun) laterCopies(bugs []findings.Bug) []findings.Bug {
	byID := map[string]findings.Bug{}
	for _, r := range mr.recorded {
		if r.ID != "" {
			byID[r.ID] = r
		}
	}
	for i, b := range bugs {
		r, ok := byID[b.ID]
		if !ok {
			continue
		}
		for _, s := range r.Symptoms {
			if len(b.Symptoms) < 8 && !slices.Contains(b.Symptoms, s) {
				b.Symptoms = append(b.Symptoms, s)
			}
		}
		b.Seen = max(b.Seen, r.Seen)
		if len(r.Sightings) > len(b.Sightings) {
			b.Sightings = r.Sightings
		}
		bugs[i] = b
	}
	return bugs
}

// pairedEarlier finds, among the bugs the mission reported in earlier
// turns (which a turn's own out.Bugs does not hold), the one that f is the
// other half of: a form submission accepted twice and a list showing a
// record typed once, twice, are one cause whichever turn saw which. It
// returns that bug's key in mr.recorded.
func (mr *missionRun) pairedEarlier(f browser.Finding, e browser.Entry) (string, bool) {
	for k, b := range mr.recorded {
		if b.ID != "" && mr.pairedWith(f, e, b) {
			return k, true
		}
	}
	return "", false
}

// pairedWith reports whether f is the other half of b's cause: a form
// submission accepted twice and a list (of the same collection) showing a
// record whose value the explorer typed once, twice — whichever was
// reported first.
func (mr *missionRun) pairedWith(f browser.Finding, e browser.Entry, b findings.Bug) bool {
	if mr.sw == nil {
		return false
	}
	at := findings.FirstNonEmpty(f.URL, e.URL)
	switch f.Kind {
	case collector.FindDuplicateRow:
		return b.Kind == string(collector.FindDuplicate) && (rowOfRecords(f.Evidence, b.Evidence) || mr.sw.typed.holdsOnce(f.Evidence) && sameCollection(b.URL, at))
	case collector.FindDuplicate:
		return b.Kind == string(collector.FindDuplicateRow) && (rowOfRecords(b.Evidence, f.Evidence) || mr.sw.typed.holdsOnce(b.Evidence) && sameCollection(b.URL, at))
	}
	return false
}

var (
	reLocation = regexp.MustCompile(`Location (\S+)`)
	reHref     = regexp.MustCompile(`href="([^"]+)"`)
)

// rowOfRecords reports whether a row shown twice (row: its markup) links
// to one of the records a submission accepted twice made (submit: the
// collector's evidence, with the Location of each answer).
func rowOfRecords(row, submit string) bool {
	made := map[string]bool{}
	for _, m := range reLocation.FindAllStringSubmatch(submit, -1) {
		if p := strings.TrimSuffix(urlx.Path(m[1]), "/"); p != "" && p != "/" {
			made[p] = true
		}
	}
	for _, m := range reHref.FindAllStringSubmatch(row, -1) {
		if made[strings.TrimSuffix(urlx.Path(html.UnescapeString(m[1])), "/")] {
			return true
		}
	}
	return false
}

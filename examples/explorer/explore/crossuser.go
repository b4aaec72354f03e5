package explore

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/minimize"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// maxProbes bounds the pages of other users one user opens directly.
const maxProbes = 8

// crossUser is what the cross-user oracle keeps for a mission with two
// or more users: who typed which marker, the pages where a user saw its
// own data, and which of them the others opened.
type crossUser struct {
	// typed: marker → the users who typed it.
	typed map[string]map[string]bool
	// own: user → the pages (path?query, in order) that showed its data.
	own map[string][]string
	// okBy: page path?query → the users whose navigation there loaded.
	okBy map[string]map[string]bool
	// probed: viewer → pages of others it opened (or skipped).
	probed map[string]map[string]bool
	// leaks by finding message, and by bug id once reported.
	leaks   map[string]findings.CrossLeak
	byBug   map[string]findings.CrossLeak
	probing bool // the current step is a probe
	// seen: user and page → the page's text when the user last read it
	// (at most maxSeen pages, each cut at maxSeenText bytes); before:
	// values that were on a page before anyone typed them, which tell
	// nobody's data (an earlier run's records, the app's own content).
	seen   map[string]string
	before map[string]bool
}

// maxSeen and maxSeenText bound what the oracle keeps of the pages read.
const (
	maxSeen     = 256
	maxSeenText = 64 << 10
)

// saw keeps the text user read on page.
func (xu *crossUser) saw(user, page, text string) {
	k := user + "\x00" + page
	if _, ok := xu.seen[k]; !ok && len(xu.seen) >= maxSeen {
		return
	}
	if len(text) > maxSeenText {
		text = text[:maxSeenText]
	}
	xu.seen[k] = text
}

// fresh reports whether v, about to be noted as typed, can be its
// typist's marker: a value some page already showed before anyone typed
// it is data that was there (a record an earlier run left with the same
// drawn value), and a page showing it later proves nothing.
func (xu *crossUser) fresh(v string) bool {
	if xu.before[v] {
		return false
	}
	if xu.typed[v] != nil {
		return true
	}
	for _, text := range xu.seen {
		if strings.Contains(text, v) {
			xu.before[v] = true
			return false
		}
	}
	return true
}

func newCrossUser() *crossUser {
	return &crossUser{typed: map[string]map[string]bool{}, own: map[string][]string{}, okBy: map[string]map[string]bool{},
		probed: map[string]map[string]bool{}, leaks: map[string]findings.CrossLeak{}, byBug: map[string]findings.CrossLeak{},
		seen: map[string]string{}, before: map[string]bool{}}
}

// multi reports whether the mission acts as two or more users.
func (mr *missionRun) multi() bool { return len(mr.sessions) > 1 }

// oracleOn reports whether the cross-user oracle runs.
func (mr *missionRun) oracleOn() bool { return mr.multi() && !mr.cfg.UsersShareData && mr.xu != nil }

// reMarker is free text as the explorer types it: words, then a drawn
// number (validFor), e.g. "QA sample title 523".
var reMarker = regexp.MustCompile(`^\PC*\pL\PC*\s[0-9]{2,}$`)

// isMarker reports whether a typed value can tell whose it is: free text
// with the number the explorer drew for it (constant values such as
// "1 Main Street" or a pattern's "ABC123" could be anyone's), no markup,
// and no credential.
func (mr *missionRun) isMarker(v string) bool {
	v = strings.TrimSpace(v)
	if len([]rune(v)) < 6 || len(v) > 200 || strings.ContainsAny(v, "<>\n") || !reMarker.MatchString(v) {
		return false
	}
	if _, ok := browser.SecretRef(v); ok {
		return false
	}
	if _, ok := mr.secrets.Ref(v); ok {
		return false
	}
	for _, a := range mr.accounts {
		if strings.EqualFold(v, a.Email) || v == a.Password || v == a.Name {
			return false
		}
	}
	return !session.ReEmail.MatchString(v)
}

// noteTyped remembers a value the current user typed.
func (mr *missionRun) noteTyped(v string) {
	if !mr.oracleOn() || mr.cur == nil || !mr.isMarker(v) {
		return
	}
	v = strings.TrimSpace(v)
	if !mr.xu.fresh(v) {
		return
	}
	if mr.xu.typed[v] == nil {
		mr.xu.typed[v] = map[string]bool{}
	}
	mr.xu.typed[v][mr.cur.Name] = true
}

// crossCheck is the cross-user oracle after an action of the current
// user (fs: its findings so far): the page's text holding a marker only other users typed is a
// FindCrossUser finding; one holding the user's own markers is a page of
// its data, which the other users open later (probes). A page whose URL
// carries the marker (a search echoing its query) tells nothing.
func (mr *missionRun) crossCheck(ctx context.Context, res browser.Result, fs []browser.Finding) []browser.Finding {
	if !mr.oracleOn() || mr.cur == nil || !res.OK {
		return nil
	}
	page := urlx.PathQuery(mr.sess.URL())
	if page == "" || strings.HasPrefix(page, collector.Prefix) || !strings.HasPrefix(page, "/") {
		return nil
	}
	me := mr.cur.Name
	if !hasNotFound(fs) {
		// This user may open the page: another's 404 there is the app
		// keeping this user's record to itself.
		if mr.xu.okBy[page] == nil {
			mr.xu.okBy[page] = map[string]bool{}
		}
		mr.xu.okBy[page][me] = true
	}
	tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	v, err := mr.sess.Evaluate(tctx, `() => document.body ? document.body.innerText : ''`, nil)
	if err != nil {
		mr.trace.Debug("cross-user oracle: read the page", "err", err)
		return nil
	}
	text, _ := v.(string)
	if text == "" {
		return nil
	}
	mr.xu.saw(me, page, text)
	decoded, _ := url.QueryUnescape(page)
	var out []browser.Finding
	ownSeen := false
	for _, marker := range sortedKeys((mr.xu.typed)) {
		by := mr.xu.typed[marker]
		if !strings.Contains(text, marker) || strings.Contains(decoded, marker) || strings.Contains(page, marker) {
			continue
		}
		if by[me] {
			ownSeen = ownSeen || len(by) == 1
			continue
		}
		owner := sortedKeys((by))[0]
		l := findings.CrossLeak{Owner: owner, Viewer: me, Marker: marker, Page: page}
		msg := fmt.Sprintf("%s sees %s's data: %q, which only %s typed", me, owner, marker, owner)
		mr.xu.leaks[msg] = l
		out = append(out, browser.Finding{Kind: findings.FindCrossUser, URL: mr.sess.URL(), Message: msg,
			Evidence: fmt.Sprintf("user %s, signed in as itself, opened %s and the page shows %q, a value user %s typed into a form (%s's record); %s never typed it",
				me, page, marker, owner, owner, me)})
	}
	if ownSeen && !slices.Contains(mr.xu.own[me], page) && len(mr.xu.own[me]) < 4*maxProbes {
		mr.xu.own[me] = append(mr.xu.own[me], page)
	}
	return out
}

func hasNotFound(fs []browser.Finding) bool {
	return slices.ContainsFunc(fs, func(f browser.Finding) bool { return f.Kind == browser.FindNotFound })
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// probesFor are the pages of other users' data that m's user has not
// opened yet (at most maxProbes per user in all).
func (mr *missionRun) probesFor(m *member) []string {
	if !mr.oracleOn() || m.acct == nil {
		return nil
	}
	me := m.acct.Name
	done := mr.xu.probed[me]
	if len(done) >= maxProbes {
		return nil
	}
	var out []string
	for _, a := range mr.accounts {
		if a.Name == me {
			continue
		}
		for _, p := range mr.xu.own[a.Name] {
			if !done[p] && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out[:min(len(out), maxProbes-len(done))]
}

// probe opens, as m's user, pages where another user saw its own data
// (its records, the lists showing them): a cheap check that the app
// keeps them apart (an IDOR). At most limit steps; returns the steps
// taken.
func (mr *missionRun) probe(ctx context.Context, m *member, out *State, limit int) int {
	did := 0
	for _, p := range mr.probesFor(m) {
		if did >= limit || ctx.Err() != nil {
			break
		}
		if mr.xu.probed[m.acct.Name] == nil {
			mr.xu.probed[m.acct.Name] = map[string]bool{}
		}
		mr.xu.probed[m.acct.Name][p] = true
		mr.xu.probing = true
		mr.act(ctx, m, step{in: browser.Navigate(p), why: "cross-user probe: open a page that showed another user's data"}, out)
		mr.xu.probing = false
		did++
	}
	return did
}

// othersLoaded reports whether a user other than the current one loaded
// the page at u (the 404 the current one got is the app keeping that
// user's record to itself).
func (mr *missionRun) othersLoaded(u string) bool {
	if !mr.multi() || mr.xu == nil || mr.cur == nil {
		return false
	}
	for who := range mr.xu.okBy[urlx.PathQuery(u)] {
		if who != mr.cur.Name {
			return true
		}
	}
	return false
}

// crossUserRepro is the reproduction of a leak: the owner's steps that
// typed the marker and submitted it, in a browser context of its own,
// then the viewer's visit to the page, in another; the check is that the
// viewer's page does not show the marker. Users with a configured storage
// state start from it (its path read from AGENTGRAPH_STORAGE_STATE_<NAME>);
// the others replay the set-up mission's sign-in (passwords from
// SECRET_n).
func (mr *missionRun) crossUserRepro(b findings.Bug, tl []report.TimelineEntry) (browser.Reproduction, bool) {
	l, ok := mr.xu.byBug[b.ID]
	if !ok {
		return browser.Reproduction{}, false
	}
	owner, viewer := mr.userNamed(l.Owner), mr.userNamed(l.Viewer)
	if owner == nil || viewer == nil {
		return browser.Reproduction{}, false
	}
	var mine []browser.Entry
	for _, e := range report.Replayable(tl, b.TapeSeq) {
		if e.Account == owner.Name {
			mine = append(mine, e)
		}
	}
	fill := slices.IndexFunc(mine, func(e browser.Entry) bool {
		return slices.ContainsFunc(e.Filled(), func(f browser.Filled) bool {
			return f.Kind == browser.FieldFill && strings.TrimSpace(f.Value) == l.Marker
		})
	})
	if fill < 0 {
		return browser.Reproduction{}, false
	}
	submit := -1
	for i := fill + 1; i < len(mine); i++ {
		if a := mine[i].Action; a == browser.ActClick || a == browser.ActPress || a == browser.ActDblclick {
			submit = i
			break
		}
	}
	if submit < 0 {
		return browser.Reproduction{}, false
	}
	made := minimize.FormSteps(mine, submit)
	if made == nil {
		k := fill
		for k > 0 && mine[k].Action != browser.ActNavigate {
			k--
		}
		made = slices.Clone(mine[k : submit+1])
	}
	actor := func(a *userRun, steps []browser.Entry) browser.Actor {
		if a.StorageState != "" {
			return browser.Actor{Name: a.Name, StorageStateEnv: storageStateEnv(a.Name), Entries: steps}
		}
		return browser.Actor{Name: a.Name, Entries: append(slices.Clone(a.signIn), steps...)}
	}
	visit := browser.Entry{Action: browser.ActNavigate, Params: browser.Navigate(l.Page), OK: true, URL: strings.TrimRight(mr.target, "/") + l.Page, Account: viewer.Name}
	return browser.Reproduction{Name: b.ID + ": " + b.Title, Bug: true, Checks: []browser.Check{browser.NoText{Text: l.Marker}},
		Actors: []browser.Actor{actor(owner, made), actor(viewer, []browser.Entry{visit})}}, true
}

// account is the run's user named name (nil: none).
func (mr *missionRun) userNamed(name string) *userRun {
	for _, a := range mr.accounts {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// userSession is one user's browser context in a mission.
type userSession struct {
	engine *browser.Engine
	sess   *browser.Session
}

// use makes m's user the current one: the browser steps that follow run
// in its context.
func (mr *missionRun) use(m *member) {
	if m == nil || m.acct == nil || mr.cur == m.acct {
		return
	}
	us, ok := mr.sessions[m.acct.Name]
	if !ok {
		return
	}
	if mr.cur != nil {
		// Findings that arrive late belong to the last action of this
		// user, not the other's.
		mr.prevActor = nil
		mr.lastView = nil
	}
	mr.cur, mr.engine, mr.sess = m.acct, us.engine, us.sess
}

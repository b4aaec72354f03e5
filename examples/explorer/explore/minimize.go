package explore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/collector"
)

// Defaults of the reproduction minimiser (Config.MinimizeReplays,
// Config.MinimizeTime).
const (
	DefaultMinimizeReplays = 24
	DefaultMinimizeTime    = 2 * time.Minute
	DefaultMinimizeWorkers = 3
)

// errBudget stops a search whose replay budget is spent.
var errBudget = errors.New("explore: minimise: replay budget spent")

// ddmin is Zeller's delta debugging (ddmin) over items, which test is
// assumed to accept: it returns a subsequence (order kept) that test
// accepts and, when the search ran to its end, from which no single item
// can be removed. test is never asked about the empty sequence nor twice
// about the same subsequence; it runs at most maxTests times (≤ 0: no
// limit). When test fails with an error (errBudget, a cancelled context)
// the search stops and the smallest accepted sequence so far is returned
// with that error.
func ddmin[T any](ctx context.Context, items []T, test func(context.Context, []T) (bool, error), maxTests int) ([]T, int, error) {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	pick := func(ix []int) []T {
		out := make([]T, len(ix))
		for i, j := range ix {
			out[i] = items[j]
		}
		return out
	}
	tested := map[string]bool{}
	tests := 0
	try := func(ix []int) (bool, error) {
		k := fmt.Sprint(ix)
		if ok, done := tested[k]; done {
			return ok, nil
		}
		if maxTests > 0 && tests >= maxTests {
			return false, errBudget
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		tests++
		ok, err := test(ctx, pick(ix))
		if err != nil {
			return false, err
		}
		tested[k] = ok
		return ok, nil
	}
	cur := idx
	n := 2
	for len(cur) >= 2 {
		chunks := split(cur, n)
		reduced := false
		// Reduce to a subset…
		for _, c := range chunks {
			ok, err := try(c)
			if err != nil {
				return pick(cur), tests, err
			}
			if ok {
				cur, n, reduced = c, 2, true
				break
			}
		}
		// …or to a complement.
		if !reduced && n > 2 {
			for i := range chunks {
				comp := complement(chunks, i)
				ok, err := try(comp)
				if err != nil {
					return pick(cur), tests, err
				}
				if ok {
					cur, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(cur) {
				break
			}
			n = min(2*n, len(cur))
		}
	}
	return pick(cur), tests, nil
}

// split cuts ix into n contiguous chunks of near-equal length.
func split(ix []int, n int) [][]int {
	out := make([][]int, 0, n)
	start := 0
	for i := range n {
		end := start + (len(ix)-start)/(n-i)
		out = append(out, ix[start:end])
		start = end
	}
	return out
}

func complement(chunks [][]int, skip int) []int {
	var out []int
	for i, c := range chunks {
		if i != skip {
			out = append(out, c...)
		}
	}
	return out
}

// findingSig identifies a finding across replays: its kind, the path of
// its page and its evidence, with every number (record ids, ports,
// timings, line numbers) replaced, as memory's run-independent evidence is.
func findingSig(kind, page, evidence string) string {
	return kind + "\x00" + reNum.ReplaceAllString(pathOf(page), "#") + "\x00" + reNum.ReplaceAllString(evidence, "#")
}

// replayFunc replays entries in a fresh browser context; axe: with
// axe-core in every page (the costly part of a replay, needed only to see
// accessibility findings).
type replayFunc func(ctx context.Context, seq []browser.Entry, axe bool) (replayed, error)

// replayed is a replay's outcome: the signatures (findingSig) of the
// findings it saw, or the index of the step where it could not follow the
// recording (it failed or led elsewhere; -1 when it ran through).
type replayed struct {
	sigs     map[string]bool
	failedAt int
}

// minimizeOptions bounds a minimisation.
type minimizeOptions struct {
	// Replays is the most replays one bug may cost (cache hits are free).
	Replays int
	// Time bounds the whole search; confirmations must fit in it too.
	Time time.Duration
	// Workers is how many replays may run at once (≤ 0: one).
	Workers int
}

// reproJob is the minimisation of one bug's reproduction.
type reproJob struct {
	sig string
	axe bool // the finding is axe-core's: replays need it
	// link: the finding is a broken link; its reproduction must follow
	// the link, not open the dead URL directly (which fails the same way
	// once the link is fixed).
	link bool
	full []browser.Entry
	// best, found and replays are written under the minimizer's lock (by
	// the goroutine working on the job).
	best    []browser.Entry
	replays int
	// found: a shorter sequence reproduced in a replay; confirmed: and it
	// reproduced once more at the end.
	found, confirmed bool
}

// minimizer shares replays between the bugs of a mission: a replay's
// findings answer the question for every bug whose finding it shows. Up
// to opts.Workers replays run at once; the same sequence is never replayed
// twice at the same time.
type minimizer struct {
	replay replayFunc
	opts   minimizeOptions
	slots  chan struct{} // one token per running replay

	mu    sync.Mutex
	cache map[string]cached
	// running holds the sequences being replayed, closed when done.
	running map[string]chan struct{}
	// replays and entries count replays and the entries they replayed, to
	// estimate the cost of the confirmations still to come.
	replays, entries int
	spent            time.Duration
	// deadEnds are the starts (by entryKey) of sequences that could not be
	// replayed: the app is fresh and the context empty each time, so any
	// sequence that starts the same way fails the same way.
	deadEnds map[string]bool
	// firstFailed: a replay failed at its first navigation (e.g. sent to
	// a sign-in page) or at the first action on the page it opened (an
	// app that shows an error page in its place), so jobs try the
	// candidates behind the tape's sign-in first.
	firstFailed bool
}

type cached struct {
	seq  []browser.Entry
	sigs map[string]bool
}

// cacheKey names a replay of seq, with axe-core or without.
func cacheKey(seq []browser.Entry, axe bool) string {
	if axe {
		return seqKey(seq) + "axe"
	}
	return seqKey(seq)
}

func newMinimizer(replay replayFunc, opts minimizeOptions) *minimizer {
	opts.Workers = max(opts.Workers, 1)
	return &minimizer{replay: replay, opts: opts, slots: make(chan struct{}, opts.Workers),
		cache: map[string]cached{}, running: map[string]chan struct{}{}, deadEnds: map[string]bool{}}
}

func seqKey(seq []browser.Entry) string {
	var b strings.Builder
	for _, e := range seq {
		b.WriteString(strconv.FormatInt(e.Seq, 10))
		b.WriteByte(',')
	}
	return b.String()
}

// entryKey is what a replay of e does, whatever its seq and snapshot ref.
func entryKey(e browser.Entry) string {
	p := e.Params
	if e.Locator != "" {
		p.Target = e.Locator
	}
	return fmt.Sprintf("%s|%s|%s|%s", e.Action, p.JSON(), e.HoverLocator, e.URL)
}

// deadEnd reports whether seq cannot replay: it does not open a page first
// (a fresh context is blank) or it starts like a sequence that failed.
func (m *minimizer) deadEnd(seq []browser.Entry) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.deadEndLocked(seq)
}

func (m *minimizer) deadEndLocked(seq []browser.Entry) bool {
	if len(seq) == 0 || seq[0].Action != browser.ActNavigate {
		return true
	}
	var b strings.Builder
	for _, e := range seq {
		b.WriteString(entryKey(e))
		b.WriteByte('\n')
		if m.deadEnds[b.String()] {
			return true
		}
	}
	return false
}

// errNotRun: admit turned a replay away before it started.
var errNotRun = errors.New("explore: minimise: replay not run")

// acquire takes a worker slot; release gives it back.
func (m *minimizer) acquire(ctx context.Context) error {
	select {
	case m.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", errNotRun, ctx.Err())
	}
}

func (m *minimizer) release() { <-m.slots }

// run replays seq when a worker slot is free (held: the caller holds one)
// and notes where it failed. admit, when given, is asked once the slot is
// taken whether the replay should still go ahead (errNotRun wrapped in its
// error when not) and gives the context to replay in.
func (m *minimizer) run(ctx context.Context, seq []browser.Entry, axe, held bool, admit func() (context.Context, context.CancelFunc, error)) (map[string]bool, error) {
	if !held {
		if err := m.acquire(ctx); err != nil {
			return nil, err
		}
		defer m.release()
	}
	if admit != nil {
		actx, cancel, err := admit()
		if err != nil {
			return nil, err
		}
		defer cancel()
		ctx = actx
	}
	t0 := time.Now()
	out, err := m.replay(ctx, seq, axe)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replays++
	m.entries += len(seq)
	m.spent += time.Since(t0)
	if err == nil && (out.failedAt == 0 || out.failedAt == 1 && len(seq) > 1) {
		m.firstFailed = true
	}
	if err == nil && out.failedAt >= 0 && out.failedAt < len(seq) {
		var b strings.Builder
		for _, e := range seq[:out.failedAt+1] {
			b.WriteString(entryKey(e))
			b.WriteByte('\n')
		}
		m.deadEnds[b.String()] = true
	}
	return out.sigs, err
}

// test answers whether seq reproduces job's finding, charging a replay to
// the job unless the cache knows (or another worker is replaying seq
// already, with axe-core or the way this job needs it: then it waits for
// that answer). fits, when given, is asked once
// a worker slot is free whether the replay fits in the time left, and
// when it does gives the time it must end by. held: the caller holds a
// worker slot for it.
func (m *minimizer) test(ctx context.Context, job *reproJob, seq []browser.Entry, held bool, fits func([]browser.Entry) (time.Time, bool)) (bool, error) {
	if job.link && len(seq) > 0 && seq[len(seq)-1].Action == browser.ActNavigate {
		return false, nil
	}
	// A replay with axe-core answers for every job; one without, for the
	// jobs whose finding is not axe-core's.
	k := cacheKey(seq, job.axe)
	for {
		m.mu.Lock()
		if c, ok := m.cache[cacheKey(seq, true)]; ok {
			m.mu.Unlock()
			return c.sigs[job.sig], nil
		}
		if c, ok := m.cache[k]; ok {
			m.mu.Unlock()
			return c.sigs[job.sig], nil
		}
		if m.deadEndLocked(seq) {
			m.mu.Unlock()
			return false, nil
		}
		wait, ok := m.running[cacheKey(seq, true)]
		if !ok {
			wait, ok = m.running[k]
		}
		if ok {
			m.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return false, ctx.Err()
			}
		}
		if job.replays >= m.opts.Replays {
			m.mu.Unlock()
			return false, errBudget
		}
		if err := ctx.Err(); err != nil {
			m.mu.Unlock()
			return false, err
		}
		job.replays++
		done := make(chan struct{})
		m.running[k] = done
		m.mu.Unlock()

		// Once a slot is free: a dead end found meanwhile is not replayed,
		// nor a replay that no longer fits.
		admit := func() (context.Context, context.CancelFunc, error) {
			if m.deadEnd(seq) {
				return nil, nil, errNotRun
			}
			if fits == nil {
				return ctx, func() {}, nil
			}
			stop, ok := fits(seq)
			if !ok {
				return nil, nil, fmt.Errorf("%w: %w", errNotRun, context.DeadlineExceeded)
			}
			c, cancel := context.WithDeadline(ctx, stop)
			return c, cancel, nil
		}
		sigs, err := m.run(ctx, seq, job.axe, held, admit)
		m.mu.Lock()
		delete(m.running, k)
		close(done)
		if errors.Is(err, errNotRun) {
			job.replays--
		} else if err == nil {
			m.cache[k] = cached{seq: seq, sigs: sigs}
		}
		m.mu.Unlock()
		switch {
		case errors.Is(err, errNotRun) && m.deadEnd(seq):
			return false, nil
		case errors.Is(err, errNotRun):
			return false, context.DeadlineExceeded
		case err != nil:
			return false, err
		}
		return sigs[job.sig], nil
	}
}

func (m *minimizer) isFound(j *reproJob) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return j.found
}

// setBest records that seq reproduces j's finding, unless a shorter
// sequence did already.
func (m *minimizer) setBest(j *reproJob, seq []browser.Entry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !j.found || len(seq) < len(j.best) {
		j.best, j.found = seq, true
	}
}

// estimate is the expected duration of replaying seq, from the replays so
// far (a guess of a second a step before any).
func (m *minimizer) estimate(seq []browser.Entry) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.estimateLocked(seq)
}

func (m *minimizer) estimateLocked(seq []browser.Entry) time.Duration {
	if m.replays == 0 {
		return time.Duration(len(seq)+1) * time.Second
	}
	per := m.spent / time.Duration(m.entries+m.replays)
	return time.Duration(len(seq)+1) * per
}

// minimize shortens every job's reproduction within the budgets:
//
//  1. the suffix heuristics (see candidates), shortest first, breadth
//     first over the jobs, or a shorter sequence replayed for another job;
//  2. ddmin over the shortest reproducing sequence, while time remains,
//     then (time left) ddmin over the full tape of the jobs the heuristics
//     missed;
//  3. one more replay of each result: a sequence that does not reproduce
//     again falls back to the full tape.
//
// Each stage keeps opts.Workers replays going: a goroutine per group of
// jobs in stage 1, per job in stage 2, per result in stage 3.
//
// A job whose finding no shorter replay showed keeps its full tape. A
// sequence that starts like one that could not be replayed is not tried.
func (m *minimizer) minimize(ctx context.Context, jobs []*reproJob) {
	start := time.Now()
	deadline := start.Add(m.opts.Time)
	workers := time.Duration(m.opts.Workers)
	// Time the confirmations will need, with a margin: they run on every
	// worker at once.
	reserve := func() time.Duration {
		m.mu.Lock()
		defer m.mu.Unlock()
		var d time.Duration
		seen := map[string]bool{}
		for _, j := range jobs {
			if k := seqKey(j.best); j.found && !seen[k] {
				seen[k] = true
				d += m.estimateLocked(j.best)
			}
		}
		return (d + d/2) / workers
	}
	searchCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	left := func() bool { return time.Until(deadline) > reserve() && searchCtx.Err() == nil }
	// fits: a replay of seq that starts now ends before the confirmations.
	fits := func(seq []browser.Entry) (time.Time, bool) {
		stop := deadline.Add(-reserve())
		return stop, time.Until(stop) >= m.estimate(seq)
	}
	try := func(ctx context.Context, j *reproJob, seq []browser.Entry) (bool, error) {
		return m.test(ctx, j, seq, false, fits)
	}

	// The longest tapes first: they gain the most.
	jobs = slices.Clone(jobs)
	slices.SortStableFunc(jobs, func(a, b *reproJob) int { return len(b.full) - len(a.full) })
	for _, j := range jobs {
		j.best = j.full
	}
	// 1. The heuristics, breadth first: every job's shortest candidate,
	// then every job's next one…, so that a tight budget goes to the cheap
	// candidates of all bugs (the groups' goroutines queue for the workers
	// in turn). A replay may answer for several jobs. Jobs with the same
	// tape (bugs found at one step) share candidates.
	type group struct {
		jobs          []*reproJob
		mu            sync.Mutex // guards plain and signed
		plain, signed [][]browser.Entry
	}
	var groups []*group
	byTape := map[string]*group{}
	for _, j := range jobs {
		k := seqKey(j.full)
		g, ok := byTape[k]
		if !ok {
			g = &group{}
			g.plain, g.signed = candidates(j.full)
			byTape[k] = g
			groups = append(groups, g)
		}
		g.jobs = append(g.jobs, j)
	}
	for _, g := range groups {
		slices.SortStableFunc(g.jobs, func(a, b *reproJob) int {
			switch {
			case a.axe == b.axe:
				return 0
			case a.axe:
				return -1
			}
			return 1
		})
	}
	// next pops the group's shortest candidate left, those behind a
	// sign-in first once the app turned a replay away at its first page.
	next := func(g *group) ([]browser.Entry, bool) {
		pop := func(l *[][]browser.Entry) []browser.Entry { c := (*l)[0]; *l = (*l)[1:]; return c }
		g.mu.Lock()
		defer g.mu.Unlock()
		m.mu.Lock()
		signedFirst := m.firstFailed
		m.mu.Unlock()
		switch {
		case len(g.signed) > 0 && (signedFirst || len(g.plain) == 0 || len(g.signed[0]) < len(g.plain[0])):
			return pop(&g.signed), true
		case len(g.plain) > 0:
			return pop(&g.plain), true
		}
		return nil, false
	}
	// step tries g's next candidate for its open jobs; false when g has
	// nothing left to try.
	step := func(g *group) bool {
		var open []*reproJob
		for _, j := range g.jobs {
			if m.isFound(j) {
				continue
			}
			if s, ok := m.shortestCached(j); ok {
				m.setBest(j, s)
				continue
			}
			open = append(open, j)
		}
		if len(open) == 0 {
			return false
		}
		// The candidate is picked once a worker is free, so that it is
		// picked knowing what the replays before it learnt (a sign-in wall).
		if m.acquire(searchCtx) != nil {
			return false
		}
		defer m.release()
		c, ok := next(g)
		for ok && m.deadEnd(c) {
			c, ok = next(g)
		}
		if !ok {
			return false
		}
		// One replay answers for the whole group (the jobs are in axe-first
		// order: a replay with axe-core answers for all).
		for _, j := range open {
			if ok, err := m.test(searchCtx, j, c, true, fits); err == nil && ok {
				m.setBest(j, c)
			}
		}
		return true
	}
	// A group of three or more bugs gets two turns for one of the others.
	var wg sync.WaitGroup
	for _, g := range groups {
		for range 1 + min(len(g.jobs)/3, 1) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for left() && step(g) {
				}
			}()
		}
	}
	wg.Wait()
	// 2. Shorter candidates not tried yet, then ddmin, one job per worker,
	// each within a share of the time left. Then, with time to spare, the
	// jobs whose heuristics all failed: the full tape, and ddmin over it.
	polish := func(j *reproJob, remaining int) {
		plain, _ := candidates(j.full)
		for _, c := range plain {
			if len(c) >= len(j.best) || !left() {
				continue
			}
			if ok, err := try(searchCtx, j, c); err != nil {
				break
			} else if ok {
				m.setBest(j, c)
			}
		}
		if len(j.best) < 2 || !left() {
			return
		}
		share := (time.Until(deadline) - reserve()) * workers
		share /= time.Duration(min(remaining, 4*m.opts.Workers))
		jctx, jcancel := context.WithTimeout(searchCtx, share)
		defer jcancel()
		best, _, _ := ddmin(jctx, j.best, func(ctx context.Context, seq []browser.Entry) (bool, error) {
			if !left() {
				return false, context.DeadlineExceeded
			}
			return try(ctx, j, seq)
		}, 0)
		m.setBest(j, best)
	}
	var queue []*reproJob
	for _, j := range jobs {
		if j.found && len(j.best) >= 2 {
			queue = append(queue, j)
		}
	}
	for _, j := range jobs {
		if !j.found {
			queue = append(queue, j)
		}
	}
	var qmu sync.Mutex
	take := func() (*reproJob, int, bool) {
		qmu.Lock()
		defer qmu.Unlock()
		if len(queue) == 0 || !left() {
			return nil, 0, false
		}
		j := queue[0]
		queue = queue[1:]
		return j, len(queue) + 1, true
	}
	for range m.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j, remaining, ok := take(); ok; j, remaining, ok = take() {
				if !j.found {
					ok, err := try(searchCtx, j, j.full)
					if err != nil || !ok {
						continue
					}
					m.setBest(j, j.full)
				}
				polish(j, remaining)
			}
		}()
	}
	wg.Wait()
	// 3. Confirm each distinct result with a fresh replay.
	type confirmation struct {
		seq  []browser.Entry
		axe  bool      // one of its jobs needs axe-core
		by   *reproJob // charged with the replay
		sigs map[string]bool
	}
	confirms := map[string]*confirmation{}
	for _, j := range jobs {
		if !j.found {
			continue
		}
		k := seqKey(j.best)
		if confirms[k] == nil {
			confirms[k] = &confirmation{seq: j.best, by: j}
		}
		confirms[k].axe = confirms[k].axe || j.axe
	}
	for _, c := range confirms {
		if time.Until(deadline) <= 0 || ctx.Err() != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, ccancel := context.WithDeadline(ctx, deadline)
			defer ccancel()
			sigs, err := m.run(cctx, c.seq, c.axe, false, nil)
			if errors.Is(err, errNotRun) {
				return
			}
			m.mu.Lock()
			c.sigs = sigs
			c.by.replays++
			m.mu.Unlock()
		}()
	}
	wg.Wait()
	for _, j := range jobs {
		if !j.found {
			continue
		}
		if confirms[seqKey(j.best)].sigs[j.sig] {
			j.confirmed = true
		} else {
			j.best = j.full
		}
	}
}

// shortestCached is the shortest sequence replayed so far that showed the
// job's finding and lies within its tape.
func (m *minimizer) shortestCached(j *reproJob) ([]browser.Entry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var best []browser.Entry
	within := map[int64]bool{}
	for _, e := range j.full {
		within[e.Seq] = true
		within[-e.Seq] = true // a jump to the page before e
	}
	for _, c := range m.cache {
		if !c.sigs[j.sig] || (best != nil && len(c.seq) >= len(best)) || len(c.seq) >= len(j.full) {
			continue
		}
		if !slices.ContainsFunc(c.seq, func(e browser.Entry) bool { return !within[e.Seq] }) {
			best = c.seq
		}
	}
	return best, best != nil
}

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
		if k := seqKey(c); len(c) > 0 && len(c) < n && !seen[k] {
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
	seg, _, _ := strings.Cut(strings.TrimPrefix(pathOf(u), "/"), "/")
	return seg
}

// reRecord matches a record in a URL path: a collection and a number
// (/projects/28).
var reRecord = regexp.MustCompile(`/[A-Za-z][A-Za-z0-9_-]*/[0-9]+`)

func recordsOf(u string) []string { return reRecord.FindAllString(pathOf(u), -1) }

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
				if steps := formSteps(full, i); steps != nil {
					out = append(out, maker{rec: r, at: i, steps: steps})
				}
			}
		}
	}
	return out
}

// formSteps are the steps that submitted a form at tape index i: a
// navigation to the page it was on (the recorded one, or a jump when the
// tape came by a click), then what the tape did there up to i; nil when it
// filled nothing there.
func formSteps(full []browser.Entry, i int) []browser.Entry {
	page := pathOf(full[i-1].URL)
	k := i - 1 // full[k] arrived on the page
	for k > 0 && pathOf(full[k-1].URL) == page {
		k--
	}
	if !slices.ContainsFunc(full[k+1:i], func(e browser.Entry) bool { return e.Action == browser.ActFill }) {
		return nil
	}
	if full[k].Action == browser.ActNavigate {
		return slices.Clone(full[k : i+1])
	}
	return append([]browser.Entry{jumpTo(full[k], full[k+1])}, full[k+1:i+1]...)
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
		if k >= 2 && full[k-2].URL != "" && pathQuery(full[k-2].URL) == pathQuery(prev.URL) {
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
	u := pathQuery(prev.URL)
	return browser.Entry{Seq: -next.Seq, Action: browser.ActNavigate, OK: true,
		Params: browser.Intent{Action: browser.ActNavigate, URL: u}, URL: prev.URL, Time: prev.Time}
}

var rePasswordField = regexp.MustCompile(`(?i)passw|passphrase|pwd`)

// signIn is the latest sign-in in tape: from the navigation before a
// password field was filled to the first click or key press after it.
func signIn(tape []browser.Entry) []browser.Entry {
	for i := len(tape) - 1; i >= 0; i-- {
		e := tape[i]
		if e.Action != browser.ActFill || !rePasswordField.MatchString(e.Locator+" "+e.Params.Target) {
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

// Replaying recorded entries with the engine: snapshot refs do not survive
// a fresh context, so a ref target is rebuilt from the Playwright locator
// the engine recorded for it.

var (
	reLocCall = regexp.MustCompile(`^(getByTestId|getByLabel|getByText|getByPlaceholder|locator)\('((?:[^'\\]|\\.)*)'(, \{ exact: true \})?\)$`)
	reLocRole = regexp.MustCompile(`^getByRole\('([a-z]+)'(?:, \{ name: '((?:[^'\\]|\\.)*)'(, exact: true)? \})?\)$`)
)

// targetOf turns a recorded locator (browser.JSLocator's forms) back into
// a target the selector policy accepts.
func targetOf(loc string) (string, error) {
	quote := func(v string) (string, bool) {
		switch {
		case !strings.Contains(v, `"`):
			return `"` + v + `"`, true
		case !strings.Contains(v, `'`):
			return `'` + v + `'`, true
		}
		return "", false
	}
	var t string
	if m := reLocCall.FindStringSubmatch(loc); m != nil {
		v, err := jsUnquote(m[2])
		if err != nil {
			return "", fmt.Errorf("locator %s: %w", loc, err)
		}
		switch m[1] {
		case "getByTestId":
			q, ok := quote(v)
			if !ok {
				return "", fmt.Errorf("locator %s: test id with both quote kinds", loc)
			}
			t = "[data-testid=" + q + "]"
		case "getByLabel":
			t = "label=" + v
		case "getByText":
			t = "text=" + v
		case "getByPlaceholder":
			t = "placeholder=" + v
		case "locator":
			t = v
		}
	} else if m := reLocRole.FindStringSubmatch(loc); m != nil {
		t = "role=" + m[1]
		if m[2] != "" {
			v, err := jsUnquote(m[2])
			if err != nil {
				return "", fmt.Errorf("locator %s: %w", loc, err)
			}
			q, ok := quote(v)
			if !ok {
				return "", fmt.Errorf("locator %s: name with both quote kinds", loc)
			}
			flag := ""
			if m[3] != "" {
				flag = "s"
			}
			t += "[name=" + q + flag + "]"
		}
	} else {
		return "", fmt.Errorf("locator %s: no stable target for it", loc)
	}
	pt, err := browser.ParseTarget(t)
	if err != nil || pt.Kind == browser.TargetRef {
		return "", fmt.Errorf("locator %s: %s is not a stable target", loc, t)
	}
	return t, nil
}

// jsUnquote reads the body of a single-quoted JavaScript string literal.
func jsUnquote(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", errors.New("dangling backslash")
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x', 'u':
			w := map[byte]int{'x': 2, 'u': 4}[c]
			if i+w >= len(s) {
				return "", fmt.Errorf("short \\%c escape", c)
			}
			r, err := strconv.ParseUint(s[i+1:i+1+w], 16, 32)
			if err != nil {
				return "", fmt.Errorf("bad \\%c escape: %w", c, err)
			}
			b.WriteRune(rune(r))
			i += w
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// replayIntents are the intents that replay e on a page served at origin:
// ref targets rebuilt from the recorded locators (a hover first for a
// hover-only control) and URLs of the recorded origin moved to origin.
func replayIntents(e browser.Entry, recorded, origin string) ([]browser.Intent, error) {
	in := e.Params
	in.Action = e.Action
	if in.URL != "" && recorded != "" && strings.HasPrefix(in.URL, recorded) {
		in.URL = origin + strings.TrimPrefix(in.URL, recorded)
	}
	var out []browser.Intent
	if in.Target != "" {
		t, err := browser.ParseTarget(in.Target)
		if err != nil {
			return nil, err
		}
		if t.Kind == browser.TargetRef {
			if e.Locator == "" {
				return nil, fmt.Errorf("%s %s: no locator recorded", e.Action, in.Target)
			}
			if in.Target, err = targetOf(e.Locator); err != nil {
				return nil, err
			}
		}
		if e.HoverLocator != "" {
			h, err := targetOf(e.HoverLocator)
			if err != nil {
				return nil, err
			}
			out = append(out, browser.Intent{Action: browser.ActHover, Target: h})
		}
	}
	return append(out, in), nil
}

// replayer replays entries of a mission in fresh browser contexts, each
// behind its own collector (the mission's oracles, no shared state), in
// front of a fresh app when Config.ReplayTarget gives one (the demo app
// always does) or else the live target.
type replayer struct {
	mr *missionRun
	// trace, when set, is where the replay's Playwright trace goes.
	trace string
	title string
}

func (rp replayer) replay(ctx context.Context, seq []browser.Entry, axe bool) (out replayed, err error) {
	mr := rp.mr
	t0 := time.Now()
	why := ""
	var steps []string // durations, for the debug log
	defer func() {
		mr.log.Debug("minimise: replay", "seqs", seqKey(seq), "took", time.Since(t0).Round(time.Millisecond), "steps", steps, "findings", len(out.sigs), "stopped", why, "err", err)
	}()
	target := mr.target
	if mr.cfg.ReplayTarget != nil {
		t, stop, err := mr.cfg.ReplayTarget(ctx)
		if err != nil {
			return out, fmt.Errorf("minimise: replay target: %w", err)
		}
		defer stop()
		target = t
	}
	col, err := collector.New(target, mr.cfg.SlowThreshold, mr.log)
	if err != nil {
		return out, fmt.Errorf("minimise: %w", err)
	}
	if !axe {
		col.WithoutAxe()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return out, fmt.Errorf("minimise: listen: %w", err)
	}
	hs := &http.Server{Handler: col, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer func() { _ = hs.Close() }()
	origin := "http://" + ln.Addr().String()
	cfg := mr.engineCfg
	cfg.Origins, cfg.Aliases = []string{origin}, map[string]string{strings.TrimRight(mr.target, "/"): origin}
	cfg.Tape, cfg.StorageStatePath = nil, ""
	steps = append(steps, "setup "+time.Since(t0).Round(time.Millisecond).String())
	eng, err := mr.browser.NewEngine(cfg)
	if err != nil {
		return out, fmt.Errorf("minimise: browser engine: %w", err)
	}
	defer func() { _ = eng.Close() }()
	s, err := eng.User(ctx, "minimise")
	if err != nil {
		return out, fmt.Errorf("minimise: browser context: %w", err)
	}
	if rp.trace != "" {
		if err := s.StartTrace(ctx, rp.title); err != nil {
			return out, err
		}
		defer func() {
			if terr := s.StopTrace(rp.trace); terr != nil && err == nil {
				err = terr
			}
		}()
	}
	steps = append(steps, "context "+time.Since(t0).Round(time.Millisecond).String())
	sigs := map[string]bool{}
	// The replay's findings in the mission's addresses, as its bugs have
	// them: this replay's front and app stand for the mission's target.
	toFront, toTarget := collector.NewAddresser(origin, mr.target), collector.NewAddresser(target, mr.target)
	note := func(fs []browser.Finding, page string) {
		for _, f := range append(collector.PageFindings(fs), col.Take()...) {
			f = toTarget.Finding(toFront.Finding(f))
			page = toTarget.Text(toFront.Text(page))
			p := f.URL
			if p == "" {
				p = page
			}
			sigs[findingSig(string(f.Kind), p, bugEvidence(f))] = true
		}
	}
	for i, e := range seq {
		ins, err := replayIntents(e, strings.TrimRight(mr.target, "/"), origin)
		if err != nil {
			why = fmt.Sprintf("#%d cannot be replayed: %v", e.Seq, err)
			return replayed{failedAt: i}, nil
		}
		// A double submit: the mission held the first response, so that the
		// second click lands while it is in flight.
		if e.Action == browser.ActDblclick || e.Action == browser.ActClick && i+1 < len(seq) && seq[i+1].Action == browser.ActClick && seq[i+1].Locator == e.Locator {
			col.HoldNextPost(settleTimeout + 700*time.Millisecond)
		}
		var res browser.Result
		for _, in := range ins {
			res = s.Do(ctx, in)
			steps = append(steps, res.Duration.Round(time.Millisecond).String())
			if !res.OK && !e.OK && i == len(seq)-1 {
				// It failed in the recording too (the bug's own step, see
				// replayable): what it showed still counts.
				note(res.Findings, res.URL)
				break
			}
			if !res.OK {
				why = fmt.Sprintf("#%d failed: %s", e.Seq, clip(res.Error, 200))
				return replayed{failedAt: i}, ctx.Err()
			}
			note(res.Findings, res.URL)
		}
		// A form submitted by script leaves the page after the click
		// returned: give it a moment to get where the recording got.
		onPath := func(u string) bool { return findingSig("", u, "") == findingSig("", e.URL, "") }
		if (e.Action == browser.ActClick || e.Action == browser.ActPress) && i < len(seq)-1 && !onPath(res.URL) {
			for range 12 {
				col.WaitQuiet(ctx, 250*time.Millisecond)
				res = s.Do(ctx, browser.Intent{Action: browser.ActCheckHealth})
				note(res.Findings, res.URL)
				if onPath(res.URL) || ctx.Err() != nil {
					break
				}
			}
		}
		// Off the recorded path (e.g. sent to a sign-in page): this
		// sequence does not replay the recording.
		if i < len(seq)-1 && !onPath(res.URL) {
			why = fmt.Sprintf("#%d landed on %s, not %s", e.Seq, pathOf(res.URL), pathOf(e.URL))
			return replayed{failedAt: i}, ctx.Err()
		}
		if e.Action == browser.ActClick {
			col.WaitQuiet(ctx, 150*time.Millisecond)
		}
	}
	// Late reports of the in-page recorder (axe-core once the page stops
	// changing, dead controls after 600 ms).
	col.WaitQuiet(ctx, 700*time.Millisecond)
	res := s.Do(ctx, browser.Intent{Action: browser.ActCheckHealth})
	note(res.Findings, res.URL)
	return replayed{sigs: sigs, failedAt: -1}, ctx.Err()
}

// minimizeRepros minimises the reproduction of each of r's bugs (see
// minimizer.minimize) and returns the entries to replay per bug id; bugs
// left out keep their full tape. It sets each bug's ReproFullSteps and
// ReproReplays.
func (mr *missionRun) minimizeRepros(ctx context.Context, r *MissionResult) map[string][]browser.Entry {
	if mr.cfg.MinimizeReplays < 0 || ctx.Err() != nil || len(r.Bugs) == 0 {
		return nil
	}
	t0 := time.Now()
	m := newMinimizer(replayer{mr: mr}.replay, minimizeOptions{Replays: mr.cfg.MinimizeReplays, Time: mr.cfg.MinimizeTime, Workers: mr.cfg.MinimizeWorkers})
	var jobs []*reproJob
	ids := map[*reproJob]int{}
	for i, b := range r.Bugs {
		full := mr.bugEntries(r.Timeline, b)
		r.Bugs[i].ReproFullSteps = len(full)
		if len(full) < 2 || b.Kind == string(FindCrossUser) {
			continue // a cross-user leak's spec is built from both users' steps
		}
		if u := mr.bugUser(r.Timeline, b); u != nil && u.StorageState != "" {
			continue // replays start from no session, this user from its storage state
		}
		j := &reproJob{sig: findingSig(b.Kind, b.URL, b.Evidence), axe: b.Kind == string(collector.FindA11y), link: b.Kind == string(browser.FindNotFound), full: full}
		ids[j] = i
		jobs = append(jobs, j)
	}
	m.minimize(ctx, jobs)
	out := map[string][]browser.Entry{}
	before, after := 0, 0
	for _, j := range jobs {
		b := &r.Bugs[ids[j]]
		b.ReproReplays = j.replays
		before += len(j.full)
		after += len(j.best)
		if j.confirmed {
			out[b.ID] = j.best
		}
		mr.log.Info("explore: reproduction minimised", "bug", b.ID, "full", len(j.full), "minimised", len(j.best), "replays", j.replays, "confirmed", j.confirmed)
	}
	if mr.cfg.Progress != nil {
		fmt.Fprintf(mr.cfg.Progress, "[%d/%d %s] minimised %d reproductions: %d → %d steps, %d replays, %s\n", mr.index+1, mr.total, mr.m.ThreadID,
			len(out), before, after, m.replays, time.Since(t0).Round(100*time.Millisecond))
	}
	mr.traceRepros(ctx, r, out)
	return out
}

// Trace bounds: the bugs traced per mission and the time all their
// replays may take.
const (
	maxTraces = 20
	traceTime = 2 * time.Minute
)

// TraceName is the file of a bug's Playwright trace in its mission's
// report directory.
func TraceName(bugID string) string { return "trace_" + bugID + ".zip" }

// traceRepros replays each bug's reproduction (minimised when it was)
// once more with Playwright tracing on and keeps the trace beside the
// spec: `npx playwright show-trace trace_<id>.zip` shows every step, its
// DOM before and after, the network and the console.
func (mr *missionRun) traceRepros(ctx context.Context, r *MissionResult, minimized map[string][]browser.Entry) {
	ctx, cancel := context.WithTimeout(ctx, traceTime)
	defer cancel()
	n := 0
	for i := range r.Bugs {
		b := &r.Bugs[i]
		entries, ok := minimized[b.ID]
		if !ok {
			entries = mr.bugEntries(r.Timeline, *b)
		}
		if len(entries) == 0 || n >= maxTraces || ctx.Err() != nil {
			continue
		}
		if u := mr.bugUser(r.Timeline, *b); b.Kind == string(FindCrossUser) || u != nil && u.StorageState != "" {
			continue // one replay session cannot be two users, nor start signed in
		}
		if typesSecret(entries) {
			// A trace records what a replay types: no trace of a secret.
			mr.trace.Info("trace: left out, the reproduction types a secret", "bug", b.ID)
			continue
		}
		n++
		name := TraceName(b.ID)
		rp := replayer{mr: mr, trace: filepath.Join(r.Dir, name), title: b.ID + ": " + b.Title}
		if _, err := rp.replay(ctx, entries, b.Kind == string(collector.FindA11y)); err != nil {
			mr.trace.Warn("trace", "bug", b.ID, "err", err)
			continue
		}
		b.Trace = name
	}
}

// typesSecret reports whether a reproduction types a secret (an entry's
// value is a ${SECRET_n} reference).
func typesSecret(entries []browser.Entry) bool {
	for _, e := range entries {
		if strings.Contains(e.Params.ValueOrEmpty(), "${SECRET_") {
			return true
		}
	}
	return false
}

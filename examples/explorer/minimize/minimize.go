package minimize

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// reNum finds the numbers FindingSig replaces.
var reNum = regexp.MustCompile(`[0-9]+`)

// FindingSig identifies a finding across replays: its kind, the path of
// its page and its evidence, with every number (record ids, ports,
// timings, line numbers) replaced, as memory's run-independent evidence is.
func FindingSig(kind, page, evidence string) string {
	return kind + "\x00" + reNum.ReplaceAllString(urlx.Path(page), "#") + "\x00" + reNum.ReplaceAllString(evidence, "#")
}

// ReplayFunc replays entries in a fresh browser context; axe: with
// axe-core in every page (the costly part of a replay, needed only to see
// accessibility findings).
type ReplayFunc func(ctx context.Context, seq []browser.Entry, axe bool) (Replayed, error)

// Replayed is a replay's outcome: the signatures (findingSig) of the
// findings it saw, or the index of the step where it could not follow the
// recording (it failed or led elsewhere; -1 when it ran through).
type Replayed struct {
	Sigs     map[string]bool
	FailedAt int
}

// Options bounds a minimisation.
type Options struct {
	// Replays is the most replays one bug may cost (cache hits are free).
	Replays int
	// Time bounds the whole search; confirmations must fit in it too.
	Time time.Duration
	// Workers is how many replays may run at once (≤ 0: one).
	Workers int
}

// Job is the minimisation of one bug's reproduction.
type Job struct {
	Sig string
	Axe bool // the finding is axe-core's: replays need it
	// Link: the finding is a broken Link; its reproduction must follow
	// the Link, not open the dead URL directly (which fails the same way
	// once the Link is fixed).
	Link bool
	Full []browser.Entry
	// Best, found and replays are written under the minimizer's lock (by
	// the goroutine working on the job).
	Best    []browser.Entry
	Replays int
	// Found: a shorter sequence reproduced in a replay; Confirmed: and it
	// reproduced once more at the end.
	Found, Confirmed bool
}

// Minimizer shares replays between the bugs of a mission: a replay's
// findings answer the question for every bug whose finding it shows. Up
// to opts.Workers replays run at once; the same sequence is never replayed
// twice at the same time.
type Minimizer struct {
	replay ReplayFunc
	opts   Options
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
		return SeqKey(seq) + "axe"
	}
	return SeqKey(seq)
}

func New(replay ReplayFunc, opts Options) *Minimizer {
	opts.Workers = max(opts.Workers, 1)
	return &Minimizer{replay: replay, opts: opts, slots: make(chan struct{}, opts.Workers),
		cache: map[string]cached{}, running: map[string]chan struct{}{}, deadEnds: map[string]bool{}}
}

func SeqKey(seq []browser.Entry) string {
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
func (m *Minimizer) deadEnd(seq []browser.Entry) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.deadEndLocked(seq)
}

func (m *Minimizer) deadEndLocked(seq []browser.Entry) bool {
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
var errNotRun = errors.New("minimize: replay not run")

// acquire takes a worker slot; release gives it back.
func (m *Minimizer) acquire(ctx context.Context) error {
	select {
	case m.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", errNotRun, ctx.Err())
	}
}

func (m *Minimizer) release() { <-m.slots }

// run replays seq when a worker slot is free (held: the caller holds one)
// and notes where it failed. admit, when given, is asked once the slot is
// taken whether the replay should still go ahead (errNotRun wrapped in its
// error when not) and gives the context to replay in.
func (m *Minimizer) run(ctx context.Context, seq []browser.Entry, axe, held bool, admit func() (context.Context, context.CancelFunc, error)) (map[string]bool, error) {
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
	if err == nil && (out.FailedAt == 0 || out.FailedAt == 1 && len(seq) > 1) {
		m.firstFailed = true
	}
	if err == nil && out.FailedAt >= 0 && out.FailedAt < len(seq) {
		var b strings.Builder
		for _, e := range seq[:out.FailedAt+1] {
			b.WriteString(entryKey(e))
			b.WriteByte('\n')
		}
		m.deadEnds[b.String()] = true
	}
	return out.Sigs, err
}

// test answers whether seq reproduces job's finding, charging a replay to
// the job unless the cache knows (or another worker is replaying seq
// already, with axe-core or the way this job needs it: then it waits for
// that answer). fits, when given, is asked once
// a worker slot is free whether the replay fits in the time left, and
// when it does gives the time it must end by. held: the caller holds a
// worker slot for it.
func (m *Minimizer) test(ctx context.Context, job *Job, seq []browser.Entry, held bool, fits func([]browser.Entry) (time.Time, bool)) (bool, error) {
	if job.Link && len(seq) > 0 && seq[len(seq)-1].Action == browser.ActNavigate {
		return false, nil
	}
	// A replay with axe-core answers for every job; one without, for the
	// jobs whose finding is not axe-core's.
	k := cacheKey(seq, job.Axe)
	for {
		m.mu.Lock()
		if c, ok := m.cache[cacheKey(seq, true)]; ok {
			m.mu.Unlock()
			return c.sigs[job.Sig], nil
		}
		if c, ok := m.cache[k]; ok {
			m.mu.Unlock()
			return c.sigs[job.Sig], nil
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
		if job.Replays >= m.opts.Replays {
			m.mu.Unlock()
			return false, errBudget
		}
		if err := ctx.Err(); err != nil {
			m.mu.Unlock()
			return false, err
		}
		job.Replays++
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
		sigs, err := m.run(ctx, seq, job.Axe, held, admit)
		m.mu.Lock()
		delete(m.running, k)
		close(done)
		if errors.Is(err, errNotRun) {
			job.Replays--
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
		return sigs[job.Sig], nil
	}
}

func (m *Minimizer) isFound(j *Job) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return j.Found
}

// setBest records that seq reproduces j's finding, unless a shorter
// sequence did already.
func (m *Minimizer) setBest(j *Job, seq []browser.Entry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !j.Found || len(seq) < len(j.Best) {
		j.Best, j.Found = seq, true
	}
}

// estimate is the expected duration of replaying seq, from the replays so
// far (a guess of a second a step before any).
func (m *Minimizer) estimate(seq []browser.Entry) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.estimateLocked(seq)
}

func (m *Minimizer) estimateLocked(seq []browser.Entry) time.Duration {
	if m.replays == 0 {
		return time.Duration(len(seq)+1) * time.Second
	}
	per := m.spent / time.Duration(m.entries+m.replays)
	return time.Duration(len(seq)+1) * per
}

// Run shortens every job's reproduction within the budgets:
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
func (m *Minimizer) Run(ctx context.Context, jobs []*Job) {
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
			if k := SeqKey(j.Best); j.Found && !seen[k] {
				seen[k] = true
				d += m.estimateLocked(j.Best)
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
	try := func(ctx context.Context, j *Job, seq []browser.Entry) (bool, error) {
		return m.test(ctx, j, seq, false, fits)
	}

	// The longest tapes first: they gain the most.
	jobs = slices.Clone(jobs)
	slices.SortStableFunc(jobs, func(a, b *Job) int { return len(b.Full) - len(a.Full) })
	for _, j := range jobs {
		j.Best = j.Full
	}
	// 1. The heuristics, breadth first: every job's shortest candidate,
	// then every job's next one…, so that a tight budget goes to the cheap
	// candidates of all bugs (the groups' goroutines queue for the workers
	// in turn). A replay may answer for several jobs. Jobs with the same
	// tape (bugs found at one step) share candidates.
	type group struct {
		jobs          []*Job
		mu            sync.Mutex // guards plain and signed
		plain, signed [][]browser.Entry
	}
	var groups []*group
	byTape := map[string]*group{}
	for _, j := range jobs {
		k := SeqKey(j.Full)
		g, ok := byTape[k]
		if !ok {
			g = &group{}
			g.plain, g.signed = candidates(j.Full)
			byTape[k] = g
			groups = append(groups, g)
		}
		g.jobs = append(g.jobs, j)
	}
	for _, g := range groups {
		slices.SortStableFunc(g.jobs, func(a, b *Job) int {
			switch {
			case a.Axe == b.Axe:
				return 0
			case a.Axe:
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
		var open []*Job
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
	polish := func(j *Job, remaining int) {
		plain, _ := candidates(j.Full)
		for _, c := range plain {
			if len(c) >= len(j.Best) || !left() {
				continue
			}
			if ok, err := try(searchCtx, j, c); err != nil {
				break
			} else if ok {
				m.setBest(j, c)
			}
		}
		if len(j.Best) < 2 || !left() {
			return
		}
		share := (time.Until(deadline) - reserve()) * workers
		share /= time.Duration(min(remaining, 4*m.opts.Workers))
		jctx, jcancel := context.WithTimeout(searchCtx, share)
		defer jcancel()
		best, _, _ := DDMin(jctx, j.Best, func(ctx context.Context, seq []browser.Entry) (bool, error) {
			if !left() {
				return false, context.DeadlineExceeded
			}
			return try(ctx, j, seq)
		}, 0)
		m.setBest(j, best)
	}
	var queue []*Job
	for _, j := range jobs {
		if j.Found && len(j.Best) >= 2 {
			queue = append(queue, j)
		}
	}
	for _, j := range jobs {
		if !j.Found {
			queue = append(queue, j)
		}
	}
	var qmu sync.Mutex
	take := func() (*Job, int, bool) {
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
				if !j.Found {
					ok, err := try(searchCtx, j, j.Full)
					if err != nil || !ok {
						continue
					}
					m.setBest(j, j.Full)
				}
				polish(j, remaining)
			}
		}()
	}
	wg.Wait()
	// 3. Confirm each distinct result with a fresh replay.
	type confirmation struct {
		seq  []browser.Entry
		axe  bool // one of its jobs needs axe-core
		by   *Job // charged with the replay
		sigs map[string]bool
	}
	confirms := map[string]*confirmation{}
	for _, j := range jobs {
		if !j.Found {
			continue
		}
		k := SeqKey(j.Best)
		if confirms[k] == nil {
			confirms[k] = &confirmation{seq: j.Best, by: j}
		}
		confirms[k].axe = confirms[k].axe || j.Axe
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
			c.by.Replays++
			m.mu.Unlock()
		}()
	}
	wg.Wait()
	for _, j := range jobs {
		if !j.Found {
			continue
		}
		if confirms[SeqKey(j.Best)].sigs[j.Sig] {
			j.Confirmed = true
		} else {
			j.Best = j.Full
		}
	}
}

// shortestCached is the shortest sequence replayed so far that showed the
// job's finding and lies within its tape.
func (m *Minimizer) shortestCached(j *Job) ([]browser.Entry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var best []browser.Entry
	within := map[int64]bool{}
	for _, e := range j.Full {
		within[e.Seq] = true
		within[-e.Seq] = true // a jump to the page before e
	}
	for _, c := range m.cache {
		if !c.sigs[j.Sig] || (best != nil && len(c.seq) >= len(best)) || len(c.seq) >= len(j.Full) {
			continue
		}
		if !slices.ContainsFunc(c.seq, func(e browser.Entry) bool { return !within[e.Seq] }) {
			best = c.seq
		}
	}
	return best, best != nil
}

// Replays is how many replays the minimizer has run.
func (m *Minimizer) Replays() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.replays
}

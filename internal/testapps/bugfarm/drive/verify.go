package drive

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/internal/loopback"
	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

// Subject is one app to verify: its bugs, and fresh instances of its buggy
// and fixed builds (one per reproduction, so no bug sees another's records).
type Subject struct {
	Seed  int64
	Bugs  []bugfarm.Bug
	Buggy func() http.Handler
	Fixed func() http.Handler
}

// GeneratedSubject is the bugfarm app of seed.
func GeneratedSubject(seed int64) Subject {
	app := bugfarm.Generate(seed, bugfarm.Options{})
	return Subject{Seed: seed, Bugs: app.Bugs,
		Buggy: func() http.Handler { return bugfarm.Generate(seed, bugfarm.Options{}) },
		Fixed: func() http.Handler { return bugfarm.Generate(seed, bugfarm.Options{Fixed: true}) }}
}

// Result is one bug verified on both builds.
type Result struct {
	Seed   int64          `json:"seed"`
	ID     string         `json:"id"`
	Class  bugfarm.Class  `json:"class"`
	Signal bugfarm.Signal `json:"signal"`
	Buggy  Observation    `json:"buggy"`
	Fixed  Observation    `json:"fixed"`
	// BuggyErr and FixedErr are errors playing the trigger ("" when none).
	BuggyErr string `json:"buggy_error,omitempty"`
	FixedErr string `json:"fixed_error,omitempty"`
	// OK: it fired on the buggy build; on the fixed build the trigger
	// played, it did not fire and the page stayed clean.
	OK bool `json:"ok"`
	// Retries counts reproductions played again after a step failed.
	Retries  int      `json:"retries,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

// Line is the result in one line.
func (r Result) Line() string {
	verdict := "ok"
	if !r.OK {
		verdict = "FAIL: " + strings.Join(r.Problems, "; ")
	}
	ev := r.Buggy.Evidence
	if ev == "" {
		ev = "-"
	}
	return fmt.Sprintf("seed %d %s %-20s %-10s buggy %s fixed %s  %s  [%s]", r.Seed, r.ID, r.Class, r.Signal,
		firedWord(r.Buggy.Fired), cleanWord(r.Fixed), verdict, clip(strings.ReplaceAll(ev, "\n", " "), 140))
}

func firedWord(b bool) string {
	if b {
		return "fired"
	}
	return "silent"
}

func cleanWord(o Observation) string {
	switch {
	case o.Fired:
		return "fired"
	case !o.Clean():
		return "unclean"
	}
	return "clean"
}

// Report is the outcome of Verify.
type Report struct {
	Results  []Result      `json:"results"`
	Bugs     int           `json:"bugs"`
	Failed   int           `json:"failed"`
	Duration time.Duration `json:"duration_ns"`
}

// Total is the closing line.
func (r Report) Total() string {
	return fmt.Sprintf("total: %d bugs, %d ok, %d failed (%s)", r.Bugs, r.Bugs-r.Failed, r.Failed, r.Duration.Round(100*time.Millisecond))
}

// Verify checks every bug of the generated apps of seeds on the buggy and
// the fixed build, parallel bugs at a time, with default Options.
func Verify(ctx context.Context, b *browser.Browser, seeds []int64, parallel int) (Report, error) {
	return New(Options{}).Verify(ctx, b, seeds, parallel)
}

// Verify checks every bug of the generated apps of seeds.
func (d *Driver) Verify(ctx context.Context, b *browser.Browser, seeds []int64, parallel int) (Report, error) {
	subjects := make([]Subject, 0, len(seeds))
	for _, s := range seeds {
		subjects = append(subjects, GeneratedSubject(s))
	}
	return d.VerifyApps(ctx, b, subjects, parallel)
}

// VerifyApps checks every bug of subjects: on a fresh buggy instance its
// signal must fire; on a fresh fixed instance the trigger must play, the
// signal must not fire and the page must show no page error, console error
// or 5xx. parallel bugs run at once (each in its own browser contexts on
// b). It returns an error only when it could not run (a cancelled context,
// no loopback); failed bugs are in the Report.
func (d *Driver) VerifyApps(ctx context.Context, b *browser.Browser, subjects []Subject, parallel int) (Report, error) {
	t0 := time.Now()
	if parallel <= 0 {
		parallel = 1
	}
	type job struct {
		sub Subject
		bug bugfarm.Bug
		idx int
	}
	var jobs []job
	for _, s := range subjects {
		if s.Buggy == nil || s.Fixed == nil {
			return Report{}, fmt.Errorf("drive: seed %d: a subject needs both builds", s.Seed)
		}
		for _, bug := range s.Bugs {
			jobs = append(jobs, job{sub: s, bug: bug, idx: len(jobs)})
		}
	}
	results := make([]Result, len(jobs))
	ch := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var fatal error
	for range min(parallel, max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range ch {
				res, err := d.verifyOne(ctx, b, j.sub, j.bug)
				mu.Lock()
				if err != nil && fatal == nil {
					fatal = err
				}
				results[j.idx] = res
				if err == nil {
					fmt.Fprintln(d.opts.Progress, res.Line())
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case ch <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	rep := Report{Results: results, Bugs: len(results), Duration: time.Since(t0)}
	if fatal == nil && ctx.Err() != nil {
		fatal = ctx.Err()
	}
	if fatal != nil {
		return rep, fatal
	}
	for _, r := range results {
		if !r.OK {
			rep.Failed++
		}
	}
	return rep, nil
}

// verifyOne reproduces bug on both builds. Its error is a harness failure
// (cancellation, no loopback); the bug's own failures are in Result.
func (d *Driver) verifyOne(ctx context.Context, b *browser.Browser, s Subject, bug bugfarm.Bug) (Result, error) {
	res := Result{Seed: s.Seed, ID: bug.ID, Class: bug.Class, Signal: bug.Expect.Signal}
	var errs [2]error
	for i, h := range []func() http.Handler{s.Buggy, s.Fixed} {
		var obs Observation
		var err error
		for try := 0; try <= d.opts.Retries; try++ {
			url, stop, serr := Serve(h())
			if serr != nil {
				return res, serr
			}
			obs, err = d.Reproduce(ctx, b, url, bug)
			stop()
			if ctx.Err() != nil {
				return res, fmt.Errorf("drive: %w", ctx.Err())
			}
			var se *StepError
			if !errors.As(err, &se) {
				break
			}
			if try < d.opts.Retries {
				res.Retries++ // a step that timed out on a loaded machine gets another go
			}
		}
		errs[i] = err
		if i == 0 {
			res.Buggy = obs
		} else {
			res.Fixed = obs
		}
	}
	if errs[0] != nil {
		res.BuggyErr = errs[0].Error()
		res.Problems = append(res.Problems, "buggy build: "+res.BuggyErr)
	} else if !res.Buggy.Fired {
		res.Problems = append(res.Problems, "buggy build: the signal did not fire")
	}
	if errs[1] != nil {
		res.FixedErr = errs[1].Error()
		res.Problems = append(res.Problems, "fixed build: "+res.FixedErr)
	}
	if res.Fixed.Fired {
		res.Problems = append(res.Problems, "fixed build: the signal fired: "+clip(res.Fixed.Evidence, 200))
	}
	if ps := res.Fixed.Problems(); len(ps) > 0 {
		res.Problems = append(res.Problems, "fixed build not clean: "+clip(strings.Join(ps, " | "), 300))
	}
	res.OK = len(res.Problems) == 0
	return res, nil
}

// Serve serves h on a fresh loopback port; stop closes the server.
func Serve(h http.Handler) (url string, stop func(), err error) {
	ls, err := loopback.Listen("", h)
	if err != nil {
		return "", nil, fmt.Errorf("drive: %w", err)
	}
	return ls.URL, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = ls.Close(ctx)
	}, nil
}

// MaxSeeds bounds how many seeds one list may name.
const MaxSeeds = 10000

// ParseSeeds reads a seed list: comma-separated seeds and inclusive ranges,
// such as "1-20", "1,3,5" or "101-120,7". Seeds are non-negative; a seed
// named twice, an empty item or a range that runs backwards is an error.
func ParseSeeds(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("seeds: empty list (want e.g. 1-20 or 1,3,5)")
	}
	var out []int64
	seen := map[int64]bool{}
	add := func(v int64) error {
		if seen[v] {
			return fmt.Errorf("seeds %q: seed %d named twice", s, v)
		}
		if len(out) >= MaxSeeds {
			return fmt.Errorf("seeds %q: more than %d seeds", s, MaxSeeds)
		}
		seen[v] = true
		out = append(out, v)
		return nil
	}
	num := func(item, t string) (int64, error) {
		v, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("seeds %q: %q is not a seed (want a non-negative integer)", s, item)
		}
		return v, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("seeds %q: empty item", s)
		}
		lo, hi, isRange := strings.Cut(item, "-")
		if !isRange {
			v, err := num(item, item)
			if err != nil {
				return nil, err
			}
			if err := add(v); err != nil {
				return nil, err
			}
			continue
		}
		a, err := num(item, lo)
		if err != nil {
			return nil, err
		}
		b, err := num(item, hi)
		if err != nil {
			return nil, err
		}
		if b < a {
			return nil, fmt.Errorf("seeds %q: range %q runs backwards", s, item)
		}
		if b-a >= MaxSeeds {
			return nil, fmt.Errorf("seeds %q: range %q names more than %d seeds", s, item, MaxSeeds)
		}
		for v := a; v <= b; v++ {
			if err := add(v); err != nil {
				return nil, err
			}
		}
	}
	return slices.Clip(out), nil
}

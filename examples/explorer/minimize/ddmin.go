package minimize

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Defaults of the reproduction minimiser (Config.MinimizeReplays,
// Config.MinimizeTime).
const (
	DefaultReplays = 24
	DefaultTime    = 2 * time.Minute
	DefaultWorkers = 3
)

// errBudget stops a search whose replay budget is spent.
var errBudget = errors.New("minimize: replay budget spent")

// DDMin is Zeller's delta debugging (DDMin) over items, which test is
// assumed to accept: it returns a subsequence (order kept) that test
// accepts and, when the search ran to its end, from which no single item
// can be removed. test is never asked about the empty sequence nor twice
// about the same subsequence; it runs at most maxTests times (≤ 0: no
// limit). When test fails with an error (errBudget, a cancelled context)
// the search stops and the smallest accepted sequence so far is returned
// with that error.
func DDMin[T any](ctx context.Context, items []T, test func(context.Context, []T) (bool, error), maxTests int) ([]T, int, error) {
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

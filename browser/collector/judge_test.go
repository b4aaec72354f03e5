package collector

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/stretchr/testify/assert"
)

// TestAfterJudgement: once the recorder answered, the caller waits for a
// dead control's report only when one was posted, and the whole wait
// when the recorder could not be asked.
func TestAfterJudgement(t *testing.T) {
	left := 300 * time.Millisecond
	for _, c := range []struct {
		name string
		v    any
		err  error
		want time.Duration
	}{
		{"every click did something", map[string]any{"undecided": 0, "dead": 0}, nil, 0},
		{"a float zero", map[string]any{"undecided": 0.0, "dead": 0.0}, nil, 0},
		{"a dead report posted", map[string]any{"undecided": 0, "dead": 1}, nil, ReportLag},
		{"an answer without the count", map[string]any{"undecided": 0}, nil, ReportLag},
		{"no recorder in the page", nil, nil, left},
		{"the page did not answer", nil, errors.New("timeout"), left},
		{"a wrong shape", "dead", nil, left},
	} {
		assert.Equal(t, c.want, afterJudgement(c.v, c.err, left), c.name)
	}
	assert.Equal(t, time.Duration(0), afterJudgement(nil, nil, -time.Second), "a spent wait stays spent")
}

type evalFunc func(ctx context.Context, expr string, arg any) (any, error)

func (f evalFunc) Evaluate(ctx context.Context, expr string, arg any) (any, error) {
	return f(ctx, expr, arg)
}

// TestAwaitJudgementAsksOnce: one call to the recorder, given the wait in
// milliseconds and a context that ends soon after it.
func TestAwaitJudgementAsksOnce(t *testing.T) {
	var calls int
	var arg any
	var bounded bool
	page := evalFunc(func(ctx context.Context, expr string, a any) (any, error) {
		calls++
		arg = a
		dl, ok := ctx.Deadline()
		bounded = ok && time.Until(dl) <= 2*time.Second+ReportLag
		assert.Contains(t, expr, "__agJudged")
		return map[string]any{"undecided": 0, "dead": 0}, nil
	})
	AwaitJudgement(context.Background(), page, 2*time.Second)
	assert.Equal(t, 1, calls)
	assert.Equal(t, int64(2000), arg)
	assert.True(t, bounded, "the call is bounded by the wait")
}

// TestDeadWindowMatchesRecorder: the Go constant is the recorder's.
func TestDeadWindowMatchesRecorder(t *testing.T) {
	assert.True(t, strings.Contains(collectorJS, fmt.Sprintf("const deadWindow = %d;", DeadWindow.Milliseconds())))
}

// TestReportFitsTheEngine: a report of the recorder, with its marker,
// stays within what the engine keeps of a console message.
func TestReportFitsTheEngine(t *testing.T) {
	n, err := strconv.Atoi(reportLimit)
	assert.NoError(t, err)
	assert.LessOrEqual(t, n+len(consoleMark), browser.MaxMessage)
}

package collector

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePage answers Evaluate with what a recorder would.
type fakePage struct {
	answers []any
	err     error
	waits   []any // the wait each call passed to the page
}

func (p *fakePage) Evaluate(_ context.Context, _ string, arg any) (any, error) {
	p.waits = append(p.waits, arg)
	if p.err != nil {
		return nil, p.err
	}
	if len(p.answers) == 0 {
		return "", nil
	}
	v := p.answers[0]
	p.answers = p.answers[1:]
	return v, nil
}

// Violations hands over each (rule, page, elements) once per collector,
// whatever the page reports again; a page without the recorder has none.
func TestViolations(t *testing.T) {
	c, err := New("http://127.0.0.1:1", 0, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	img := `{"url":"http://x/a","rule":"image-alt","impact":"critical","help":"Images must have alternate text","targets":["img"],"html":"<img>"}`
	focus := `{"url":"http://x/a","rule":"` + FocusInvisibleRule + `","impact":"serious","help":"Keyboard focus lands on an element the user cannot see","targets":["a \"Skip\""],"html":"<a>"}`
	page := &fakePage{answers: []any{
		`{"violations":[` + img + `]}`,
		`{"violations":[` + img + `,` + focus + `]}`,
		`{"violations":[{"url":"http://x/a?b=1","rule":"image-alt","targets":["img"]},{"url":"http://x/a","rule":"","targets":["p"]}]}`,
		`{not json`,
		nil,
	}}
	ctx := context.Background()
	got, err := c.Violations(ctx, page, 2*time.Second)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, Violation{URL: "http://x/a", Rule: "image-alt", Impact: "critical", Help: "Images must have alternate text", Targets: []string{"img"}, HTML: "<img>"}, got[0])
	assert.Equal(t, []any{int64(2000)}, page.waits, "the page is told how long to wait, in ms")

	got, err = c.Violations(ctx, page, time.Hour)
	require.NoError(t, err)
	require.Len(t, got, 1, "the same violation again is not new")
	assert.Equal(t, FocusInvisibleRule, got[0].Rule)
	assert.Equal(t, []string{`a "Skip"`}, got[0].Targets)
	assert.Equal(t, int64(maxAuditWait/time.Millisecond), page.waits[1], "the wait is capped")

	got, err = c.Violations(ctx, page, time.Second)
	require.NoError(t, err)
	require.Len(t, got, 1, "another page (its query counts) is another violation; one without a rule is none")
	assert.Equal(t, "http://x/a?b=1", got[0].URL)

	_, err = c.Violations(ctx, page, time.Second)
	require.ErrorContains(t, err, "recorder's answer")
	got, err = c.Violations(ctx, page, -time.Second)
	require.NoError(t, err)
	assert.Empty(t, got, "no recorder in the page")
	assert.Equal(t, int64(0), page.waits[4])

	page.err = errors.New("page gone")
	_, err = c.Violations(ctx, page, time.Second)
	require.ErrorContains(t, err, "page gone")
}

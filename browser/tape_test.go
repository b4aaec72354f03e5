package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const childEnv = "AGENTGRAPH_TAPE_CHILD"

// TestTapeChild is the process the durability test kills. It only runs
// when the parent sets childEnv to a tape path.
func TestTapeChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Log("helper process for TestTapeSurvivesSIGKILL; nothing to do on its own")
		return
	}
	tape, err := OpenTape(path)
	require.NoError(t, err)
	big := strings.Repeat("x", 4000)
	for i := 0; ; i++ {
		require.NoError(t, tape.Append(Entry{Seq: int64(i + 1), Time: time.Now(), User: "child", Action: ActClick,
			Params: Intent{Action: ActClick, Target: "e1"}, OK: true, Result: big}))
	}
}

func TestTapeSurvivesSIGKILL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestTapeChild$")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool {
		fi, err := os.Stat(path)
		return err == nil && fi.Size() > 200_000
	}, 30*time.Second, 10*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	ents, rep, err := ReadTapeFile(path)
	require.NoError(t, err)
	require.Greater(t, len(ents), 40)
	assert.LessOrEqual(t, rep.Skipped, 1, "at most the line being written is lost")
	for i, e := range ents {
		assert.Equal(t, int64(i+1), e.Seq, "entries are complete and in order")
		assert.Equal(t, ActClick, e.Action)
	}
	// reopening after the crash continues on a fresh line
	tape, err := OpenTape(path)
	require.NoError(t, err)
	require.NoError(t, tape.Append(Entry{Seq: 999_999, User: "after", Action: ActReload}))
	require.NoError(t, tape.Close())
	ents2, _, err := ReadTapeFile(path)
	require.NoError(t, err)
	assert.Equal(t, len(ents)+1, len(ents2))
	assert.Equal(t, "after", ents2[len(ents2)-1].User)
}

func TestReadTapeToleratesTornAndCorruptLines(t *testing.T) {
	var b bytes.Buffer
	for i := 1; i <= 3; i++ {
		line, _ := json.Marshal(Entry{Seq: int64(i), Action: ActClick})
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString("{not json}\n")
	b.WriteString(`{"seq":5,"action":"cli`) // torn
	ents, rep, err := ReadTape(&b)
	require.NoError(t, err)
	assert.Len(t, ents, 3)
	assert.Equal(t, TapeReport{Lines: 5, Skipped: 2, Torn: true, SkippedLines: []int{4, 5}}, rep)
	assert.Equal(t, "2 lines are not JSON (lines 4, 5); the last one was cut short by a crash", rep.Problems())
}

func TestEngineWritesTapeAndWindow(t *testing.T) {
	app := newFixture(t)
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tape, err := OpenTape(path)
	require.NoError(t, err)
	defer tape.Close()
	e := newEngine(t, app, func(c *Config) { c.Tape = tape; c.WindowSize = 3 })
	s := mustUser(t, e, "dana")
	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL))
	ok(t, s, `{"action":"fill","target":"#email","value":"d@x.y"}`)
	run(t, s, `{"action":"click","target":"testid=missing"}`)
	ok(t, s, `{"action":"click","target":"testid=save"}`)

	ents, rep, err := ReadTapeFile(path)
	require.NoError(t, err)
	assert.Zero(t, rep.Skipped)
	require.Len(t, ents, 4)
	e0, e2, e3 := ents[0], ents[2], ents[3]
	assert.Equal(t, "dana", e0.User)
	assert.Equal(t, ActNavigate, e0.Action)
	assert.Equal(t, "Fixture Home", e0.Title)
	assert.Equal(t, app.URL+"/", e0.URL)
	assert.False(t, e0.Time.IsZero())
	assert.Equal(t, "getByRole('textbox', { name: 'Email' })", ents[1].Locator)
	assert.Equal(t, "d@x.y", ents[1].Params.ValueOrEmpty())
	assert.False(t, e2.OK)
	assert.Contains(t, e2.Error, "no element matches")
	assert.True(t, e3.OK)
	assert.Equal(t, "getByTestId('save')", e3.Locator)
	assert.GreaterOrEqual(t, e3.DurationMS, int64(0))
	w := e.Window().Entries()
	require.Len(t, w, 3, "the window is bounded")
	assert.Equal(t, ents[1].Seq, w[0].Seq)
}

func TestWindowBound(t *testing.T) {
	w := NewWindow(2)
	for i := range 5 {
		w.Add(Entry{Seq: int64(i)})
	}
	got := w.Entries()
	require.Len(t, got, 2)
	assert.Equal(t, int64(3), got[0].Seq)
	assert.Equal(t, int64(4), got[1].Seq)
}

var _ = context.Background

func TestEntryFilled(t *testing.T) {
	v := "Ada"
	fill := Entry{Action: ActFill, OK: true, Params: Intent{Action: ActFill, Target: "e3", Value: &v}, Locator: "getByLabel('Name')"}
	assert.Equal(t, []Filled{{Kind: FieldFill, Target: "e3", Locator: "getByLabel('Name')", Value: "Ada"}}, fill.Filled())
	fill.OK = false
	assert.Nil(t, fill.Filled(), "a fill that failed typed nothing")

	form := Entry{Action: ActFillForm, OK: true, Params: Intent{Action: ActFillForm, Fields: []FormField{
		{Target: "e1", Value: "x"}, {Target: "e2", Value: "Red", Kind: FieldSelect}, {Target: "e3", Kind: FieldCheck}}},
		Locators: []string{"a", "b", "c"}}
	got := form.Filled()
	require.Len(t, got, 3)
	assert.Equal(t, Filled{Kind: FieldSelect, Target: "e2", Locator: "b", Value: "Red"}, got[1])
	assert.Equal(t, FieldCheck, got[2].Kind)
	form.OK, form.Locators = false, []string{"a"}
	assert.Equal(t, []Filled{{Kind: FieldFill, Target: "e1", Locator: "a", Value: "x"}}, form.Filled(), "only the fields done before it stopped")
	assert.Nil(t, Entry{Action: ActClick, OK: true}.Filled())
}

// TestOpenTapeRefusesPlantedLink: a symlink planted where the tape goes is
// refused, and the file behind it is not written.
func TestOpenTapeRefusesPlantedLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("victim"), 0o644))
	path := filepath.Join(dir, "action_tape.jsonl")
	require.NoError(t, os.Symlink(victim, path))
	_, err := OpenTape(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symlink")
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "victim", string(b))
}

func tapeOf(t *testing.T, lines ...string) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return &b
}

// TestReadTapeRefusesOffOriginNavigations: a successful navigation to
// another origin than the tape's (its first absolute navigation's, or the
// one the caller names) is not trusted; paths always are, and a failed
// navigation (a refused attempt, recorded as asked) is kept.
func TestReadTapeRefusesOffOriginNavigations(t *testing.T) {
	lines := []string{
		`{"seq":1,"action":"navigate","ok":true,"url":"http://app.test/","params":{"action":"navigate","url":"/"}}`,
		`{"seq":2,"action":"navigate","ok":true,"url":"http://app.test/x","params":{"action":"navigate","url":"HTTP://APP.test:80/x"}}`,
		`{"seq":3,"action":"navigate","ok":true,"params":{"action":"navigate","url":"http://evil.example/x"}}`,
		`{"seq":4,"action":"navigate","ok":true,"params":{"action":"navigate","url":"//evil.example/x"}}`,
		`{"seq":5,"action":"navigate","ok":true,"params":{"action":"navigate","url":"/\\evil.example/x"}}`,
		`{"seq":6,"action":"navigate","ok":true,"params":{"action":"navigate","url":"https://app.test/x"}}`,
		`{"seq":7,"action":"navigate","ok":false,"error":"refused","params":{"action":"navigate","url":"http://evil.example/x"}}`,
		`{"seq":8,"action":"navigate","ok":true,"params":{"action":"navigate","url":"/settings?next=\\\\evil"}}`,
	}
	ents, rep, err := ReadTape(tapeOf(t, lines...))
	require.Error(t, err)
	var seqs []int64
	for _, e := range ents {
		seqs = append(seqs, e.Seq)
	}
	assert.Equal(t, []int64{1, 2, 7, 8}, seqs)
	require.Len(t, rep.Invalid, 4)
	for i, line := range []int{3, 4, 5, 6} {
		assert.Equal(t, line, rep.Invalid[i].Line)
		assert.Contains(t, rep.Invalid[i].Error(), "leaves the tape's origin http://app.test")
	}

	// The caller's origin wins over the tape's first navigation.
	ents, rep, err = ReadTapeWith(tapeOf(t, lines[:2]...), TapeOptions{Origin: "http://other.test"})
	require.Error(t, err)
	assert.Len(t, ents, 1, "the path is kept")
	require.Len(t, rep.Invalid, 1)
	assert.Contains(t, rep.Invalid[0].Error(), "navigate to http://app.test leaves the tape's origin http://other.test")
	_, _, err = ReadTapeWith(tapeOf(t), TapeOptions{Origin: "javascript:x"})
	require.Error(t, err)
}

// TestReadTapeCapsItsErrors: a tape of 300,000 invalid lines gives a report
// and an error that list the first MaxTapeErrors and count the rest.
func TestReadTapeCapsItsErrors(t *testing.T) {
	var b bytes.Buffer
	for i := range 300_000 {
		fmt.Fprintf(&b, `{"seq":%d,"action":"navigate","ok":true,"params":{"action":"navigate","url":"javascript:x"}}`+"\n", i+1)
	}
	b.WriteString("not json\n")
	ents, rep, err := ReadTape(&b)
	require.Error(t, err)
	assert.Empty(t, ents)
	assert.Len(t, rep.Invalid, MaxTapeErrors)
	assert.Equal(t, 300_000, rep.InvalidCount)
	assert.Less(t, len(err.Error()), 5000)
	assert.Contains(t, err.Error(), "300000 invalid entries, the first 20")
	assert.Contains(t, rep.Problems(), "1 lines are not JSON (lines 300001)")
}

// TestReadTapeSequential: a tape read as a recorder's numbering refuses a
// forged seq (a jump past its line, or one not above the previous).
func TestReadTapeSequential(t *testing.T) {
	lines := []string{
		`{"seq":1,"action":"click","ok":true,"locator":"getByTestId('a')"}`,
		`{"seq":2,"action":"click","ok":true,"locator":"getByTestId('a')"}`,
		`{"seq":999999,"action":"click","ok":true,"locator":"getByTestId('a')"}`,
		`not json`,
		`{"seq":3,"action":"click","ok":true,"locator":"getByTestId('a')"}`,
		`{"seq":3,"action":"click","ok":true,"locator":"getByTestId('a')"}`,
		`{"seq":7,"action":"click","ok":true,"locator":"getByTestId('a')"}`,
	}
	ents, rep, err := ReadTapeWith(tapeOf(t, lines...), TapeOptions{Sequential: true})
	require.Error(t, err)
	var seqs []int64
	for _, e := range ents {
		seqs = append(seqs, e.Seq)
	}
	assert.Equal(t, []int64{1, 2, 3, 7}, seqs, "a gap no larger than the lines is fine")
	require.Len(t, rep.Invalid, 2)
	assert.Contains(t, rep.Invalid[0].Error(), "tape line 3 (seq 999999): seq 999999 jumps past its line 3")
	assert.Contains(t, rep.Invalid[1].Error(), "tape line 6 (seq 3): seq 3 is not above the previous entry's 3")
	assert.Contains(t, rep.Problems(), "1 lines are not JSON (lines 4)")

	ents, _, err = ReadTape(tapeOf(t, lines...))
	require.NoError(t, err, "without Sequential the numbers are the recorder's business")
	assert.Len(t, ents, 6)
}

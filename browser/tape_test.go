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
	assert.Equal(t, TapeReport{Lines: 5, Skipped: 2, Torn: true}, rep)
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

package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/internal/pgtest"
	"github.com/agentgraph/agentgraph/memory"
	"github.com/agentgraph/agentgraph/memory/postgres"
	"github.com/agentgraph/agentgraph/memory/storetest"
)

func newPGPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pgxpool.New(ctx, pgtest.DSN(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// newPGStore returns a store on a fresh schema per call: the suites
// expect an empty store each time.
func newPGStore(t *testing.T) func(opts ...memory.StoreOption) graph.Store {
	return func(opts ...memory.StoreOption) graph.Store {
		s, err := postgres.New(context.Background(), newPGPool(t), opts...)
		require.NoError(t, err)
		return s
	}
}

func TestPostgresStoreConformance(t *testing.T) {
	storetest.Run(t, newPGStore(t))
}

func TestPostgresStoreUpdate(t *testing.T) {
	storetest.RunUpdate(t, newPGStore(t))
}

// TestPostgresStoreShared: two stores on one database (two processes'
// worth) see each other's items; store names keep stores apart.
func TestPostgresStoreShared(t *testing.T) {
	ctx := context.Background()
	pool := newPGPool(t)
	a, err := postgres.New(ctx, pool)
	require.NoError(t, err)
	b, err := postgres.New(ctx, pool)
	require.NoError(t, err)
	other, err := postgres.New(ctx, pool, memory.WithStoreBucket("other"))
	require.NoError(t, err)
	require.NoError(t, a.Put(ctx, []string{"x"}, "k", json.RawMessage(`{"v":1}`), nil))
	it, err := b.Get(ctx, []string{"x"}, "k")
	require.NoError(t, err)
	assert.JSONEq(t, `{"v":1}`, string(it.Value))
	_, err = other.Get(ctx, []string{"x"}, "k")
	require.ErrorIs(t, err, graph.ErrNotFound)
}

// TestPostgresStoreMigrateConcurrently opens the store from many
// goroutines on a fresh schema at once: the advisory lock makes the
// schema's creation happen once.
func TestPostgresStoreMigrateConcurrently(t *testing.T) {
	dsn := pgtest.DSN(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, pool, err := postgres.Open(context.Background(), dsn)
			if err == nil {
				err = s.Put(context.Background(), []string{"m"}, "k", json.RawMessage(`{}`), nil)
				pool.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestPostgresStorePurgeExpired(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock()
	s, err := postgres.New(ctx, newPGPool(t), memory.WithStoreClock(clock.Now))
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, []string{"t"}, "short", json.RawMessage(`{}`), &graph.PutOptions{TTL: time.Second}))
	require.NoError(t, s.Put(ctx, []string{"t"}, "long", json.RawMessage(`{}`), nil))
	clock.Advance(time.Minute)
	n, err := s.PurgeExpired(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	_, err = s.Get(ctx, []string{"t"}, "long")
	require.NoError(t, err)
}

// ---- two OS processes ----

const (
	childRoleEnv = "AGENTGRAPH_TEST_CHILD_ROLE"
	childDSNEnv  = "AGENTGRAPH_TEST_CHILD_DSN"
	bugsPerChild = 100
)

var sameBug = memory.BugReport{Kind: "console_error", Severity: "high", URL: "/checkout", Evidence: "TypeError: x is undefined", Persona: "racer"}

// runChild is the body of a child process (see TestMain).
func runChild(role string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "child:", err); return 1 }
	switch role {
	case "record-bug":
		s, pool, err := postgres.Open(ctx, os.Getenv(childDSNEnv))
		if err != nil {
			return fail(err)
		}
		defer pool.Close()
		q, err := memory.NewQA(s, "http://shop.test")
		if err != nil {
			return fail(err)
		}
		for i := range bugsPerChild {
			if _, err := q.RecordBug(ctx, sameBug); err != nil {
				return fail(fmt.Errorf("sighting %d: %w", i, err))
			}
		}
		return 0
	}
	return fail(fmt.Errorf("unknown role %q", role))
}

// startChildren runs n copies of this test binary in role, bounded by a
// timeout, and waits for all of them.
func startChildren(t *testing.T, n int, role string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmds := make([]*exec.Cmd, n)
	outs := make([]*lockedBuffer, n)
	for i := range cmds {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(append(os.Environ(), childRoleEnv+"="+role), env...)
		outs[i] = &lockedBuffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		cmd.WaitDelay = 5 * time.Second
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "child %d:\n%s", i, outs[i].String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

// TestQARecordBugTwoProcesses: two OS processes record the same bug 100
// times each, at once, through a shared Postgres store: the seen count is
// exactly 200 (Store.Update makes each sighting one atomic
// read-modify-write).
func TestQARecordBugTwoProcesses(t *testing.T) {
	dsn := pgtest.DSN(t)
	startChildren(t, 2, "record-bug", childDSNEnv+"="+dsn)
	ctx := context.Background()
	s, pool, err := postgres.Open(ctx, dsn)
	require.NoError(t, err)
	defer pool.Close()
	q, err := memory.NewQA(s, "http://shop.test")
	require.NoError(t, err)
	bugs, err := q.Bugs(ctx, "")
	require.NoError(t, err)
	require.Len(t, bugs, 1)
	assert.Equal(t, 2*bugsPerChild, bugs[0].SeenCount)
	assert.Equal(t, []string{"racer"}, bugs[0].Personas)
}

// TestPostgresStoreDamagedRecords: a row changed behind the store's back
// is reported, never skipped silently or returned as a zero value: Get
// fails, Search returns the other items with a *CorruptRecordsError, Check
// lists it, Quarantine moves it aside with its bytes, and the QA memory
// on the store reports and quarantines it too.
func TestPostgresStoreDamagedRecords(t *testing.T) {
	ctx := context.Background()
	pool := newPGPool(t)
	s, err := postgres.New(ctx, pool)
	require.NoError(t, err)
	ns := []string{"docs"}
	for _, k := range []string{"a", "b", "c"} {
		require.NoError(t, s.Put(ctx, ns, k, json.RawMessage(`{"k":"`+k+`"}`), nil))
	}
	_, err = pool.Exec(ctx, `UPDATE agentgraph_store_items SET record = '\x7b2276223a'::bytea WHERE key = 'b'::bytea`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE agentgraph_store_items SET nskey = '\x393a'::bytea WHERE key = 'c'::bytea`) // a namespace key that does not parse
	require.NoError(t, err)

	_, err = s.Get(ctx, ns, "b")
	require.ErrorIs(t, err, memory.ErrStoreCorrupt)
	items, err := s.Search(ctx, nil, graph.SearchQuery{})
	require.ErrorIs(t, err, memory.ErrStoreCorrupt)
	var cre *memory.CorruptRecordsError
	require.ErrorAs(t, err, &cre)
	assert.Len(t, cre.Records, 2)
	require.Len(t, items, 1)
	assert.Equal(t, "a", items[0].Key)
	require.ErrorAs(t, s.Check(ctx), &cre)
	assert.Len(t, cre.Records, 2)
	_, err = s.Update(ctx, ns, "b", storetest.Increment, nil)
	require.ErrorIs(t, err, memory.ErrStoreCorrupt, "an update does not replace a damaged record")

	moved, err := s.Quarantine(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, moved, 2)
	require.NoError(t, s.Check(ctx))
	q, err := s.Quarantined(ctx)
	require.NoError(t, err)
	require.Len(t, q, 2)
	raws := []string{string(q[0].Raw), string(q[1].Raw)}
	assert.Contains(t, raws, `{"v":`)

	// A Put over a damaged record keeps the old bytes too.
	require.NoError(t, s.Put(ctx, ns, "d", json.RawMessage(`{}`), nil))
	_, err = pool.Exec(ctx, `UPDATE agentgraph_store_items SET record = 'xx'::bytea WHERE key = 'd'::bytea`)
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, ns, "d", json.RawMessage(`{"fixed":true}`), nil))
	q, err = s.Quarantined(ctx)
	require.NoError(t, err)
	require.Len(t, q, 3)
	assert.Equal(t, "xx", string(q[2].Raw))

	// The QA memory reports and quarantines a damaged bug entry.
	qa, err := memory.NewQA(s, "http://shop.test")
	require.NoError(t, err)
	rec, err := qa.RecordBug(ctx, sameBug)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE agentgraph_store_items SET record = 'broken'::bytea WHERE key = $1`, []byte(rec.Entry.Fingerprint))
	require.NoError(t, err)
	require.ErrorIs(t, qa.Check(ctx), memory.ErrStoreCorrupt)
	_, err = qa.Quarantine(ctx)
	require.NoError(t, err)
	require.NoError(t, qa.Check(ctx))
}

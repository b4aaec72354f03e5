package explore

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/internal/pgtest"
	"github.com/agentgraph/agentgraph/memory"
	mempg "github.com/agentgraph/agentgraph/memory/postgres"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want mission.Shard
		err  string
	}{
		{"", mission.Shard{}, ""},
		{"1/1", mission.Shard{Index: 1, Count: 1}, ""},
		{" 2/4 ", mission.Shard{Index: 2, Count: 4}, ""},
		{"4/4", mission.Shard{Index: 4, Count: 4}, ""},
		{"0/2", mission.Shard{}, "i must be between 1 and 2"},
		{"3/2", mission.Shard{}, "i must be between 1 and 2"},
		{"1/0", mission.Shard{}, "n must be at least 1"},
		{"-1/2", mission.Shard{}, "i must be between 1 and 2"},
		{"2", mission.Shard{}, "no '/'"},
		{"a/2", mission.Shard{}, "i is not a number"},
		{"1/b", mission.Shard{}, "n is not a number"},
		{"1/2/3", mission.Shard{}, "n is not a number"},
	} {
		got, err := mission.ParseShard(tc.in)
		if tc.err != "" {
			require.Error(t, err, tc.in)
			assert.Contains(t, err.Error(), tc.err, tc.in)
			assert.Contains(t, err.Error(), "want i/n with 1 ≤ i ≤ n", tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		if tc.in != "" {
			assert.Equal(t, tc.want, must(mission.ParseShard(got.String())), "round trip")
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestShardOf: every thread id has exactly one shard, the same on every
// call, and the split is even enough; the hash is pinned, so shards built
// from different versions agree.
func TestShardOf(t *testing.T) {
	assert.Equal(t, uint32(0xc6fdde3c), fnv32a("explore"))
	assert.Equal(t, 1+int(fnv32a("explore")%2), mission.ShardOf("explore", 2))
	assert.Equal(t, 1, mission.ShardOf("explore", 2), "the default mission runs on shard 1 of 2")
	assert.Equal(t, 2, mission.ShardOf("checkout", 2))
	assert.Equal(t, 1, mission.ShardOf("anything", 1))
	for _, n := range []int{2, 3, 7} {
		counts := make([]int, n+1)
		for i := range 3000 {
			id := fmt.Sprintf("mission-%d", i)
			s := mission.ShardOf(id, n)
			require.True(t, s >= 1 && s <= n)
			require.Equal(t, s, mission.ShardOf(id, n), "stable")
			owners := 0
			for k := 1; k <= n; k++ {
				if (mission.Shard{Index: k, Count: n}).Owns(id) {
					owners++
				}
			}
			require.Equal(t, 1, owners, "exactly one shard owns %s", id)
			counts[s]++
		}
		for k := 1; k <= n; k++ {
			assert.InDelta(t, 3000/n, counts[k], float64(3000/n)/5, "shard %d/%d: %v", k, n, counts)
		}
	}
	assert.True(t, mission.Shard{}.Owns("x"), "the zero shard runs everything")
}

// fnv32a is FNV-1a written out, to pin ShardOf's documented hash.
func fnv32a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func TestShardMissions(t *testing.T) {
	ms := []mission.Mission{{ThreadID: "explore"}, {ThreadID: "checkout"}, {ThreadID: "admin"}, {ThreadID: "search"}, {ThreadID: "signup"}}
	var all []string
	for i := 1; i <= 2; i++ {
		var progress bytes.Buffer
		cfg := Config{Shard: mission.Shard{Index: i, Count: 2}, Progress: &progress}
		got, err := cfg.shardMissions(ms)
		require.NoError(t, err)
		for _, m := range got {
			assert.Equal(t, i, mission.ShardOf(m.ThreadID, 2))
			all = append(all, m.ThreadID)
		}
		assert.Contains(t, progress.String(), fmt.Sprintf("shard %d/2: %d of 5 missions", i, len(got)))
	}
	assert.ElementsMatch(t, []string{"explore", "checkout", "admin", "search", "signup"}, all, "the shards split the batch")

	other := 3 - mission.ShardOf("checkout", 2)
	cfg := Config{Shard: mission.Shard{Index: other, Count: 2}, Resume: "checkout"}
	_, err := cfg.shardMissions([]mission.Mission{{ThreadID: "checkout"}})
	require.ErrorIs(t, err, ErrUsage)
	assert.Contains(t, err.Error(), fmt.Sprintf("the mission is shard %d/2's", 3-other))

	// Run refuses a bad shard before it starts anything.
	_, err = Run(context.Background(), Config{Shard: mission.Shard{Index: 3, Count: 2}, ReportDir: t.TempDir()})
	require.ErrorIs(t, err, ErrUsage)
	assert.Contains(t, err.Error(), "i must be between 1 and 2")
}

func TestCheckAndRedactDB(t *testing.T) {
	for _, tc := range []struct {
		db, err, shown string
	}{
		{"", "", ""},
		{"reports/explorer.db", "", "reports/explorer.db"},
		{"/var/lib/qa/explorer.db", "", "/var/lib/qa/explorer.db"},
		{"postgres://qa@db:5432/agentgraph", "", "postgres://qa@db:5432/agentgraph"},
		{"postgres://qa:s3cret@db:5432/agentgraph?sslmode=disable", "", "postgres://qa:****@db:5432/agentgraph?sslmode=disable"},
		{"postgresql://db/agentgraph?user=qa&password=s3cret", "", "postgresql://db/agentgraph?user=qa&password=****"},
		{"postgres://qa:s%40cret@db/x", "", "postgres://qa:****@db/x"},
		{"POSTGRES://db/x", "POSTGRES:// is not supported", "POSTGRES://db/x"},
		{"postgres://qa:s3cret@db:99999/agentgraph", "bad PostgreSQL URL", "postgres://qa:****@db:99999/agentgraph"},
		{"postgres://qa:s3cret@db/x?sslmode=sometimes", "sslmode is invalid", "postgres://qa:****@db/x?sslmode=sometimes"},
		{"mysql://qa:s3cret@db/x", "mysql:// is not supported: want a bbolt file path or a postgres:// URL", "mysql://qa:s3cret@db/x"},
	} {
		err := CheckDB(tc.db)
		if tc.err == "" {
			assert.NoError(t, err, tc.db)
		} else if assert.Error(t, err, tc.db) {
			assert.Contains(t, err.Error(), tc.err, tc.db)
			if IsPostgresDB(tc.db) {
				assert.NotContains(t, err.Error(), "s3cret", tc.db)
			}
		}
		assert.Equal(t, tc.shown, RedactDB(tc.db), tc.db)
	}
}

// TestOpenDBPostgresErrors: a database that is not there is a prompt
// set-up error that names the URL without its password.
func TestOpenDBPostgresErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	start := time.Now()
	_, _, _, err = openDB(context.Background(), "postgres://qa:s3cret@"+addr+"/agentgraph")
	require.Error(t, err)
	var se *SetupError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "postgres://qa:****@"+addr+"/agentgraph")
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Less(t, time.Since(start), 15*time.Second)

	_, _, _, err = openDB(context.Background(), "postgres://qa:s3cret@db:99999/x")
	require.ErrorIs(t, err, ErrUsage)
	assert.NotContains(t, err.Error(), "s3cret")

	// The same through Run: exit code 2 territory, nothing started.
	_, err = Run(context.Background(), onDemo(t, Config{DB: "postgres://qa:s3cret@" + addr + "/agentgraph", ReportDir: t.TempDir()}))
	require.ErrorAs(t, err, &se)
	assert.NotContains(t, err.Error(), "s3cret")
}

// TestOpenDBPostgres: with a postgres:// DB the checkpointer and the bug
// memory are PostgreSQL's, and two openings (two shards) share them.
func TestOpenDBPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	cp1, st1, close1, err := openDB(ctx, dsn)
	require.NoError(t, err)
	defer close1()
	_, st2, close2, err := openDB(ctx, dsn)
	require.NoError(t, err)
	defer close2()
	assert.IsType(t, &mempg.Store{}, st1)
	assert.Contains(t, fmt.Sprintf("%T", cp1), "postgres")

	q1, err := memory.NewQA(st1, "http://demoapp.local")
	require.NoError(t, err)
	q2, err := memory.NewQA(st2, "http://demoapp.local")
	require.NoError(t, err)
	r1, err := q1.RecordBug(ctx, memory.BugReport{Kind: "server_error", Severity: "critical", Cause: "5xx|boom", URL: "/x", Title: "boom"})
	require.NoError(t, err)
	r2, err := q2.RecordBug(ctx, memory.BugReport{Kind: "server_error", Severity: "critical", Cause: "5xx|boom", URL: "/y", Title: "boom"})
	require.NoError(t, err)
	assert.True(t, r1.New)
	assert.False(t, r2.New, "the other shard's memory knows it")
	assert.Equal(t, 2, r2.Entry.SeenCount)
	assert.Equal(t, r1.Entry.Fingerprint, r2.Entry.Fingerprint)
}

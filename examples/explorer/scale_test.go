package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
)

// TestScaleFlagErrors: a bad --shard, --db or --browser-ws (flag, variable
// or file) stops the program at set-up with exit code 2 and says why,
// never echoing a password.
func TestScaleFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		env   map[string]string
		file  string
		want  string
		never string
	}{
		{"shard past n", []string{"--shard", "3/2"}, nil, "", `config: --shard: "3/2": i must be between 1 and 2 (want i/n with 1 ≤ i ≤ n, e.g. 1/4)`, ""},
		{"shard zero", []string{"--shard", "0/4"}, nil, "", "i must be between 1 and 4", ""},
		{"shard no slash", []string{"--shard", "2"}, nil, "", `"2": no '/'`, ""},
		{"shard from the environment", nil, map[string]string{"AGENTGRAPH_SHARD": "1/0"}, "", "env AGENTGRAPH_SHARD: shard: \"1/0\": n must be at least 1", ""},
		{"db bad port", []string{"--db", "postgres://qa:s3cret@db:99999/x"}, nil, "", "config: --db: bad PostgreSQL URL: cannot parse `postgres://qa:xxxxx@db:99999/x`: invalid port", "s3cret"},
		{"db bad sslmode in the file", nil, nil, "db: postgres://qa:s3cret@db/x?sslmode=sometimes\n", "explorer.yaml line 1: db: bad PostgreSQL URL", "s3cret"},
		{"db other scheme", []string{"--db", "mysql://db/x"}, nil, "", "mysql:// is not supported: want a bbolt file path or a postgres:// URL", ""},
		{"browser-ws http", []string{"--browser-ws", "http://127.0.0.1:3000/"}, nil, "", "want a ws:// or wss:// URL of a Playwright browser server", ""},
		{"browser-ws no host", []string{"--browser-ws", "ws:///x"}, nil, "", "no host", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			if tc.file != "" {
				files["explorer.yaml"] = tc.file
			}
			inDir(t, files)
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errOut, mapEnv(tc.env))
			assert.Equal(t, explore.ExitSetup, code)
			assert.Contains(t, errOut.String(), tc.want)
			if tc.never != "" {
				assert.NotContains(t, errOut.String()+out.String(), tc.never)
			}
		})
	}
}

// TestScaleConfigPrinted: `explorer config` and -v print the DB's and the
// browser server's URLs with their secrets masked.
func TestScaleConfigPrinted(t *testing.T) {
	inDir(t, map[string]string{"explorer.yaml": "db: postgres://qa:${PGPW}@db.internal:5432/qa?sslmode=disable\n"})
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"config", "--shard", "2/3", "--browser-ws", "wss://grid:hunter2@browsers.internal/pw?token=t0ken"}, &out, &errOut,
		mapEnv(map[string]string{"PGPW": "s3cret"}))
	require.Equal(t, explore.ExitClean, code, errOut.String())
	s := out.String()
	for _, secret := range []string{"s3cret", "hunter2", "t0ken"} {
		assert.NotContains(t, s, secret)
	}
	assert.Contains(t, s, "db: postgres://qa:****@db.internal:5432/qa?sslmode=disable # explorer.yaml line 1\n")
	assert.Contains(t, s, "shard: 2/3 # flag --shard\n")
	assert.Contains(t, s, "browser_ws: wss://grid:****@browsers.internal/pw?token=**** # flag --browser-ws\n")
}

// TestPostgresUnreachableExitTwo: a PostgreSQL that is not there is a
// set-up error (exit 2) within seconds, before any browser starts, and
// the password never shows.
func TestPostgresUnreachableExitTwo(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	dir := inDir(t, nil)
	var out, errOut bytes.Buffer
	start := time.Now()
	code := run(context.Background(), []string{"--db", "postgres://qa:s3cret@" + addr + "/qa", "--offline", "-v", "--reports", filepath.Join(dir, "reports")}, &out, &errOut, mapEnv(nil))
	assert.Less(t, time.Since(start), 20*time.Second)
	assert.Equal(t, explore.ExitSetup, code, errOut.String())
	assert.Contains(t, errOut.String(), "postgres://qa:****@"+addr+"/qa")
	assert.NotContains(t, errOut.String()+out.String(), "s3cret")
}

// TestMergeReportsCommand: shards that own no mission still write their
// (empty) reports, and merge-reports joins them; its usage errors exit 2.
func TestMergeReportsCommand(t *testing.T) {
	dir := inDir(t, nil)
	env := mapEnv(nil)
	// The default mission ("explore") is shard 1's of 2 and 2's of 3:
	// shards 2/2 and 3/3 have nothing to run, and start no browser.
	require.Equal(t, 1, mission.ShardOf("explore", 2))
	for _, shard := range []string{"2/2", "3/3"} {
		var out, errOut bytes.Buffer
		reports := filepath.Join(dir, "shard-"+shard[:1])
		code := run(context.Background(), []string{"--shard", shard, "--offline", "--db", "", "--reports", reports}, &out, &errOut, env)
		require.Equal(t, explore.ExitClean, code, errOut.String())
		assert.Contains(t, out.String(), "shard "+shard+": 0 of 1 missions")
		var sum struct {
			Shard    string            `json:"shard"`
			Missions []json.RawMessage `json:"missions"`
		}
		raw, err := os.ReadFile(filepath.Join(reports, "summary.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &sum))
		assert.Equal(t, shard, sum.Shard)
		assert.Empty(t, sum.Missions)
		_, err = os.Stat(filepath.Join(reports, "junit.xml"))
		assert.NoError(t, err)
	}

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"merge-reports", "-o", filepath.Join(dir, "merged"), filepath.Join(dir, "shard-2"), filepath.Join(dir, "shard-3")}, &out, &errOut, env)
	require.Equal(t, explore.ExitClean, code, errOut.String())
	assert.Contains(t, out.String(), "merged 2 report directories (0 missions) into "+filepath.Join(dir, "merged")+": 0 bugs")
	assert.Contains(t, errOut.String(), "warning: missing shards: 1/2")
	assert.Contains(t, errOut.String(), "warning: the inputs were split into different numbers of shards")
	for _, f := range []string{"summary.json", "junit.xml", "test_report.md", "report.html"} {
		_, err := os.Stat(filepath.Join(dir, "merged", f))
		assert.NoError(t, err, f)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge-reports"}, "no report directory given"},
		{[]string{"merge-reports", "-o"}, "flag needs an argument"},
		{[]string{"merge-reports", filepath.Join(dir, "nope")}, "merge-reports: " + filepath.Join(dir, "nope") + " is not an explorer report directory"},
		{[]string{"merge-reports", "-o", filepath.Join(dir, "shard-2", "m"), filepath.Join(dir, "shard-2")}, "is inside the input"},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), tc.args, &out, &errOut, env)
		assert.Equal(t, explore.ExitSetup, code, "%v", tc.args)
		assert.Contains(t, errOut.String(), tc.want, "%v", tc.args)
	}
}

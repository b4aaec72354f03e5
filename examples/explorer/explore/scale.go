package explore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/checkpoint/postgres"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
	mempg "github.com/agentgraph/agentgraph/memory/postgres"
)

// Scale-out (see README "Scaling out"): several explorer processes, the
// shards, split one batch of missions (Config.Shard) and share one
// PostgreSQL database for checkpoints and bug memory (Config.DB a
// postgres:// URL); each may drive a browser that a Playwright browser
// server launched (Config.BrowserWS). MergeReports joins their report
// directories afterwards.

// IsPostgresDB reports whether a DB setting is a PostgreSQL URL
// (postgres:// or postgresql://) rather than a bbolt file.
func IsPostgresDB(db string) bool {
	scheme, _, ok := strings.Cut(db, "://")
	return ok && (scheme == "postgres" || scheme == "postgresql")
}

var reScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// CheckDB checks a DB setting: "" (memory only), a bbolt file path, or a
// postgres:// URL that parses (without connecting). The error never
// holds the URL's password.
func CheckDB(db string) error {
	switch {
	case db == "":
		return nil
	case IsPostgresDB(db):
		if _, err := pgxpool.ParseConfig(db); err != nil {
			// pgx quotes the URL with its password masked.
			return fmt.Errorf("bad PostgreSQL URL: %w", redact(err, db))
		}
		return nil
	case reScheme.MatchString(db):
		scheme, _, _ := strings.Cut(db, "://")
		return fmt.Errorf("%s:// is not supported: want a bbolt file path or a postgres:// URL", scheme)
	}
	return nil
}

var rePasswordParam = regexp.MustCompile(`(?i)((?:^|[?&])(?:password|sslpassword)=)[^&]*`)

// RedactDB is a DB setting fit to print: a PostgreSQL URL's password
// (in its user info or a password= parameter) as ****. Other values are
// returned as they are.
func RedactDB(db string) string {
	if !IsPostgresDB(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "(unparsable PostgreSQL URL)"
	}
	masked := false
	if _, ok := u.User.Password(); ok {
		u.User, masked = url.UserPassword(u.User.Username(), "MASKED"), true
	}
	u.RawQuery = rePasswordParam.ReplaceAllString(u.RawQuery, "${1}****")
	s := u.String()
	if masked {
		s = strings.Replace(s, ":MASKED@", ":****@", 1)
	}
	return s
}

// dbSecrets are the password values of a PostgreSQL URL.
func dbSecrets(db string) []string {
	if !IsPostgresDB(db) {
		return nil
	}
	var out []string
	u, err := url.Parse(db)
	if err != nil {
		return nil
	}
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
		// As written in the URL, percent-encoded or not.
		_, rest, _ := strings.Cut(db, "://")
		if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
			if _, raw, ok := strings.Cut(rest[:at], ":"); ok && raw != "" {
				out = append(out, raw)
			}
		}
	}
	for k, vs := range u.Query() {
		if strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword") {
			for _, v := range vs {
				if v != "" {
					out = append(out, v, url.QueryEscape(v))
				}
			}
		}
	}
	return out
}

// redactedError is an error whose message has a DB's secrets masked; it
// unwraps to the original.
type redactedError struct {
	err     error
	secrets []string
}

func (e *redactedError) Error() string {
	s := e.err.Error()
	for _, p := range e.secrets {
		if len(p) > 0 {
			s = strings.ReplaceAll(s, p, "****")
		}
	}
	return s
}

func (e *redactedError) Unwrap() error { return e.err }

// redact masks db's secrets in err's message.
func redact(err error, db string) error {
	if err == nil {
		return nil
	}
	if ss := dbSecrets(db); len(ss) > 0 {
		// The longest first: one may hold another.
		slices.SortFunc(ss, func(a, b string) int { return len(b) - len(a) })
		return &redactedError{err: err, secrets: ss}
	}
	return err
}

// dbOpenTimeout bounds connecting to PostgreSQL and migrating its tables.
const dbOpenTimeout = 30 * time.Second

// openDB opens the checkpointer and the store of Config.DB: in memory when
// it is empty, one bbolt file, or a PostgreSQL database (one pool for
// both). close releases them. Errors are *SetupError, the URL's password
// masked.
func openDB(ctx context.Context, db string) (cp graph.Checkpointer, st graph.Store, close func(), err error) {
	if db == "" {
		return checkpoint.NewMemory(), memory.NewInMemoryStore(), func() {}, nil
	}
	if err := checkDBUsage(db); err != nil {
		return nil, nil, nil, err
	}
	if IsPostgresDB(db) {
		return openPostgres(ctx, db)
	}
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		return nil, nil, nil, &SetupError{Err: err}
	}
	bdb, err := checkpoint.OpenBoltDB(db, nil)
	if err != nil {
		return nil, nil, nil, &SetupError{Err: fmt.Errorf("open %s: %w", db, err)}
	}
	bcp, err := checkpoint.NewBolt(bdb)
	if err != nil {
		bdb.Close()
		return nil, nil, nil, &SetupError{Err: fmt.Errorf("checkpoints in %s: %w", db, err)}
	}
	bst, err := memory.NewBoltStore(bdb)
	if err != nil {
		bdb.Close()
		return nil, nil, nil, &SetupError{Err: fmt.Errorf("memory in %s: %w", db, err)}
	}
	return bcp, bst, func() { _ = bdb.Close() }, nil
}

// openPostgres connects to the database at dsn (bounded by dbOpenTimeout,
// each connection attempt by 10s unless the URL sets connect_timeout) and
// creates or migrates the checkpointer's and the store's tables.
func openPostgres(ctx context.Context, dsn string) (graph.Checkpointer, graph.Store, func(), error) {
	shown := RedactDB(dsn)
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: db: bad PostgreSQL URL: %v", ErrUsage, redact(err, dsn))
	}
	if pcfg.ConnConfig.ConnectTimeout == 0 {
		pcfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	octx, cancel := context.WithTimeout(ctx, dbOpenTimeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(octx, pcfg)
	if err != nil {
		return nil, nil, nil, &SetupError{Err: fmt.Errorf("connect to %s: %w", shown, redact(err, dsn))}
	}
	fail := func(what string, err error) (graph.Checkpointer, graph.Store, func(), error) {
		pool.Close()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no answer within %s: %w", dbOpenTimeout, err)
		}
		return nil, nil, nil, &SetupError{Err: fmt.Errorf("%s in %s: %w", what, shown, redact(err, dsn))}
	}
	cp, err := postgres.New(octx, pool)
	if err != nil {
		return fail("checkpoints", err)
	}
	st, err := mempg.New(octx, pool)
	if err != nil {
		return fail("memory", err)
	}
	return cp, st, pool.Close, nil
}

// checkScale checks the scale-out settings before anything starts.
func (cfg *Config) checkScale() error {
	if s := cfg.Shard; s.Count != 0 || s.Index != 0 {
		if _, err := mission.ParseShard(fmt.Sprintf("%d/%d", s.Index, s.Count)); err != nil {
			return fmt.Errorf("%w: shard %v", ErrUsage, err)
		}
	}
	if cfg.BrowserWS != "" && cfg.Browser == nil {
		if err := browser.CheckEndpoint(cfg.BrowserWS); err != nil {
			return fmt.Errorf("%w: browser-ws: %v", ErrUsage, err)
		}
	}
	return checkDBUsage(cfg.DB)
}

// checkDBUsage is CheckDB wrapping ErrUsage.
func checkDBUsage(db string) error {
	if err := CheckDB(db); err != nil {
		return fmt.Errorf("%w: db: %v", ErrUsage, err)
	}
	return nil
}

// shardMissions keeps the shard's missions. A resumed mission must be the
// shard's own.
func (cfg *Config) shardMissions(ms []mission.Mission) ([]mission.Mission, error) {
	if cfg.Shard.Count <= 1 {
		return ms, nil
	}
	var mine []mission.Mission
	for _, m := range ms {
		if cfg.Shard.Owns(m.ThreadID) {
			mine = append(mine, m)
		}
	}
	if cfg.Resume != "" && len(mine) == 0 {
		return nil, fmt.Errorf("%w: resume %s: the mission is shard %d/%d's, not %s's", ErrUsage, cfg.Resume, mission.ShardOf(cfg.Resume, cfg.Shard.Count), cfg.Shard.Count, cfg.Shard)
	}
	if cfg.Progress != nil {
		names := make([]string, len(mine))
		for i, m := range mine {
			names[i] = m.ThreadID
		}
		fmt.Fprintf(cfg.Progress, "shard %s: %d of %d missions: %s\n", cfg.Shard, len(mine), len(ms), strings.Join(names, ", "))
	}
	return mine, nil
}

// emptyBatch writes the reports of a shard that has no mission.
func (cfg *Config) emptyBatch(res *report.Result, start time.Time) error {
	res.Duration = time.Since(start)
	res.JUnit = filepath.Join(cfg.ReportDir, "junit.xml")
	if err := report.WriteJUnit(res.JUnit, *res); err != nil {
		return fmt.Errorf("explore: junit: %w", err)
	}
	if err := report.WriteBatchSummary(filepath.Join(cfg.ReportDir, "summary.json"), *res); err != nil {
		return fmt.Errorf("explore: summary: %w", err)
	}
	return nil
}

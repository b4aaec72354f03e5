// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb
// and pg_ctl from Debian's postgresql package in a temporary directory,
// listening on a free loopback port only. initdb refuses to run as root,
// so when the test runs as root the cluster's commands run as the
// unprivileged user "postgres" (or "nobody") through runuser, with the
// directory handed to that user.
//
// A test binary starts at most one cluster, on first use, and stops it
// when its TestMain calls Main:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		dsn := pgtest.DSN(t) // a fresh, empty schema (search_path) on the shared cluster
//		...
//	}
//
// Nothing is skipped: when PostgreSQL is not installed, DSN fails the test
// with the command that installs it. AGENTGRAPH_PG_BIN names the directory
// of initdb and pg_ctl when they are not under /usr/lib/postgresql/*/bin;
// AGENTGRAPH_PG_DSN points the tests at a running server instead (a
// connection string allowed to create schemas; each test gets a schema of its own).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// InstallHint is the command that installs PostgreSQL on Debian.
const InstallHint = "apt-get update && apt-get install -y postgresql (or run: bash scripts/setup.sh)"

// ErrNotInstalled is returned when initdb and pg_ctl are not found.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL is not installed; install it with: " + InstallHint)

// Server is a running throwaway cluster.
type Server struct {
	dir    string // temporary root: data/, log, sockets
	bin    string
	runAs  string // "" when not root
	port   int
	admin  string // DSN of the "postgres" database
	dbSeq  atomic.Int64
	closed atomic.Bool
	reaper *exec.Cmd // stops the cluster if this process dies without Stop
}

// Bin returns the directory holding initdb and pg_ctl: AGENTGRAPH_PG_BIN,
// or the newest /usr/lib/postgresql/*/bin (Debian's layout). The error
// wraps ErrNotInstalled, which names the install command.
func Bin() (string, error) {
	if d := os.Getenv("AGENTGRAPH_PG_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err != nil {
			return "", fmt.Errorf("AGENTGRAPH_PG_BIN=%s has no initdb: %w", d, ErrNotInstalled)
		}
		return d, nil
	}
	return binIn("/usr/lib/postgresql")
}

// binIn finds the newest root/*/bin holding initdb.
func binIn(root string) (string, error) {
	found, _ := filepath.Glob(filepath.Join(root, "*", "bin", "initdb"))
	if len(found) == 0 {
		return "", fmt.Errorf("no %s/*/bin/initdb: %w", root, ErrNotInstalled)
	}
	// The newest major version.
	slices.SortFunc(found, func(a, b string) int { return pgMajor(a) - pgMajor(b) })
	return filepath.Dir(found[len(found)-1]), nil
}

func pgMajor(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// Start initialises and starts a cluster. Every command it runs is bounded
// by ctx and by its own timeout.
func Start(ctx context.Context) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	if os.Geteuid() == 0 {
		if s.runAs, err = unprivileged(); err != nil {
			return nil, err
		}
	}
	if s.dir, err = os.MkdirTemp("", "agentgraph-pg-"); err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if s.runAs != "" {
		u, err := user.Lookup(s.runAs)
		if err != nil {
			s.removeDir()
			return nil, fmt.Errorf("pgtest: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(s.dir, uid, gid); err != nil {
			s.removeDir()
			return nil, fmt.Errorf("pgtest: hand %s to %s: %w", s.dir, s.runAs, err)
		}
	}
	data := filepath.Join(s.dir, "data")
	if out, err := s.run(ctx, 60*time.Second, "initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		s.removeDir()
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	// A free port can be taken between the probe and the start: retry.
	for attempt := 0; ; attempt++ {
		if s.port, err = freePort(); err != nil {
			s.removeDir()
			return nil, err
		}
		opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s -c max_connections=200 -c shared_buffers=32MB", s.port, s.dir)
		out, err := s.run(ctx, 60*time.Second, "pg_ctl", "start", "-w", "-t", "45", "-D", data, "-l", filepath.Join(s.dir, "log"), "-o", opts)
		if err == nil {
			break
		}
		if attempt >= 2 {
			log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			s.removeDir()
			return nil, fmt.Errorf("pgtest: pg_ctl start: %w\n%s\n%s", err, out, log)
		}
	}
	s.admin = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
	s.startReaper()
	return s, nil
}

// startReaper starts a small shell loop that stops the cluster and removes
// its directory once this process is gone (a test binary killed by its
// timeout or a signal skips TestMain's Stop). Stop ends it first.
func (s *Server) startReaper() {
	pgctl := fmt.Sprintf("%q stop -m immediate -w -t 30 -D %q", filepath.Join(s.bin, "pg_ctl"), filepath.Join(s.dir, "data"))
	if s.runAs != "" {
		pgctl = fmt.Sprintf("runuser -u %s -- %s", s.runAs, pgctl)
	}
	script := fmt.Sprintf("while [ -d /proc/%d ]; do sleep 1; done; %s >/dev/null 2>&1; rm -rf %q", os.Getpid(), pgctl, s.dir)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err == nil {
		s.reaper = cmd
	}
}

// unprivileged returns the user the cluster runs as when we are root.
func unprivileged() (string, error) {
	if _, err := exec.LookPath("runuser"); err != nil {
		return "", fmt.Errorf("pgtest: running as root needs runuser (util-linux) to start PostgreSQL as another user: %w", err)
	}
	for _, name := range []string{"postgres", "nobody"} {
		if _, err := user.Lookup(name); err == nil {
			return name, nil
		}
	}
	return "", errors.New("pgtest: running as root and neither user postgres nor nobody exists; initdb refuses to run as root")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// run runs one of the cluster's programs, as the unprivileged user when
// needed, bounded by timeout.
func (s *Server) run(ctx context.Context, timeout time.Duration, prog string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if s.runAs != "" {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", s.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = s.dir
	cmd.WaitDelay = 5 * time.Second
	return cmd.CombinedOutput()
}

// Port returns the loopback port the cluster listens on.
func (s *Server) Port() int { return s.port }

// AdminDSN is the connection string of the cluster's "postgres" database.
func (s *Server) AdminDSN() string { return s.admin }

// CreateDatabase creates a new, empty database and returns its DSN.
func (s *Server) CreateDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("t%d_%d", os.Getpid(), s.dbSeq.Add(1))
	return createDatabase(ctx, s.admin, name)
}

func createDatabase(ctx context.Context, admin, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("pgtest: connect: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// createSchema creates a new, empty schema in the database at dsn and
// returns a DSN whose connections use it (search_path): as good as a fresh
// database for tables made without a schema name, and much cheaper.
func createSchema(ctx context.Context, dsn, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", fmt.Errorf("pgtest: connect: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("pgtest: create schema %s: %w", name, err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Stop stops the cluster (immediate shutdown) and removes its directory.
func (s *Server) Stop() error {
	if s == nil || s.closed.Swap(true) {
		return nil
	}
	if s.reaper != nil {
		_ = s.reaper.Process.Kill() // the reaper shell, started by Start
		_ = s.reaper.Wait()
	}
	out, err := s.run(context.Background(), 60*time.Second, "pg_ctl", "stop", "-w", "-t", "30", "-m", "immediate", "-D", filepath.Join(s.dir, "data"))
	s.removeDir()
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

func (s *Server) removeDir() {
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// The shared cluster of this test binary.
var (
	sharedMu  sync.Mutex
	shared    *Server
	sharedErr error
	sharedSeq atomic.Int64
)

// Shared returns the test binary's cluster, starting it on first use.
func Shared(ctx context.Context) (*Server, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		shared, sharedErr = Start(ctx)
	}
	return shared, sharedErr
}

// DSN returns the connection string of a new, empty schema (its own
// search_path) in the test binary's database on the shared cluster, or on
// AGENTGRAPH_PG_DSN's server. Each call gives a namespace of its own, as
// good as a fresh database for tables created without a schema name. It
// fails the test, naming the install command, when PostgreSQL is not
// installed.
func DSN(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := testDatabase(ctx)
	if err != nil {
		t.Fatalf("%v", err)
	}
	dsn, err := createSchema(ctx, db, fmt.Sprintf("t%d_%d", os.Getpid(), sharedSeq.Add(1)))
	if err != nil {
		t.Fatalf("%v", err)
	}
	return dsn
}

var (
	testDBMu  sync.Mutex
	testDBDSN string
)

// testDatabase returns the DSN of the test binary's database: created once
// on the shared cluster, or AGENTGRAPH_PG_DSN's database as it is.
func testDatabase(ctx context.Context) (string, error) {
	if admin := os.Getenv("AGENTGRAPH_PG_DSN"); admin != "" {
		return admin, nil
	}
	testDBMu.Lock()
	defer testDBMu.Unlock()
	if testDBDSN != "" {
		return testDBDSN, nil
	}
	s, err := Shared(ctx)
	if err != nil {
		return "", err
	}
	dsn, err := s.CreateDatabase(ctx)
	if err != nil {
		return "", err
	}
	testDBDSN = dsn
	return dsn, nil
}

// Main runs the tests and stops the shared cluster, if one was started.
// Use it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if err := StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// StopShared stops the shared cluster, if one was started: for a TestMain
// that runs its tests through another helper (browsertest.Main) rather
// than Main.
func StopShared() error {
	sharedMu.Lock()
	s := shared
	sharedMu.Unlock()
	return s.Stop()
}

package kit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// DefaultCache is where apps are installed and copied: $AGENTGRAPH_REALAPPS_CACHE,
// else <user cache dir>/agentgraph-realapps (outside the repository).
func DefaultCache() (string, error) {
	if d := os.Getenv("AGENTGRAPH_REALAPPS_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("kit: no cache directory (set AGENTGRAPH_REALAPPS_CACHE): %w", err)
	}
	return filepath.Join(d, "agentgraph-realapps"), nil
}

// filesDir is where an app's embedded files are written.
func filesDir(cache string, a App) string { return filepath.Join(cache, a.Name, "files") }

// PristineDir is the app's pristine tree that setup.sh made.
func PristineDir(cache string, a App) string { return filepath.Join(cache, a.Name, "pristine") }

// Setup writes the app's files to the cache and runs its setup.sh there:
// it installs the app when missing and makes the pristine copy. Idempotent.
func Setup(ctx context.Context, a App, cache string, log io.Writer) error {
	if err := a.Validate(); err != nil {
		return err
	}
	dir := filesDir(cache, a)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("kit: %s: %w", a.Name, err)
	}
	if err := os.CopyFS(dir, a.Files); err != nil {
		return fmt.Errorf("kit: %s: write files: %w", a.Name, err)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(dir, "setup.sh"), filepath.Join(cache, a.Name))
	cmd.Stdout, cmd.Stderr = &out, &out
	if log != nil {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, log), io.MultiWriter(&out, log)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kit: %s: setup.sh: %w: %s", a.Name, err, tail(out.String(), 800))
	}
	if _, err := os.Stat(PristineDir(cache, a)); err != nil {
		return fmt.Errorf("kit: %s: setup.sh made no pristine copy: %w", a.Name, err)
	}
	return nil
}

// Instance is one running copy of an app.
type Instance struct {
	// URL is its origin, http://127.0.0.1:<port>.
	URL string
	// Dir is the instance's copy of the app (patched, with its data).
	Dir string
	// Applied are the ids of the mutations patched in.
	Applied []string
	cmd     *exec.Cmd
	done    chan struct{}
	log     *bytes.Buffer
	cleanup func()
}

// StartOptions tune Start.
type StartOptions struct {
	// Mutations are the ids to patch in (none: the clean build).
	Mutations []string
	// Keep leaves the instance directory in place after Stop.
	Keep bool
	// ReadyTimeout bounds the wait for the first answer (60 s).
	ReadyTimeout time.Duration
}

// Start copies the pristine tree to a fresh directory under the cache,
// applies the chosen mutations' patches to the copy, and runs start.sh
// until the app answers. start.sh gets APP_DIR (the copy), PORT (a free
// loopback port to serve on), DB_PORT (another, for a database),
// ADMIN_USER and ADMIN_PASSWORD (the account to seed).
func Start(ctx context.Context, a App, cache string, opts StartOptions) (*Instance, error) {
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = 60 * time.Second
	}
	runs := filepath.Join(cache, a.Name, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return nil, fmt.Errorf("kit: %w", err)
	}
	dir, err := os.MkdirTemp(runs, "inst-")
	if err != nil {
		return nil, fmt.Errorf("kit: %w", err)
	}
	app := filepath.Join(dir, "app")
	if err := copyTree(ctx, PristineDir(cache, a), app); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	for _, id := range opts.Mutations {
		m, ok := a.Mutation(id)
		if !ok {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("kit: %s: no mutation %q", a.Name, id)
		}
		if err := ApplyPatch(ctx, a.Files, m.Patch(), app); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	dbPort, err := freePort()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	inst := &Instance{URL: "http://127.0.0.1:" + strconv.Itoa(port), Dir: app, Applied: opts.Mutations, done: make(chan struct{}), log: &bytes.Buffer{}}
	cmd := exec.Command("bash", filepath.Join(filesDir(cache, a), "start.sh"))
	cmd.Env = append(os.Environ(), "APP_DIR="+app, "PORT="+strconv.Itoa(port), "DB_PORT="+strconv.Itoa(dbPort), "ADMIN_USER="+a.Account.User, "ADMIN_PASSWORD="+a.Account.Password)
	cmd.Stdout, cmd.Stderr = &lockedBuffer{b: inst.log}, &lockedBuffer{b: inst.log}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("kit: %s: start.sh: %w", a.Name, err)
	}
	inst.cmd = cmd
	go func() { _ = cmd.Wait(); close(inst.done) }()
	stop := func() {
		inst.Stop()
		if !opts.Keep {
			_ = os.RemoveAll(dir)
		}
	}
	ready := a.Ready
	if ready == "" {
		ready = "/"
	}
	if err := inst.waitReady(ctx, ready, opts.ReadyTimeout); err != nil {
		stop()
		return nil, fmt.Errorf("kit: %s: %w; its output: %s", a.Name, err, tail(inst.Output(), 800))
	}
	inst.cleanup = stop
	return inst, nil
}

func (i *Instance) waitReady(ctx context.Context, path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, i.URL+path, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
		}
		select {
		case <-i.done:
			return errors.New("start.sh exited before the app answered")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer from %s within %s", i.URL+path, timeout)
		}
	}
}

// Output is what start.sh and the app printed so far.
func (i *Instance) Output() string {
	lb := i.cmd.Stdout.(*lockedBuffer)
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.b.String()
}

// Close ends the instance's process group (start.sh and the server it
// runs) and removes its directory unless StartOptions.Keep.
func (i *Instance) Close() {
	if i.cleanup != nil {
		i.cleanup()
		i.cleanup = nil
	}
}

// Stop ends the instance's processes, leaving its directory.
func (i *Instance) Stop() {
	if i.cmd == nil || i.cmd.Process == nil {
		return
	}
	select {
	case <-i.done:
		return
	default:
	}
	_ = syscall.Kill(-i.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-i.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-i.cmd.Process.Pid, syscall.SIGKILL)
		<-i.done
	}
}

// ApplyPatch applies the patch file name of files to dir (patch -p1).
// A patch that does not apply cleanly is an error.
func ApplyPatch(ctx context.Context, files fs.FS, name, dir string) error {
	raw, err := fs.ReadFile(files, name)
	if err != nil {
		return fmt.Errorf("kit: %w", err)
	}
	cmd := exec.CommandContext(ctx, "patch", "-p1", "--forward", "--batch", "--no-backup-if-mismatch", "-d", dir)
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("kit: %s does not apply: %w: %s", name, err, tail(string(out), 600))
	}
	return nil
}

func copyTree(ctx context.Context, from, to string) error {
	out, err := exec.CommandContext(ctx, "cp", "-a", from, to).CombinedOutput()
	if err != nil {
		return fmt.Errorf("kit: copy %s: %w: %s", from, err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("kit: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

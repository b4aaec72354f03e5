package browsertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentgraph/agentgraph/browser"
)

// RunServer is a Playwright browser server (`playwright run-server`) that
// a test started on a free loopback port, for browser.LaunchOptions.Endpoint.
type RunServer struct {
	// Endpoint is the server's ws:// URL.
	Endpoint  string
	cmd       *exec.Cmd
	stdin     io.Closer
	done      chan struct{}
	stopOnce  sync.Once
	mu        sync.Mutex
	output    strings.Builder // the server's output, for failure messages
	announced bool
	listening chan string
}

// RunServerTimeout bounds the server's start.
const RunServerTimeout = 30 * time.Second

var reListening = regexp.MustCompile(`Listening on (ws://\S+)`)

// StartRunServer starts `node cli.js run-server --port 0 --host 127.0.0.1
// --unsafe` with the driver Launch uses (so the client's launch options,
// Chromium's path and flags included, are honoured) and waits until it
// listens. The server ends when Stop is called or when this process's end
// closes its standard input. The error names the command.
func StartRunServer(ctx context.Context) (*RunServer, error) {
	node, cli, err := browser.DriverPaths(browser.LaunchOptions{})
	if err != nil {
		return nil, fmt.Errorf("browsertest: a Playwright browser server needs the driver: %w", err)
	}
	args := []string{cli, "run-server", "--port", "0", "--host", "127.0.0.1", "--unsafe"}
	command := node + " " + strings.Join(args, " ")
	s := &RunServer{done: make(chan struct{}), listening: make(chan string, 1)}
	cmd := exec.Command(node, args...)
	// Its own process group, so that Stop can end the browsers it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = s, s
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("browsertest: %s: %w", command, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("browsertest: start the Playwright browser server (%s): %w", command, err)
	}
	s.cmd, s.stdin = cmd, stdin
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	ctx, cancel := context.WithTimeout(ctx, RunServerTimeout)
	defer cancel()
	select {
	case ep := <-s.listening:
		s.Endpoint = ep
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("browsertest: the Playwright browser server ended before listening (%s):\n%s", command, s.Output())
	case <-ctx.Done():
		_ = s.Stop()
		return nil, fmt.Errorf("browsertest: the Playwright browser server did not listen within %s (%s): %w\n%s", RunServerTimeout, command, ctx.Err(), s.Output())
	}
}

// Write keeps the server's output and spots the line that gives its
// endpoint.
func (s *RunServer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.output.Len() < 64<<10 {
		s.output.Write(p)
	}
	if m := reListening.FindStringSubmatch(s.output.String()); m != nil && !s.announced {
		s.announced = true
		s.listening <- m[1]
	}
	return len(p), nil
}

// Output is what the server printed so far (its first 64 KiB).
func (s *RunServer) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.output.String()
}

// Stop ends the server (closing its standard input; after 5s, killing its
// process group) and waits for it. It is idempotent.
func (s *RunServer) Stop() error {
	var err error
	s.stopOnce.Do(func() {
		_ = s.stdin.Close()
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			err = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			select {
			case <-s.done:
			case <-time.After(5 * time.Second):
				err = errors.Join(err, errors.New("browsertest: the Playwright browser server did not end"))
			}
		}
	})
	return err
}

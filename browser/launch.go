package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// SetupHint is appended to every error about a missing browser piece.
const SetupHint = "run `make setup` (scripts/setup.sh) in the agentgraph checkout, or set AGENTGRAPH_CHROMIUM, PLAYWRIGHT_NODEJS_PATH and PLAYWRIGHT_CLI_PATH (source scripts/env.sh)"

// ErrSetup is wrapped by every error caused by a missing or broken local
// browser installation (Chromium, Node.js or the Playwright driver).
var ErrSetup = errors.New("browser set-up incomplete")

// ChromiumArgs are the flags Chromium is always started with (a fresh copy).
func ChromiumArgs() []string {
	return []string{
		"--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run",
	}
}

// LaunchOptions configures the Chromium process. Zero values find everything
// on their own.
type LaunchOptions struct {
	// Headed shows the browser window (default headless).
	Headed bool
	// ChromiumPath overrides AGENTGRAPH_CHROMIUM and the usual install paths.
	ChromiumPath string
	// NodePath overrides PLAYWRIGHT_NODEJS_PATH and `node` on PATH.
	NodePath string
	// DriverCLI is the path of playwright-core's cli.js; it overrides
	// PLAYWRIGHT_CLI_PATH and the search for .tools/node upwards from the
	// working directory.
	DriverCLI string
	// ExtraArgs are appended to ChromiumArgs().
	ExtraArgs []string
	// Logger receives driver diagnostics (default slog.Default()).
	Logger *slog.Logger
	// Endpoint, a ws:// or wss:// URL, connects to a Playwright browser
	// server (`npx playwright run-server`) instead of starting Chromium
	// here: the server launches the browser (see Connect in remote.go).
	// Node.js and the driver still run here; Chromium need not.
	Endpoint string
	// ExposeNetwork is what the server's browser reaches through this
	// process rather than from the server's host (Playwright's
	// exposeNetwork rules; default "<loopback>": loopback addresses are
	// this machine's, so a collector or app served on 127.0.0.1 here works
	// with a browser elsewhere). Only with Endpoint.
	ExposeNetwork string
}

// Browser is one running Chromium driven through Playwright. Engines share
// it; each user gets an isolated browser context. Safe for concurrent use.
type Browser struct {
	pw        *playwright.Playwright
	browser   playwright.Browser
	driverDir string
	log       *slog.Logger
	closeOnce sync.Once
	closeErr  error
}

// Launch starts Playwright's driver and Chromium, or, with
// opts.Endpoint, connects the driver to a Playwright browser server that
// launches Chromium on its side. A missing local piece gives an error
// wrapping ErrSetup that names the fix; a server that cannot be reached or
// cannot launch the browser, one wrapping ErrServer.
func Launch(ctx context.Context, opts LaunchOptions) (*Browser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("browser: launch: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	var chromium string
	var err error
	if opts.Endpoint != "" {
		if err := CheckEndpoint(opts.Endpoint); err != nil {
			return nil, err
		}
		// The server's Chromium: the one named here, if any (a path on the
		// server's machine); else the server picks its own.
		chromium = firstNonEmpty(opts.ChromiumPath, os.Getenv("AGENTGRAPH_CHROMIUM"))
	} else if chromium, err = findChromium(opts.ChromiumPath, opts.Headed); err != nil {
		return nil, err
	}
	node, err := findNode(opts.NodePath)
	if err != nil {
		return nil, err
	}
	cli, err := findDriverCLI(opts.DriverCLI)
	if err != nil {
		return nil, err
	}
	// playwright-go expects <dir>/package/cli.js and <dir>/node unless the
	// PLAYWRIGHT_* variables are set; a private directory of symlinks gives it
	// that layout without touching the process environment.
	dir, err := os.MkdirTemp("", "agentgraph-driver-")
	if err != nil {
		return nil, fmt.Errorf("browser: driver dir: %w", err)
	}
	if err := os.Symlink(filepath.Dir(cli), filepath.Join(dir, "package")); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("browser: driver dir: %w", err)
	}
	if err := os.Symlink(node, filepath.Join(dir, "node")); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("browser: driver dir: %w", err)
	}
	if filepath.Base(cli) != "cli.js" {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: driver %s is not playwright-core's cli.js; %s", ErrSetup, cli, SetupHint)
	}
	type started struct {
		pw  *playwright.Playwright
		b   playwright.Browser
		err error
	}
	done := make(chan started, 1)
	go func() {
		pw, err := playwright.Run(&playwright.RunOptions{
			DriverDirectory:     dir,
			SkipInstallBrowsers: true,
			Verbose:             false,
			Stdout:              io.Discard,
			Stderr:              io.Discard,
			Logger:              log,
		})
		if err != nil {
			done <- started{err: fmt.Errorf("%w: starting the Playwright driver (%s with %s): %s; %s", ErrSetup, node, cli, oneLine(err), SetupHint)}
			return
		}
		if opts.Endpoint != "" {
			b, err := connect(pw, opts, chromium)
			if err != nil {
				_ = pw.Stop()
				done <- started{err: err}
				return
			}
			done <- started{pw: pw, b: b}
			return
		}
		b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
			ExecutablePath: playwright.String(chromium),
			Headless:       playwright.Bool(!opts.Headed),
			Args:           append(ChromiumArgs(), opts.ExtraArgs...),
		})
		if err != nil {
			_ = pw.Stop()
			done <- started{err: fmt.Errorf("%w: launching Chromium %s: %s; %s", ErrSetup, chromium, oneLine(err), SetupHint)}
			return
		}
		done <- started{pw: pw, b: b}
	}()
	select {
	case s := <-done:
		if s.err != nil {
			os.RemoveAll(dir)
			return nil, s.err
		}
		return &Browser{pw: s.pw, browser: s.b, driverDir: dir, log: log}, nil
	case <-ctx.Done():
		go func() {
			if s := <-done; s.err == nil {
				_ = s.b.Close()
				_ = s.pw.Stop()
			}
			os.RemoveAll(dir)
		}()
		return nil, fmt.Errorf("browser: launch: %w", ctx.Err())
	}
}

// Close stops Chromium and the driver. It is idempotent.
func (b *Browser) Close() error {
	b.closeOnce.Do(func() {
		// Bounded: a driver that died (a terminal's SIGINT reaches it too)
		// must not keep the program from exiting.
		err1 := bounded0(context.Background(), 15*time.Second, "close browser", func() error { return b.browser.Close() })
		err2 := bounded0(context.Background(), 15*time.Second, "stop driver", b.pw.Stop)
		os.RemoveAll(b.driverDir)
		b.closeErr = errors.Join(err1, err2)
	})
	return b.closeErr
}

// Version is Chromium's version string.
func (b *Browser) Version() string { return b.browser.Version() }

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Where Chromium is looked for when neither LaunchOptions.ChromiumPath nor
// AGENTGRAPH_CHROMIUM names one: a headless run takes Chromium's headless
// shell first (Debian's chromium-headless-shell; it leaves out the browser
// UI and GPU process of the full build: about three quarters of the CPU
// for the same exploration), then a full build.
var (
	headlessShells = []string{"/usr/bin/chromium-headless-shell", "/usr/lib/chromium/chromium-headless-shell"}
	fullChromiums  = []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"}
)

// IsHeadlessShell tells Chromium's headless shell from a full build by its
// file name: the shell cannot show a window.
func IsHeadlessShell(path string) bool {
	return strings.Contains(filepath.Base(path), "headless-shell") || strings.Contains(filepath.Base(path), "headless_shell")
}

func findChromium(explicit string, headed bool) (string, error) {
	return findChromiumIn(explicit, os.Getenv("AGENTGRAPH_CHROMIUM"), headed, headlessShells, fullChromiums)
}

// findChromiumIn picks the Chromium to launch: explicit, else env, else
// (headless) a headless shell, else a full build. An explicit choice that
// does not exist is an error, not a fallback; a headed run whose explicit
// choice is a headless shell takes a full build instead.
func findChromiumIn(explicit, env string, headed bool, shells, fulls []string) (string, error) {
	usable := func(c string) bool {
		fi, err := os.Stat(c)
		return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
	}
	for _, c := range []string{explicit, env} {
		if c == "" {
			continue
		}
		if !usable(c) {
			return "", fmt.Errorf("%w: Chromium %q not found or not executable; %s", ErrSetup, c, SetupHint)
		}
		if headed && IsHeadlessShell(c) {
			break
		}
		return c, nil
	}
	cands := fulls
	if !headed {
		cands = append(slices.Clone(shells), fulls...)
	}
	for _, c := range cands {
		if usable(c) {
			return c, nil
		}
	}
	what := "a Chromium"
	if headed {
		what = "a full Chromium (a headed run cannot use the headless shell)"
	}
	return "", fmt.Errorf("%w: no %s found (looked at AGENTGRAPH_CHROMIUM, %s); %s", ErrSetup, what, strings.Join(cands, ", "), SetupHint)
}

func findNode(explicit string) (string, error) {
	for _, c := range []string{explicit, os.Getenv("PLAYWRIGHT_NODEJS_PATH")} {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err != nil {
			return "", fmt.Errorf("%w: Node.js %q not found; %s", ErrSetup, c, SetupHint)
		}
		return c, nil
	}
	p, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("%w: Node.js (node) not found on PATH; install Node.js 20+ and %s", ErrSetup, SetupHint)
	}
	return p, nil
}

// DriverPaths returns the Node.js and the playwright-core cli.js that
// Launch runs (opts.NodePath and opts.DriverCLI, else the environment and
// the usual places), e.g. to start `cli.js run-server` with them.
func DriverPaths(opts LaunchOptions) (node, cli string, err error) {
	if node, err = findNode(opts.NodePath); err != nil {
		return "", "", err
	}
	if cli, err = findDriverCLI(opts.DriverCLI); err != nil {
		return "", "", err
	}
	return node, cli, nil
}

// DriverRelPath is where scripts/setup.sh installs playwright-core's CLI,
// relative to the checkout root.
const DriverRelPath = ".tools/node/node_modules/playwright-core/cli.js"

func findDriverCLI(explicit string) (string, error) {
	for _, c := range []string{explicit, os.Getenv("PLAYWRIGHT_CLI_PATH")} {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err != nil {
			return "", fmt.Errorf("%w: Playwright driver %q not found; %s", ErrSetup, c, SetupHint)
		}
		return filepath.Abs(c)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("browser: working directory: %w", err)
	}
	if p, ok := FindUp(wd, DriverRelPath); ok {
		return p, nil
	}
	return "", fmt.Errorf("%w: Playwright driver (%s) not found in %s or any parent; %s", ErrSetup, DriverRelPath, wd, SetupHint)
}

// FindUp looks for rel in dir and each of its parents and returns the first
// existing path.
func FindUp(dir, rel string) (string, bool) {
	for {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

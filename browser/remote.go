package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/mxschmitt/playwright-go"
)

// A remote browser: LaunchOptions.Endpoint names a Playwright browser
// server (`npx playwright run-server`, or
// `node .tools/node/node_modules/playwright-core/cli.js run-server --port N --host H`).
// The driver runs here as for a local browser and connects to the server
// over a WebSocket; the server launches a fresh Chromium for the
// connection, from the launch options the client sends in the
// x-playwright-launch-options header (JSON: headless, args,
// executablePath), and closes it when the connection ends. A server honours
// args and executablePath only when started with --unsafe; without it, it
// launches its own Playwright Chromium (`npx playwright install chromium`
// on its machine) with Playwright's default flags.
//
// Loopback addresses stay this machine's: the connection asks the server
// to send the browser's requests for them back through the WebSocket
// (Playwright's exposeNetwork, LaunchOptions.ExposeNetwork), so a proxy or
// app this process serves on 127.0.0.1 works with a browser elsewhere.
// Everything else — contexts, routes, init scripts, screenshots, traces,
// storage state — goes through the Playwright protocol and works the same.

// ErrServer is wrapped by the error of a connection to a Playwright browser
// server that failed: nothing listening, not a Playwright server, or a
// server that could not launch the browser.
var ErrServer = errors.New("browser: Playwright browser server")

// ConnectTimeout bounds connecting to a browser server, the server's
// launch of the browser included.
const ConnectTimeout = 60_000 // milliseconds

// RunServerHint is how to start a Playwright browser server on loopback.
const RunServerHint = "start one with: node " + DriverRelPath + " run-server --port 3000 --host 127.0.0.1 --unsafe (or: npx playwright run-server --port 3000 --unsafe), then use ws://127.0.0.1:3000/"

// CheckEndpoint reports whether endpoint is the ws:// or wss:// URL of a
// browser server.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("browser: endpoint: want a ws:// or wss:// URL of a Playwright browser server: %w", redactedURLError(err))
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return fmt.Errorf("browser: endpoint %s: want a ws:// or wss:// URL of a Playwright browser server (npx playwright run-server)", EndpointForDisplay(endpoint))
	}
	if u.Hostname() == "" {
		return fmt.Errorf("browser: endpoint %s: no host", EndpointForDisplay(endpoint))
	}
	if p := u.Port(); p != "" {
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return fmt.Errorf("browser: endpoint %s: bad port %q", EndpointForDisplay(endpoint), p)
			}
			n = n*10 + int(c-'0')
			if n > 65535 {
				return fmt.Errorf("browser: endpoint %s: bad port %q", EndpointForDisplay(endpoint), p)
			}
		}
	}
	return nil
}

// EndpointForDisplay is endpoint without what may be a secret: the
// password of its user info and the values of its query (servers take
// tokens there), for messages and logs.
func EndpointForDisplay(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(unparsable URL)"
	}
	masked := false
	if _, ok := u.User.Password(); ok {
		u.User, masked = url.UserPassword(u.User.Username(), "MASKED"), true
	}
	if u.RawQuery != "" {
		q := u.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k+"=****")
		}
		sort.Strings(keys)
		u.RawQuery = strings.Join(keys, "&")
	}
	if masked {
		return strings.Replace(u.String(), ":MASKED@", ":****@", 1)
	}
	return u.String()
}

// redactedURLError drops the URL that url.Parse quotes in its error.
func redactedURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// launchOptionsHeader is the x-playwright-launch-options value: how the
// server launches the browser for this connection.
func launchOptionsHeader(opts LaunchOptions, chromium string) (string, error) {
	lo := struct {
		Headless       bool     `json:"headless"`
		Args           []string `json:"args,omitempty"`
		ExecutablePath string   `json:"executablePath,omitempty"`
	}{Headless: !opts.Headed, Args: append(ChromiumArgs(), opts.ExtraArgs...), ExecutablePath: chromium}
	b, err := json.Marshal(lo)
	return string(b), err
}

// connect connects the running driver to the server at opts.Endpoint.
func connect(pw *playwright.Playwright, opts LaunchOptions, chromium string) (playwright.Browser, error) {
	header, err := launchOptionsHeader(opts, chromium)
	if err != nil {
		return nil, fmt.Errorf("browser: launch options: %w", err)
	}
	expose := opts.ExposeNetwork
	if expose == "" {
		expose = "<loopback>"
	}
	b, err := pw.Chromium.Connect(opts.Endpoint, playwright.BrowserTypeConnectOptions{
		Headers:       map[string]string{"x-playwright-launch-options": header},
		ExposeNetwork: playwright.String(expose),
		Timeout:       playwright.Float(ConnectTimeout),
	})
	if err != nil {
		msg := strings.ReplaceAll(oneLine(err), opts.Endpoint, EndpointForDisplay(opts.Endpoint))
		return nil, fmt.Errorf("%w at %s: %s; %s", ErrServer, EndpointForDisplay(opts.Endpoint), msg, RunServerHint)
	}
	return b, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

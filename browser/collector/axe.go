package collector

import (
	"errors"
	"fmt"
	"os"

	"github.com/agentgraph/agentgraph/browser"
)

// AxeRelPath is where scripts/setup.sh installs axe-core, relative to the
// checkout root.
const AxeRelPath = ".tools/node/node_modules/axe-core/axe.min.js"

// AxeEnv names the environment variable that overrides the axe-core path.
const AxeEnv = "AGENTGRAPH_AXE_PATH"

// ErrAxeMissing is wrapped when axe-core cannot be found.
var ErrAxeMissing = errors.New("collector: axe-core not found")

// FindAxe locates axe.min.js: $AGENTGRAPH_AXE_PATH, else AxeRelPath in the
// working directory or one of its parents.
func FindAxe() (string, error) {
	if p := os.Getenv(AxeEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrAxeMissing, AxeEnv, p, err)
		}
		return p, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrAxeMissing, err)
	}
	if p, ok := browser.FindUp(wd, AxeRelPath); ok {
		return p, nil
	}
	return "", fmt.Errorf("%w: no %s above %s; run `make setup` (scripts/setup.sh) in the agentgraph checkout or set %s", ErrAxeMissing, AxeRelPath, wd, AxeEnv)
}

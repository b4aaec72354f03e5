package config

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
)

// Mask is what secret settings print as.
const Mask = "****"

// Print writes the effective configuration as explorer.yaml lines, each
// with its source as a comment. Secrets are masked, and so is the password
// of a target URL.
func (l *Loaded) Print(w io.Writer) error {
	if _, err := fmt.Fprintln(w, "# effective explorer config (flag > AGENTGRAPH_* variable > file > default; secrets masked)"); err != nil {
		return err
	}
	for _, f := range Fields() {
		v := f.Get(&l.Settings)
		switch {
		case f.Secret && v != "":
			v = Mask
		case f.Key == "target":
			if u, err := url.Parse(v); err == nil && u.User != nil {
				v = u.Redacted()
			}
		case f.Key == "db":
			v = explore.RedactDB(v)
		case f.Key == "browser_ws" && v != "":
			v = browser.EndpointForDisplay(v)
		}
		if _, err := fmt.Fprintf(w, "%s: %s # %s\n", f.Key, yamlScalar(f, v), l.Sources[f.Key]); err != nil {
			return err
		}
	}
	return l.printUsers(w)
}

// yamlScalar formats v so that it reads back as the same string value.
func yamlScalar(f Field, v string) string {
	if _, ok := f.ptr(&Settings{}).(*string); !ok {
		return v
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%q", v)
	}
	s := strings.TrimSuffix(string(out), "\n")
	if strings.Contains(v, "$") { // keep it literal for Expand
		s = fmt.Sprintf("%q", strings.ReplaceAll(v, "$", "$$"))
	}
	return s
}

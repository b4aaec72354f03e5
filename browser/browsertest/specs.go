package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

// SpecDir makes dir a place where generated specs run with
// `npx playwright test`: node_modules links to the project's
// .tools/node/node_modules (found upwards from the working directory, with
// @playwright/test and axe-core) and playwright.config.ts runs headless
// Debian Chromium (AGENTGRAPH_CHROMIUM, else chromium on PATH) with
// browser.ChromiumArgs, one worker, no retries.
func SpecDir(dir string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	cli, ok := browser.FindUp(wd, ".tools/node/node_modules/@playwright/test/cli.js")
	if !ok {
		return fmt.Errorf("@playwright/test not installed; %s", browser.SetupHint)
	}
	nodeModules := filepath.Dir(filepath.Dir(filepath.Dir(cli)))
	chromium := os.Getenv("AGENTGRAPH_CHROMIUM")
	if chromium == "" {
		if chromium, err = exec.LookPath("chromium"); err != nil {
			return fmt.Errorf("chromium not found; %s", browser.SetupHint)
		}
	}
	if err := os.Symlink(nodeModules, filepath.Join(dir, "node_modules")); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	args := make([]string, 0, len(browser.ChromiumArgs()))
	for _, a := range browser.ChromiumArgs() {
		args = append(args, strconv.Quote(a))
	}
	config := fmt.Sprintf(`import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.',
  workers: 1,
  retries: 0,
  timeout: 60000,
  use: { browserName: 'chromium', headless: true, launchOptions: { executablePath: %s, args: [%s] } },
});
`, strconv.Quote(chromium), strings.Join(args, ", "))
	return os.WriteFile(filepath.Join(dir, "playwright.config.ts"), []byte(config), 0o644)
}

// Outcome is one test of a spec run, as Playwright's JSON reporter tells
// it. Status is "expected" (passed, or failed under test.fail()),
// "unexpected", "flaky" or "skipped"; Errors are the messages of its
// failures (under test.fail(), the assertion that failed as expected).
type Outcome struct {
	File, Title string
	Status      string
	Errors      []string
}

// RunSpecs runs `npx playwright test [files]` in a SpecDir with the JSON
// reporter and the extra environment env, and returns every test's outcome
// and the command's combined output. A run whose tests fail is no error;
// a run that produced no report is.
func RunSpecs(ctx context.Context, dir string, env []string, files ...string) ([]Outcome, string, error) {
	report := filepath.Join(dir, fmt.Sprintf("report-%d.json", os.Getpid()))
	_ = os.Remove(report)
	cmd := exec.CommandContext(ctx, "npx", append([]string{"--no-install", "playwright", "test", "--reporter=json"}, files...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CI=1", "PLAYWRIGHT_BROWSERS_PATH=0", "PLAYWRIGHT_JSON_OUTPUT_NAME="+report), env...)
	out, runErr := cmd.CombinedOutput()
	raw, err := os.ReadFile(report)
	if err != nil {
		return nil, string(out), fmt.Errorf("npx playwright test: no JSON report (%v): %w", runErr, err)
	}
	var rep jsonSuite
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, string(out), fmt.Errorf("npx playwright test: JSON report: %w", err)
	}
	var outcomes []Outcome
	rep.walk("", &outcomes)
	if len(rep.Errors) > 0 {
		return outcomes, string(out), fmt.Errorf("npx playwright test: %s", rep.Errors[0].Message)
	}
	return outcomes, string(out), nil
}

type jsonSuite struct {
	File   string      `json:"file"`
	Suites []jsonSuite `json:"suites"`
	Specs  []struct {
		Title string `json:"title"`
		File  string `json:"file"`
		Tests []struct {
			Status  string `json:"status"`
			Results []struct {
				Errors []struct {
					Message string `json:"message"`
				} `json:"errors"`
			} `json:"results"`
		} `json:"tests"`
	} `json:"specs"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

func (s jsonSuite) walk(file string, out *[]Outcome) {
	if s.File != "" {
		file = s.File
	}
	for _, sp := range s.Specs {
		for _, t := range sp.Tests {
			o := Outcome{File: file, Title: sp.Title, Status: t.Status}
			if sp.File != "" {
				o.File = sp.File
			}
			for _, r := range t.Results {
				for _, e := range r.Errors {
					o.Errors = append(o.Errors, e.Message)
				}
			}
			*out = append(*out, o)
		}
	}
	for _, c := range s.Suites {
		c.walk(file, out)
	}
}

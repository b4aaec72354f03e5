package explore

import (
	"context"
	"errors"

	"github.com/agentgraph/agentgraph/memory"

	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/personas"
	"github.com/agentgraph/agentgraph/tools"

	"github.com/agentgraph/agentgraph/examples/explorer/internal/xerr"
	"github.com/agentgraph/agentgraph/examples/explorer/minimize"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/examples/explorer/pullreq"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/tmc/langchaingo/llms"
)

// FailOn says which bugs make a run fail (exit code 1).
type FailOn string

// The --fail-on policies.
const (
	FailOnNew  FailOn = "new"  // bugs memory has not seen before (the default)
	FailOnAny  FailOn = "any"  // any bug found in this run
	FailOnNone FailOn = "none" // never
)

// ParseFailOn parses a --fail-on value.
func ParseFailOn(s string) (FailOn, error) {
	switch FailOn(s) {
	case FailOnNew, FailOnAny, FailOnNone:
		return FailOn(s), nil
	case "":
		return FailOnNew, nil
	}
	return "", fmt.Errorf("explore: --fail-on %q: want new, any or none", s)
}

// Exit codes of the explorer program.
//
//	0    no bug that the fail-on policy counts
//	1    bugs that the fail-on policy counts
//	2    usage or set-up error: bad flags or config, no Chromium, a bad DB,
//	     a target that is not an http(s) URL, is unreachable or answers
//	     nothing (TargetTimeout), or a mission that crashed
//	130  interrupted (SIGINT/SIGTERM): the reports hold what was found
//	     until then, and --resume continues the mission
const (
	ExitClean       = 0
	ExitBugs        = 1
	ExitSetup       = 2
	ExitInterrupted = 130
)

// ErrUsage marks configuration mistakes (exit code 2).
var ErrUsage = xerr.ErrUsage

// SetupError is a missing local piece (Chromium, Node.js, the Playwright
// driver) or a target the run cannot use (not http(s), unreachable,
// answering nothing): the run could not start. Exit code 2.
type SetupError = xerr.SetupError

// ExitCode maps a run's outcome to the program's exit code: 2 when the run
// or one of its missions failed (usage, set-up, a crash), else 1 when the
// fail-on policy counts a bug, else 0.
func ExitCode(res report.Result, err error, failOn FailOn) int {
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	if err != nil {
		return ExitSetup
	}
	for _, m := range res.Missions {
		if m.Err != "" {
			return ExitSetup
		}
	}
	switch failOn {
	case FailOnNone:
		return ExitClean
	case FailOnAny:
		if res.Bugs() > 0 {
			return ExitBugs
		}
	default:
		if res.NewBugs() > 0 {
			return ExitBugs
		}
	}
	return ExitClean
}

// Config configures Run. Target is required; the rest has defaults: one
// mission, offline, with the standard team.
type Config struct {
	// Target is the app's origin (http or https).
	Target string
	// Missions to run; empty means one default mission.
	Missions []mission.Mission
	// Team overrides every mission's team ("standard" or "advanced").
	Team string
	// Personas, when set, are the team of every mission instead of a
	// built-in team (Team and the missions' teams are then ignored): each
	// valid (personas.Persona.Validate), with a unique name that is not
	// a graph node's (supervisor, summarizer); else an ErrUsage error.
	Personas []personas.Persona
	// Tools are further tools model personas get, like the MCP and skills
	// tools: valid, unique names that no other tool has (ErrUsage), each
	// call bounded by ToolTimeout (0: DefaultToolTimeout), results
	// redacted, calls on the observers and in traces.log.
	Tools       []tools.Tool
	ToolTimeout time.Duration
	// Budget is the default number of browser steps per mission (200).
	Budget int
	// TurnSteps is the step limit of one persona turn (10); the persona is
	// then sent back to the start URL to pick a different area.
	TurnSteps int
	// ReportDir receives reports/<thread>/… and junit.xml ("reports").
	ReportDir string
	// DB is where checkpoints and bug memory live: a bbolt file, a
	// postgres:// URL (checkpoint/postgres and memory's Postgres store on
	// one pool, shared by shards on several machines; see CheckDB), or ""
	// for memory only. A URL's password is never printed (RedactDB).
	DB string
	// Checkpointer and Store, when set, are used instead of DB's (and
	// left open); with a Checkpointer a mission keeps its browser state
	// for Resume as with DB.
	Checkpointer graph.Checkpointer
	Store        graph.Store
	// Shard runs only this shard's share of the missions (ShardOf: by a
	// hash of the thread id); the zero value runs them all.
	Shard mission.Shard
	// BrowserWS, a ws:// URL, drives a browser that a Playwright browser
	// server (npx playwright run-server) launches, instead of launching
	// Chromium here (browser.LaunchOptions.Endpoint). The collector stays
	// on this machine's loopback; the connection carries the browser's
	// requests to it. Ignored when Browser is set.
	BrowserWS string
	// Resume continues the killed mission with this thread id from its
	// checkpoint (it must be in DB).
	Resume string
	// Regression replaces Missions by one mission per page with open bugs
	// in memory.
	Regression bool
	// Credentials used on sign-in forms (default: an account shown on the
	// page, else a throwaway one).
	Credentials session.Credentials
	// Users are the accounts to explore as (see Account). Each user with a
	// password and no storage state is signed in once by a set-up mission
	// before the missions (its storage state saved to
	// <ReportDir>/.auth/<name>.json); with two or more, every mission
	// opens one isolated browser context per user, assigns the team's
	// personas to them in turn, and a cross-user oracle reports one
	// user's typed data showing on another's pages (FindCrossUser).
	// Empty: the one account of Credentials, as before.
	Users []Account
	// UsersShareData turns the cross-user oracle off, for apps whose
	// users see each other's data by design.
	UsersShareData bool
	// EntryPaths are further paths of the target to look for pages its
	// links may not reach (a deep link, an admin page), besides the
	// sitemaps, robots.txt and the conventional EntryPaths every mission
	// tries (see "Entry points" in the package docs).
	EntryPaths []string
	// NoDiscovery turns that off: the mission explores only what the
	// start page's links lead to.
	NoDiscovery bool
	// JSCoverage collects the JavaScript coverage of the app (CDP precise
	// coverage, Chromium only). Off by default: its DevTools calls on
	// every step, and before every action that may leave the page, slowed
	// the demo app's main job (see the README's "JavaScript coverage").
	JSCoverage bool
	// SlowThreshold marks slower responses as findings (3s).
	SlowThreshold time.Duration
	// Seed makes the offline personas' choices reproducible (1).
	Seed uint64
	// Headed shows the browser.
	Headed bool
	// Browser, when set, is used instead of launching one (and is left
	// open): test binaries share one Chromium this way.
	Browser *browser.Browser
	// Progress receives a line per step (nil: none); TTY rewrites one line.
	// The line is an observe.Console's rendering of the step event.
	Progress io.Writer
	TTY      bool
	// Observer receives the run's events (goal start and completion, steps,
	// the model personas' tool calls, results and summaries, bugs, step
	// limits); nil: only the progress line. Mix observers with
	// observe.Multi.
	Observer observe.Observer
	progress *observe.Console // the progress line, built by defaults
	// Models drive the team with a model (supervisor, personas, reporter);
	// nil explores offline. ModelsFromFactory builds them from the
	// environment.
	Models *Models
	// Reflector rewrites the personas' prompt supplements after the batch
	// (memory.QA.Reflect); nil uses memory's offline rules. ModelReflector
	// lets a model do it.
	Reflector memory.Reflector

	// MissionRetries is how often a mission that failed on a transient
	// model error (llm.TransientError: 429, 5xx, overloaded, timeouts) is
	// continued from its last checkpoint, on the same graph thread, after a
	// backoff (0: 2; negative: never). Other errors fail it at once.
	MissionRetries int
	// RetryBackoff is the delay before the first mission retry, doubled
	// (with jitter) for each further one (0: 2s).
	RetryBackoff time.Duration
	// PRURL, a GitHub pull request (https://github.com/OWNER/REPO/pull/N),
	// replaces Missions by missions about its changes (see PRMissions).
	PRURL string
	// MCPConfig is an mcp_servers.json file. Model personas get the tools
	// of each of its enabled servers, named "<server>_<tool>" (connected
	// once per run, closed at its end; a server that fails to start is a
	// warning, a name that clashes with another tool an ErrUsage error).
	// A server named "github" in it fetches the pull request of PRURL,
	// else the gh CLI does.
	MCPConfig string
	// Skills is a directory of skills (package tools/skills: a folder per
	// skill with SKILL.md and scripts/); model personas get skill_list,
	// skill_show, skill_scripts and skill_run over it. Empty: no skills.
	Skills string
	// SkillTimeout bounds one skill script run (0: 60s); the script's
	// process group is killed when it runs out.
	SkillTimeout time.Duration
	// PlannerModel writes the PR missions (nil: missions from the changed
	// paths, offline).
	PlannerModel llms.Model
	// PRSource fetches the pull request instead of MCP or gh (nil: those).
	PRSource pullreq.Source
	// MinimizeReplays bounds the replays spent shortening one bug's
	// reproduction (DefaultMinimizeReplays); negative turns minimisation
	// off, so every spec replays the whole tape up to its bug.
	MinimizeReplays int
	// MinimizeTime bounds the minimisation of one mission's reproductions,
	// confirmations included (DefaultMinimizeTime).
	MinimizeTime time.Duration
	// MinimizeWorkers is how many minimisation replays run at once, each
	// in its own browser context (DefaultMinimizeWorkers). Replays mostly
	// wait on the page, so a few share a core well.
	MinimizeWorkers int
	// ReplayTarget, when set, gives each minimisation replay a fresh
	// instance of the app (its origin, and a func that stops it), so that a
	// shortened reproduction cannot lean on records the mission or an
	// earlier replay created. Nil replays against Target itself; for the
	// demo app Run starts a fresh one per replay.
	ReplayTarget func(ctx context.Context) (origin string, stop func(), err error)

	// TargetTimeout bounds the check, before anything starts, that Target
	// answers HTTP at all (10s): an unreachable target, or one that
	// accepts connections and answers nothing, is a *SetupError.
	TargetTimeout time.Duration
	// Secrets are further secret values (API tokens…) besides
	// Credentials.Password: wherever the run records them (tape,
	// traces.log, specs, reports, memory) they appear as ${SECRET_n}, and
	// generated specs read them from process.env.SECRET_n. Values typed
	// into password fields join them on their own.
	Secrets []string
	// SecretFields are CSS selectors of fields whose values are secret
	// besides password inputs, e.g. `[name="api_key"]`.
	SecretFields []string

	// Logger for diagnostics (default: discard; traces.log gets everything).
	Logger *slog.Logger
	// Seeded, for an app whose bugs are known (a test app, a benchmark's),
	// scores each mission and the batch by which seeded ids the findings
	// name (Result.Demo, MissionResult.Demo). Nil: no score.
	Seeded *report.Seeded
	// MemoryOrigin is the origin memory files the app's pages under
	// (default: Target): a stable name for an app served on a new port
	// each run, so one run's memory steers the next.
	MemoryOrigin string

	// faultHook, a test hook, runs before each persona step; an error it
	// returns fails the persona's node as a model call would.
	faultHook func(ctx context.Context, thread, persona string, steps int) error
}

func (c *Config) defaults() {
	if c.Progress != nil && c.progress == nil {
		c.progress = observe.NewConsole(c.Progress, observe.ConsoleOptions{TTY: c.TTY})
	}
	if c.Budget <= 0 {
		c.Budget = 200
	}
	if c.TurnSteps <= 0 {
		c.TurnSteps = 10
	}
	if c.ReportDir == "" {
		c.ReportDir = "reports"
	}
	if c.SlowThreshold <= 0 {
		c.SlowThreshold = 3 * time.Second
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.MinimizeReplays == 0 {
		c.MinimizeReplays = DefaultMinimizeReplays
	}
	if c.MinimizeTime <= 0 {
		c.MinimizeTime = DefaultMinimizeTime
	}
	if c.MinimizeWorkers <= 0 {
		c.MinimizeWorkers = DefaultMinimizeWorkers
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.MissionRetries == 0 {
		c.MissionRetries = 2
	}
	if c.RetryBackoff <= 0 {
		c.RetryBackoff = 2 * time.Second
	}
	if c.TargetTimeout <= 0 {
		c.TargetTimeout = 10 * time.Second
	}
}

// Defaults of the reproduction minimiser (Config.MinimizeReplays,
// Config.MinimizeTime, Config.MinimizeWorkers).
const (
	DefaultMinimizeReplays = minimize.DefaultReplays
	DefaultMinimizeTime    = minimize.DefaultTime
	DefaultMinimizeWorkers = minimize.DefaultWorkers
)

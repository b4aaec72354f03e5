package demoapp

import (
	"fmt"
	"log/slog"
	"time"
)

// Default timings.
const (
	DefaultSlowDelay  = 3500 * time.Millisecond
	DefaultSessionTTL = 30 * time.Minute
)

// The environment variables read by OptionsFromEnv.
const (
	EnvFixed      = "DEMOAPP_FIXED"       // bug ids to turn off ("all" for every bug)
	EnvSlowDelay  = "DEMOAPP_SLOW_DELAY"  // Go duration for BUG-SLOW-REPORTS
	EnvSessionTTL = "DEMOAPP_SESSION_TTL" // Go duration of a session
)

// Options configures an App. The zero value is valid: every bug on, default
// timings, logs discarded, the real clock.
type Options struct {
	// Disabled turns seeded bugs off: a bug whose id maps to true behaves
	// as fixed. Unknown ids make New fail.
	Disabled map[BugID]bool
	// SlowDelay is how long the slow page waits (DefaultSlowDelay if zero).
	SlowDelay time.Duration
	// SessionTTL is a session's lifetime (DefaultSessionTTL if zero).
	SessionTTL time.Duration
	// Logger receives a Warn record per triggered server-side bug, with the
	// attribute "bug" holding its id. Nil discards.
	Logger *slog.Logger
	// Now is the clock (time.Now if nil); tests pass a fake one to expire
	// sessions.
	Now func() time.Time
}

// OptionsFromEnv builds Options from environment variables through lookup
// (pass os.LookupEnv): DEMOAPP_FIXED, DEMOAPP_SLOW_DELAY, DEMOAPP_SESSION_TTL.
// Unset variables keep the defaults; malformed ones are an error.
func OptionsFromEnv(lookup func(string) (string, bool)) (Options, error) {
	var o Options
	if v, ok := lookup(EnvFixed); ok {
		d, err := ParseBugList(v)
		if err != nil {
			return Options{}, fmt.Errorf("%s: %w", EnvFixed, err)
		}
		o.Disabled = d
	}
	for _, e := range []struct {
		name string
		dst  *time.Duration
	}{{EnvSlowDelay, &o.SlowDelay}, {EnvSessionTTL, &o.SessionTTL}} {
		v, ok := lookup(e.name)
		if !ok || v == "" {
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			return Options{}, fmt.Errorf("%s: %w", e.name, err)
		}
		if d < 0 {
			return Options{}, fmt.Errorf("%s: negative duration %s", e.name, v)
		}
		*e.dst = d
	}
	return o, nil
}

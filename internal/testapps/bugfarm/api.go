package bugfarm

import (
	"log/slog"
	"net/http"
	"time"
)

// Class is a bug class of the catalogue. Every generated bug has one.
type Class string

// The bug classes. The benchmark reports recall per class.
const (
	ClassPageError   Class = "page_error"          // uncaught exception on a specific option / toggle / button / key
	ClassConsole     Class = "console_error"       // console.error on an action or a page
	ClassRejection   Class = "unhandled_rejection" // a promise rejected with no handler
	ClassServerError Class = "server_error"        // HTTP 5xx for one input class (see Bug.Input)
	ClassStoredXSS   Class = "stored_xss"          // a record's field shown unescaped on a later page
	ClassReflected   Class = "reflected_xss"       // a query/form value echoed unescaped
	ClassBrokenLink  Class = "broken_link"         // a same-origin link that answers 404
	ClassSlow        Class = "slow_response"       // a response slower than 3 s
	ClassDead        Class = "dead_control"        // a control that does nothing
	ClassDouble      Class = "double_submit"       // a second quick submit creates a duplicate or a 5xx
	ClassSession     Class = "session_loss"        // an error once the session is gone
	ClassBanner      Class = "error_banner"        // an error banner with a stack trace / exception text
	ClassA11y        Class = "a11y"                // a serious or critical axe-core violation
	ClassDeep        Class = "deep_error"          // an error only reachable 3+ steps deep
)

// Input is the input class that fires a ClassServerError bug.
type Input string

// The input classes of server-side bugs.
const (
	InputQuote      Input = "quote"    // a quote or another SQL metacharacter
	InputNegative   Input = "negative" // a negative number
	InputZero       Input = "zero"     // zero
	InputOutOfRange Input = "out_of_range"
	InputEmpty      Input = "empty_required"
	InputLong       Input = "too_long" // longer than a column limit
	InputNonLatin1  Input = "non_latin1"
)

// Options configure Generate.
type Options struct {
	// Fixed turns every bug off: the app is the correct app, with the same
	// pages and controls.
	Fixed bool
	// Disabled turns single bugs off by id (case-insensitive; unknown ids
	// are ignored).
	Disabled []string
	// SlowDelay is how long slow_response bugs take (default 3.5 s).
	SlowDelay time.Duration
	// Logger receives a Warn record for each server-side firing of a bug
	// (nil: discard).
	Logger *slog.Logger
}

// Op is one step of a scripted trigger.
type Op string

// The trigger steps a driver plays (in a fresh browser context).
const (
	OpGoto         Op = "goto"          // Path
	OpClick        Op = "click"         // Selector
	OpDblClick     Op = "dblclick"      // Selector
	OpHover        Op = "hover"         // Selector
	OpFocus        Op = "focus"         // Selector
	OpFill         Op = "fill"          // Selector, Value
	OpSelect       Op = "select"        // Selector, Value (an option's value)
	OpCheck        Op = "check"         // Selector
	OpUncheck      Op = "uncheck"       // Selector
	OpPress        Op = "press"         // Selector, Key (Playwright key name: Enter, Escape, …)
	OpSetFile      Op = "set_file"      // Selector, Value (file name; content is generated)
	OpClearCookies Op = "clear_cookies" // drops the session
	OpReload       Op = "reload"
	OpWait         Op = "wait" // Value: milliseconds
)

// Step is one action of a trigger. Selectors are Playwright selectors
// (CSS pierces open shadow roots); Frame, when set, is the CSS selector of
// the same-origin iframe the Selector lives in.
type Step struct {
	Op       Op     `json:"op"`
	Path     string `json:"path,omitempty"`
	Selector string `json:"selector,omitempty"`
	Frame    string `json:"frame,omitempty"`
	Value    string `json:"value,omitempty"`
	Key      string `json:"key,omitempty"`
}

// Signal is where a bug's id shows once it fires.
type Signal string

// The signals a driver watches for. In each, the bug's id occurs.
const (
	SignalPageError Signal = "page_error" // an uncaught error's message (page "pageerror" event)
	SignalConsole   Signal = "console"    // a console error message
	SignalResponse  Signal = "response"   // a response with Status (>= 500 or 404) whose body or URL holds the id
	SignalSlow      Signal = "slow"       // a response whose URL or headers hold the id, slower than 3 s
	SignalScript    Signal = "script"     // an injected payload ran (window.__bfxss called) inside an element holding the id
	SignalAxe       Signal = "axe"        // axe-core reports Rule on an element whose attributes hold the id
	SignalDOM       Signal = "dom"        // an element holding the id matches Selector (a duplicate row, a banner)
	SignalDead      Signal = "dead"       // clicking the element holding the id changes nothing
)

// Expect is what a driver checks after the trigger's last step.
type Expect struct {
	Signal   Signal `json:"signal"`
	Status   int    `json:"status,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Selector string `json:"selector,omitempty"`
}

// Bug is one injected bug.
type Bug struct {
	// ID, "bf<seed>-<nn>", shows in the bug's evidence (see FindIDs).
	ID    string `json:"id"`
	Class Class  `json:"class"`
	// Input is the input class of a ClassServerError bug.
	Input Input `json:"input,omitempty"`
	// Page is the path of the page where the bug fires.
	Page string `json:"page"`
	// What says in words what fires it (for people and reports).
	What string `json:"what"`
	// Trigger reproduces it in a fresh browser context. It is the same in
	// every build (only an OpWait after a slow request follows
	// Options.SlowDelay).
	Trigger []Step `json:"trigger"`
	Expect  Expect `json:"expect"`
	// Depth is how many user actions it takes to reach (>= 3 for ClassDeep).
	Depth int `json:"depth"`
}

// Idiom is a structural feature of a generated app.
type Idiom string

// Credentials of the app's sign-in, when it has one.
type Credentials struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

// App is one generated app: an http.Handler with its own state.
type App struct {
	Seed int64
	// Bugs injected and on: every bug of the seed but those turned off by
	// Options.Fixed (then none) or Options.Disabled.
	Bugs []Bug
	// All is every bug the seed places, on or off, in id order. Triggers
	// are the same in every build, so All's triggers can be played on the
	// fixed build to check that nothing fires.
	All []Bug
	// Idioms present in this app (for the diversity table).
	Idioms []Idiom
	// Pages lists the app's page paths.
	Pages []string
	// SignIn is nil when the app has no sign-in.
	SignIn *Credentials

	handler http.Handler
	site    *site
}

// ServeHTTP serves the app.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.handler.ServeHTTP(w, r) }

// SignInSteps are the steps that sign in to the app with App.SignIn (nil
// when the app has no sign-in), ready to put before a trigger of one's own.
func (a *App) SignInSteps() []Step { return a.site.enter() }

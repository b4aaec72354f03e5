package personas

// Names of the built-in personas.
const (
	NewUser       = "new_user"
	PowerUser     = "power_user"
	Adversarial   = "adversarial"
	Accessibility = "accessibility"
	DataHeavy     = "data_heavy"
	Impatient     = "impatient"
	ReturningUser = "returning_user"
	Explorer      = "explorer"
)

// Builtins returns the eight built-in personas, standard team first.
func Builtins() []Persona {
	return []Persona{
		{Name: NewUser, Role: "a first-time user who discovers the app, keeps the defaults and follows onboarding",
			Focus:    []string{"discovery: every visible link and button", "defaults: submit forms as they come", "onboarding: get started, sign up, next, continue", "controls that do nothing, dead ends, confusing errors"},
			Keywords: []string{"onboarding", "new user", "first", "signup", "sign up", "discover", "smoke", "happy path", "default"},
			Tricks:   []Trick{TrickClickButtons, TrickValidForm},
			Prefer:   leanKinds(1, ActionClick)},
		{Name: PowerUser, Role: "an expert user who works fast with the keyboard, bulk operations, filters and sorting",
			Focus:    []string{"keyboard: Enter to submit, Tab through forms, shortcuts", "bulk: select all, act on many rows at once", "filters and search", "sorting every column both ways"},
			Keywords: []string{"power", "bulk", "keyboard", "shortcut", "filter", "sort", "table", "batch"},
			Tricks:   []Trick{TrickPaginate, TrickSelect, TrickBulk},
			Prefer:   leanKinds(1.5, ActionSelect, ActionCheck, ActionUncheck, ActionPress)},
		{Name: Adversarial, Role: "a hostile tester who feeds the app malicious and malformed input",
			Focus:    []string{"injection: XSS probes (a marker is logged when one runs), SQL and template injection", "over-long, unicode, negative and boundary values", "empty submits", "rapid repeated clicks"},
			Keywords: []string{"security", "xss", "injection", "adversarial", "attack", "malicious", "fuzz", "validation", "input"},
			Tricks:   []Trick{TrickXSS, TrickDouble, TrickCatalogue, TrickLong, TrickExotic, TrickDropSession},
			Prefer:   leanHostile},
		{Name: Accessibility, Role: "an accessibility auditor who uses only the keyboard and checks every page with axe-core",
			Focus:    []string{"axe-core serious and critical violations on every page", "keyboard-only paths: Tab, Shift+Tab, Enter, Space, Escape", "focus order and visible focus", "names and labels of controls and images"},
			Keywords: []string{"accessibility", "a11y", "axe", "wcag", "screen reader", "keyboard only", "aria", "label", "contrast"},
			Tricks:   []Trick{TrickKeyboard, TrickClickButtons},
			Prefer:   leanKinds(1, ActionPress)},
		{Name: DataHeavy, Role: "a user with a lot of data: many records, large inputs and long lists",
			Focus:    []string{"many records: add repeatedly", "large inputs and files", "pagination to the last page, load more, show all", "slow responses"},
			Keywords: []string{"data", "pagination", "large", "many", "volume", "performance", "slow", "records", "list"},
			Tricks:   []Trick{TrickPaginate, TrickLong, TrickSelect, TrickExotic},
			Prefer:   leanKinds(1.5, ActionSelect, ActionCheck, ActionUncheck, ActionPress)},
		{Name: Impatient, Role: "an impatient user who double-submits, reloads and goes back while requests run",
			Focus:    []string{"double submits", "reloading and navigating mid-request", "going back during a submit", "duplicate records, lost state"},
			Keywords: []string{"impatient", "double", "race", "reload", "refresh", "duplicate", "concurrency", "submit", "checkout", "payment"},
			Tricks:   []Trick{TrickDouble, TrickValidForm},
			Prefer:   leanKinds(3, ActionDblClick)},
		{Name: ReturningUser, Role: "a returning user whose cookies and storage were cleared or whose session expired, arriving from bookmarks and history",
			Focus:    []string{"cleared cookies and storage", "expired sessions", "cached and bookmarked pages opened directly", "back and forward through history"},
			Keywords: []string{"returning", "session", "cookie", "storage", "login", "logout", "expired", "cache", "bookmark", "history", "back"},
			Tricks:   []Trick{TrickDropSession, TrickXSS}},
		{Name: Explorer, Role: "a coverage-driven explorer who seeks page states not seen yet",
			Focus:    []string{"reach every screen: prefer actions that lead to unseen states", "broken links and deep pages", "errors off the main paths"},
			Keywords: []string{"explore", "coverage", "crawl", "everything", "broken link", "404", "deep"},
			Tricks:   []Trick{TrickClickButtons, TrickValidForm},
			Prefer:   leanKinds(1, ActionClick)},
	}
}

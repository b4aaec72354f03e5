package demoapp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
)

// A test serves the app with httptest; the explorer or a browser can use
// Listen instead.
func ExampleNew() {
	app, err := demoapp.New(demoapp.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(app)
	defer srv.Close()

	res, err := http.Get(srv.URL + "/signin")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, strings.Contains(string(body), demoapp.DemoEmail))
	fmt.Println(len(app.EnabledBugs()), "bugs on")
	// Output:
	// 200 true
	// 15 bugs on
}

// Turning bugs off from the environment, as `DEMOAPP_FIXED=… go run …` does.
func ExampleOptionsFromEnv() {
	os.Setenv("DEMOAPP_FIXED", "BUG-XSS-SEARCH,BUG-SLOW-REPORTS") //nolint:errcheck // example
	defer os.Unsetenv("DEMOAPP_FIXED")                            //nolint:errcheck // example
	opts, err := demoapp.OptionsFromEnv(os.LookupEnv)
	if err != nil {
		fmt.Println(err)
		return
	}
	app, err := demoapp.New(opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(app.Enabled(demoapp.BugXSSSearch), app.Enabled(demoapp.Bug5xxSort))
	// Output: false true
}

// The catalogue says where each bug is and where its id shows.
func ExampleBugs() {
	for _, b := range demoapp.Bugs()[:3] {
		fmt.Printf("%s %s %s\n", b.ID, b.Class, b.Where)
	}
	// Output:
	// BUG-PAGEERR-WIZARD page-error /checkout/3
	// BUG-CONSOLE-SETTINGS console-error /settings
	// BUG-CONSOLE-LIST-PAGE2 console-error /projects?page=2
}

// Matching a finding's evidence to seeded bugs.
func ExampleFindIDs() {
	evidence := `Uncaught Error: BUG-PAGEERR-WIZARD: order summary is missing the billing plan
GET /release-notes/BUG-404-RELEASE-NOTES -> 404; BUG-NOT-A-SEEDED-ONE`
	fmt.Println(demoapp.FindIDs(evidence))
	// Output: [BUG-PAGEERR-WIZARD BUG-404-RELEASE-NOTES]
}

// Serving on loopback for a browser.
func ExampleListen() {
	s, err := demoapp.Listen("", demoapp.Options{Disabled: map[demoapp.BugID]bool{demoapp.BugSessionExpired: true}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close(context.Background()) //nolint:errcheck // example

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(s.URL + "/projects")
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Body.Close()
	fmt.Println(strings.HasPrefix(s.URL, "http://127.0.0.1:"), res.StatusCode, res.Header.Get("Location"))
	// Output: true 303 /signin?next=%2Fprojects
}

package browser

import "testing"

// SharedTestBrowser hands the tests of package browser_test the Chromium
// that TestMain launched for this test binary.
func SharedTestBrowser(t testing.TB) *Browser {
	t.Helper()
	if testBrowser == nil {
		t.Fatal("no shared test browser (TestMain did not launch one)")
	}
	return testBrowser
}

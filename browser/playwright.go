package browser

import "github.com/mxschmitt/playwright-go"

// Playwright returns the underlying Playwright browser, for harnesses that
// script a browser context themselves (new contexts on the shared Chromium)
// rather than through an Engine. Closing it closes b.
func (b *Browser) Playwright() playwright.Browser { return b.browser }

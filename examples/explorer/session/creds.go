package session

import "regexp"

var (
	ReEmail    = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	rePassword = regexp.MustCompile(`(?is)password\W.{0,60}?: ([^\s"]+)`)
)

// Credentials sign the explorer in when a page asks for a password.
type Credentials struct {
	Email    string
	Password string
}

// GuessCredentials reads an account shown on the page (demo apps often do),
// falling back to a throwaway one.
func GuessCredentials(text string, c Credentials) Credentials {
	if c.Email == "" {
		if m := ReEmail.FindString(text); m != "" {
			c.Email = m
		} else {
			c.Email = "qa@example.com"
		}
	}
	if c.Password == "" {
		if m := rePassword.FindStringSubmatch(text); m != nil {
			c.Password = m[1]
		} else {
			c.Password = "Passw0rd!"
		}
	}
	return c
}

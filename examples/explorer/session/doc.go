// Package session is who the explorer is on the app: the credentials a
// persona signs in with when a page asks for a password, read from the
// page when the app shows a demo account (GuessCredentials), else a
// throwaway one.
package session

package config

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/joho/godotenv"
)

// EnvFile is a parsed .env file.
type EnvFile struct {
	Path  string
	Vars  map[string]string
	Lines map[string]int // line of each variable's (last) definition
}

// Lookup returns the file's value of name.
func (e *EnvFile) Lookup(name string) (string, bool) {
	if e == nil {
		return "", false
	}
	v, ok := e.Vars[name]
	return v, ok
}

var envKeyLine = regexp.MustCompile(`^\s*(?:export\s+)?([A-Za-z0-9_.]+)\s*[=:]`)

// ReadEnvFile parses a .env file with godotenv (KEY=value lines, # comments,
// quotes, export prefixes). A syntax error names the file and line.
func ReadEnvFile(path string) (*EnvFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: env file: %w", err)
	}
	vars, err := godotenv.UnmarshalBytes(data)
	if err != nil {
		return nil, fmt.Errorf("config: %s line %d: %s", path, envErrorLine(data), envErrorText(err))
	}
	lines := map[string]int{}
	for i, l := range strings.Split(string(data), "\n") {
		if m := envKeyLine.FindStringSubmatch(l); m != nil {
			if _, ok := vars[m[1]]; ok {
				lines[m[1]] = i + 1
			}
		}
	}
	return &EnvFile{Path: path, Vars: vars, Lines: lines}, nil
}

// envErrorLine finds the line of a godotenv syntax error, which godotenv does
// not report: the line after the longest prefix of whole lines that parses.
func envErrorLine(data []byte) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	for n := len(lines) - 1; n > 0; n-- {
		if _, err := godotenv.UnmarshalBytes(bytes.Join(lines[:n], nil)); err == nil {
			return n + 1
		}
	}
	return 1
}

// envErrorText drops the part of godotenv's message that quotes the rest of
// the file, which may hold secrets.
func envErrorText(err error) string {
	msg := err.Error()
	for _, cut := range []string{" near ", "unterminated quoted value"} {
		if i := strings.Index(msg, cut); i >= 0 {
			if cut == " near " {
				return msg[:i]
			}
			return cut
		}
	}
	return msg
}

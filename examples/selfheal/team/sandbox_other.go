//go:build !unix

package team

import (
	"os/exec"
	"time"
)

// killGroup kills just the go command on cancellation where process groups
// are not available; WaitDelay bounds the wait for its children's pipes.
func killGroup(cmd *exec.Cmd) {
	cmd.WaitDelay = 5 * time.Second
}

//go:build unix

package team

import (
	"os/exec"
	"syscall"
	"time"
)

// killGroup makes the subprocess lead its own process group and, on
// cancellation, kills the whole group (go test and the test binary it runs).
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
}

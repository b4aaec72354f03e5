//go:build unix

package skills

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs the script in its own process group and makes the
// context's cancellation kill the whole group, so children a script starts
// do not outlive its timeout.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

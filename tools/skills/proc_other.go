//go:build !unix

package skills

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

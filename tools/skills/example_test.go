package skills_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentgraph/agentgraph/tools/skills"
)

func Example() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	dir := filepath.Join(root, "hello")
	_ = os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(`---
description: Say hello.
scripts:
  hi.sh:
    description: Greets
    args: [{name: who, required: true, pattern: '[a-z]+'}]
---
Run hi.sh with a lower-case name.
`), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "scripts", "hi.sh"), []byte("#!/bin/sh\necho \"hi $1\"\n"), 0o755)

	lib, err := skills.Load(root, skills.Options{})
	if err != nil {
		panic(err)
	}
	out, err := lib.Run(context.Background(), "hello", "hi.sh", []string{"ada"})
	fmt.Print(out.Text, err, "\n")
	_, err = lib.Run(context.Background(), "hello", "hi.sh", []string{"Ada; reboot"})
	fmt.Println(err)
	// Output:
	// hi ada
	// <nil>
	// skills: skill hello: script hi.sh: bad arguments: argument "who" = "Ada; reboot": does not match [a-z]+
}

package main

import (
	"fmt"
	"runtime"

	"github.com/entirerec/entire/engine"
)

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Fprintf(e.stdout, "Entire CLI %s (entirerec)\nGo version: %s\nOS/Arch: %s/%s\n",
		engine.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

package main

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/alecthomas/kong"

	"github.com/entirerec/entire/engine"
)

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Fprintf(e.stdout, "Entire CLI %s (entirerec)\nGo version: %s\nOS/Arch: %s/%s\n",
		engine.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// helpCmd is `entire help [command...]`: the help of the command named, as `--help` prints it.
type helpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to show help for."`
}

func (h helpCmd) Run(k *kong.Context, exited *kongExit) error {
	exited.code = -1
	_, err := k.Kong.Parse(append(slices.Clone(h.Command), "--help"))
	if exited.code >= 0 {
		return nil // the help was printed; what kong says after it is about the missing command
	}
	if err != nil {
		fmt.Fprintf(k.Stderr, "Error: Invalid usage: %s\n", usageError(err, k.Stderr))
		return &exitError{code: 1}
	}
	return nil
}

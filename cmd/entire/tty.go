package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// terminal is the controlling terminal of a git hook. ENTIRE_TEST_TTY=1 pretends a person is
// there and answers every question with its default; any other non-empty value pretends there
// is none (an agent), as the reference reads it (spec §1).
type terminal struct {
	forced string
}

func newTerminal() terminal { return terminal{forced: os.Getenv("ENTIRE_TEST_TTY")} }

// openTTY opens the controlling terminal (a variable for tests).
var openTTY = func() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) }

func (t terminal) Available() bool {
	switch t.forced {
	case "":
	case "1":
		return true
	default:
		return false
	}
	f, err := openTTY()
	if err != nil {
		return false
	}
	f.Close()
	return true
}

func (t terminal) Confirm(context []string, question string, def bool) bool {
	if t.forced != "" {
		return def
	}
	f, err := openTTY()
	if err != nil {
		return def
	}
	defer f.Close()
	w := safeText{f} // the context quotes the session's prompt
	for _, l := range context {
		fmt.Fprintln(w, l)
	}
	fmt.Fprint(w, question)
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "":
		return def
	case "y", "yes":
		return true
	}
	return false
}

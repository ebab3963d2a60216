package history

import "github.com/entirerec/entire/engine"

// History is rewind and resume over one repository's record, on the engine of the repository
// whose session journals and git plumbing it uses.
type History struct{ *engine.Engine }

// New returns the history of the engine's repository.
func New(en *engine.Engine) *History { return &History{Engine: en} }

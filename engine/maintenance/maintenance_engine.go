package maintenance

import "github.com/entirerec/entire/engine"

// Maintenance is doctor, clean and reset over one repository's sessions and branches, on the
// engine of the repository.
type Maintenance struct{ *engine.Engine }

// New returns the maintenance of the engine's repository.
func New(en *engine.Engine) *Maintenance { return &Maintenance{Engine: en} }

// Package maintenance is entire doctor, clean and reset: finding stuck sessions (condensing or
// discarding them), orphaned shadow branches and session states, and resetting a branch's
// sessions, each previewed before it acts, and every branch deletion a compare-and-swap.
package maintenance

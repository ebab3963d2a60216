package gitexec

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Compare-and-swap loops (a shadow checkpoint, the metadata branch, integrating fetched logs,
// migrating a shadow branch) re-read a ref and try again when another writer moved it
// (ErrRefMoved). A lost race is resolved by re-reading, so retries are many and quick:
// between attempts a short jittered pause (at most refRetryPause) lets writers that collided
// take turns. Retrying stops after maxRefRetries attempts, or once refRetryBudget has passed
// and at least minRefRetries attempts were made: on an idle machine that is a couple of seconds
// of many attempts, while on a loaded one, where a single attempt's git processes can take
// a tenth of a second or more, each of several colliding writers still gets enough turns. A
// lost race means another writer made progress, so waiting on it is bounded by their work, not
// by a lock someone may hold for long. Any other failure (a ref locked by another git
// process, a missing object, a full disk) is returned at once: retrying within a hook cannot
// fix it.
const (
	maxRefRetries  = 40
	minRefRetries  = 16
	refRetryBudget = 2 * time.Second
	refRetryPause  = 16 * time.Millisecond
)

// RefRetry paces one compare-and-swap loop: for rt.Next() { ...; if rt.Moved(err) { continue } };
// after the loop, rt.Err says what gave up.
type RefRetry struct {
	// Budget, when set, replaces the hooks' limits for a command the user waits on (forget
	// rewriting the whole branch): it keeps trying while writers keep landing, for that long.
	Budget   time.Duration
	attempts int
	start    time.Time // of the first attempt
	last     error     // the last lost race, with git's message
}

// Next reports whether to make another attempt, pausing first unless it is the first.
func (rt *RefRetry) Next() bool {
	if rt.attempts == 0 {
		rt.start = time.Now()
	} else {
		if rt.Budget == 0 && rt.attempts >= maxRefRetries {
			return false
		}
		limit := min(time.Millisecond<<min(rt.attempts-1, 10), refRetryPause)
		time.Sleep(time.Duration(rand.Int64N(int64(limit)) + 1))
		if rt.Budget != 0 && time.Since(rt.start) > rt.Budget {
			return false
		}
		if rt.Budget == 0 && rt.attempts >= minRefRetries && time.Since(rt.start) > refRetryBudget {
			return false
		}
	}
	rt.attempts++
	return true
}

// Moved reports whether err is a lost race, to be retried; it remembers it for err.
func (rt *RefRetry) Moved(err error) bool {
	if !errors.Is(err, ErrRefMoved) {
		return false
	}
	rt.last = err
	return true
}

// Err is the failure to report when the attempts ran out: the last lost race, which wraps
// ErrRefMoved and carries git's message.
func (rt *RefRetry) Err(what string) error {
	took := time.Since(rt.start).Round(time.Millisecond)
	return fmt.Errorf("%s: gave up after %d attempts in %s: %w", what, rt.attempts, took, rt.last)
}

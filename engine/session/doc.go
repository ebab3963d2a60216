// Package session is the recorder's session core: the session state in the reference tool's
// shape, the pure reducer that turns events into state (Evolve) and git work (Decide, Pending),
// and the store of journals and state snapshots under <git-common-dir>/entire-sessions/.
//
// It imports only events: no git, no clock. The engine gathers facts, journals them through a
// Session, and performs the effects the reducer returns.
package session

package main

import (
	"encoding/json"
	"fmt"
)

// session is one Claude Code session in a repository: its transcript, and the hook calls
// Claude Code makes, with the payloads it sends.
type session struct {
	h  *harness
	r  *repo
	id string
	t  *transcript
}

// newSession returns a fresh session in r with a unique, UUID-shaped id.
func (h *harness) newSession(r *repo) *session {
	h.nextID++
	id := fmt.Sprintf("b3e7c0de-%04x-4a5b-9c8d-%012x", h.nextID%0x10000, h.nextID)
	return &session{h: h, r: r, id: id, t: newTranscript(h.home, id, r.dir)}
}

// hook calls "entire hooks claude-code verb" with the payload Claude Code sends (common
// fields plus extra) and adds its time to s.
func (ss *session) hook(s *series, verb, event string, extra map[string]string) error {
	payload := map[string]string{
		"session_id":      ss.id,
		"transcript_path": ss.t.path,
		"cwd":             ss.r.dir,
		"hook_event_name": event,
	}
	for k, v := range extra {
		payload[k] = v
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = ss.h.timed(s, proc{dir: ss.r.dir, stdin: data, name: ss.h.entire, args: []string{"hooks", "claude-code", verb}})
	return err
}

// start is the SessionStart hook of a new session.
func (ss *session) start(s *series) error {
	return ss.hook(s, "session-start", "SessionStart", map[string]string{"source": "startup"})
}

// prompt writes the user's prompt to the transcript, then calls UserPromptSubmit.
func (ss *session) prompt(s *series, text string) error {
	ss.t.prompt(text)
	if err := ss.t.flush(); err != nil {
		return err
	}
	return ss.hook(s, "user-prompt-submit", "UserPromptSubmit", map[string]string{"prompt": text})
}

// work records the agent's Write calls for the changed files in the transcript.
func (ss *session) work(cs []change) error {
	ss.t.say(fmt.Sprintf("I'll update %d file(s).", len(cs)))
	for _, c := range cs {
		ss.t.write(c.abs, c.content)
	}
	return ss.t.flush()
}

// stop writes the agent's closing message, then calls the Stop hook (the turn ends).
func (ss *session) stop(s *series, text string) error {
	ss.t.say(text)
	if err := ss.t.flush(); err != nil {
		return err
	}
	return ss.hook(s, "stop", "Stop", map[string]string{"last_assistant_message": text})
}

// end is the SessionEnd hook (the user exits Claude Code).
func (ss *session) end(s *series) error {
	return ss.hook(s, "session-end", "SessionEnd", map[string]string{"reason": "prompt_input_exit"})
}

// turn runs one whole agent turn that rewrites k files: prompt, work, Stop. The prompt and
// Stop times go to prompt and stop (either may be nil).
func (ss *session) turn(prompt, stop *series, k int) ([]change, error) {
	if err := ss.prompt(prompt, fmt.Sprintf("Please refactor %d file(s) to use the new table helpers.", k)); err != nil {
		return nil, err
	}
	cs, err := ss.r.edit(k)
	if err != nil {
		return nil, err
	}
	if err := ss.work(cs); err != nil {
		return nil, err
	}
	return cs, ss.stop(stop, fmt.Sprintf("Refactored %d file(s); the tests pass.", k))
}

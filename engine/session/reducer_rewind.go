package session

import "github.com/entirerec/entire/events"

// rewound makes the checkpoint a rewind went back to the session's latest agent content: the
// next commit of its files overlaps it (content-aware) and is condensed, and carry-forward
// compares with it. Files the rewind took away are no longer the session's. A transcript the
// rewind rewrote in place is read on from its new end, its last prompt being the turn's.
func (s *State) rewound(d events.Rewound) {
	if d.BaseCommit != "" {
		s.BaseCommit = d.BaseCommit
	}
	s.Recorder.LastShadowCommit = d.Commit
	s.FilesTouched = MergeSorted(nil, d.Files)
	if p := d.Positions; p != nil {
		// An undo: the positions the rewind changed go back as they were.
		s.Recorder.CondensedOffset, s.CheckpointTranscriptStart = p.Condensed.Offset, p.Condensed.Lines
		s.Recorder.UsageOffset, s.Recorder.UsageLines = p.Usage.Offset, p.Usage.Lines
		s.Recorder.UsageOpen = p.UsageOpen
	}
	if d.Transcript.Path == "" || d.Transcript.Path != s.TranscriptPath {
		return
	}
	s.Recorder.Scanned = d.Transcript
	s.Recorder.Prompts, s.Recorder.PromptsOmitted = cloneStrings(d.Prompts), 0
	if n := len(d.Prompts); n > 0 {
		s.Recorder.TurnPrompt = d.Prompts[n-1]
	}
	if d.Positions != nil {
		return
	}
	if d.Reset {
		// The branch went to (or back from) an auto-commit: the transcript is the one its
		// checkpoints recorded, all of it; the next checkpoint's lines and usage follow it.
		s.Recorder.CondensedOffset, s.CheckpointTranscriptStart = d.Transcript.Offset, d.Transcript.Lines
		s.Recorder.UsageOffset, s.Recorder.UsageLines = d.Transcript.Offset, d.Transcript.Lines
		s.Recorder.UsageOpen = nil
		return
	}
	// Offsets past the new end pointed into lines the rewind removed.
	if s.Recorder.CondensedOffset > d.Transcript.Offset {
		s.Recorder.CondensedOffset = d.Transcript.Offset
		s.CheckpointTranscriptStart = d.Transcript.Lines
	}
	if s.Recorder.UsageOffset > d.Transcript.Offset {
		s.Recorder.UsageOffset, s.Recorder.UsageLines = d.Transcript.Offset, d.Transcript.Lines
		s.Recorder.UsageOpen = nil
	}
}

// restored applies `entire resume` writing the transcript of a session recorded here: when it
// wrote the file the session reads, all of it is in the checkpoint it came from (written by
// another clone, most often), so the session's next checkpoint and its token usage begin at its
// end, and the next hook reads on from there. The session's files stay its work.
func (s *State) restored(d events.TranscriptRestored) {
	for _, t := range d.Transcripts {
		if t.Path == "" || t.Path != s.TranscriptPath {
			continue
		}
		s.Recorder.Scanned = t
		s.Recorder.Prompts, s.Recorder.PromptsOmitted = cloneStrings(d.Prompts), 0
		s.Recorder.CondensedOffset, s.CheckpointTranscriptStart = t.Offset, t.Lines
		s.Recorder.UsageOffset, s.Recorder.UsageLines = t.Offset, t.Lines
		s.Recorder.UsageOpen, s.Recorder.TurnOpen = nil, nil
		return
	}
}

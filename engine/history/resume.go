package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/sharing"
	"github.com/entirerec/entire/events"
	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agents"
	"github.com/entirerec/entire/events/claudecode"
	"github.com/entirerec/entire/gitexec"
)

// Resume (spec §3.6, §10): find a branch's newest linked commit, read its checkpoint (fetching
// the remote's record when the local one lacks it), and plan writing every session's
// transcript back to where its agent looks for it. Planning touches no transcript and no work
// tree; the caller decides what to do about local transcripts holding what the checkpoint's
// lack (Conflicts), then calls WriteTranscript.

// ErrBranchNotFound reports a branch that is neither local nor on the remote.
var ErrBranchNotFound = errors.New("branch not found")

// MetadataUnavailableError is a branch's checkpoint that neither the local record nor the
// remote has.
type MetadataUnavailableError struct {
	CheckpointID, Commit, Remote string
}

func (e *MetadataUnavailableError) Error() string {
	return fmt.Sprintf("checkpoint %s of commit %s is neither in the local record nor on %q", e.CheckpointID, e.Commit, e.Remote)
}

// BranchTarget is the branch resume switches to.
type BranchTarget struct {
	Branch string
	Ref    gitexec.RefName // the ref holding its commits
	Track  gitexec.RefName // the remote-tracking ref to create the branch from; "" when it is local
}

// FindBranch finds a local branch, else remote's branch of that name (to be created from it).
func FindBranch(ctx context.Context, repo *gitexec.Repo, branch, remote string) (BranchTarget, error) {
	local := gitexec.BranchRef(branch)
	if _, ok, err := repo.ResolveRef(ctx, local); err != nil || ok {
		return BranchTarget{Branch: branch, Ref: local}, err
	}
	if remote != "" {
		tracking := gitexec.RefName("refs/remotes/" + remote + "/" + branch)
		if _, ok, err := repo.ResolveRef(ctx, tracking); err != nil || ok {
			return BranchTarget{Branch: branch, Ref: tracking, Track: tracking}, err
		}
	}
	return BranchTarget{}, fmt.Errorf("%w: %s", ErrBranchNotFound, branch)
}

// FetchBranch fetches remote's branch into its remote-tracking ref, for resume to create the
// local branch from; ErrBranchNotFound when remote is not configured or has no such branch.
func (en *History) FetchBranch(ctx context.Context, branch, remote string) (BranchTarget, error) {
	if branch == "" || strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, ":*?[\\^~ \t\n\x00") {
		return BranchTarget{}, fmt.Errorf("%w: %q is not a branch name", ErrBranchNotFound, branch)
	}
	if ok, err := en.Repo.RemoteConfigured(ctx, remote); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%w: %s (no remote %q)", ErrBranchNotFound, branch, remote)
		}
		return BranchTarget{}, err
	}
	fmt.Fprintf(en.Stderr, "Fetching branch '%s' from %s...\n", branch, remote)
	tracking := gitexec.RefName("refs/remotes/" + remote + "/" + branch)
	err := en.Repo.Fetch(ctx, remote, []string{"+" + string(gitexec.BranchRef(branch)) + ":" + string(tracking)}, sharing.Timeout)
	if errors.Is(err, gitexec.ErrRemoteRefMissing) {
		return BranchTarget{}, fmt.Errorf("%w: %s", ErrBranchNotFound, branch)
	}
	if err != nil {
		return BranchTarget{}, fmt.Errorf("fetch branch %s from %s: %w", branch, remote, err)
	}
	return BranchTarget{Branch: branch, Ref: tracking, Track: tracking}, nil
}

// RestoreStatus says what resume does with one session's transcript.
type RestoreStatus int

// The outcomes of comparing the checkpoint's transcript with the local file.
const (
	RestoreNew      RestoreStatus = iota // no local file: write it
	RestoreUpToDate                      // the local file already has exactly this content
	RestoreBehind                        // the local file is an earlier part of the checkpoint's: write it
	RestoreConflict                      // the local file has content the checkpoint's lacks: only with consent
	// RestoreElsewhere: the file at Path has content the checkpoint's lacks, and it is another
	// checkout's (the one the session was recorded in, on this machine; the agent run here
	// reads the copy at Also): its session goes on there, so it is left as it is, whatever
	// --force or a person says, and only the copy here is written.
	RestoreElsewhere
)

// TranscriptRestore is one session's transcript as resume would write it.
type TranscriptRestore struct {
	SessionID  string
	Agent      string
	Prompt     string    // the session's first prompt, "" when it has none
	Path       string    // absolute destination
	Data       []byte    // the checkpoint's transcript
	Lines      int       // lines in Data
	LastEntry  time.Time // the checkpoint transcript's last entry (zero when unknown)
	LocalLines int       // lines in the local file (0 when missing)
	LocalLast  time.Time // the local file's last entry (zero when unknown)
	Status     RestoreStatus
	// Also is where the agent, run in this checkout, looks for the session when that is not
	// Path (the session was recorded on another machine, or in a checkout at another path) and
	// what is there is not the checkpoint's transcript already. Resume writes a copy there too;
	// "" when there is no such place.
	Also string
	// AlsoStatus is what is at Also: nothing (RestoreNew), an earlier part of the checkpoint's
	// transcript (RestoreBehind), or content the checkpoint's lacks (RestoreConflict: the
	// session went on in this checkout since, and the agent here would continue that, not the
	// checkpoint's); AlsoLines and AlsoLast describe that file as LocalLines and LocalLast do.
	AlsoStatus RestoreStatus
	AlsoLines  int
	AlsoLast   time.Time
}

// Conflict is a local transcript file holding what the checkpoint's transcript lacks, which
// restoring would overwrite.
type Conflict struct {
	SessionID  string
	Path       string
	Copy       bool      // the copy where the agent run in this checkout looks (TranscriptRestore.Also)
	Lines      int       // lines in the checkpoint's transcript
	LastEntry  time.Time // its last entry
	LocalLines int       // lines in the local file
	LocalLast  time.Time // its last entry (zero when unknown)
}

// ResumePlan is what resume found for a branch.
type ResumePlan struct {
	// Commit is the newest linked commit, naming its newest checkpoint (a squash's last
	// trailer); nil when the branch has none.
	Commit *checkpoint.LinkedCommit
	// Checkpoint is that checkpoint, with the sessions only a squash's earlier trailers hold.
	Checkpoint *checkpoint.Checkpoint
	Restores   []TranscriptRestore // oldest session first: the last is the most recent
	Skipped    []string            // why some slots cannot be restored, one line each
}

// Conflicts are the local transcript files the restores would overwrite content of: where a
// transcript is restored, or the copy where the agent in this checkout looks for it.
func (p *ResumePlan) Conflicts() []Conflict {
	var out []Conflict
	for _, r := range p.Restores {
		if r.Status == RestoreConflict {
			out = append(out, Conflict{SessionID: r.SessionID, Path: r.Path, Lines: r.Lines, LastEntry: r.LastEntry,
				LocalLines: r.LocalLines, LocalLast: r.LocalLast})
		}
		if r.Also != "" && r.AlsoStatus == RestoreConflict {
			out = append(out, Conflict{SessionID: r.SessionID, Path: r.Also, Copy: true, Lines: r.Lines, LastEntry: r.LastEntry,
				LocalLines: r.AlsoLines, LocalLast: r.AlsoLast})
		}
	}
	return out
}

// DefaultTranscriptFunc is an agent's default transcript location for a session, "" if unknown.
type DefaultTranscriptFunc func(agent, sessionID string) string

// branchWalk is what resume looks through for a branch's checkpoint (spec §3.6): its tip, then
// the commits down its first parents to where it left the default branch (origin's HEAD, else
// init.defaultBranch, main or master, origin's or local), so that neither a merged-in branch
// nor the default branch's own history lends it a session. The default branch itself is walked
// down its first parents. When no default branch is known (a clone set up by hand whose origin
// calls it something else, without origin/HEAD), the walk stops where the branch left any other.
func (en *History) branchWalk(ctx context.Context, rev string) []string {
	walk := []string{"--first-parent", rev}
	tip, ok, err := en.Repo.ResolveRef(ctx, gitexec.RefName(rev))
	if err != nil || !ok {
		return walk
	}
	for _, def := range en.defaultBranchRefs(ctx) {
		dtip, ok, err := en.Repo.ResolveRef(ctx, def)
		if err != nil || !ok {
			continue
		}
		if dtip == tip {
			return walk // the default branch itself
		}
		out, err := en.Repo.Run(ctx, nil, "merge-base", string(tip), string(dtip))
		base := strings.TrimSpace(string(out))
		switch {
		case err != nil || base == "":
			return walk // unrelated histories
		case base == string(tip):
			return []string{rev + "^!"} // merged into the default branch already: its tip alone
		}
		return append(walk, "^"+base)
	}
	return append(walk, en.otherBranches(ctx, tip)...)
}

// defaultBranchRefs are the refs that may be the default branch, the likeliest first.
func (en *History) defaultBranchRefs(ctx context.Context) []gitexec.RefName {
	names := []string{"main", "master"}
	if n, ok, err := en.Repo.ConfigGet(ctx, "init.defaultBranch"); err == nil && ok && n != "" && !slices.Contains(names, n) {
		names = append([]string{n}, names...)
	}
	refs := []gitexec.RefName{"refs/remotes/origin/HEAD"}
	for _, n := range names {
		refs = append(refs, gitexec.RefName("refs/remotes/origin/"+n))
	}
	for _, n := range names {
		refs = append(refs, gitexec.BranchRef(n))
	}
	return refs
}

// otherBranches excludes from a walk what the other branches (local and remote-tracking, but
// not entire's own, whose shadow commits sit on user commits) hold, except those that contain
// tip: the branch's own upstream, a copy of it, or a branch built on it.
func (en *History) otherBranches(ctx context.Context, tip gitexec.OID) []string {
	out, err := en.Repo.Run(ctx, nil, "for-each-ref", "--format=%(objectname) %(refname)", "--no-contains="+string(tip), "refs/heads/", "refs/remotes/")
	if err != nil {
		return nil
	}
	var not []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		oid, name, ok := strings.Cut(line, " ")
		if !ok || entireRef(name) {
			continue
		}
		if !slices.Contains(not, "^"+oid) {
			not = append(not, "^"+oid)
		}
	}
	return not
}

// entireRef reports whether a local or remote-tracking ref is one of entire's own branches.
func entireRef(name string) bool {
	if strings.HasPrefix(name, "refs/heads/entire/") {
		return true
	}
	rest, ok := strings.CutPrefix(name, "refs/remotes/")
	_, branch, _ := strings.Cut(rest, "/")
	return ok && strings.HasPrefix(branch, "entire/")
}

// resumeScan bounds how many linked commits resume reads to find the newest.
const resumeScan = 20

// PlanResume reads the newest checkpoint linked from rev (after a squash, the commit's last
// trailer, and the sessions only its earlier trailers hold) and plans restoring the transcript of
// every session in it (every slot) to where place says its agent keeps it. When the local
// record lacks that checkpoint it fetches the remotes' records, in order, until one has it
// (none: no fetching).
func (en *History) PlanResume(ctx context.Context, rev string, remotes []string, place TranscriptPlace) (*ResumePlan, error) {
	linked, err := checkpoint.LinkedCommitsIn(ctx, en.Repo, en.branchWalk(ctx, rev), "", resumeScan)
	if err != nil || len(linked) == 0 {
		return &ResumePlan{}, err
	}
	// The newest commit's last trailer: a squash lists its commits' checkpoints oldest first.
	commits, ids := commitTrailers(linked)
	plan := &ResumePlan{Commit: &commits[0]}
	rd, err := en.ReaderWithCheckpoint(ctx, commits[0].CheckpointID, remotes...)
	if err != nil {
		return nil, err
	}
	var missing []string
	if plan.Checkpoint, missing, err = readSquash(ctx, rd, ids[0]); err != nil {
		if errors.Is(err, checkpoint.ErrCheckpointNotFound) {
			return nil, &MetadataUnavailableError{CheckpointID: commits[0].CheckpointID, Commit: commits[0].SHA.Short(7), Remote: strings.Join(remotes, " or ")}
		}
		return nil, err
	}
	for _, id := range missing {
		plan.Skipped = append(plan.Skipped, fmt.Sprintf("checkpoint %s, an earlier part of the squashed commit, is not in the record", id))
	}
	for _, s := range plan.Checkpoint.Slots {
		r, why := en.restoreFor(s, place)
		if why != "" {
			plan.Skipped = append(plan.Skipped, why)
			continue
		}
		plan.Restores = append(plan.Restores, r)
	}
	// Slots are in condensation order; the sessions' own last entries say which is newest.
	sort.SliceStable(plan.Restores, func(i, j int) bool {
		return plan.Restores[i].LastEntry.Before(plan.Restores[j].LastEntry)
	})
	return plan, nil
}

// ReaderWithCheckpoint returns a reader of the metadata branch that has checkpoint id, fetching
// the remotes' entire/checkpoints/v1, in order, while the local record lacks it. A reader
// without the checkpoint comes back when no remote is given, configured or holds it.
func (en *History) ReaderWithCheckpoint(ctx context.Context, id string, remotes ...string) (*checkpoint.Reader, error) {
	rd, err := en.Reader(ctx)
	if err != nil {
		return nil, err
	}
	// A remote that cannot be fetched (unreachable, or a stale URL) does not keep the next one
	// from being asked; it is the error only when no remote brought the checkpoint.
	var failed []error
	for _, remote := range remotes {
		if _, err := rd.Resolve(ctx, id); !errors.Is(err, checkpoint.ErrCheckpointNotFound) {
			return rd, nil
		}
		if ok, err := en.Repo.RemoteConfigured(ctx, remote); err != nil || !ok {
			if err != nil {
				return rd, err
			}
			continue
		}
		fmt.Fprintf(en.Stderr, "Checkpoint %s is not in the local record; fetching %s from %s...\n", id, checkpoint.MetadataBranch, remote)
		if err := en.Sharing().FetchRecord(ctx, remote); err != nil {
			err = fmt.Errorf("fetch %s from %s: %w", checkpoint.MetadataBranch, remote, err)
			fmt.Fprintf(en.Stderr, "  %v\n", err)
			failed = append(failed, err)
			continue
		}
		if rd, err = checkpoint.NewReader(ctx, en.Repo); err != nil {
			return nil, err
		}
	}
	if len(failed) > 0 {
		if _, err := rd.Resolve(ctx, id); errors.Is(err, checkpoint.ErrCheckpointNotFound) {
			return nil, errors.Join(failed...)
		}
	}
	return rd, nil
}

// ReaderFetching is ReaderWithCheckpoint fetching from every remote the record may be on,
// in the order checkpoint.RecordRemotes gives (origin first), listed only when the local
// record lacks the checkpoint.
func (en *History) ReaderFetching(ctx context.Context, id string) (*checkpoint.Reader, error) {
	rd, err := en.Reader(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := rd.Resolve(ctx, id); !errors.Is(err, checkpoint.ErrCheckpointNotFound) {
		return rd, nil
	}
	remotes, err := checkpoint.RecordRemotes(ctx, en.Repo)
	if err != nil || len(remotes) == 0 {
		return rd, err
	}
	return en.ReaderWithCheckpoint(ctx, id, remotes...)
}

// Reader reads the local record after integrating what the last fetch brought of origin's
// (sharing.IntegrateFetched), and of any other remote's (checkpoint.FetchedCopies): a checkpoint
// another clone rewrote since this one last integrated (finalized after its provisional copy was
// pushed) is read in its newest version, and one only a remote not named origin holds is read.
// Failing to integrate is logged; the local record is read as it is.
func (en *History) Reader(ctx context.Context) (*checkpoint.Reader, error) {
	copies, err := checkpoint.FetchedCopies(ctx, en.Repo)
	if err != nil {
		en.Log.Warn("list the fetched session logs", "error", err.Error())
	}
	for _, c := range copies {
		if err := en.Sharing().IntegrateFetched(ctx, c.Remote); err != nil {
			en.Log.Warn("integrate "+c.Remote+"'s fetched session logs", "error", err.Error())
		}
	}
	return checkpoint.NewReader(ctx, en.Repo)
}

// restoreFor plans one slot, or says why it cannot be restored (spec §3.9: no session ID, no
// or unknown agent, no transcript).
func (en *History) restoreFor(s checkpoint.Slot, place TranscriptPlace) (TranscriptRestore, string) {
	m := s.Meta
	switch {
	case m.SessionID == "":
		return TranscriptRestore{}, "a session slot without a session ID was skipped"
	case agent.ValidateSessionID(m.SessionID) != nil:
		// It would name the transcript's file: "../../x" would leave the agent's directory.
		return TranscriptRestore{}, fmt.Sprintf("a session slot with the invalid session ID %q was skipped", m.SessionID)
	case ResumeCommand(m.Agent, m.SessionID) == "":
		return TranscriptRestore{}, fmt.Sprintf("session %s: agent %q cannot be resumed", m.SessionID, m.Agent)
	case m.ForgottenAt != nil:
		return TranscriptRestore{}, forgottenNote(m)
	case s.Transcript == nil:
		return TranscriptRestore{}, fmt.Sprintf("session %s: the checkpoint has no transcript", m.SessionID)
	}
	path := en.placeTranscript(m, place)
	if path == "" {
		return TranscriptRestore{}, fmt.Sprintf("session %s: no known transcript location", m.SessionID)
	}
	r := TranscriptRestore{SessionID: m.SessionID, Agent: m.Agent, Path: path, Data: s.Transcript, Lines: countLines(s.Transcript)}
	own := ownPlace(path, m, place)
	if r.Also, r.AlsoStatus = localCopy(own, s.Transcript); r.AlsoStatus == RestoreConflict {
		local, _ := os.ReadFile(r.Also)
		r.AlsoLines = countLines(local)
		r.AlsoLast, _ = claudecode.LastTimestamp(local)
	}
	if p := s.AllPrompts(); len(p) > 0 {
		r.Prompt = session.FirstPrompt(p[0])
	}
	r.LastEntry, _ = claudecode.LastTimestamp(s.Transcript)
	local, err := os.ReadFile(path)
	switch {
	case err != nil:
		r.Status = RestoreNew
	case bytes.Equal(local, s.Transcript):
		r.LocalLines, r.LocalLast, r.Status = r.Lines, r.LastEntry, RestoreUpToDate
	default:
		r.LocalLines = countLines(local)
		r.LocalLast, _ = claudecode.LastTimestamp(local)
		r.Status = RestoreConflict
		switch {
		case bytes.HasPrefix(s.Transcript, local):
			r.Status = RestoreBehind // nothing local is lost
		case own != "" && !en.recordedHere(m.SessionID, path):
			// The session went on in the checkout it was recorded in, whose transcript this is
			// (Claude Code keeps one per checkout path): overwriting it would cut that checkout's
			// running session short, for nothing, since the agent here reads its own copy.
			r.Status = RestoreElsewhere
		}
	}
	return r, ""
}

// transcriptDestination is the metadata's transcript_path under $HOME, else the local session
// state's transcript path, else the agent's default location (spec §13).
func (en *History) transcriptDestination(m checkpoint.CommittedMetadata, def DefaultTranscriptFunc) string {
	if rel := filepath.FromSlash(m.TranscriptPath); rel != "" && en.Home != "" && filepath.IsLocal(rel) {
		return filepath.Join(en.Home, rel)
	}
	if s, err := en.Store.Peek(m.SessionID); err == nil && filepath.IsAbs(s.TranscriptPath) {
		return s.TranscriptPath
	}
	if def != nil {
		return def(m.Agent, m.SessionID)
	}
	return ""
}

// recordedHere reports a session this worktree records with its transcript at path: that file
// is this checkout's even where the agent run here would look elsewhere (the agent started in
// a subdirectory, the test's transcript place).
func (en *History) recordedHere(id, path string) bool {
	s, err := en.Store.Peek(id)
	return err == nil && s.Exists() && s.TranscriptPath == path && s.WorktreeID == en.Repo.WorktreeID()
}

// ownPlace is the agent's location for the session in this checkout when it is in another
// directory than path, the place resume restores at (the spec's place, the recorded
// transcript_path under $HOME, names the checkout the session ran in, and Claude Code keeps
// sessions by the checkout's path: run in this one, on another machine or in another clone or
// worktree on this one, it would not read path); "" otherwise. Where transcripts go is set for
// the tests (place.Override), only when path's directory does not exist yet.
func ownPlace(path string, m checkpoint.CommittedMetadata, place TranscriptPlace) string {
	if place.Default == nil {
		return ""
	}
	if _, err := os.Stat(filepath.Dir(path)); place.Override != "" && !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	also := place.Default(m.Agent, m.SessionID)
	if also == "" || filepath.Dir(also) == filepath.Dir(path) {
		return ""
	}
	return also
}

// localCopy is TranscriptRestore.Also and AlsoStatus for own (ownPlace) when what is there is
// not data already: nothing (RestoreNew), an earlier part of data (RestoreBehind: the session
// continued elsewhere since, nothing there is lost), or what data lacks (RestoreConflict: the
// session went on here too, or the file is another's).
func localCopy(own string, data []byte) (string, RestoreStatus) {
	if own == "" {
		return "", RestoreNew
	}
	if _, err := os.Lstat(own); errors.Is(err, fs.ErrNotExist) {
		return own, RestoreNew
	}
	local, err := os.ReadFile(own)
	switch {
	case err != nil:
		return "", RestoreNew // not a file resume could read: it writes nothing there either
	case bytes.Equal(local, data):
		return "", RestoreUpToDate
	case bytes.HasPrefix(data, local):
		return own, RestoreBehind
	}
	return own, RestoreConflict
}

// ResumeCommand is the shell command that continues a session, "" for an unknown agent. An ID
// is printed as it is when it is made of letters, digits, '.', '_' and '-' (agents' IDs are),
// else single-quoted for the shell: a session ID read from a checkpoint fetched from someone
// else's remote may hold "; rm -rf ~", and a user copies the command into a shell.
func ResumeCommand(agentType, sessionID string) string {
	if a, ok := agents.ByType(agentType); ok {
		return a.ResumeCommand(shellWord(sessionID))
	}
	return ""
}

// shellWord is s as one word for a POSIX shell.
func shellWord(s string) string {
	plain := s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	})
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WriteTranscript writes a restored transcript atomically, creating its directory.
func WriteTranscript(r TranscriptRestore) error {
	if err := os.MkdirAll(filepath.Dir(r.Path), 0o750); err != nil {
		return fmt.Errorf("restore transcript: %w", err)
	}
	tmp := r.Path + ".entire-tmp"
	if err := os.WriteFile(tmp, r.Data, 0o600); err != nil {
		return fmt.Errorf("restore transcript: %w", err)
	}
	if err := os.Rename(tmp, r.Path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("restore transcript: %w", err)
	}
	return nil
}

// BackupTranscript copies the local transcript at path, about to be overwritten by a restore,
// to the first free name of <path>.before-resume, <path>.before-resume-2, ..., beside it (a
// name not ending in .jsonl, so the agent does not list it as a session), and returns that
// name: what the local file held and the checkpoint's transcript lacks is not lost.
func BackupTranscript(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("back up transcript: %w", err)
	}
	for n := 1; ; n++ {
		backup := path + ".before-resume"
		if n > 1 {
			backup += fmt.Sprintf("-%d", n)
		}
		f, err := os.OpenFile(backup, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up transcript: %w", err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(backup)
			return "", fmt.Errorf("back up transcript: %w", err)
		}
		return backup, nil
	}
}

// RecordRestored tells session r.SessionID that resume wrote its transcript (and its copy at
// r.Also) from checkpoint id, so that the session's next checkpoint here begins where that
// transcript ends and counts none of its token usage again: the checkpoint counted it, in the
// clone that recorded it most often (events.TranscriptRestored). A session not recorded here
// yet takes it at its first prompt, from either place; one recorded here only for the files
// resume wrote (written), a local file that already held the checkpoint's transcript keeping
// the session's positions.
func (en *History) RecordRestored(id string, r TranscriptRestore, written []string) error {
	if agent.ValidateSessionID(r.SessionID) != nil || en.Store.Forgotten(r.SessionID) {
		return nil
	}
	rd, _ := agents.ByType(r.Agent)
	sc := rd.ScanBytes(r.Data)
	if sc.Lines == 0 || sc.EndOffset > int64(len(r.Data)) {
		return nil
	}
	pos := events.Transcript{Path: r.Path, Lines: sc.Lines, Offset: sc.EndOffset, LastUUID: sc.LastUUID}
	ev := events.TranscriptRestored{CheckpointID: id, Transcripts: []events.Transcript{pos}, Prompts: sc.Prompts,
		Tail: engine.TailFingerprint(r.Data[:sc.EndOffset])}
	if r.Status == RestoreElsewhere {
		ev.Transcripts = nil // another checkout's, left as it is: not where the restore ends
	}
	if r.Also != "" {
		also := pos
		also.Path = r.Also
		ev.Transcripts = append(ev.Transcripts, also)
	}
	if len(ev.Transcripts) == 0 {
		return nil
	}
	sess, err := en.Store.Open(r.SessionID)
	if err != nil {
		return err
	}
	defer engine.CloseSession(en.Engine, sess)
	if sess.State.Exists() {
		ev.Transcripts = slices.DeleteFunc(ev.Transcripts, func(t events.Transcript) bool { return !slices.Contains(written, t.Path) })
		if len(ev.Transcripts) == 0 {
			return nil
		}
	}
	return sess.Append(en.Event(ev))
}

// countLines counts lines, a final line without a newline included.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

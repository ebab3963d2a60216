package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/entirerec/entire/engine"
	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/engine/maintenance"
	"github.com/entirerec/entire/engine/session"
	"github.com/entirerec/entire/engine/setup"
)

// doctorCmd is `entire doctor` (spec §5.4, §10): check the record and the sessions, print each
// finding with its fix, and exit 1 while something is wrong. The record's invariant is checked
// first (every Entire-Checkpoint trailer on a local branch names a checkpoint that exists or is
// pending), then the git hooks, damaged journals and stuck sessions. Without a terminal it only
// lists what --force would do: write a missing checkpoint from the session that recorded it,
// condense stuck sessions with uncondensed work into a checkpoint of their own, discard the
// others. Pending work is finished before anything is checked.
type doctorCmd struct {
	Force bool `short:"f" help:"Repair what can be repaired, condense stuck sessions with work and discard those without, without asking."`
}

func (c *doctorCmd) Run(e *env) error {
	repo, err := openRepo(e)
	if err != nil {
		return err
	}
	defer repo.Close()
	// Left-over ref locks first: pending work is finished when the engine opens, and a stale
	// lock is what would keep it from being written.
	problems := c.refLocks(e, repo.CommonDir)
	en, closeLog := settledEngine(e, repo)
	defer closeLog()
	m := maintenance.New(en)
	if why := m.RecordRefProblem(e.ctx); why != "" {
		// Nothing of the record can be read: say so instead of failing on the first read.
		fmt.Fprintf(e.stdout, "The record's branch is broken: %s. `git reflog show %s` lists what it pointed to before (restore one with `git update-ref`), or fetch it again from a remote that has it.\n",
			why, checkpoint.MetadataBranch)
		return &exitError{code: 1, err: fmt.Errorf("%s left; see above", plural(problems+1, "problem", "problems"))}
	}
	n, err := c.checkRecord(e, m)
	if err != nil {
		return err
	}
	problems += n
	problems += checkHooksAndJournals(e, en)
	settings, err := setup.LoadSettings(en.Repo.TopLevel)
	if err != nil {
		// The hooks go on with the defaults (a load error counts as enabled) and say so only
		// in the log: what the file asks for (recording off, another strategy) is not done.
		fmt.Fprintf(e.stdout, "Settings cannot be read: %v. The hooks record as if enabled, with the default settings, until it is fixed. "+
			"Fix the file (its keys: strategy, manual-commit or auto-commit; enabled; local_dev; log_level; strategy_options; telemetry) or remove it and run `entire enable`.\n", err)
		problems++
	}
	for _, u := range settings.Unsupported() {
		fmt.Fprintf(e.stdout, "Setting refused: %s\n", u)
		problems++
	}
	// A key it does not know is a problem as a refused one is: what was written is not done
	// (a typo of push_sessions leaves the record pushed), and the fix is the user's to make.
	for _, u := range settings.UnknownOptions() {
		fmt.Fprintf(e.stdout, "Setting ignored: %s\n", u)
		problems++
	}
	if w := unsignedCommitsWarning(e.ctx, en.Repo, settings); w != "" && err == nil {
		// Said, not counted: unsigned turn commits may be what the user wants.
		fmt.Fprintln(e.stdout, w)
	}
	if err == nil && !settings.Enabled {
		// The self-test plays a turn with these settings: with recording off, nothing would be
		// recorded, which is what was asked for, not a fault.
		fmt.Fprintln(e.stdout, "Capture self-test skipped: recording is disabled (`entire enable` turns it back on).")
	} else {
		problems += canary(e, en)
	}
	stuck, err := m.FindStuck(e.ctx)
	if err != nil {
		return err
	}
	if len(stuck) == 0 {
		fmt.Fprintln(e.stdout, "No stuck sessions found.")
	} else {
		n, err := c.stuckSessions(e, en, stuck)
		if err != nil {
			return err
		}
		problems += n
	}
	if problems > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%s left; see above", plural(problems, "problem", "problems"))}
	}
	return nil
}

// refLocks reports the lock files left on entire's refs and, with --force, removes those old
// enough to be left over (maintenance.StaleLockAge). It returns the problems left.
func (c *doctorCmd) refLocks(e *env, commonDir string) int {
	problems := 0
	for _, l := range maintenance.RefLocks(commonDir, time.Now()) {
		age := roughAge(l.Age)
		switch {
		case l.Age < maintenance.StaleLockAge:
			fmt.Fprintf(e.stdout, "A ref lock is held: %s (%s old); git may be updating the ref. Run `entire doctor` again if it stays.\n", l.Path, age)
		case c.Force:
			if err := os.Remove(l.Path); err != nil {
				fmt.Fprintf(e.stdout, "A left-over ref lock could not be removed: %v\n", err)
				problems++
				continue
			}
			fmt.Fprintf(e.stdout, "Removed a left-over ref lock: %s (%s old, left by a git process that died).\n", l.Path, age)
		default:
			fmt.Fprintf(e.stdout, "A left-over ref lock: %s (%s old, left by a git process that died). Every update of that ref fails until it is removed; --force removes it.\n", l.Path, age)
			problems++
		}
	}
	return problems
}

// roughAge says how old something is in its largest whole unit.
func roughAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute", "minutes")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour", "hours")
	}
	return plural(int(d/(24*time.Hour)), "day", "days")
}

// checkRecord reports the trailers whose checkpoint is missing and, with --force, writes each
// from the session that recorded it; and the checkpoints that cannot be read. It returns the
// problems left.
func (c *doctorCmd) checkRecord(e *env, m *maintenance.Maintenance) (int, error) {
	rc, err := m.CheckRecord(e.ctx, true)
	if err != nil {
		return 0, err
	}
	// The remotes whose record may hold what no session here recorded: origin, else (or then)
	// the others (checkpoint.RecordRemotes), as a repository whose remote is not named origin
	// shares its record with them.
	unrecorded := func(d maintenance.DanglingTrailer) bool { return d.Session == "" }
	var remotes []string
	if slices.ContainsFunc(rc.Dangling, unrecorded) {
		if remotes, err = checkpoint.RecordRemotes(e.ctx, m.Repo); err != nil {
			return 0, err
		}
	}
	remote := len(remotes) > 0
	looked := remote // every remote's record was fetched: what they lack is missing there too
	for _, r := range remotes {
		if !slices.ContainsFunc(rc.Dangling, unrecorded) {
			break
		}
		// Another clone's commits name checkpoints its pushes put on origin's record, which a
		// pull of one branch (`git pull origin main`) or a single-branch clone does not fetch.
		// Without --force only the remote-tracking ref is updated, as `git fetch` would.
		fetch, into := m.Sharing().FetchTracking, r+"/"+checkpoint.MetadataBranch
		if c.Force {
			fetch, into = m.Sharing().FetchRecord, checkpoint.MetadataBranch
		}
		fmt.Fprintf(e.stdout, "Fetching %s from %s into %s for the checkpoints no session here recorded...\n", checkpoint.MetadataBranch, r, into)
		if err := fetch(e.ctx, r); err != nil {
			fmt.Fprintf(e.stdout, "  Could not fetch it: %v\n", err)
			looked = false
		} else if rc, err = m.CheckRecord(e.ctx, true); err != nil {
			return 0, err
		}
	}
	whose := possessive(remotes)
	problems := len(rc.Unreadable)
	for _, d := range rc.Unreadable {
		fmt.Fprintf(e.stdout, "Checkpoint %s (commit %s) cannot be read: %v\n", d.CheckpointID, d.Commit[:7], d.Err)
	}
	dangling := rc.Dangling
	if rc.Fetched > 0 {
		copies, _ := checkpoint.FetchedCopies(e.ctx, m.Repo)
		var names []string
		for _, c := range copies {
			names = append(names, c.Remote)
		}
		if rc.Fetched == 1 {
			fmt.Fprintf(e.stdout, "1 Entire-Checkpoint trailer names a checkpoint only %s copy of the record holds (fetched with its commit): explain reads it there, and the next push merges it in.\n", possessive(names))
		} else {
			fmt.Fprintf(e.stdout, "%d Entire-Checkpoint trailers name checkpoints only %s copy of the record holds (fetched with their commits): explain reads them there, and the next push merges them in.\n", rc.Fetched, possessive(names))
		}
	}
	switch {
	case len(dangling) > 0:
	case rc.Pending > 0:
		are := "are"
		if rc.Pending == 1 {
			are = "is"
		}
		fmt.Fprintf(e.stdout, "Every Entire-Checkpoint trailer names a checkpoint; %d of them %s not written yet (pending, below).\n", rc.Pending, are)
		return problems, nil
	case problems == 0:
		fmt.Fprintln(e.stdout, "Every Entire-Checkpoint trailer names a checkpoint.")
		return problems, nil
	default:
		return problems, nil
	}
	fmt.Fprintln(e.stdout, "Commits whose checkpoint is missing:")
	for _, d := range dangling {
		fmt.Fprintf(e.stdout, "  %s names checkpoint %s, which is not on entire/checkpoints/v1\n", d.Commit[:7], d.CheckpointID)
		switch {
		case d.Session == "" && looked:
			// Recorded in another repository (a patch applied with `git am`, a cherry-pick
			// from a fork) or in a clone that never pushed its record: nothing here can
			// write it, so it is no problem left to fix here, and doctor does not fail on it.
			fmt.Fprintf(e.stdout, "    No session here recorded it, and %s record does not hold it either, so it cannot be written.\n", whose)
			fmt.Fprintln(e.stdout, "    It was recorded elsewhere (another repository, or a clone that has not pushed its record), which alone can share it; nothing to fix here.")
		case d.Session == "" && remote:
			fmt.Fprintf(e.stdout, "    No session here recorded it: if another clone made the commit, %s record may hold it: run `entire doctor` again when %s can be fetched.\n", whose, strings.Join(remotes, " and "))
			problems++
		case d.Session == "":
			fmt.Fprintln(e.stdout, "    No session recorded it, so it cannot be written.")
			problems++
		case !c.Force:
			fmt.Fprintf(e.stdout, "    --force would write it from session %s\n", d.Session)
			problems++
		default:
			if err := m.RepairTrailer(e.ctx, d); err != nil {
				fmt.Fprintf(e.stdout, "    Could not write it: %v\n", err)
				problems++
				continue
			}
			fmt.Fprintf(e.stdout, "    Wrote it from session %s (see `entire explain -c %s`)\n", d.Session, d.CheckpointID)
		}
	}
	return problems, nil
}

// checkHooksAndJournals reports missing git hooks, sessions whose journal cannot be read and
// pending work that could not be finished. It returns the problems found.
func checkHooksAndJournals(e *env, en *engine.Engine) int {
	problems := 0
	if hooks, err := en.Repo.GitPath(e.ctx, "hooks"); err == nil {
		link, relink := setup.GitHooksProblems(hooks)
		switch {
		case link != "":
			fmt.Fprintf(e.stdout, "Git hooks would not run (%s): commits are not linked. Run `entire enable`%s.\n", link, hooksPathHint(e, en))
			problems++
		case relink != "":
			// Only this tool's extra hooks (the reference writes the four that link): commits
			// are linked; what a rewrite or a merge leaves without its trailer is not. A
			// problem still, since `entire enable` repairs it.
			fmt.Fprintf(e.stdout, "Git hooks: commits are linked, but %s. Run `entire enable` to put them back (`entire relink` links such commits by hand).\n", relink)
			problems++
		default:
			fmt.Fprintln(e.stdout, "Git hooks: ok (git runs them from "+hooks+").")
		}
	}
	damaged, _ := en.Store.Damaged()
	for _, p := range damaged {
		fmt.Fprintf(e.stdout, "A damaged journal was set aside at %s; its session went on from the events before the damage. Inspect it, then delete it.\n", p)
		problems++
	}
	ids, err := en.Store.IDs()
	if err != nil {
		fmt.Fprintf(e.stdout, "Sessions cannot be listed: %v\n", err)
		return problems + 1
	}
	for _, id := range ids {
		s, err := en.Store.Peek(id)
		if err == nil && len(session.Pending(s)) > 0 {
			// A hook may be doing that work right now (a commit's post-commit): judge what it
			// leaves.
			s, err = en.Store.Settled(id)
		}
		switch {
		case err != nil:
			fmt.Fprintf(e.stdout, "Session %s cannot be read: %v\n", id, err)
			problems++
		case len(session.Pending(s)) > 0 && maintenance.New(en).WorktreeGone(s):
			// No hook can come from there: the next hook would never retry it.
			what := "`entire clean --force` writes the checkpoints it owes"
			if len(s.Recorder.Pending) == 0 {
				what = "its turns' auto-commits, never made, would go on that worktree's branch and index; `entire clean --force` deletes its state"
			}
			fmt.Fprintf(e.stdout, "Session %s of the removed worktree %s has pending work no hook will do; %s.\n", id, s.WorktreePath, what)
			problems++
		case len(session.Pending(s)) > 0:
			where := ""
			if s.WorktreePath != "" && s.WorktreePath != en.Repo.TopLevel {
				// Only a hook or command of its own worktree does it.
				where = " in " + s.WorktreePath
			}
			fmt.Fprintf(e.stdout, "Session %s has pending work git would not do (see .entire/logs/entire.log); the next hook or entire command%s retries it.\n", id, where)
			problems++
		default:
			if stale, err := en.Store.Refresh(id); err == nil && stale {
				fmt.Fprintf(e.stdout, "Session %s: its state file was behind its journal (a hook was interrupted); rebuilt it.\n", id)
			}
		}
	}
	return problems
}

// stuckSessions lists the stuck sessions and condenses, discards or skips each; it returns
// how many are left stuck.
func (c *doctorCmd) stuckSessions(e *env, en *engine.Engine, stuck []maintenance.StuckSession) (int, error) {
	term := newTerminal()
	interactive := !c.Force && term.Available()
	left := 0
	fmt.Fprintf(e.stdout, "Found %d stuck session(s):\n", len(stuck))
	for _, st := range stuck {
		fmt.Fprintf(e.stdout, "  %s (%s; %s)\n", st.State.SessionID, st.Reason, describeWork(st))
		action := maintenance.DoctorSkip
		switch {
		case c.Force:
			action = st.Default
		case interactive:
			action = term.chooseDoctor(st)
		default:
			fmt.Fprintf(e.stdout, "    --force would %s it\n", st.Default)
			left++
			continue
		}
		if action == maintenance.DoctorSkip {
			left++
		}
		if err := c.apply(e, en, st, action); err != nil {
			return left, err
		}
	}
	if !c.Force && !interactive {
		fmt.Fprintln(e.stdout, "Nothing was changed. Run `entire doctor --force` to do this.")
	}
	return left, nil
}

func (c *doctorCmd) apply(e *env, en *engine.Engine, st maintenance.StuckSession, action maintenance.DoctorAction) error {
	id := st.State.SessionID
	switch action {
	case maintenance.DoctorCondense:
		cp, err := maintenance.New(en).CondenseStuck(e.ctx, id)
		if errors.Is(err, maintenance.ErrNotStuck) {
			fmt.Fprintf(e.stdout, "  -> Left session %s alone: it %v\n", id, maintenance.ErrNotStuck)
			return nil
		}
		if err != nil {
			return fmt.Errorf("condense session %s: %w", id, err)
		}
		fmt.Fprintf(e.stdout, "  -> Condensed session %s into checkpoint %s (no commit carries its trailer; see `entire explain -c %s`)\n", id, cp, cp)
	case maintenance.DoctorDiscard:
		err := maintenance.New(en).DiscardSession(e.ctx, id, func(line string) { fmt.Fprintln(e.stdout, "    "+line) })
		for _, kept := range []error{maintenance.ErrNotStuck, maintenance.ErrOwesRecord} {
			if errors.Is(err, kept) {
				fmt.Fprintf(e.stdout, "  -> Left session %s alone: it %v\n", id, kept)
				return nil
			}
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "  -> Discarded session %s\n", id)
	default:
		fmt.Fprintf(e.stdout, "  -> Skipped %s\n", id)
	}
	return nil
}

func describeWork(st maintenance.StuckSession) string {
	w := maintenance.WorkSummary(st.State)
	if w == "" {
		w = "no uncondensed work"
	}
	if st.BranchExists {
		w += "; shadow branch " + st.Branch
	} else {
		w += "; no shadow branch"
	}
	if st.Owes {
		w += "; owes the checkpoint of a commit it linked, not written yet: never discarded"
	}
	return w
}

// chooseDoctor asks on the terminal what to do with a stuck session; skipping is the default,
// and the only answer when ENTIRE_TEST_TTY forces a terminal.
func (t terminal) chooseDoctor(st maintenance.StuckSession) maintenance.DoctorAction {
	if t.forced != "" {
		return maintenance.DoctorSkip
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return maintenance.DoctorSkip
	}
	defer f.Close()
	fmt.Fprintf(f, "Session %s: [c]ondense, [d]iscard or [s]kip? [s] ", st.State.SessionID)
	line, _ := bufio.NewReader(f).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "c", "condense":
		return maintenance.DoctorCondense
	case "d", "discard":
		return maintenance.DoctorDiscard
	}
	return maintenance.DoctorSkip
}

// hooksPathHint adds the fix for a core.hooksPath that sends git elsewhere than entire installs.
func hooksPathHint(e *env, en *engine.Engine) string {
	if v, ok, err := en.Repo.ConfigGet(e.ctx, "core.hooksPath"); err == nil && ok {
		return fmt.Sprintf(", or unset core.hooksPath (%s)", v)
	}
	return ""
}

// possessive names the remotes' record as its owner: "origin's", "origin's or upstream's"
// ("origin's" when there is none).
func possessive(remotes []string) string {
	if len(remotes) == 0 {
		return "origin's"
	}
	out := make([]string, len(remotes))
	for i, r := range remotes {
		out[i] = r + "'s"
	}
	return strings.Join(out, " or ")
}

package sharing

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/entirerec/entire/engine/checkpoint"
	"github.com/entirerec/entire/gitexec"
)

// Outgoing is what pushing the record to a remote would send: the checkpoints (and their
// session slots) that the remote's copy, as last fetched, lacks or has in another version.
type Outgoing struct {
	Remote string
	// Since is the remote's tip as last fetched ("" when this clone never saw it: then
	// everything is outgoing); for a URL, as the remote reports it now (Live).
	Since       string
	Live        bool
	Checkpoints []OutgoingCheckpoint
	Bytes       int64 // of the new or changed files
	Redactions  int   // REDACTED markers in what leaves: values that were taken out
}

// OutgoingCheckpoint is one checkpoint in an Outgoing.
type OutgoingCheckpoint struct {
	ID    string
	Slots []OutgoingSlot
}

// OutgoingSlot is one session's part of an outgoing checkpoint.
type OutgoingSlot struct {
	Slot       int
	SessionID  string
	Agent      string
	Prompt     string // the first line of the slot's first prompt
	Bytes      int64  // of its new or changed files
	Redactions int
}

// redactedMarker is what redaction leaves where a value was (engine/redact).
var redactedMarker = []byte("REDACTED")

// Outgoing lists what pushing entire/checkpoints/v1 to remote would send, from the local
// branch and the remote-tracking ref (no network: as of the last fetch). A remote that is no
// configured name is a URL or path, as git push takes it: its tip is asked of it (ls-remote).
func (r *Record) Outgoing(ctx context.Context, remote string) (Outgoing, error) {
	out := Outgoing{Remote: remote}
	local, ok, err := r.Repo.ResolveRef(ctx, checkpoint.MetaRef)
	if err != nil || !ok {
		return out, err
	}
	tracking, configured, err := r.trackingRef(ctx, remote)
	if err != nil {
		return out, err
	}
	if !configured {
		out.Live = true
		if out.Since, err = r.urlTip(ctx, remote); err != nil {
			return out, err
		}
	} else if seen, ok, err := r.Repo.ResolveRef(ctx, tracking); err != nil {
		return out, err
	} else if ok {
		out.Since = string(seen)
	}
	diff, err := r.Repo.DiffTree(ctx, out.Since, string(local))
	if err != nil {
		return out, err
	}
	slots := map[string]map[int]*OutgoingSlot{}
	for _, d := range diff {
		if d.Status == 'D' {
			continue
		}
		parts := strings.SplitN(d.Path, "/", 4)
		if len(parts) < 3 || len(parts[0]) != 2 || len(parts[1]) != 10 {
			continue
		}
		id := parts[0] + parts[1]
		if slots[id] == nil {
			slots[id] = map[int]*OutgoingSlot{}
		}
		n, err := strconv.Atoi(parts[2])
		if err != nil {
			n = -1 // the checkpoint's root files
		}
		s := slots[id][n]
		if s == nil {
			s = &OutgoingSlot{Slot: n}
			slots[id][n] = s
		}
		data, _, err := r.Repo.ReadBlob(ctx, string(d.NewOID))
		if err != nil {
			return out, err
		}
		s.Bytes += int64(len(data))
		s.Redactions += bytes.Count(data, redactedMarker)
	}
	rd := &checkpoint.Reader{Repo: r.Repo, Tip: gitexec.OID(local)}
	ids := make([]string, 0, len(slots))
	for id := range slots {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		cp := OutgoingCheckpoint{ID: id}
		info, _ := rd.ReadCheckpointInfo(ctx, id)
		var nums []int
		for n := range slots[id] {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for _, n := range nums {
			s := *slots[id][n]
			if info != nil && n >= 0 && n < len(info.Slots) {
				m := info.Slots[n]
				s.SessionID, s.Agent = m.Meta.SessionID, m.Meta.Agent
				if len(m.Prompts) > 0 {
					s.Prompt, _, _ = strings.Cut(strings.TrimSpace(m.Prompts[0]), "\n")
				}
			}
			out.Bytes += s.Bytes
			out.Redactions += s.Redactions
			cp.Slots = append(cp.Slots, s)
		}
		out.Checkpoints = append(out.Checkpoints, cp)
	}
	return out, nil
}

// urlTip is the tip of the record at a remote given by URL or path, which has no
// remote-tracking ref: "" when it has no record. A tip this clone lacks cannot be compared
// with, so it is an error that says how to fetch it.
func (r *Record) urlTip(ctx context.Context, url string) (string, error) {
	tip, ok, err := r.Repo.LsRemote(ctx, url, checkpoint.MetaRef, Timeout)
	if err != nil {
		return "", fmt.Errorf("%q is not a configured remote, and git cannot reach it as a URL or path: %w", url, err)
	}
	if !ok {
		return "", nil
	}
	if _, here, err := r.Repo.ReadTree(ctx, string(tip)); err != nil || !here {
		if err == nil {
			err = fmt.Errorf("%s has %s at %s, which this clone has not fetched: run `git fetch %s %s` first",
				url, checkpoint.MetadataBranch, tip.Short(7), url, checkpoint.MetadataBranch)
		}
		return "", err
	}
	return string(tip), nil
}

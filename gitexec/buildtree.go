package gitexec

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// TreeChange sets or deletes one path in BuildTree.
type TreeChange struct {
	Path   string // relative to the root, with "/" separators
	Mode   string // "100644", "100755", "120000"; also "160000" (submodule) and "040000" (a whole tree)
	OID    OID    // the object to place at Path; unused for a delete
	Delete bool   // remove Path (a file, or a directory with everything in it)
}

// BuildTree applies changes to the tree base ("" for the empty tree; a
// commit is peeled to its tree) and returns the new root tree.
//
// It costs O(changed paths), not O(repository): it reads only the
// directories on the changed paths through the cat-file process and writes
// the new trees, serialized here, in one pack with the deferred blobs
// (writeObjects: one "git unpack-objects").
//
// Deletes apply before additions, so deleting "a" and adding "a/b" turns
// the file a into a directory, and deleting "a/b" while adding "a" turns the
// directory into a file. Adding a path under an existing file replaces the
// file; adding a path where a directory is replaces the directory. A
// directory left empty disappears; deleting a missing path does nothing.
// Two changes to the same path, or additions of both "a" and "a/b", are an
// error.
func (r *Repo) BuildTree(ctx context.Context, base OID, changes []TreeChange) (OID, error) {
	return r.buildTree(ctx, base, changes, nil)
}

// buildTree is BuildTree; named, when not nil, gets the new root's id once it is computed,
// before the trees are written.
func (r *Repo) buildTree(ctx context.Context, base OID, changes []TreeChange, named func(OID)) (OID, error) {
	b, oid, err := r.buildTreeHeld(ctx, base, changes)
	if err != nil {
		return "", err
	}
	if named != nil && len(b.pending) > 0 {
		named(oid)
	}
	if _, err := b.flush(ctx); err != nil {
		return "", fmt.Errorf("build tree: %w", err)
	}
	return oid, nil
}

// buildTreeHeld computes the new trees of BuildTree and returns them unwritten, for flush (or
// for a commit to join them first).
func (r *Repo) buildTreeHeld(ctx context.Context, base OID, changes []TreeChange) (*treeBuild, OID, error) {
	root, err := r.changeTree(changes)
	if err != nil {
		return nil, "", fmt.Errorf("build tree: %w", err)
	}
	var baseTree OID
	var entries []TreeEntry
	if base != "" {
		id, es, ok, err := r.readTree(ctx, string(base))
		if err != nil {
			return nil, "", fmt.Errorf("build tree: %w", err)
		}
		if !ok {
			return nil, "", fmt.Errorf("build tree: base %s does not exist", base)
		}
		baseTree, entries = id, es
	}
	b := &treeBuild{r: r}
	if err := b.prefetch(ctx, entries, root); err != nil {
		return nil, "", fmt.Errorf("build tree: %w", err)
	}
	oid, empty, err := b.dir(ctx, baseTree, entries, root)
	if err != nil {
		return nil, "", fmt.Errorf("build tree: %w", err)
	}
	if empty {
		oid = r.objectID("tree", nil)
		b.pending = append(b.pending, packObject{"tree", nil})
	}
	return b, oid, nil
}

// treeBuild is one BuildTree: the new trees it has named (serialized, their ids computed as
// git computes them) and not yet written; the base trees it reads stay in the Repo's cache of
// parsed trees. All of them are written at the end, with the blobs deferred until then (and
// the commit of them, in BuildCommit with an adopted identity), by one unpack-objects.
type treeBuild struct {
	r       *Repo
	pending []packObject // trees, children before parents; then the commit of them, if any
}

// prefetch reads, one depth at a time and each depth in one round trip, every base tree the
// changes under n descend into.
func (b *treeBuild) prefetch(ctx context.Context, entries []TreeEntry, n *changeNode) error {
	type level struct {
		entries []TreeEntry
		n       *changeNode
	}
	todo := []level{{entries, n}}
	for len(todo) > 0 {
		var want []string
		var next []*changeNode
		for _, l := range todo {
			for name, c := range l.n.children {
				old, ok := findEntry(l.entries, name)
				if c.set != nil || len(c.children) == 0 || c.del || !ok || old.Type != "tree" {
					continue
				}
				want = append(want, string(old.OID))
				next = append(next, c)
			}
		}
		if len(want) == 0 {
			return nil
		}
		trees, found, err := b.r.readTreesOnce(ctx, want)
		if err != nil {
			return err
		}
		todo = todo[:0]
		for i, es := range trees {
			if !found[i] {
				continue // left to dir, which reports it
			}
			todo = append(todo, level{es, next[i]})
		}
	}
	return nil
}

// flush writes the deferred blobs, the pending trees and the commit of them, if any, in one
// pack, and returns the ids of the pending objects.
func (b *treeBuild) flush(ctx context.Context) ([]OID, error) {
	blobs := b.r.takeDeferred()
	if len(blobs) == 0 && len(b.pending) == 0 {
		return nil, nil
	}
	oids, err := b.r.writeObjects(ctx, append(blobObjects(blobs), b.pending...))
	if err != nil {
		return nil, fmt.Errorf("write trees: %w", err)
	}
	return oids[len(blobs):], nil
}

// EmptyTree writes the empty tree (so it exists like any other object) and
// returns its id for this repository's hash algorithm.
func (r *Repo) EmptyTree(ctx context.Context) (OID, error) {
	ids, err := r.writeObjects(ctx, []packObject{{"tree", nil}})
	if err != nil {
		return "", fmt.Errorf("write empty tree: %w", err)
	}
	return ids[0], nil
}

// changeNode is one path component of the requested changes.
type changeNode struct {
	children map[string]*changeNode
	set      *TreeEntry // place this entry here
	del      bool       // remove what is here before adding anything
}

// changeTree validates changes and arranges them by path component.
func (r *Repo) changeTree(changes []TreeChange) (*changeNode, error) {
	root := &changeNode{}
	seen := make(map[string]bool, len(changes))
	for _, c := range changes {
		parts, err := splitTreePath(c.Path)
		if err != nil {
			return nil, err
		}
		key := strings.Join(parts, "/")
		if seen[key] {
			return nil, fmt.Errorf("path %q changed twice", c.Path)
		}
		seen[key] = true
		n := root
		for _, p := range parts {
			if n.children == nil {
				n.children = make(map[string]*changeNode)
			}
			if n.children[p] == nil {
				n.children[p] = &changeNode{}
			}
			n = n.children[p]
		}
		if c.Delete {
			n.del = true
			continue
		}
		typ := modeType(c.Mode)
		if !slices.Contains([]string{"100644", "100755", "120000", "160000", modeTree}, c.Mode) {
			return nil, fmt.Errorf("path %q: unsupported mode %q", c.Path, c.Mode)
		}
		id, err := r.parseOIDLen(string(c.OID))
		if err != nil {
			return nil, fmt.Errorf("path %q: %w", c.Path, err)
		}
		n.set = &TreeEntry{Mode: c.Mode, Type: typ, OID: id, Name: parts[len(parts)-1]}
	}
	if _, err := root.checkSets(""); err != nil {
		return nil, err
	}
	return root, nil
}

// checkSets reports whether anything is added at or below n and rejects an
// addition below another addition.
func (n *changeNode) checkSets(path string) (bool, error) {
	below := false
	for name, c := range n.children {
		has, err := c.checkSets(path + "/" + name)
		if err != nil {
			return false, err
		}
		below = below || has
	}
	if n.set != nil && below {
		return false, fmt.Errorf("path %q is added both as an entry and as a directory", strings.TrimPrefix(path, "/"))
	}
	return below || n.set != nil, nil
}

// splitTreePath splits a repository-relative path into components,
// rejecting anything git would refuse in a tree.
func splitTreePath(p string) ([]string, error) {
	parts := strings.Split(p, "/")
	for _, c := range parts {
		if c == "" || c == "." || c == ".." || strings.EqualFold(c, ".git") || strings.ContainsRune(c, 0) {
			return nil, fmt.Errorf("invalid path %q", p)
		}
	}
	return parts, nil
}

// buildDir applies the changes under n to the directory whose tree is base
// (entries already read; "" for none). It returns the new tree's id, or
// empty=true when nothing is left. An unchanged directory keeps its id
// without a write.
func (b *treeBuild) dir(ctx context.Context, base OID, entries []TreeEntry, n *changeNode) (OID, bool, error) {
	cur := make(map[string]TreeEntry, len(entries)+len(n.children))
	for _, e := range entries {
		cur[e.Name] = e
	}
	changed := false
	for _, name := range slices.Sorted(maps.Keys(n.children)) {
		c := n.children[name]
		old, exists := cur[name]
		switch {
		case c.set != nil:
			if !exists || old.Mode != c.set.Mode || old.OID != c.set.OID {
				cur[name], changed = *c.set, true
			}
		case len(c.children) == 0: // a plain delete
			if exists {
				delete(cur, name)
				changed = true
			}
		default:
			var subBase OID
			var subEntries []TreeEntry
			if exists && old.Type == "tree" && !c.del {
				_, es, ok, err := b.r.readTree(ctx, string(old.OID)) // read ahead by prefetch
				if err != nil {
					return "", false, err
				}
				if !ok {
					return "", false, fmt.Errorf("tree %s (%s) is missing", old.OID, name)
				}
				subBase, subEntries = old.OID, es
			}
			sub, empty, err := b.dir(ctx, subBase, subEntries, c)
			if err != nil {
				return "", false, err
			}
			switch {
			case empty && exists && (old.Type == "tree" || c.del):
				delete(cur, name)
				changed = true
			case empty:
				// Only deletes below a file, or below nothing: no-op.
			case !exists || old.OID != sub || old.Mode != modeTree:
				cur[name] = TreeEntry{Mode: modeTree, Type: "tree", OID: sub, Name: name}
				changed = true
			}
		}
	}
	if len(cur) == 0 {
		return "", true, nil
	}
	if !changed && base != "" {
		return base, false, nil
	}
	body, err := treeBody(slices.Collect(maps.Values(cur)))
	if err != nil {
		return "", false, err
	}
	b.pending = append(b.pending, packObject{"tree", body})
	return b.r.objectID("tree", body), false, nil
}

// treeBody serializes a tree as git does: in git's tree order (a tree sorts as its name
// with a "/"), "<mode in octal, no leading zeros> <name>\0<raw id>" per entry. A mode is
// written as it was read, so an entry that did not change keeps its bytes even when its mode
// is one git would not write today (100664 from old repositories).
func treeBody(entries []TreeEntry) ([]byte, error) {
	slices.SortFunc(entries, func(a, b TreeEntry) int { return compareSortKeys(&a, &b) })
	var body bytes.Buffer
	for _, e := range entries {
		mode, err := strconv.ParseUint(e.Mode, 8, 32)
		if err != nil || mode == 0 {
			return nil, fmt.Errorf("tree entry %q: invalid mode %q", e.Name, e.Mode)
		}
		raw, err := hex.DecodeString(string(e.OID))
		if err != nil {
			return nil, fmt.Errorf("tree entry %q: %w", e.Name, err)
		}
		body.WriteString(strconv.FormatUint(mode, 8))
		body.WriteByte(' ')
		body.WriteString(e.Name)
		body.WriteByte(0)
		body.Write(raw)
	}
	return body.Bytes(), nil
}

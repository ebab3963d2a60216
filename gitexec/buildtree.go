package gitexec

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"slices"
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
// the new trees bottom-up through one long-lived "git mktree -z --batch".
//
// Deletes apply before additions, so deleting "a" and adding "a/b" turns
// the file a into a directory, and deleting "a/b" while adding "a" turns the
// directory into a file. Adding a path under an existing file replaces the
// file; adding a path where a directory is replaces the directory. A
// directory left empty disappears; deleting a missing path does nothing.
// Two changes to the same path, or additions of both "a" and "a/b", are an
// error.
func (r *Repo) BuildTree(ctx context.Context, base OID, changes []TreeChange) (OID, error) {
	root, err := r.changeTree(changes)
	if err != nil {
		return "", fmt.Errorf("build tree: %w", err)
	}
	var baseTree OID
	var entries []TreeEntry
	if base != "" {
		id, es, ok, err := r.readTree(ctx, string(base))
		if err != nil {
			return "", fmt.Errorf("build tree: %w", err)
		}
		if !ok {
			return "", fmt.Errorf("build tree: base %s does not exist", base)
		}
		baseTree, entries = id, es
	}
	oid, empty, err := r.buildDir(ctx, baseTree, entries, root)
	if err != nil {
		return "", fmt.Errorf("build tree: %w", err)
	}
	if empty {
		return r.EmptyTree(ctx)
	}
	return oid, nil
}

// EmptyTree writes the empty tree (so it exists like any other object) and
// returns its id for this repository's hash algorithm.
func (r *Repo) EmptyTree(ctx context.Context) (OID, error) {
	oid, err := r.mktreeWrite(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("write empty tree: %w", err)
	}
	return oid, nil
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
func (r *Repo) buildDir(ctx context.Context, base OID, entries []TreeEntry, n *changeNode) (OID, bool, error) {
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
				_, es, ok, err := r.readTree(ctx, string(old.OID))
				if err != nil {
					return "", false, err
				}
				if !ok {
					return "", false, fmt.Errorf("tree %s (%s) is missing", old.OID, name)
				}
				subBase, subEntries = old.OID, es
			}
			sub, empty, err := r.buildDir(ctx, subBase, subEntries, c)
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
	oid, err := r.mktreeWrite(ctx, slices.Collect(maps.Values(cur)))
	return oid, false, err
}

// mktreeWrite writes one tree through the long-lived "git mktree -z
// --batch" (which sorts the entries) and returns its id. Input is one
// "<mode> <type> <oid>\t<name>\0" per entry, then an empty record.
func (r *Repo) mktreeWrite(ctx context.Context, entries []TreeEntry) (OID, error) {
	var line string
	err := r.mktree.do(ctx, r, func(w *bufio.Writer, rd *bufio.Reader) error {
		for _, e := range entries {
			if _, err := fmt.Fprintf(w, "%s %s %s\t%s\x00", e.Mode, e.Type, e.OID, e.Name); err != nil {
				return err
			}
		}
		if err := w.WriteByte(0); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		var err error
		line, err = rd.ReadString('\n')
		return err
	})
	if err != nil {
		return "", err
	}
	oid, err := r.parseOIDLen(strings.TrimSuffix(line, "\n"))
	if err != nil {
		return "", fmt.Errorf("git mktree: %w", err)
	}
	r.noteTree(oid)
	return oid, nil
}

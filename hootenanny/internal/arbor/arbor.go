// Package arbor keeps conversation trees in the worker's database. A tree has an owner, a
// reference count, metadata and a root node; every other node has a parent in the same tree,
// and a node with two children is where a conversation branches. A node holds text spoken by a
// role, or a handle to something kept elsewhere (an artifact, a job, another tree's node).
//
// Nodes are added and never change, and a node's parent exists before it, so a tree never has a
// cycle. Each node records its depth and how many children it has, so that a walk to a depth,
// the path to a node and the leaves are read without reading the whole tree.
package arbor

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Limits of what the store keeps.
const (
	// MaxTextRunes is the most characters a node's text has.
	MaxTextRunes = 65536
	// MaxNodes is the most nodes a tree has.
	MaxNodes = 100_000
	// MaxDepth is the greatest depth of a node (the root is at 0).
	MaxDepth = 10_000
	// MaxMetadata is the most metadata entries a tree has.
	MaxMetadata = 32
	// MaxKeyLen and MaxValueLen bound a metadata entry, in characters.
	MaxKeyLen   = 64
	MaxValueLen = 1024
	// MaxPage is the most trees or leaves one call returns.
	MaxPage = 1000
	// MaxWalk is the most nodes one walk returns.
	MaxWalk = 20_000
)

// A Role says who speaks a node's text.
type Role int

// The roles. RoleNone marks a node that holds an external handle.
const (
	RoleNone Role = iota
	RoleSystem
	RoleUser
	RoleAssistant
	RoleTool
)

// String returns the role's name as a render shows it: "System", "User", "Assistant", "Tool".
func (r Role) String() string {
	switch r {
	case RoleSystem:
		return "System"
	case RoleUser:
		return "User"
	case RoleAssistant:
		return "Assistant"
	case RoleTool:
		return "Tool"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// Content is what a node holds: text with a role, or (Role RoleNone) an external handle.
type Content struct {
	Role     Role
	Text     string
	External External
}

// IsExternal reports whether c holds an external handle rather than text.
func (c Content) IsExternal() bool { return c.Role == RoleNone }

// Validate reports what is wrong with c, if anything.
func (c Content) Validate() error {
	if c.IsExternal() {
		return c.External.Validate()
	}
	if c.Role < RoleSystem || c.Role > RoleTool {
		return &InvalidError{Field: "role", Problem: fmt.Sprintf("role %d is not system, user, assistant or tool", int(c.Role))}
	}
	if !utf8.ValidString(c.Text) {
		return &InvalidError{Field: "text", Problem: "the text is not valid UTF-8"}
	}
	if n := utf8.RuneCountInString(c.Text); n > MaxTextRunes {
		return &InvalidError{Field: "text", Problem: fmt.Sprintf("the text has %d characters, more than the limit of %d", n, MaxTextRunes)}
	}
	return nil
}

// A Tree is a conversation tree, without its nodes.
type Tree struct {
	ID        string
	Owner     string
	RefCount  int
	Metadata  map[string]string
	RootID    string
	NodeCount int
	Archived  bool
	CreatedAt time.Time
}

// A Node is one node of a tree.
type Node struct {
	ID       string
	TreeID   string
	ParentID string // empty for the root
	Depth    int
	// ChildCount is how many children the node has; ChildIDs lists those that the read
	// returned (all of them from [Store.Walk] unless it was cut short).
	ChildCount int
	ChildIDs   []string
	Content    Content
	CreatedAt  time.Time
}

// ErrNotFound reports a tree or node that does not exist.
var ErrNotFound = errors.New("arbor: not found")

// A NotFoundError names what does not exist.
type NotFoundError struct {
	What string // "tree" or "node"
	ID   string
	// TreeID is, for a node, the tree it was looked for in.
	TreeID string
}

func (e *NotFoundError) Error() string {
	if e.What == "node" {
		return fmt.Sprintf("tree %s has no node %s", e.TreeID, e.ID)
	}
	return "no tree has the id " + e.ID
}

// Is reports whether target is [ErrNotFound].
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// An InvalidError reports input the store refuses, naming the field at fault.
type InvalidError struct {
	Field   string
	Problem string
}

func (e *InvalidError) Error() string { return e.Problem }

// A LimitError reports a change that would take a tree past one of the store's limits.
type LimitError struct{ Problem string }

func (e *LimitError) Error() string { return e.Problem }

// A StateError reports a change the tree's state forbids: a node added to an archived tree, a
// held tree archived or deleted, a release of a tree no one holds.
type StateError struct{ Problem string }

func (e *StateError) Error() string { return e.Problem }

// validateMetadata checks metadata against the limits.
func validateMetadata(m map[string]string) error {
	if len(m) > MaxMetadata {
		return &InvalidError{Field: "metadata", Problem: fmt.Sprintf("%d metadata entries, more than the limit of %d", len(m), MaxMetadata)}
	}
	for k, v := range m {
		if k == "" || utf8.RuneCountInString(k) > MaxKeyLen || !utf8.ValidString(k) {
			return &InvalidError{Field: "metadata", Problem: fmt.Sprintf("metadata key %q must be valid UTF-8 of 1 to %d characters", k, MaxKeyLen)}
		}
		if utf8.RuneCountInString(v) > MaxValueLen || !utf8.ValidString(v) {
			return &InvalidError{Field: "metadata", Problem: fmt.Sprintf("metadata value of %q must be valid UTF-8 of at most %d characters", k, MaxValueLen)}
		}
	}
	return nil
}

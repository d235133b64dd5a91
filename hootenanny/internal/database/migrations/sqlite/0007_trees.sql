-- Conversation trees (package arbor): a tree, its metadata and its nodes. A node's parent is in
-- the same tree and exists before it, so a tree never has a cycle; depth and child_count are
-- kept as nodes are added, so that a walk to a depth (children by parent_id alone: node ids are
-- unique across trees), a path and the leaves need no scan of the whole tree. A node holds text spoken by a role (1 system, 2 user, 3 assistant, 4 tool), or,
-- with role 0, a handle to something kept elsewhere (ext_source, ext_id).
CREATE TABLE trees (
	id         TEXT PRIMARY KEY,
	owner      TEXT NOT NULL DEFAULT '',
	ref_count  INTEGER NOT NULL DEFAULT 0,
	root_id    TEXT NOT NULL,
	node_count INTEGER NOT NULL DEFAULT 0,
	archived   INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX trees_owner ON trees (owner, id);

CREATE TABLE tree_metadata (
	tree_id TEXT NOT NULL REFERENCES trees (id) ON DELETE CASCADE,
	key     TEXT NOT NULL,
	value   TEXT NOT NULL,
	PRIMARY KEY (tree_id, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE tree_nodes (
	id          TEXT PRIMARY KEY,
	tree_id     TEXT NOT NULL REFERENCES trees (id) ON DELETE CASCADE,
	parent_id   TEXT NOT NULL DEFAULT '',
	depth       INTEGER NOT NULL,
	child_count INTEGER NOT NULL DEFAULT 0,
	role        INTEGER NOT NULL DEFAULT 0,
	text        TEXT NOT NULL DEFAULT '',
	ext_source  TEXT NOT NULL DEFAULT '',
	ext_id      TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX tree_nodes_parent ON tree_nodes (parent_id, id);
CREATE INDEX tree_nodes_leaves ON tree_nodes (tree_id, child_count, id);
CREATE INDEX tree_nodes_external ON tree_nodes (ext_source, ext_id) WHERE ext_source <> '';

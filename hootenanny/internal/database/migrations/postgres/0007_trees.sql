-- Conversation trees (package arbor): a tree, its metadata and its nodes. A node's parent is in
-- the same tree and exists before it, so a tree never has a cycle; depth and child_count are
-- kept as nodes are added, so that a walk to a depth (children by parent_id alone: node ids are
-- unique across trees), a path and the leaves need no scan of the whole tree. A node holds
-- text spoken by a role (1 system, 2 user, 3 assistant, 4 tool), or, with role 0, a handle to
-- something kept elsewhere (ext_source, ext_id). Ids use the "C" collation, so they sort by
-- bytes as on SQLite.
CREATE TABLE trees (
	id         TEXT COLLATE "C" PRIMARY KEY,
	owner      TEXT COLLATE "C" NOT NULL DEFAULT '',
	ref_count  BIGINT NOT NULL DEFAULT 0,
	root_id    TEXT COLLATE "C" NOT NULL,
	node_count BIGINT NOT NULL DEFAULT 0,
	archived   BIGINT NOT NULL DEFAULT 0,
	created_at BIGINT NOT NULL
);
CREATE INDEX trees_owner ON trees (owner, id);

CREATE TABLE tree_metadata (
	tree_id TEXT COLLATE "C" NOT NULL REFERENCES trees (id) ON DELETE CASCADE,
	key     TEXT COLLATE "C" NOT NULL,
	value   TEXT NOT NULL,
	PRIMARY KEY (tree_id, key)
);

CREATE TABLE tree_nodes (
	id          TEXT COLLATE "C" PRIMARY KEY,
	tree_id     TEXT COLLATE "C" NOT NULL REFERENCES trees (id) ON DELETE CASCADE,
	parent_id   TEXT COLLATE "C" NOT NULL DEFAULT '',
	depth       BIGINT NOT NULL,
	child_count BIGINT NOT NULL DEFAULT 0,
	role        BIGINT NOT NULL DEFAULT 0,
	text        TEXT NOT NULL DEFAULT '',
	ext_source  TEXT COLLATE "C" NOT NULL DEFAULT '',
	ext_id      TEXT COLLATE "C" NOT NULL DEFAULT '',
	created_at  BIGINT NOT NULL
);
CREATE INDEX tree_nodes_parent ON tree_nodes (parent_id, id);
CREATE INDEX tree_nodes_leaves ON tree_nodes (tree_id, child_count, id);
CREATE INDEX tree_nodes_external ON tree_nodes (ext_source, ext_id) WHERE ext_source <> '';

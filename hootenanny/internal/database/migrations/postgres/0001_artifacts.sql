-- Artifacts: content with an identity, its tags, its lineage and what is said about it.
-- Times are Unix nanoseconds, UTC. Text that is compared or sorted (ids, tags) uses the "C"
-- collation, so it sorts by bytes as on SQLite, whatever the database's locale.
CREATE TABLE artifacts (
	id              TEXT COLLATE "C" PRIMARY KEY,
	hash            TEXT NOT NULL,
	size            BIGINT NOT NULL,
	mime_type       TEXT NOT NULL,
	creator         TEXT COLLATE "C" NOT NULL DEFAULT '',
	created_at      BIGINT NOT NULL,
	metadata        BYTEA,
	variation_set   TEXT COLLATE "C" NOT NULL DEFAULT '',
	variation_index BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX artifacts_hash ON artifacts (hash);
CREATE INDEX artifacts_creator ON artifacts (creator, id);
CREATE INDEX artifacts_created ON artifacts (created_at);
CREATE UNIQUE INDEX artifacts_variation ON artifacts (variation_set, variation_index)
	WHERE variation_set <> '';

CREATE TABLE artifact_tags (
	artifact_id TEXT COLLATE "C" NOT NULL REFERENCES artifacts (id),
	tag         TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (artifact_id, tag)
);
CREATE INDEX artifact_tags_tag ON artifact_tags (tag, artifact_id);

-- Lineage: each row says that child was made from parent. Parents exist before their children
-- and never change, so the graph has no cycles.
CREATE TABLE artifact_parents (
	child_id  TEXT COLLATE "C" NOT NULL REFERENCES artifacts (id),
	parent_id TEXT COLLATE "C" NOT NULL REFERENCES artifacts (id),
	position  BIGINT NOT NULL,
	PRIMARY KEY (child_id, parent_id)
);
CREATE INDEX artifact_parents_parent ON artifact_parents (parent_id, child_id);

CREATE TABLE annotations (
	id          TEXT COLLATE "C" PRIMARY KEY,
	artifact_id TEXT COLLATE "C" NOT NULL REFERENCES artifacts (id),
	message     TEXT NOT NULL,
	vibe        TEXT NOT NULL DEFAULT '',
	source      TEXT NOT NULL DEFAULT '',
	created_at  BIGINT NOT NULL
);
CREATE INDEX annotations_artifact ON annotations (artifact_id, id);

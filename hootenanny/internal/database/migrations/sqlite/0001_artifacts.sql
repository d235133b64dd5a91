-- Artifacts: content with an identity, its tags, its lineage and what is said about it.
-- Times are Unix nanoseconds, UTC.
CREATE TABLE artifacts (
	id              TEXT PRIMARY KEY,
	hash            TEXT NOT NULL,
	size            INTEGER NOT NULL,
	mime_type       TEXT NOT NULL,
	creator         TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	metadata        BLOB,
	variation_set   TEXT NOT NULL DEFAULT '',
	variation_index INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX artifacts_hash ON artifacts (hash);
CREATE INDEX artifacts_creator ON artifacts (creator, id);
CREATE INDEX artifacts_created ON artifacts (created_at);
CREATE UNIQUE INDEX artifacts_variation ON artifacts (variation_set, variation_index)
	WHERE variation_set <> '';

CREATE TABLE artifact_tags (
	artifact_id TEXT NOT NULL REFERENCES artifacts (id),
	tag         TEXT NOT NULL,
	PRIMARY KEY (artifact_id, tag)
) STRICT, WITHOUT ROWID;
CREATE INDEX artifact_tags_tag ON artifact_tags (tag, artifact_id);

-- Lineage: each row says that child was made from parent. Parents exist before their children
-- and never change, so the graph has no cycles.
CREATE TABLE artifact_parents (
	child_id  TEXT NOT NULL REFERENCES artifacts (id),
	parent_id TEXT NOT NULL REFERENCES artifacts (id),
	position  INTEGER NOT NULL,
	PRIMARY KEY (child_id, parent_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX artifact_parents_parent ON artifact_parents (parent_id, child_id);

CREATE TABLE annotations (
	id          TEXT PRIMARY KEY,
	artifact_id TEXT NOT NULL REFERENCES artifacts (id),
	message     TEXT NOT NULL,
	vibe        TEXT NOT NULL DEFAULT '',
	source      TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX annotations_artifact ON annotations (artifact_id, id);

-- Jobs: background runs of tools of kind JOB. status is the number of hoot.v1.JobStatus.
-- request and result are opaque to the database (the service stores protobuf there).
-- owner names the worker process that runs the job ("host/pid"); cancel_requested asks that
-- owner to stop it.
CREATE TABLE jobs (
	id               TEXT PRIMARY KEY,
	tool             TEXT NOT NULL,
	status           INTEGER NOT NULL,
	progress         REAL NOT NULL DEFAULT 0,
	total            REAL NOT NULL DEFAULT 0,
	message          TEXT NOT NULL DEFAULT '',
	request          BLOB,
	result           BLOB,
	owner            TEXT NOT NULL DEFAULT '',
	cancel_requested INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL,
	started_at       INTEGER,
	finished_at      INTEGER
) STRICT;
CREATE INDEX jobs_status ON jobs (status, id);
CREATE INDEX jobs_tool ON jobs (tool, id);
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;

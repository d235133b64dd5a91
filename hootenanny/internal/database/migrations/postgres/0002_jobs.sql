-- Jobs: background runs of tools of kind JOB. status is the number of hoot.v1.JobStatus.
-- request and result are opaque to the database (the service stores protobuf there).
-- owner names the worker process that runs the job ("host/pid"); cancel_requested asks that
-- owner to stop it (0 or 1, an integer as on SQLite, so both engines share their SQL).
CREATE TABLE jobs (
	id               TEXT COLLATE "C" PRIMARY KEY,
	tool             TEXT COLLATE "C" NOT NULL,
	status           INTEGER NOT NULL,
	progress         DOUBLE PRECISION NOT NULL DEFAULT 0,
	total            DOUBLE PRECISION NOT NULL DEFAULT 0,
	message          TEXT NOT NULL DEFAULT '',
	request          BYTEA,
	result           BYTEA,
	owner            TEXT COLLATE "C" NOT NULL DEFAULT '',
	cancel_requested INTEGER NOT NULL DEFAULT 0,
	created_at       BIGINT NOT NULL,
	started_at       BIGINT,
	finished_at      BIGINT
);
CREATE INDEX jobs_status ON jobs (status, id);
CREATE INDEX jobs_tool ON jobs (tool, id);
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;

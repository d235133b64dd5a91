-- Jobs that outlive their worker. lease_until (Unix nanoseconds) is how long the owner's claim
-- holds; the owner renews it while the job is pending or running, and once it has lapsed
-- another worker may take the job up (tools declared resumable) or fail it. attempts counts
-- the runs a job has had.
ALTER TABLE jobs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
CREATE INDEX jobs_lease ON jobs (lease_until) WHERE status IN (1, 2);

-- An artifact made by a job carries a key (the job's id and the artifact's place in the run),
-- so that a run taken up again after its worker died finds what the first run made instead of
-- making it twice.
ALTER TABLE artifacts ADD COLUMN job_key TEXT;
CREATE UNIQUE INDEX artifacts_job_key ON artifacts (job_key) WHERE job_key IS NOT NULL;

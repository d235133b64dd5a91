-- Who started each job, as the gateway's access control named them ("token:NAME" or
-- "oauth:SUBJECT"); empty for a job started through a gateway that checks no tokens. A caller
-- below the admin tier reads, answers, cancels and lists only its own jobs.
ALTER TABLE jobs ADD COLUMN caller TEXT NOT NULL DEFAULT '';
CREATE INDEX jobs_caller ON jobs (caller, id);

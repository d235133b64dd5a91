-- Jobs that wait for a person. A job whose tool asked a question it has no answer for stops
-- and waits with status 6 (input_required); questions holds what it asked, answers what has
-- been answered so far (both opaque: the service stores protobuf there). Once every question
-- is answered the job is pending again and runs from its start, its questions answered.
ALTER TABLE jobs ADD COLUMN questions BYTEA;
ALTER TABLE jobs ADD COLUMN answers BYTEA;

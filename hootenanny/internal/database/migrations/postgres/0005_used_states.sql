-- The requestStates that the gateways of a fleet accepted (a person's confirmation of a call,
-- in MCP 2026-07-28). Each is taken once in the whole fleet: a gateway records it here, through
-- a worker, before the call runs, and a state whose key is here already is refused. state_key
-- is a SHA-256 digest of the state's id; attempt names the gateway's request that recorded it,
-- so that the same request sent again finds its own row. Rows are removed a while after the
-- state expires (expires_at, Unix nanoseconds).
CREATE TABLE used_states (
	state_key  BYTEA PRIMARY KEY,
	attempt    BYTEA NOT NULL,
	expires_at BIGINT NOT NULL
);
CREATE INDEX used_states_expires ON used_states (expires_at);

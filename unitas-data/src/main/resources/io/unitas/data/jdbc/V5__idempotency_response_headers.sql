-- What a replay needs beyond status and body: the response's media type, and the headers the service keeps with it
-- (one "Name: value" per line). NULL for records stored before this version: they replay without them.
-- Portable SQL: PostgreSQL and H2 run it unchanged.
ALTER TABLE unitas_idempotency ADD COLUMN response_content_type VARCHAR(200);
ALTER TABLE unitas_idempotency ADD COLUMN response_headers VARCHAR;

-- +goose Up
-- When a browser session was last used: a session ends after an hour
-- without use, as well as twelve hours after sign-in. Sessions from before
-- this column count from their sign-in.
ALTER TABLE web_sessions ADD COLUMN last_seen_at TIMESTAMPTZ;

-- +goose Down
ALTER TABLE web_sessions DROP COLUMN last_seen_at;

-- +goose Up
-- The member wallet (/wallet/{business}): members sign in to browser
-- sessions of their own kind, and may sign in with a one-time code sent
-- to their e-mail or phone.
ALTER TABLE web_sessions DROP CONSTRAINT web_sessions_kind_check;
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_kind_check
    CHECK (kind IN ('developer', 'support', 'owner', 'staff', 'member'));
ALTER TABLE user_secrets DROP CONSTRAINT user_secrets_purpose_check;
ALTER TABLE user_secrets ADD CONSTRAINT user_secrets_purpose_check
    CHECK (purpose IN ('verify', 'reset_token', 'reset_code', 'signin_code'));

-- +goose Down
DELETE FROM web_sessions WHERE kind = 'member';
DELETE FROM user_secrets WHERE purpose = 'signin_code';
ALTER TABLE web_sessions DROP CONSTRAINT web_sessions_kind_check;
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_kind_check CHECK (kind IN ('developer', 'support', 'owner', 'staff'));
ALTER TABLE user_secrets DROP CONSTRAINT user_secrets_purpose_check;
ALTER TABLE user_secrets ADD CONSTRAINT user_secrets_purpose_check CHECK (purpose IN ('verify', 'reset_token', 'reset_code'));

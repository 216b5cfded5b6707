-- +goose Up
-- The console's customer search matches the start of a name, an e-mail
-- address or a phone number (LIKE 'prefix%'); text_pattern_ops lets those
-- use an index whatever the database's collation.
CREATE INDEX customers_email_prefix ON customers (business_id, email text_pattern_ops);
CREATE INDEX customers_phone_prefix ON customers (business_id, phone text_pattern_ops);
CREATE INDEX customers_name_prefix ON customers (business_id, lower(first_name || ' ' || last_name) text_pattern_ops);
CREATE INDEX customers_last_name_prefix ON customers (business_id, lower(last_name) text_pattern_ops);
-- A customer's profile lists whom they referred.
CREATE INDEX referrals_referrer ON referrals (business_id, referrer_id);

-- +goose Down
DROP INDEX referrals_referrer;
DROP INDEX customers_last_name_prefix;
DROP INDEX customers_name_prefix;
DROP INDEX customers_phone_prefix;
DROP INDEX customers_email_prefix;

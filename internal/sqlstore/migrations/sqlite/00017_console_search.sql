-- +goose Up
-- The console's customer search matches the start of a name, an e-mail
-- address or a phone number (LIKE 'prefix%').
CREATE INDEX customers_email_prefix ON customers (business_id, email);
CREATE INDEX customers_phone_prefix ON customers (business_id, phone);
CREATE INDEX customers_name_prefix ON customers (business_id, lower(first_name || ' ' || last_name));
CREATE INDEX customers_last_name_prefix ON customers (business_id, lower(last_name));
-- A customer's profile lists whom they referred.
CREATE INDEX referrals_referrer ON referrals (business_id, referrer_id);

-- +goose Down
DROP INDEX referrals_referrer;
DROP INDEX customers_last_name_prefix;
DROP INDEX customers_name_prefix;
DROP INDEX customers_phone_prefix;
DROP INDEX customers_email_prefix;

-- +goose Up
-- The members of a birthday, by the month and day of their birth date
-- (see PostgreSQL's 00075): a birthday automation's pass reads the day's
-- members, not every member of the business.
CREATE INDEX IF NOT EXISTS customers_birthday ON customers (substr(birth_date, 6, 5), business_id, user_id);

-- +goose Down
DROP INDEX IF EXISTS customers_birthday;

-- +goose NO TRANSACTION
-- +goose Up
-- A birthday automation's pass (and a segment of birthdays) selects the
-- members whose birth date's month and day are the day's: by this index
-- it reads those members, where it walked every member of the business
-- in id order testing each (about 1 s of the database's time per 200,000
-- members, every minute, for each enabled birthday automation). The
-- expression is the one the store's criteria write (segment_sql.go);
-- user_id last keeps a pass's cursor in the index. The day leads: led by
-- business_id, a never-analysed database's generic plans took this index
-- for a lookup of one customer by key, walking the business's members
-- (TestCustomerKeyLookupsKeepTheirIndex). Built CONCURRENTLY:
-- rewards and sign-ups keep writing while it builds; an invalid index
-- left by a failed try is dropped first.
SET lock_timeout = 0;
DROP INDEX CONCURRENTLY IF EXISTS customers_birthday;
CREATE INDEX CONCURRENTLY customers_birthday ON customers ((substr(birth_date, 6, 5)), business_id, user_id);
RESET lock_timeout;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS customers_birthday;

-- +goose Up
-- A customer's profile belongs to the business that keeps it: what one
-- business writes about a person, another never sees. The person's own
-- identity (users.email, users.phone) is what signs in.
ALTER TABLE customers ADD COLUMN email TEXT;
ALTER TABLE customers ADD COLUMN phone TEXT;
ALTER TABLE customers ADD COLUMN country_code TEXT NOT NULL DEFAULT '';
ALTER TABLE customers ADD COLUMN first_name TEXT NOT NULL DEFAULT '';
ALTER TABLE customers ADD COLUMN last_name TEXT NOT NULL DEFAULT '';
ALTER TABLE customers ADD COLUMN birth_date TEXT NOT NULL DEFAULT '';
ALTER TABLE customers ADD COLUMN language TEXT NOT NULL DEFAULT '';
ALTER TABLE customers ADD COLUMN gender TEXT NOT NULL DEFAULT '';
UPDATE customers SET email = (SELECT u.email FROM users u WHERE u.id = customers.user_id),
    phone = (SELECT u.phone FROM users u WHERE u.id = customers.user_id),
    country_code = (SELECT u.country_code FROM users u WHERE u.id = customers.user_id),
    first_name = (SELECT u.first_name FROM users u WHERE u.id = customers.user_id),
    last_name = (SELECT u.last_name FROM users u WHERE u.id = customers.user_id),
    birth_date = (SELECT u.birth_date FROM users u WHERE u.id = customers.user_id),
    language = (SELECT u.language FROM users u WHERE u.id = customers.user_id),
    gender = (SELECT u.gender FROM users u WHERE u.id = customers.user_id);
CREATE UNIQUE INDEX customers_email ON customers (business_id, email) WHERE deleted_at IS NULL AND email IS NOT NULL;
CREATE UNIQUE INDEX customers_phone ON customers (business_id, phone) WHERE deleted_at IS NULL AND phone IS NOT NULL;

-- +goose Down
DROP INDEX customers_phone;
DROP INDEX customers_email;
ALTER TABLE customers DROP COLUMN gender;
ALTER TABLE customers DROP COLUMN language;
ALTER TABLE customers DROP COLUMN birth_date;
ALTER TABLE customers DROP COLUMN last_name;
ALTER TABLE customers DROP COLUMN first_name;
ALTER TABLE customers DROP COLUMN country_code;
ALTER TABLE customers DROP COLUMN phone;
ALTER TABLE customers DROP COLUMN email;

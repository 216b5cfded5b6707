-- +goose Up
-- The moment a run's occurrence names, for the triggers whose occurrence
-- is the customer's own (loyalty.AutomationRun.Occurred: the last visit
-- of a lapse, the expiry of expiring points, the time of a level lost):
-- a pass then leaves out the customers with a run of their current
-- occurrence (loyalty.RunCriterion.Occurrence), as it leaves out those
-- with a run of a birthday's year, where it tried each of them again in
-- a transaction of its own every minute. A nullable column without a
-- default: no table rewrite; a run the previous release writes has none,
-- and the runner fills it in the first time the customer is tried again.
ALTER TABLE automation_runs ADD COLUMN occurred_at TIMESTAMPTZ;

-- +goose Down
ALTER TABLE automation_runs DROP COLUMN occurred_at;

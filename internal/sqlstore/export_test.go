package sqlstore

import "context"

// MigrateDownTo rolls the schema back to version, to test how a migration
// treats the data stored before it.
func (d *DB) MigrateDownTo(ctx context.Context, version int64) error {
	p, err := d.migrations()
	if err != nil {
		return err
	}
	_, err = p.DownTo(ctx, version)
	return err
}

// SetBatchFault makes every PostgreSQL batch of lone appends call fault
// before its statement is sent (committed false) and after it committed
// (committed true); an error stands for the connection lost there. It
// returns a function that removes the fault.
func SetBatchFault(fault func(committed bool) error) (restore func()) {
	testHookBatch = fault
	return func() { testHookBatch = nil }
}

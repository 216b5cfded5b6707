package sqlstore

// SetBatchFault makes every PostgreSQL batch of lone appends call fault
// before its statement is sent (committed false) and after it committed
// (committed true); an error stands for the connection lost there. It
// returns a function that removes the fault.
func SetBatchFault(fault func(committed bool) error) (restore func()) {
	testHookBatch = fault
	return func() { testHookBatch = nil }
}

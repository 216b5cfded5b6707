package loyalty

import "context"

// SetImportAfterRow sets what a worker runs after each row it settles (a
// test's simulated crash or a second worker's turn).
func SetImportAfterRow(w *ImportWorker, fn func(row int64) error) { w.afterRow = fn }

// RunClaimed runs an import as a worker holding claim would.
func RunClaimed(w *ImportWorker, ctx context.Context, im Import, claim string) error {
	return w.run(ctx, im, claim)
}

package loyalty

import (
	"context"
	"encoding/json"
	"fmt"
)

// EventReader reads a business's numbered events and the entries they
// name.
type EventReader interface {
	Events(ctx context.Context, businessID string, q EventQuery) ([]Event, error)
	EntryReader
}

// ReadEvents returns a page of a business's numbered events as integrators
// see them: an event that names a ledger entry carries the entry as GET
// /transactions shows it (unless q.Refs keeps the reference).
func ReadEvents(ctx context.Context, st EventReader, businessID string, q EventQuery) ([]Event, error) {
	page, err := st.Events(ctx, businessID, q)
	if err != nil || q.Refs {
		return page, err
	}
	return page, RenderEntries(ctx, st, businessID, page)
}

// RenderEntries sets the data of the events that hold only the reference
// to their entry (Unrendered) to the entry as the API shows it, read in
// one query: an entry is never changed, so it renders as it was written.
func RenderEntries(ctx context.Context, st EntryReader, businessID string, events []Event) error {
	var ids []int64
	for _, e := range events {
		if e.Unrendered() {
			ids = append(ids, e.EntryID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	entries, err := st.EntriesByID(ctx, businessID, ids)
	if err != nil {
		return err
	}
	shown := make(map[int64][]byte, len(entries))
	for _, t := range entries {
		if shown[t.ID], err = json.Marshal(NewTransactionJSON(t)); err != nil {
			return err
		}
	}
	for i, e := range events {
		if !e.Unrendered() {
			continue
		}
		if events[i].Data = shown[e.EntryID]; events[i].Data == nil {
			return fmt.Errorf("loyalty: event %s names entry %d, which is not in the ledger", e.ID, e.EntryID)
		}
	}
	return nil
}

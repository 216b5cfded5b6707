package sqlstore

import (
	"context"
	"time"
)

// batchEvents are the events of a batch's entries, one array per column
// of batchSQL's events CTE; ord is the index of the event's entry.
type batchEvents struct {
	ord                     []int32
	id, business, typ, data []string
	created                 []time.Time
	entry                   []int64 // 0: none
}

// batchEventsOf builds the events of a batch's entries (loyalty.Transaction.Event)
// with the ids reserved for them. An entry whose event cannot be built is
// answered with the error and left out of the batch, with its id.
func batchEventsOf(batch []*pendingAppend, ids []int64) ([]*pendingAppend, []int64, batchEvents) {
	var ev batchEvents
	kept, keptIDs := batch[:0:0], ids[:0:0]
	for i, p := range batch {
		if p.e.Event == nil {
			kept, keptIDs = append(kept, p), append(keptIDs, ids[i])
			continue
		}
		e := *p.e
		e.ID = ids[i]
		event, err := p.e.Event(e)
		if err != nil {
			p.finish(err)
			continue
		}
		ev.ord = append(ev.ord, int32(len(kept)))
		ev.id, ev.business, ev.typ = append(ev.id, event.ID), append(ev.business, event.BusinessID), append(ev.typ, event.Type)
		ev.created, ev.data = append(ev.created, event.CreatedAt.UTC()), append(ev.data, string(event.Data))
		ev.entry = append(ev.entry, event.EntryID)
		kept, keptIDs = append(kept, p), append(keptIDs, ids[i])
	}
	return kept, keptIDs, ev
}

// ensureSequences creates the event_sequences rows the batch's businesses
// lack, once per business and process (batchWriters is 1: only one batch
// is written at a time, so the set needs no lock).
func (b *appendBatch) ensureSequences(businesses []string) error {
	var missing []string
	for _, id := range businesses {
		if !b.sequences[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err := b.db.db.ExecContext(context.Background(), `INSERT INTO event_sequences (business_id, last_seq)
		SELECT DISTINCT id, 0 FROM unnest($1::text[]) AS m(id) ON CONFLICT (business_id) DO NOTHING`, missing)
	if err != nil {
		return err
	}
	for _, id := range missing {
		b.sequences[id] = true
	}
	return nil
}

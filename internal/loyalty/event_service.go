package loyalty

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// EventService reads a business's event feed (GET /events).
type EventService struct {
	Store Store
	// KeepTiers, when set, announces the tier levels the business's
	// numbered transactions moved (events.TierKeeper.CatchUp) before a
	// read, so that a reader finds a transaction's tier.changed with it;
	// it returns how many events it took.
	KeepTiers func(ctx context.Context, businessID string) (int, error)
}

// EventListSpec says how GET /events is filtered: by type (eq, in,
// not_in), after a sequence number. It pages by sequence (after, or the
// cursor of the previous page), never by page number: a feed grows while
// it is read.
var EventListSpec = ListSpec{
	Fields:         map[string]FilterKind{"type": KindString},
	Reserved:       []string{"after", "cursor"},
	DefaultPerPage: 100,
}

// ParseEventQuery reads a GET /events query: after (or cursor, the same
// number as the previous page's cursor gives), per_page and the type filter.
func ParseEventQuery(q url.Values) (EventQuery, error) {
	if q.Has("page") {
		return EventQuery{}, Errorf(EBadRequest, "Events are paged with after (or cursor), not page.")
	}
	lq, err := ParseListQuery(q, EventListSpec)
	if err != nil {
		return EventQuery{}, err
	}
	eq := EventQuery{Limit: lq.PerPage}
	for _, name := range []string{"after", "cursor"} {
		if !q.Has(name) {
			continue
		}
		n, err := strconv.ParseInt(q.Get(name), 10, 64)
		if err != nil || n < 0 || len(q[name]) > 1 || (q.Has("after") && q.Has("cursor") && q.Get("after") != q.Get("cursor")) {
			return EventQuery{}, Invalid(name, "The "+name+" must be one sequence number, 0 or more.")
		}
		eq.After = n
	}
	for _, f := range lq.Filters {
		if f.Op != OpEq && f.Op != OpIn && f.Op != OpNotIn {
			return EventQuery{}, Errorf(EBadRequest, "The type filter takes eq, in or not_in.")
		}
		if len(lq.Filters) > 1 {
			return EventQuery{}, Errorf(EBadRequest, "Give the type filter once; list several types with in|a,b.")
		}
		for _, v := range f.Values {
			typ := v.(string)
			if !slices.Contains(EventTypes, typ) {
				return EventQuery{}, Errorf(EBadRequest, "Unknown event type %q; the types are %s.", typ, strings.Join(EventTypes, ", "))
			}
			eq.Types = append(eq.Types, typ)
		}
		eq.Not = f.Op == OpNotIn
	}
	return eq, nil
}

// List returns the business's events after q.After, in sequence order,
// numbering first the ones committed since the last numbering, so a
// reader sees every committed event.
func (s *EventService) List(ctx context.Context, b Business, q EventQuery) ([]Event, error) {
	if _, err := s.Store.SequenceEvents(ctx, b.ID); err != nil {
		return nil, err
	}
	if s.KeepTiers != nil {
		if _, err := s.KeepTiers(ctx, b.ID); err != nil {
			return nil, err
		}
		// The tier.changed events written since the numbering above are
		// numbered now (on SQLite, as they were written): the catch-up's
		// own, and a round's that committed after that numbering, which
		// the catch-up finds announced and takes nothing of
		// (sqlstore TestFeedShowsARoundsTierChange). When nothing is
		// left to number this is one read.
		if _, err := s.Store.SequenceEvents(ctx, b.ID); err != nil {
			return nil, err
		}
	}
	return ReadEvents(ctx, s.Store, b.ID, q)
}

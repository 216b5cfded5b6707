package sqlstore

import "sync"

// visitCache remembers, per business and customer, a last visit day this
// process knows dashboard_members holds (it wrote it, and the transaction
// committed). The day there only ever moves forward, so a fold whose
// visit is on or before the day remembered has nothing to write: most
// visits are a customer's second or later of the day, and skipping their
// statements is most of what folding a page costs SQLite's writer.
type visitCache struct {
	mu   sync.Mutex
	days map[visitKey]string
}

type visitKey struct{ business, customer string }

// maxVisitDays bounds the cache; past it, it starts over.
const maxVisitDays = 200_000

// known reports whether the customer's stored last visit day is day or later.
func (c *visitCache) known(business, customer, day string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.days[visitKey{business, customer}] >= day
}

// record remembers the days a committed fold wrote.
func (c *visitCache) record(business string, visits map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.days == nil || len(c.days)+len(visits) > maxVisitDays {
		c.days = make(map[visitKey]string, len(visits))
	}
	for customer, day := range visits {
		if k := (visitKey{business, customer}); day > c.days[k] {
			c.days[k] = day
		}
	}
}

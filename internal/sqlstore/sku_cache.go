package sqlstore

import (
	"context"
	"sync"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// skuCache keeps, briefly, what ProductsBySKU read: for a business's SKU,
// the live product it names (its id, category and tags) or that none
// does. A reward with a basket and a dry run then resolve their lines
// without a query once the till's SKUs have been seen.
//
// It ends with the token lookups' cache (accessCache) and by the same
// rule: every write of the products table calls accessChanged in its
// transaction (TestAccessWritersMarkTheChange holds the writers of
// cachedTables to it), so an entry ends as soon as such a change commits
// through this DB, and a change made by another instance is heard as the
// access cache hears it, entries living up to TokenCacheTTL (or
// heardCacheTTL while every change is heard).
type skuCache struct {
	mu      sync.RWMutex
	of      uint64 // the access cache's change count the entries were read at
	entries map[skuKey]skuEntry
}

type skuKey struct{ business, sku string }

type skuEntry struct {
	p     loyalty.ProductRef
	found bool
	read  time.Time
}

// maxSKUEntries bounds the cache; past it, it starts over.
const maxSKUEntries = 100_000

// cachedProductsBySKU is productsBySKU through the cache: the SKUs seen
// lately come from it, the others from one query.
func (d *DB) cachedProductsBySKU(ctx context.Context, businessID string, skus []string) (map[string]loyalty.ProductRef, error) {
	ttl := d.TokenCacheTTL
	if ttl <= 0 {
		return productsBySKU(ctx, d.db, businessID, skus)
	}
	if d.hearing() {
		ttl = max(ttl, heardCacheTTL)
	}
	c := &d.skus
	out := make(map[string]loyalty.ProductRef, len(skus))
	var missing []string
	c.mu.RLock()
	current := c.of == d.tokens.gen.Load()
	for _, sku := range skus {
		e, ok := c.entries[skuKey{businessID, sku}]
		switch {
		case !ok || !current || time.Since(e.read) >= ttl:
			missing = append(missing, sku)
		case e.found:
			out[sku] = e.p
		}
	}
	c.mu.RUnlock()
	if len(missing) == 0 {
		return out, nil
	}
	gen := d.tokens.gen.Load()
	found, err := productsBySKU(ctx, d.db, businessID, missing)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen == d.tokens.gen.Load() {
		// No change committed during the read: keep what it found.
		if c.of != gen || c.entries == nil || len(c.entries)+len(missing) > maxSKUEntries {
			c.entries, c.of = map[skuKey]skuEntry{}, gen
		}
		for _, sku := range missing {
			p, ok := found[sku]
			c.entries[skuKey{businessID, sku}] = skuEntry{p: p, found: ok, read: now}
		}
	}
	for sku, p := range found {
		out[sku] = p
	}
	return out, nil
}

package sqlstore

import (
	"slices"
	"testing"
)

// TestLeaseQueuesAreNotAccessTables: the lease helper writes the tables of
// the queues below without ending the cached token lookups, which is
// right only while none of them is a table those lookups read.
func TestLeaseQueuesAreNotAccessTables(t *testing.T) {
	for _, q := range []*leaseQueue{importQueue, outboxQueue, deliveryQueue, cursorLeases, jobLeases} {
		if slices.Contains(accessTables, q.table) {
			t.Errorf("%s is read by the token lookups: its lease writes must call accessChanged", q.table)
		}
	}
}

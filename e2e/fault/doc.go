// Package fault holds the end-to-end fault test: the real loyalty binary,
// run as a subprocess on PostgreSQL and Redis through proxies the test cuts
// and restores, driven by clients that retry with their Idempotency-Keys.
package fault

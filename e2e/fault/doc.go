// Package fault holds the end-to-end fault tests: the real loyalty binary,
// run as a subprocess on PostgreSQL and Redis through proxies the test cuts
// and restores, and a rolling upgrade from the previous release's binary
// to this tree's with an instance killed midway, both driven by clients
// that retry with their Idempotency-Keys.
package fault

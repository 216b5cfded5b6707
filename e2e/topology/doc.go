// Package topology holds the end-to-end test of the production topology
// (deploy/local-cluster.sh): three instances of the real binary behind
// HAProxy, sharing Redis and a PostgreSQL primary with a synchronous
// secondary, kept by pg_auto_failover, through transaction-pooling
// pgbouncers, and the loss of the primary in the middle of a reward load,
// which the monitor fails over by itself.
package topology

// Package topology holds the end-to-end test of the production topology
// (deploy/local-cluster.sh): three instances of the real binary behind
// HAProxy, sharing Redis and a PostgreSQL primary with a synchronous hot
// standby through transaction-pooling pgbouncers, and a failover in the
// middle of a reward load.
package topology

//go:build loyalty_noevents

package loyalty

// Built with -tags loyalty_noevents, the everyday reward writes no event:
// the "before" of measuring what the event log costs the reward path
// (go test -tags loyalty_noevents -bench BenchmarkRewardByAmount
// ./cmd/loadtest, against the same without the tag). Never for a
// deployment: its events would be missing.
func init() { rewardEvents = false }

// Package gate is the paired performance gate: a base and a candidate
// rdma-bench measured on the same device in short single-point runs,
// alternated pair by pair, until every gated point is decided or the
// budget runs out.
//
// Each pair is one run of each side of one point (workload x size x
// flags), in A B order in odd pairs and B A in even ones, so that a drift
// of the machine lands on both sides. The points take turns, pair by
// pair, and a point stops being measured once it is decided. At a fixed
// schedule of looks (every LookEvery pairs, up to MaxPairs), the change of
// each undecided point is estimated with a distribution-free interval
// (paired or unpaired: [Method]) whose confidence comes from the gate's
// false-alarm budget ([compare.Plan]), and the point is decided by
// [compare.Decide]: fail, pass or, when neither holds, undecided (never
// read as "no regression").
//
// The package runs every measurement as a separate rdma-bench process
// (the same command line a user types, through [Runner]) and keeps the
// statistics and orchestration in Go; it never loads the verbs library
// itself.
package gate

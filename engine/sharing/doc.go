// Package sharing pushes the record (entire/checkpoints/v1) with the user's branch and brings
// in what other clones pushed: a moved remote is merged by tree union, slot by slot for a
// checkpoint both sides wrote (spec §1.2, §9.5).
package sharing

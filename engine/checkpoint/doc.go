// Package checkpoint is the on-disk format of the record as the reference Entire CLI reads and
// writes it: the entire/checkpoints/v1 branch (checkpoint paths, slot and root metadata.json,
// chunked transcripts), the Entire-Checkpoint trailer, and the temporary checkpoints on shadow
// branches. Reader serves explain, rewind and resume; the engine writes with the same types.
package checkpoint

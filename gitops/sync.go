package gitops

import (
	"context"
	"errors"
)

// Sync fetches the source, renders the sites whose inputs changed and publishes them on the target branch.
// A failed site is not an error (see SyncResult.Sites); Sync fails only when the source cannot be fetched or
// the push fails after retries.
func Sync(ctx context.Context, opts SyncOptions) (SyncResult, error) {
	return SyncResult{}, errors.New("gitops.Sync: not implemented yet")
}

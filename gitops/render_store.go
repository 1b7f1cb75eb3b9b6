/*
Copyright 2026 The siteops Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package gitops

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// storedRender is the outcome of a renderJob whose output went straight into an object store.
type storedRender struct {
	blob plumbing.Hash // the site's YAML as a blob in the store (zero on error)
	err  error         // the site's build failed
	took time.Duration // wall time of the build (0 when the job never started)
}

// renderToStore builds jobs like renderPool and writes each site's output into s as a blob as soon as it is
// built, keeping only its hash: memory holds the output of the builds in flight, not of every site, however
// many sites there are. Results are in job order. The error is the first failure to store a blob (the store,
// not a site, failed).
func renderToStore(ctx context.Context, s storer.EncodedObjectStorer, jobs []renderJob, workers int) ([]storedRender, error) {
	out := make([]storedRender, len(jobs))
	var mu sync.Mutex // one writer into the store at a time
	var storeErr error
	renderPool(ctx, jobs, workers, nil, func(i int, r renderResult) {
		out[i].err, out[i].took = r.err, r.took
		if r.err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		h, err := storeBlob(s, r.yaml)
		if err != nil && storeErr == nil {
			storeErr = fmt.Errorf("storing the output of %s: %w", jobs[i].name, err)
		}
		out[i].blob = h
	})
	return out, storeErr
}

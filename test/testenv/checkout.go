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

package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// CopyCheckout copies the checkout's folders (e.g. "base", "overlays") into dst, which must not hold them yet.
// The copy runs in the test's own process, so Go's test cache sees every file it read and runs the test again
// when one of them changes.
func CopyCheckout(tb testing.TB, dst string, folders ...string) {
	tb.Helper()
	for _, f := range folders {
		if err := os.CopyFS(filepath.Join(dst, f), os.DirFS(filepath.Join(RepoRoot(), f))); err != nil {
			tb.Fatalf("copying the checkout's %s: %v", f, err)
		}
	}
}

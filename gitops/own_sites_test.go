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
	"testing"

	"github.com/siteops/siteops/test/testenv"
)

// openOwnSites opens a copy of the checkout's base/ and overlays/, the files its own sites render from. OpenDir
// on the checkout itself would also read its .git for the revision, which these tests do not look at, and Go's
// test cache would then run them again after every commit.
func openOwnSites(t *testing.T) *Checkout {
	t.Helper()
	dir := t.TempDir()
	testenv.CopyCheckout(t, dir, "base", "overlays")
	c, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

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

package leadership

import (
	"errors"
	"testing"

	. "github.com/onsi/gomega"
)

// TestFenceRevokeWaitsForAdmittedWrites checks that a revoked fence refuses new writes at once, and that the
// revoker learns when the writes admitted before have returned.
func TestFenceRevokeWaitsForAdmittedWrites(t *testing.T) {
	var f Fence
	if _, err := f.Enter(); !errors.Is(err, ErrNotLeading) {
		t.Fatalf("a fence never granted admitted a write: %v", err)
	}
	gained := f.Subscribe()
	if !f.Grant() {
		t.Fatal("first grant reported no change")
	}
	select {
	case <-gained:
	default:
		t.Fatal("the subscriber was not told of the gain")
	}
	exit, err := f.Enter()
	if err != nil {
		t.Fatalf("a granted fence refused a write: %v", err)
	}
	drained, changed := f.Revoke()
	if !changed {
		t.Fatal("revoke reported no change")
	}
	if _, err := f.Enter(); !errors.Is(err, ErrNotLeading) {
		t.Fatalf("a revoked fence admitted a write: %v", err)
	}
	select {
	case <-drained:
		t.Fatal("drained before the admitted write returned")
	default:
	}
	exit()
	<-drained
	f.Grant()
	select {
	case <-gained:
	default:
		t.Fatal("the subscriber was not told of the second gain")
	}
}

func TestGainedIsClosedAtTheNextGrantOnly(t *testing.T) {
	g := NewWithT(t)
	f := &Fence{}
	first := f.Gained()
	g.Expect(first).NotTo(BeClosed())
	g.Expect(f.Grant()).To(BeTrue())
	g.Expect(first).To(BeClosed(), "closed when the manager starts leading")

	f.Revoke()
	second := f.Gained()
	g.Expect(second).NotTo(BeClosed(), "a new channel waits for the next gain")
	f.Grant()
	g.Expect(second).To(BeClosed())
}

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

package procstat

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestReadSeesThisProcessWork spins until Read of this test's own process shows 50 ms more CPU time (it
// fails if that has not happened after 30 s of spinning), checks its memory, and reads a PID that does not
// exist.
func TestReadSeesThisProcessWork(t *testing.T) {
	before, err := Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	after := before
	for deadline := time.Now().Add(30 * time.Second); after.CPU-before.CPU < 50*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("CPU time went from %s to %s over 30 s of spinning", before.CPU, after.CPU)
		}
		for i := 0; i < 1_000_000; i++ {
			spin += i
		}
		if after, err = Read(os.Getpid()); err != nil {
			t.Fatal(err)
		}
	}
	if after.RSS <= 0 || after.PeakRSS < after.RSS {
		t.Errorf("RSS %d, peak %d: want a positive RSS no larger than the peak", after.RSS, after.PeakRSS)
	}
	if _, err := Read(1 << 30); err == nil {
		t.Error("Read of a PID that does not exist: no error")
	}
}

// TestReadCountsChildrenWaitedFor runs a busy shell loop as a child until Read of this process shows its CPU
// time among the children's (it fails if that has not happened after ten runs).
func TestReadCountsChildrenWaitedFor(t *testing.T) {
	before, err := Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if out, err := exec.Command("sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done").
			CombinedOutput(); err != nil {
			t.Fatalf("busy child: %v\n%s", err, out)
		}
		after, err := Read(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after.ChildrenCPU > before.ChildrenCPU {
			return
		}
	}
	t.Fatal("ten busy children waited for, and no children's CPU time in Read")
}

// spin keeps the compiler from dropping the test's busy loop.
var spin int

//go:build e2e

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

package makerun

import (
	"testing"
	"time"
)

// TestCtrlCStopsEverythingMakeRunStarted starts `make run` with no reachable cluster, waits until its fleet
// is ready, presses Ctrl-C (SIGINT to make's process group) and checks that no process make run started
// remains and every port of the fleet and of the host manager is free.
func TestCtrlCStopsEverythingMakeRunStarted(t *testing.T) {
	r := startMakeRun(t)
	r.waitReady(20 * time.Minute)
	if left := r.processes(); len(left) == 0 {
		t.Fatal("found no process of make run by its marker before Ctrl-C: the check below would prove nothing")
	}
	r.interrupt(3 * time.Minute)
	if left := r.processes(); len(left) > 0 {
		t.Errorf("after Ctrl-C, %d processes of make run still run:\n%v", len(left), left)
	}
	if busy := r.busyPorts(); len(busy) > 0 {
		t.Errorf("after Ctrl-C, ports still in use: %v", busy)
	}
}

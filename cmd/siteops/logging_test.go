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

package main

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// loggerChildEnv makes the test binary the child process of TestControllerRuntimeLoggerIsSet.
const loggerChildEnv = "SITEOPS_TEST_LOGGER_CHILD"

// TestControllerRuntimeLoggerIsSet: a process set up as main sets it up (setLogger) and that uses
// controller-runtime's logger more than 30 s after it started, as `siteops dashboard`'s cache and client do,
// prints no "log.SetLogger(...) was never called" and stack trace to stderr; an INFO line does reach stderr,
// a DEBUG (V(1)) line does not. It runs in a child process: controller-runtime takes one logger per process
// and complains only 30 s after the process started.
func TestControllerRuntimeLoggerIsSet(t *testing.T) {
	if os.Getenv(loggerChildEnv) != "" {
		setLogger(os.Stderr)
		time.Sleep(31 * time.Second)
		ctrllog.Log.WithName("child").Info("info line")
		ctrllog.Log.WithName("child").V(1).Info("debug line")
		return
	}
	if testing.Short() {
		t.Skip("waits 31 s")
	}
	t.Parallel()
	g := NewWithT(t)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestControllerRuntimeLoggerIsSet$")
	cmd.Env = append(os.Environ(), loggerChildEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	g.Expect(cmd.Run()).To(Succeed(), "stderr: %s", &stderr)
	g.Expect(stderr.String()).NotTo(ContainSubstring("was never called"))
	g.Expect(stderr.String()).To(ContainSubstring("info line"))
	g.Expect(stderr.String()).NotTo(ContainSubstring("debug line"))
}

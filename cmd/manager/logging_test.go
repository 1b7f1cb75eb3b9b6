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
	"errors"
	"flag"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// TestErrorsAreLoggedWithoutStackTrace: the manager's logger (the zap options of its flags) writes a reconcile
// error as one line without a stack trace, in production and development mode alike;
// --zap-stacktrace-level=error asks for the traces.
func TestErrorsAreLoggedWithoutStackTrace(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		trace bool
	}{
		{nil, false},
		{[]string{"--zap-devel=true"}, false},
		{[]string{"--zap-stacktrace-level=error"}, true},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tc.args...), " "), func(t *testing.T) {
			g := NewWithT(t)
			_, zo, _, err := parseFlags(flag.NewFlagSet("manager", flag.ContinueOnError), tc.args)
			g.Expect(err).NotTo(HaveOccurred())
			var buf bytes.Buffer
			log := zap.New(zap.UseFlagOptions(&zo), zap.WriteTo(&buf))

			log.Error(errors.New(`spec.schedule: Invalid value: "61 * * * *"`), "Reconciler error",
				"controller", "cronjob")

			out := strings.TrimSuffix(buf.String(), "\n")
			g.Expect(out).To(ContainSubstring("Reconciler error"))
			g.Expect(out).To(ContainSubstring("61 * * * *"))
			if tc.trace {
				g.Expect(out).To(ContainSubstring("logging_test.go"), "the trace names the caller")
				return
			}
			g.Expect(strings.Count(out, "\n")).To(BeZero(), "one line: %s", out)
			g.Expect(out).NotTo(ContainSubstring("stacktrace"))
			g.Expect(out).NotTo(ContainSubstring("logging_test.go"))
		})
	}
}

// TestLogLevelIsInfoByDefault: the manager logs at INFO whatever the encoding (--zap-devel, as hack/run.sh
// runs it, included), so the standby's V(1) "api write" lines are not printed; --zap-log-level=debug prints
// them.
func TestLogLevelIsInfoByDefault(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		debug bool
	}{
		{nil, false},
		{[]string{"--zap-devel=true"}, false},
		{[]string{"--zap-devel=false"}, false},
		{[]string{"--zap-log-level=debug"}, true},
		{[]string{"--zap-devel=true", "--zap-log-level=debug"}, true},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tc.args...), " "), func(t *testing.T) {
			g := NewWithT(t)
			_, zo, _, err := parseFlags(flag.NewFlagSet("manager", flag.ContinueOnError), tc.args)
			g.Expect(err).NotTo(HaveOccurred())
			var buf bytes.Buffer
			log := zap.New(zap.UseFlagOptions(&zo), zap.WriteTo(&buf))

			log.Info("started")
			log.V(1).Info("api write", "verb", "patch")

			g.Expect(buf.String()).To(ContainSubstring("started"))
			if tc.debug {
				g.Expect(buf.String()).To(ContainSubstring("api write"))
				return
			}
			g.Expect(buf.String()).NotTo(ContainSubstring("api write"))
		})
	}
}

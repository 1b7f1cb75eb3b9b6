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
	"flag"
	"io"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// standbyFlags are the options the standby flags set.
type standbyFlags struct {
	on, secure bool
	addr       string
	interval   time.Duration
}

// standbyOptions parses args as the manager does and returns the standby options and the deprecation warnings.
func standbyOptions(g Gomega, args ...string) (standbyFlags, []string) {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o, _, _, err := parseFlags(fs, args)
	g.Expect(err).NotTo(HaveOccurred())
	return standbyFlags{on: o.standby, secure: o.secureStandby, addr: o.standbyAddr, interval: o.standbyInterval},
		o.deprecated
}

// TestDeprecatedShadowFlagsSetTheStandbyOnes: each --shadow* flag of earlier releases still parses, sets the
// option of its --standby* successor and warns; the new names set the same options without a warning, and
// the defaults are unchanged.
func TestDeprecatedShadowFlagsSetTheStandbyOnes(t *testing.T) {
	g := NewWithT(t)
	defaults, warnings := standbyOptions(g)
	g.Expect(defaults).To(Equal(standbyFlags{on: true, secure: true, addr: "127.0.0.1:8082", interval: time.Second}))
	g.Expect(warnings).To(BeEmpty())

	want := standbyFlags{on: false, secure: false, addr: "127.0.0.1:9999", interval: 3 * time.Second}
	current, warnings := standbyOptions(g, "--standby=false", "--standby-secure=false",
		"--standby-bind-address=127.0.0.1:9999", "--standby-interval=3s")
	g.Expect(current).To(Equal(want))
	g.Expect(warnings).To(BeEmpty())

	old, warnings := standbyOptions(g, "--shadow=false", "--shadow-secure=false",
		"--shadow-bind-address=127.0.0.1:9999", "--shadow-interval=3s")
	g.Expect(old).To(Equal(want))
	g.Expect(warnings).To(Equal([]string{
		"flag --shadow is deprecated: use --standby",
		"flag --shadow-bind-address is deprecated: use --standby-bind-address",
		"flag --shadow-interval is deprecated: use --standby-interval",
		"flag --shadow-secure is deprecated: use --standby-secure",
	}))

	// A bare boolean alias works as the bare flag does.
	bare, _ := standbyOptions(g, "--standby=false", "--shadow")
	g.Expect(bare.on).To(BeTrue())
}

// TestDeprecatedFlagsNameExistingFlags: every renamed flag's current name is defined, and its old name says
// which flag replaces it.
func TestDeprecatedFlagsNameExistingFlags(t *testing.T) {
	g := NewWithT(t)
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	_, _, _, err := parseFlags(fs, nil)
	g.Expect(err).NotTo(HaveOccurred())
	for old, current := range renamedFlags() {
		g.Expect(fs.Lookup(current)).NotTo(BeNil(), "--%s", current)
		g.Expect(fs.Lookup(old).Usage).To(Equal("Deprecated: use --"+current+"."), "--%s", old)
	}
}

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

	. "github.com/onsi/gomega"
)

// TestShardFlagsChooseTheLease: the main manager keeps the Lease it always had, a shard's manager leads
// <default>-<shard> whichever way its selector names the shard, selectors that name no single shard get a
// Lease of their own, and --leader-election-id set by hand wins.
func TestShardFlagsChooseTheLease(t *testing.T) {
	const def = "siteops.siteops.dev"
	multi := leaseOf(t, "--watch-label-selector=sharding.fluxcd.io/key in (a,b)")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, def},
		{[]string{"--watch-label-selector=!sharding.fluxcd.io/key"}, def},
		{[]string{"--watch-label-selector="}, def},
		{[]string{"--watch-label-selector=sharding.fluxcd.io/key in (shard1)"}, def + "-shard1"},
		{[]string{"--watch-label-selector=sharding.fluxcd.io/key=shard1"}, def + "-shard1"},
		{[]string{"--watch-label-selector=sharding.fluxcd.io/key==shard1"}, def + "-shard1"},
		{[]string{"--watch-label-selector=sharding.fluxcd.io/key  in  ( shard1 )"}, def + "-shard1"},
		{[]string{"--watch-label-selector=sharding.fluxcd.io/key in (b,a)"}, multi},
		{[]string{"--watch-label-selector=sharding.fluxcd.io/key in (shard1)", "--leader-election-id=mine"}, "mine"},
		{[]string{"--leader-election-id=" + def, "--watch-label-selector=sharding.fluxcd.io/key in (shard1)"}, def},
	} {
		if got := leaseOf(t, tc.args...); got != tc.want {
			t.Errorf("%q: lease %q, want %q", tc.args, got, tc.want)
		}
	}
	for _, distinct := range [][]string{
		{"--watch-label-selector=sharding.fluxcd.io/key in (a,b)", "--watch-label-selector=sharding.fluxcd.io/key in (a,c)"},
		{"--watch-label-selector=team=x", "--watch-label-selector=team=y"},
		{"--watch-label-selector=sharding.fluxcd.io/key=Shard1", "--watch-label-selector=sharding.fluxcd.io/key=shard1"},
	} {
		a, b := leaseOf(t, distinct[0]), leaseOf(t, distinct[1])
		if a == b || a == def || b == def {
			t.Errorf("%q and %q share lease %q or take the main one", distinct[0], distinct[1], a)
		}
	}
}

// leaseOf is the Lease parseFlags chooses for args.
func leaseOf(t *testing.T, args ...string) string {
	t.Helper()
	o, _, _, err := parseFlags(flag.NewFlagSet("manager", flag.ContinueOnError), args)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return o.leaderElectionID
}

// TestShardFlagsRefuseABadSelector: a selector labels.Parse refuses stops the manager before it starts, with
// the flag's name and the parser's reason.
func TestShardFlagsRefuseABadSelector(t *testing.T) {
	g := NewWithT(t)
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, _, _, err := parseFlags(fs, []string{"--watch-label-selector=sharding.fluxcd.io/key in (shard1"})
	g.Expect(err).To(MatchError(And(ContainSubstring("-watch-label-selector"), ContainSubstring("not a label selector"))))
}

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
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/siteops/siteops/apis"
	"github.com/siteops/siteops/internal/shard"
)

// watchSelectorUsage is the help of --watch-label-selector.
const watchSelectorUsage = "Reconcile only the CronJobs, Guestbooks and SiteSyncs this label selector matches; " +
	"a shard's manager ('" + apis.ShardLabel + " in (shard1)') leads its own Lease. Empty: every object."

// selectorFlag is a label selector flag, parsed when set, so a bad selector is refused with the flag's name.
type selectorFlag struct {
	raw string
	sel labels.Selector
}

// newSelectorFlag returns a selectorFlag set to def, which must parse.
func newSelectorFlag(def string) *selectorFlag {
	f := &selectorFlag{}
	if err := f.Set(def); err != nil {
		panic(err) // a constant default
	}
	return f
}

// String is the selector as given.
func (f *selectorFlag) String() string {
	if f == nil {
		return ""
	}
	return f.raw
}

// Set parses s with labels.Parse.
func (f *selectorFlag) Set(s string) error {
	sel, err := labels.Parse(s)
	if err != nil {
		return fmt.Errorf("not a label selector: %w", err)
	}
	f.raw, f.sel = s, sel
	return nil
}

// Selector is the parsed selector; labels.Everything() when the flag was never set.
func (f *selectorFlag) Selector() labels.Selector {
	if f == nil || f.sel == nil {
		return labels.Everything()
	}
	return f.sel
}

// shardLease returns the Lease the manager leads with: id when --leader-election-id was set on fs, else
// shard.LeaseName(id, sel).
func shardLease(fs *flag.FlagSet, id string, sel labels.Selector) string {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "leader-election-id" })
	if set {
		return id
	}
	return shard.LeaseName(id, sel)
}

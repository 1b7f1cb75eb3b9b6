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
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/siteops/siteops/apis"
)

// mainShard is the default --watch-label-selector: every object without apis.ShardLabel, so an install
// without shards reconciles what it always did, and adding a shard never has an object reconciled twice.
const mainShard = "!" + apis.ShardLabel

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
// leaseForShard(id, sel).
func shardLease(fs *flag.FlagSet, id string, sel labels.Selector) string {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "leader-election-id" })
	if set {
		return id
	}
	return leaseForShard(id, sel)
}

// leaseForShard names a shard's Lease after the default id: id itself for the main manager (the default
// selector) and for one that watches every object, which then compete for one Lease; id-<shard> for a selector
// of one shard (key=x, key==x or key in (x)); otherwise id-<digest of the selector>. Both colours of a shard's
// blue/green Rollout run the same selector and so share its Lease; two shards never do.
func leaseForShard(id string, sel labels.Selector) string {
	if sel.Empty() || sel.String() == mainShard {
		return id
	}
	if reqs, _ := sel.Requirements(); len(reqs) == 1 && reqs[0].Key() == apis.ShardLabel {
		switch reqs[0].Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			if vals := reqs[0].Values().UnsortedList(); len(vals) == 1 && len(validation.IsDNS1123Label(vals[0])) == 0 {
				return id + "-" + vals[0]
			}
		}
	}
	sum := sha256.Sum256([]byte(sel.String()))
	return id + "-" + hex.EncodeToString(sum[:])[:10]
}

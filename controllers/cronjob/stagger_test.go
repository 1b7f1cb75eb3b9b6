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

package cronjob

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestStaggerOffset: the offset is in [0, spread) in whole milliseconds, 0 without a spread, a function of
// the UID and the spread only, and pinned for two UIDs (values worked out with an independent FNV-1a) so a
// change of the hash, which would move every staggered CronJob's runs after an upgrade, fails here.
func TestStaggerOffset(t *testing.T) {
	const uid = types.UID("6f1c2a0e-9b7d-4c1e-8a52-3d9e0f7b1c24")
	for _, tc := range []struct {
		name   string
		uid    types.UID
		spread time.Duration
		want   time.Duration
	}{
		{"no spread", uid, 0, 0},
		{"negative spread (webhook off)", uid, -time.Minute, 0},
		{"under a millisecond", uid, 999 * time.Microsecond, 0},
		{"one millisecond", uid, time.Millisecond, 0},
		{"pinned, 30s", uid, 30 * time.Second, 4704 * time.Millisecond},
		{"pinned, 1h", uid, time.Hour, 634704 * time.Millisecond},
		{"pinned, empty UID, 30s", "", 30 * time.Second, 16037 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(staggerOffset(tc.uid, tc.spread)).To(Equal(tc.want))
		})
	}
}

// TestStaggerOffsetSpreadsEvenly: 1,000 random UIDs with spread 30s land in every second of the window,
// none with more than twice its share, every offset in [0, 30s) and the same when computed again.
func TestStaggerOffsetSpreadsEvenly(t *testing.T) {
	g := NewWithT(t)
	rng := rand.New(rand.NewPCG(19, 19))
	perSecond := map[time.Duration]int{}
	for range 1000 {
		uid := types.UID(fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", rng.Uint32(), rng.Uint32()&0xffff,
			rng.Uint32()&0xfff, rng.Uint32()&0xffff, rng.Uint64()&0xffffffffffff))
		off := staggerOffset(uid, 30*time.Second)
		g.Expect(off).To(BeNumerically(">=", 0))
		g.Expect(off).To(BeNumerically("<", 30*time.Second))
		g.Expect(off % time.Millisecond).To(BeZero())
		g.Expect(staggerOffset(uid, 30*time.Second)).To(Equal(off))
		perSecond[off.Truncate(time.Second)]++
	}
	g.Expect(perSecond).To(HaveLen(30))
	for sec, n := range perSecond {
		g.Expect(n).To(BeNumerically("<=", 2*1000/30), "second %s", sec)
	}
}

// TestStartOffset: a CronJob's offset comes from its UID and spec.spread, 0 without spread.
func TestStartOffset(t *testing.T) {
	g := NewWithT(t)
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{UID: "6f1c2a0e-9b7d-4c1e-8a52-3d9e0f7b1c24"}}
	g.Expect(StartOffset(cj)).To(BeZero())
	cj.Spec.Spread = &metav1.Duration{Duration: time.Hour}
	g.Expect(StartOffset(cj)).To(Equal(staggerOffset(cj.UID, time.Hour)))
	g.Expect(StartOffset(cj)).NotTo(BeZero())
}

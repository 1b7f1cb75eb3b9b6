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

package kit

import (
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/events"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

func TestEventsCarryTypeReasonAndNote(t *testing.T) {
	g := NewWithT(t)
	rec := events.NewFakeRecorder(4)
	e := Events{Recorder: rec, Action: promoteAction}
	obj := &webappv1.Guestbook{}
	e.Normal(obj, "Promoted", "pod %s is active", "p0")
	e.Warning(obj, "Unlisted", "no action for %d", 1)
	g.Expect(<-rec.Events).To(Equal("Normal Promoted pod p0 is active"))
	g.Expect(<-rec.Events).To(Equal("Warning Unlisted no action for 1"))
	Events{}.Normal(obj, "Promoted", "nil recorder records nothing")
}

// promoteAction is the action of reason Promoted.
func promoteAction(reason string) string {
	if reason == "Promoted" {
		return "Promote"
	}
	return ""
}

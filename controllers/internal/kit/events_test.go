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
	e := Events{Recorder: rec, Actions: map[string]string{"Promoted": "Promote"}}
	obj := &webappv1.Guestbook{}
	e.Normal(obj, "Promoted", "pod %s is active", "p0")
	e.Warning(obj, "Unlisted", "no action for %d", 1)
	g.Expect(<-rec.Events).To(Equal("Normal Promoted pod p0 is active"))
	g.Expect(<-rec.Events).To(Equal("Warning Unlisted no action for 1"))
	Events{}.Normal(obj, "Promoted", "nil recorder records nothing")
}

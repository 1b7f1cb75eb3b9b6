package guestbook

import (
	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/controllers/internal/kit"
)

// eventActions gives each event reason the action of events.k8s.io/v1 (what the controller did or tried).
var eventActions = map[string]string{
	webappv1.EventActiveChanged:    "Promote",
	webappv1.EventNoReadyPod:       "WaitForReadyPod",
	webappv1.EventConfigMapMissing: "ReadConfigMap",
	webappv1.EventConfigMapFound:   "ReadConfigMap",
}

// events records one Event per visible action of the controller; reasons are the constants in
// apis/webapp/v1/conditions.go.
func (r *Reconciler) events() kit.Events {
	return kit.Events{Recorder: r.Recorder, Actions: eventActions}
}

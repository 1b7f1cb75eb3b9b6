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

package guestbook

import (
	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/internal/kit"
)

// eventAction gives each event reason the action of events.k8s.io/v1 (what the controller did or tried).
func eventAction(reason string) string {
	switch reason {
	case webappv1.EventActiveChanged:
		return "Promote"
	case webappv1.EventNoReadyPod:
		return "WaitForReadyPod"
	case webappv1.EventConfigMapMissing, webappv1.EventConfigMapFound:
		return "ReadConfigMap"
	}
	return ""
}

// events records one Event per visible action of the controller; reasons are the constants in
// apis/webapp/v1/conditions.go.
func (r *Reconciler) events() kit.Events {
	return kit.Events{Recorder: r.Recorder, Action: eventAction}
}

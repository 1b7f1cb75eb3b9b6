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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
)

// Events records one Event per visible action of a controller. Reasons are constants in apis/; Action gives
// each reason its events.k8s.io/v1 action (what the controller did or tried).
type Events struct {
	// Recorder sends the events; nil records nothing.
	Recorder events.EventRecorder
	// Action returns a reason's action; a reason it returns "" for, or every reason when nil, gets "Reconcile".
	Action func(reason string) string
}

// Normal records a Normal event about obj.
func (e Events) Normal(obj runtime.Object, reason, format string, args ...any) {
	e.record(obj, corev1.EventTypeNormal, reason, format, args...)
}

// Warning records a Warning event about obj.
func (e Events) Warning(obj runtime.Object, reason, format string, args ...any) {
	e.record(obj, corev1.EventTypeWarning, reason, format, args...)
}

func (e Events) record(obj runtime.Object, typ, reason, format string, args ...any) {
	if e.Recorder == nil {
		return
	}
	action := "Reconcile"
	if e.Action != nil {
		if a := e.Action(reason); a != "" {
			action = a
		}
	}
	e.Recorder.Eventf(obj, nil, typ, reason, action, format, args...)
}

package guestbook

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Event reasons of the Guestbook controller; each names one visible action.
const (
	// EventActiveChanged (Normal): a pod was labelled active; the <name> Service now selects it.
	EventActiveChanged = "ActiveChanged"
	// EventNoReadyPod (Warning): the active pod went away or stopped being Ready and no other pod is Ready.
	EventNoReadyPod = "NoReadyPod"
	// EventConfigMapMissing (Warning): spec.configMapName names no ConfigMap; sent once per episode.
	EventConfigMapMissing = "ConfigMapMissing"
	// EventConfigMapFound (Normal): the missing ConfigMap appeared and the workload is reconciled again.
	EventConfigMapFound = "ConfigMapFound"
)

// Actions of the Guestbook controller's events (events.k8s.io/v1 action field).
const (
	actionPromote  = "Promote"
	actionWaitPods = "WaitForReadyPod"
	actionReadCM   = "ReadConfigMap"
)

// event records one event about obj, regarding nothing else.
func (r *Reconciler) event(obj runtime.Object, warning bool, reason, action, note string, args ...any) {
	if r.Recorder == nil {
		return
	}
	typ := corev1.EventTypeNormal
	if warning {
		typ = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(obj, nil, typ, reason, action, note, args...)
}

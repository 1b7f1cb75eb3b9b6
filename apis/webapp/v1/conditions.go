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

package v1

// Condition types of a Guestbook. Ready, Reconciling and Stalled follow kstatus, so Argo CD and Flux read
// them: Ready=True is the good state, Reconciling=True and Stalled=True ask for attention. Available,
// Progressing and Degraded give the detail: Available=True and Progressing=False are good, Degraded=True bad.
const (
	// ConditionReady is True when a Ready pod is active and size pods run the current config, all Ready.
	ConditionReady = "Ready"
	// ConditionReconciling is True while pods are created, replaced or not Ready yet, or while the controller
	// retries after an API error.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True while the controller waits for a person: the ConfigMap is missing.
	ConditionStalled = "Stalled"
	// ConditionAvailable is True while a Ready pod is active behind the <name> Service.
	ConditionAvailable = "Available"
	// ConditionProgressing is True while the pods do not yet all run the current template and config, or
	// fewer than size pods are Ready.
	ConditionProgressing = "Progressing"
	// ConditionDegraded is True while the Guestbook cannot serve as asked: its ConfigMap is missing or no pod
	// is Ready.
	ConditionDegraded = "Degraded"
)

// Condition reasons of a Guestbook.
const (
	// ReasonActiveReady (Available=True): the active pod is Ready.
	ReasonActiveReady = "ActiveReady"
	// ReasonNoReadyPod (Available=False, Degraded=True): no pod is Ready, so nothing is active.
	ReasonNoReadyPod = "NoReadyPod"
	// ReasonConfigMapMissing (Degraded=True): spec.configMapName names no ConfigMap in the namespace; the
	// workload is neither created nor changed until it appears. Create the ConfigMap or fix the name.
	ReasonConfigMapMissing = "ConfigMapMissing"
	// ReasonRollingOut (Progressing=True): pods are being created, replaced or are not Ready yet.
	ReasonRollingOut = "RollingOut"
	// ReasonRolloutComplete (Progressing=False): size pods run the current config and all are Ready.
	ReasonRolloutComplete = "RolloutComplete"
	// ReasonAsExpected (Degraded=False): nothing is wrong.
	ReasonAsExpected = "AsExpected"
	// ReasonReconcileError (Degraded=True, Ready=False): the last reconcile failed on an API error; it is
	// retried with backoff and the message carries the error.
	ReasonReconcileError = "ReconcileError"
	// ReasonRetrying (Reconciling=True): the controller retries after ReasonReconcileError.
	ReasonRetrying = "Retrying"
	// ReasonIdle (Reconciling=False, Stalled=False): nothing is in progress and nothing is stuck.
	ReasonIdle = "Idle"
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

// Labels and annotations the Guestbook controller sets.
const (
	// LabelGuestbook is set on every object a Guestbook owns, and on its pods, to the Guestbook's name.
	LabelGuestbook = "webapp.my.domain/guestbook"
	// LabelRole is set by the controller on each pod: RoleActive on the one pod the <name> Service selects,
	// RoleStandby on the others.
	LabelRole = "webapp.my.domain/role"
	// RoleActive is the LabelRole value of the active pod.
	RoleActive = "active"
	// RoleStandby is the LabelRole value of the standby pods.
	RoleStandby = "standby"
	// AnnotationConfigHash on the pod template holds a hash of the ConfigMap's data, so a change rolls the pods.
	AnnotationConfigHash = "webapp.my.domain/config-hash"
	// AnnotationRoleEpoch on a pod records the promotion that last wrote its role; every promotion rewrites it
	// on every pod, which is what makes two racing controllers conflict instead of both promoting.
	AnnotationRoleEpoch = "webapp.my.domain/role-epoch"
)

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
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// roleWrite is one pod label change of a role plan.
type roleWrite struct {
	pod  *corev1.Pod
	role string
	// touch rewrites the pod's role epoch even when its role does not change (see planRoles).
	touch bool
}

// rolePlan is what the role step must write so that exactly one Ready pod is active.
type rolePlan struct {
	// active is the pod that is active once the writes are done, "" when no pod is Ready.
	active string
	// promoted is true when active is newly labelled, false when it was already the active pod.
	promoted bool
	// previous is the pod that was active before, "" when none was (a first promotion, not a failover).
	previous string
	// previousDown is when the previous active pod stopped serving (Ready went False, or it was deleted); zero
	// when unknown, for instance when it is already gone.
	previousDown time.Time
	// writes run in order: every other pod first, the promoted pod last.
	writes []roleWrite
}

// planRoles decides the pods' roles from one consistent snapshot of the Guestbook's pods (a list from the
// informer cache reflects a single resourceVersion). lastActive is status.active, to recognise a failover
// whose old pod is already gone.
//
// The active pod is kept while it is Ready. Otherwise the oldest Ready pod (creation time, then name) is
// promoted, and every other pod of the snapshot is written before it, each write carrying a new role epoch
// and the snapshot's resourceVersion as a precondition. That is what keeps two racing controllers from both
// promoting: if A promotes P and B promotes Q from their own snapshots, A must first write Q and B must first
// write P. Whichever snapshot is older holds a resourceVersion the other one has already changed (every
// write bumps the epoch, so no write is a no-op), so its write fails with a conflict before its promotion, or
// its snapshot is new enough to show the other promotion, which it then demotes.
func planRoles(pods []corev1.Pod, lastActive string) rolePlan {
	var actives []*corev1.Pod
	var ready []*corev1.Pod
	for i := range pods {
		p := &pods[i]
		if p.Labels[webappv1.LabelRole] == webappv1.RoleActive {
			actives = append(actives, p)
		}
		if servable(p) {
			ready = append(ready, p)
		}
	}
	slices.SortFunc(ready, olderFirst)
	slices.SortFunc(actives, olderFirst)

	// Keep the oldest active pod that is still servable; demote any other active one.
	for _, a := range actives {
		if !servable(a) {
			continue
		}
		plan := rolePlan{active: a.Name}
		for i := range pods {
			p := &pods[i]
			if p.Name != a.Name && p.Labels[webappv1.LabelRole] != webappv1.RoleStandby {
				plan.writes = append(plan.writes, roleWrite{pod: p, role: webappv1.RoleStandby})
			}
		}
		return plan
	}

	plan := rolePlan{}
	if len(actives) > 0 {
		plan.previous = actives[0].Name
		plan.previousDown = downSince(actives[0])
	} else if lastActive != "" && !slices.ContainsFunc(pods, func(p corev1.Pod) bool { return p.Name == lastActive }) {
		plan.previous = lastActive // gone before we saw it fail
	}

	if len(ready) == 0 {
		// Nothing to promote: demote whatever is labelled active, label new pods standby.
		for i := range pods {
			p := &pods[i]
			if p.Labels[webappv1.LabelRole] != webappv1.RoleStandby {
				plan.writes = append(plan.writes, roleWrite{pod: p, role: webappv1.RoleStandby})
			}
		}
		return plan
	}

	candidate := ready[0]
	plan.active, plan.promoted = candidate.Name, true
	for i := range pods {
		if p := &pods[i]; p.Name != candidate.Name {
			plan.writes = append(plan.writes, roleWrite{pod: p, role: webappv1.RoleStandby, touch: true})
		}
	}
	plan.writes = append(plan.writes, roleWrite{pod: candidate, role: webappv1.RoleActive, touch: true})
	return plan
}

// servable reports whether a pod may be (or stay) active: not being deleted, not finished, and Ready.
func servable(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// downSince is when a pod that is not servable stopped serving: the start of its graceful deletion, else the
// last transition of its Ready condition; zero when neither is known.
func downSince(p *corev1.Pod) time.Time {
	if p.DeletionTimestamp != nil {
		t := p.DeletionTimestamp.Time
		if p.DeletionGracePeriodSeconds != nil {
			t = t.Add(-time.Duration(*p.DeletionGracePeriodSeconds) * time.Second)
		}
		return t
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status != corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// olderFirst orders pods by creation time, then by name.
func olderFirst(a, b *corev1.Pod) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}
